"""Protocol 1 convicted nobody for a bad REVEAL (SPEC §4.4, "What each protocol brought"):
its peers blamed the seat and took its default choice, and the seat played on.  Protocol 2
brought the conviction and the forfeit.  A protocol-1 log replays by protocol 1's rule, so a
log an honest protocol-1 peer wrote at a cheater's table verifies (before, the replay
convicted and forfeited, and refused it)."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.fair.commit import commitment
from lanTag.log.verify import verify_log
from lanTag.rules.base import FORFEIT, Action
from lanTag.session import events as ev
from lanTag.session.messages import MsgType, pack_bundle, sign_message
from lanTag.wire import pack
from tests.session.harness import SimNet, addr_of, make_record, make_sessions, reveal_payload

DEFAULT = Action("guess", (0,))  # the toy engine's default at a guess


@pytest.mark.parametrize(
    ("protocol", "committed", "revealed"),
    [
        (1, ["guess", 1], ["guess", 2]),  # does not open its commitment
        (1, ["guess", 7], ["guess", 7]),  # opens, to a guess the rules forbid
        (2, ["guess", 1], ["guess", 2]),  # protocol 2: the conviction, the forfeit
    ],
    ids=["1-does-not-open", "1-illegal", "2-does-not-open"],
)
def test_a_bad_reveal_is_judged_by_the_rule_of_its_games_protocol(
    protocol: int, committed: list[object], revealed: list[object]
) -> None:
    record, ids, secrets = make_record("toy", 3, seed="protocol-1-reveal")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=11)
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))  # toy step 1: secret guess
    net.silent.add(2)  # seat 2's process is replaced by a cheater
    cheat = sessions[2]
    step, h = 1, cheat.state.state_hash()
    nonce = bytes(range(32))
    sealed = commitment(cheat.game_id, step, 2, "guess", nonce, pack(committed))
    signer = ids[2].signer()
    c = sign_message(signer, MsgType.COMMIT, cheat.game_id, step, 2, h, (sealed,), protocol)
    for s in (0, 1):
        sessions[s].receive_datagram(pack_bundle([c.raw]), addr_of(2), net.now)
    net.run_until(
        lambda: all(len(sessions[s].inbox.boxes[1].of(MsgType.COMMIT)) == 3 for s in (0, 1))
    )
    link = cheat._chain.reveal(cheat.history[-1].chain_used[2] + 1)  # type: ignore[union-attr]
    payload = reveal_payload(sessions, step, revealed, nonce, link, {2: c})
    r = sign_message(signer, MsgType.REVEAL, cheat.game_id, step, 2, h, payload, protocol)
    for s in (0, 1):
        sessions[s].receive_datagram(pack_bundle([r.raw]), addr_of(2), net.now)
    net.run_until(lambda: sessions[0].step > 1 and sessions[1].step > 1)
    net.collect()
    code = "bad-reveal" if committed != revealed else "illegal-action"
    for s in (0, 1):
        events = net.events.get(s, [])
        assert (2, 1, code) in [(e.seat, e.step, e.code) for e in events if isinstance(e, ev.Blame)]
        applied = next(e for e in events if isinstance(e, ev.StepApplied) and e.step == 1)
        dropped = [(e.step, e.seats) for e in events if isinstance(e, ev.SeatsDropped)]
        if protocol == 1:
            assert applied.input.of(2) == DEFAULT  # blamed; its default, and it plays on
            assert dropped == [] and 2 in sessions[s].live
        else:
            assert applied.input.of(2) == FORFEIT
            assert dropped == [(1, (2,))] and 2 not in sessions[s].live
        report = verify_log(sessions[s].take_log())  # and the replay agrees
        assert report.valid, report.failure
        assert (2, 1, code) in [(seat, k, c) for seat, k, c, _r in report.blames]
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()


@pytest.mark.parametrize("protocol", [1, 2])
def test_an_equivocator_at_a_secret_step_takes_its_default_in_protocol_1(protocol: int) -> None:
    # Two COMMIT+REVEAL pairs, one to each honest peer: they meet (an equivocation), and the
    # seat is dropped at that step by both lanes of every peer; protocol 1 took its default
    # for the round, protocol 2 on its forfeit.
    record, ids, secrets = make_record("toy", 3, seed="protocol-1-equivocation")
    sessions = make_sessions(dataclasses.replace(record, protocol=protocol), ids, secrets)
    net = SimNet(sessions, seed=11)
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(2)
    cheat = sessions[2]
    step, h = 1, cheat.state.state_hash()
    link = cheat._chain.reveal(cheat.history[-1].chain_used[2] + 1)  # type: ignore[union-attr]
    signer = ids[2].signer()
    for victim, guess in ((0, 1), (1, 2)):
        nonce = bytes([guess]) * 32
        sealed = commitment(cheat.game_id, step, 2, "guess", nonce, pack(["guess", guess]))
        c = sign_message(signer, MsgType.COMMIT, cheat.game_id, step, 2, h, (sealed,), protocol)
        payload = reveal_payload(sessions, step, ["guess", guess], nonce, link, {2: c})
        r = sign_message(signer, MsgType.REVEAL, cheat.game_id, step, 2, h, payload, protocol)
        sessions[victim].receive_datagram(pack_bundle([c.raw, r.raw]), addr_of(2), net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    net.collect()
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for s in (0, 1):
        events = net.events.get(s, [])
        assert (2, "equivocation") in [(e.seat, e.code) for e in events if isinstance(e, ev.Blame)]
        assert [(e.step, e.seats) for e in events if isinstance(e, ev.SeatsDropped)] == [(1, (2,))]
        applied = [e for e in events if isinstance(e, ev.StepApplied) and e.step == 1][-1]
        assert applied.input.of(2) == (DEFAULT if protocol == 1 else FORFEIT)
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure
