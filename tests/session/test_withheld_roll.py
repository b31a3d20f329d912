"""A roll withheld by the seat it is for is that seat's forfeit roll (protocol 6, SPEC §5.5;
issue #38 item 1), on the simulated network with a real engine (3-seat Prototag): the seat
that withholds its link of its own move roll whenever the roll without it has more pips is
dropped there, and every honest peer applies the engine's withheld roll (a 1), blames it
`withheld`, records the withheld seat in the STEP entry, and its log verifies, with the
rules and without them; a verifier and the replay derive the same roll."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.inspect import RollDetail, describe
from lanTag.log.verify import verify_log
from lanTag.rules.base import Chance, Roll
from lanTag.session import events as ev
from lanTag.session.handback import HANDBACK_LIMIT
from lanTag.session.lockstep import Session
from lanTag.ui.replay_model import ReplayModel
from tests.session.harness import SimNet, make_record, make_sessions
from tests.support.no_engines import no_engines
from tests.support.withholder import Withholder, own_pips

CHEAT = 2
HONEST = (0, 1)


def _events(net: SimNet, seat: int, kind: type) -> list:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, kind)]


def _table(seed: str, protocol: int | None = None) -> tuple[list[Session], SimNet]:
    record, ids, secrets = make_record("prototag", 3, options=(("end_steps", 24),), seed=seed)
    if protocol is not None:
        record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    return sessions, SimNet(sessions, seed=5)


def _played(seed: str, protocol: int | None = None, **cheat: bool) -> tuple[
    list[Session], SimNet, Withholder
]:
    sessions, net = _table(seed, protocol)
    withholder = Withholder(sessions[CHEAT], gain=own_pips, **cheat)
    net.run()
    assert net.all_over()
    return sessions, net, withholder


@pytest.mark.parametrize("leave", [False, True], ids=["silent", "leave"])
def test_a_withheld_own_roll_is_the_forfeit_roll_at_every_honest_peer(leave: bool) -> None:
    sessions, net, cheat = _played("own-roll-1", leave=leave)
    withheld = [c for c in cheat.choices if c.withheld]
    assert withheld, "the cheat never withheld: the test proves nothing"
    assert len(withheld) <= HANDBACK_LIMIT + 1
    assert len({s.state.state_hash() for i, s in enumerate(sessions) if i in HONEST}) == 1
    logs = {i: sessions[i].take_log() for i in HONEST}
    for i in HONEST:
        s = sessions[i]
        applied = {a.step: a for a in _events(net, i, ev.StepApplied)}
        for choice in withheld:
            state = s.history[choice.step].state
            assert state.roll_owners() == (CHEAT,)
            step = applied[choice.step]
            assert step.input == Roll(((1,),))  # its forfeit: the lowest face, not a draw
            assert step.input != choice.without or choice.without == Roll(((1,),))
            assert step.withheld_now == frozenset({CHEAT})
            assert step.facts[2:] == ([CHEAT],)  # the STEP entry names the withheld seat
        # Its rolls at which nobody was dropped are drawn as always: no withheld fact.
        kept = [c for c in cheat.choices if not c.withheld]
        assert kept and all(applied[c.step].input == c.with_link for c in kept)
        assert all(len(applied[c.step].facts) == 2 for c in kept)
        blames = [(b.seat, b.step, b.code) for b in _events(net, i, ev.Blame)]
        assert blames == [(CHEAT, c.step, "withheld") for c in withheld], (i, blames)
        report = verify_log(logs[i])
        assert report.valid and report.complete, report.failure
        assert [(b[0], b[1], b[2]) for b in report.blames] == blames
        with no_engines():  # the rules as the log records them (SPEC §9.2)
            blind = verify_log(logs[i])
        assert blind.valid and not blind.replayed, blind.failure
    # The replay's fairness panel derives the same roll as the verifier, and says why.
    model = ReplayModel(logs[0], verify_log(logs[0]))
    shown = [d for d in model.details if isinstance(d, RollDetail) and d.withheld]
    assert [d.step for d in shown] == [c.step for c in withheld]
    assert all(d.ok for d in model.details if d is not None)
    text = "\n".join(describe(shown[0]))
    assert "withheld their own roll" in text and "✗" not in text


def test_an_aware_withholder_never_withholds_its_prototag_roll() -> None:
    """An attacker that knows the rule sees that the roll without its link is a 1: it never
    pays to withhold, so it plays every roll of its own."""
    _sessions, net, cheat = _played("aware", aware=True)
    assert cheat.choices and not any(c.withheld for c in cheat.choices)
    own = [c for c in cheat.choices if c.seats == (CHEAT,)]
    assert own and all(c.without == Roll(((1,),)) for c in own)
    for i in HONEST:
        assert not _events(net, i, ev.Blame) and not _events(net, i, ev.SeatsDropped)


def test_protocol_5_still_draws_a_withheld_roll_without_its_link() -> None:
    """Older games keep their rule: the roll is drawn from the remaining links."""
    sessions, net, cheat = _played("p5-roll", protocol=5)
    withheld = [c for c in cheat.choices if c.withheld]
    assert withheld
    applied = {a.step: a for a in _events(net, 0, ev.StepApplied)}
    for choice in withheld:
        assert applied[choice.step].input == choice.without
        assert len(applied[choice.step].facts) == 2
    assert verify_log(sessions[0].take_log()).valid


def test_a_roll_that_is_nobodys_is_still_drawn_without_the_dropped_link() -> None:
    """Prototag's start throw with first_tagged=random only picks who moves first: nobody's
    roll.  A seat dropped there is drawn without, as before."""
    record, ids, secrets = make_record(
        "prototag", 3, options=(("first_tagged", "random"),), seed="nobody"
    )
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.silent.add(CHEAT)  # silent from the start: dropped at the start throw
    net.run_until(lambda: not isinstance(sessions[0].state.decision(), Chance) or
                  CHEAT not in sessions[0].live)  # fmt: skip
    net.run_until(lambda: sessions[0].step > 0)
    [step0] = [a for a in _events(net, 0, ev.StepApplied) if a.step == 0]
    assert step0.dropped_now == frozenset({CHEAT})
    assert sessions[0].history[0].state.roll_owners() == ()
    assert step0.withheld_now == frozenset() and len(step0.facts) == 2


def test_the_log_names_the_withheld_roll_in_its_step_entry() -> None:
    sessions, _net, cheat = _played("entry")
    steps = {c.step for c in cheat.choices if c.withheld}
    assert steps
    entries = parse_log(sessions[0].take_log()).entries
    withheld = [e for e in entries if e.kind == EntryKind.STEP and len(e.data) == 5]
    assert [e.step for e in withheld] == sorted(steps)
    assert all(e.data[4] == [CHEAT] and e.data[0] == [2, [[1]]] for e in withheld)


def test_the_blame_says_the_roll_was_its_own() -> None:
    _sessions, net, cheat = _played("own-roll-1")
    steps = [c.step for c in cheat.choices if c.withheld]
    reasons = [b.reason for b in _events(net, 0, ev.Blame)]
    assert reasons == [f"withheld its own roll at step {k}: its withheld roll" for k in steps]
