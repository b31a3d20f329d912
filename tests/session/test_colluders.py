"""Two colluders cannot fork the table (issue #33 item 2, SPEC §5.7 "Many cheaters").

Seat B holds colluder A's key, signs a second COMMIT for A and names it, in its own
acknowledgement, to one honest peer only (the ways are listed in tests/session/colluders.py).
Protocol 5's late-proof rule assumed one cheater: the victim split the round (A forfeits)
while the others applied it, then the victim waited forever and the others voted it out
(issue 33; reproduced on protocol 6 before this rule).  Now, in 4- and 5-seat tables, every
honest peer ends with the same history, nobody honest is blamed or dropped, A is convicted
everywhere and B wherever its two acknowledgements can meet, and no honest peer ever decides
a step again (only the victim's undecided step is taken back).  Simulated network, virtual
time, links in order, seeded jitter across links."""

from __future__ import annotations

import collections
import itertools

import pytest

from lanTag.log.chain import EntryKind, parse_log
from lanTag.rules.base import FORFEIT, Joint, Simultaneous
from lanTag.session.messages import MsgType
from lanTag.session.round_evidence import (
    acknowledgements,
    conflicting_acks,
    naming,
    vector_family,
)
from lanTag.session.steps import round_digest
from tests.session.colluders import BYSTANDER, ROUND_VARIANTS, VARIANTS, WHEN, Outcome, play
from tests.session.test_round_acks import _commit, _have, _reveal, _signed

CASES = [
    (variant, when)
    for variant in VARIANTS
    for when in (WHEN if variant in ROUND_VARIANTS else ("ack",))
]


def _check(out: Outcome) -> None:
    """What every honest peer ends with: the same finished, valid history; blames and drops
    of the colluders only; A convicted; no decided step decided again."""
    a, b, step = out.cheat.a, out.cheat.b, out.cheat.step
    assert step is not None, "the cheat never found its round"
    colluders = {a, b}
    finals = set()
    for i in out.honest:
        s = out.sessions[i]
        assert s.state.is_over, i
        finals.add(s.state.state_hash())
        report = out.reports[i]
        assert report.valid and report.complete, (i, report.failure)
        assert {seat for seat, *_ in report.blames} <= colluders, (i, report.blames)
        blames = out.blames(i)
        assert {seat for seat, _code in blames} <= colluders, (i, blames)
        assert (a, "equivocation") in blames, (i, blames)
        for _at, seats in out.drops(i):
            assert not set(seats) - colluders, (i, out.drops(i))
        # A decided step is never decided again: a round another honest peer applied
        # stands (SPEC §5.7); only a victim's undecided step is taken back.
        decided = collections.Counter(
            e.step for e in parse_log(out.logs[i]).entries if e.kind is EntryKind.STEP
        )
        assert max(decided.values()) == 1, (i, decided)
    assert len(finals) == 1
    histories = {tuple((x.step, x.state_hash) for x in out.reports[i].applied) for i in out.honest}
    assert len(histories) == 1
    joint = next(x.input for x in out.reports[out.honest[0]].applied if x.step == step)
    assert isinstance(joint, Joint)
    if out.cheat.when == "ack" and joint.of(a) != FORFEIT:
        # Every honest peer took A's first COMMIT: the round stands with it, and B, which
        # named the second to the victim and the first to the others, is convicted too.
        for i in out.honest:
            assert (b, "equivocation") in out.blames(i), (i, out.blames(i))


@pytest.mark.parametrize("last", [False, True], ids=["mid-game", "last-step"])
@pytest.mark.parametrize(("variant", "when"), CASES)
@pytest.mark.parametrize("humans", [4, 5])
def test_two_colluders_end_in_one_history_with_no_honest_seat_blamed(
    humans: int, variant: str, when: str, last: bool
) -> None:
    for seed, victim in itertools.product(range(3), (0, 1)):
        out = play(humans, variant, when, seed, victim=victim, last=last)
        try:
            _check(out)
        except AssertionError as exc:
            raise AssertionError(f"seed {seed} victim {victim}: {exc}") from exc


def test_the_round_stands_when_every_honest_peer_took_the_first_commit() -> None:
    # The run: the victim took A's first COMMIT, then got B's acknowledgement of a
    # second one.  The round stands everywhere with A's first choice; B's two
    # acknowledgements met at the victim, a proof sent to everyone.
    out = play(4, "have", "ack", 0)
    _check(out)
    a, b = out.cheat.a, out.cheat.b
    for i in out.honest:
        joint = next(x.input for x in out.reports[i].applied if x.step == out.cheat.step)
        assert isinstance(joint, Joint) and joint.of(a) != FORFEIT
        assert joint.of(b) != FORFEIT
        assert (b, "equivocation") in out.blames(i)
        reasons = [r for s, _k, c, r in out.reports[i].blames if s == b]
        assert any(f"named two versions of seat {a}'s COMMIT" in r for r in reasons), reasons


def test_a_victim_that_took_the_second_commit_splits_the_round_with_everyone() -> None:
    # A's second COMMIT beat its first to the victim: the honest peers hold different
    # versions and name different vectors, so nobody can apply the round; all split it and
    # A forfeits everywhere (SPEC §5.7), whatever B named.
    forfeits = 0
    for seed in range(6):
        out = play(4, "have", "commit", seed)
        _check(out)
        victim = out.sessions[out.cheat.victim]
        took = victim._box(out.cheat.step or 0).dropped_commits.get(out.cheat.a)
        if took is not None and out.cheat.second is not None and took.raw == out.cheat.second.raw:
            joint = next(x.input for x in out.reports[0].applied if x.step == out.cheat.step)
            assert isinstance(joint, Joint) and joint.of(out.cheat.a) == FORFEIT
            forfeits += 1
    assert forfeits > 0  # the order this test is about did occur


def test_bystander_variants_are_made_by_a_seat_outside_the_round() -> None:
    # "grow" and "swap" are made by a seat outside the round (its only acknowledgement a
    # round HAVE); the others by a seat of it (its REVEAL names a vector).
    for variant in VARIANTS:
        out = play(4, variant, "ack", 0)
        state = out.sessions[0].state_at(out.cheat.step or 0)
        assert state is not None
        decision = state.decision()
        assert isinstance(decision, Simultaneous)
        assert (out.cheat.b not in decision.seats) is BYSTANDER[variant], variant
        assert out.cheat.a in decision.seats


# ------------------------------------------------------------------ the evidence itself

COMMITS = {0: _commit(0, b"a"), 1: _commit(1, b"b"), 2: _commit(2, b"c")}
OTHER = _commit(2, b"c-other")
DIGESTS = {s: c.digest for s, c in COMMITS.items()}


def test_a_family_holds_the_live_vector_and_those_with_dropped_seats() -> None:
    live = {0, 1}
    family = vector_family(DIGESTS, live)
    assert family == {round_digest({0: DIGESTS[0], 1: DIGESTS[1]}), round_digest(DIGESTS)}
    assert vector_family(DIGESTS, live, must=2) == {round_digest(DIGESTS)}
    assert vector_family(DIGESTS, {0, 1, 2}) == {round_digest(DIGESTS)}


def test_acknowledgements_name_a_reveal_vector_and_each_digest_of_a_round_have() -> None:
    v, w = round_digest(DIGESTS), round_digest({**DIGESTS, 2: OTHER.digest})
    have = _have(1, [v, w])
    reveal = _reveal(1, v)
    other_have = _signed(1, MsgType.HAVE, (0, [COMMITS[0].digest]))  # a seat's, no vector
    acks = acknowledgements([have, reveal, other_have])
    assert [(vec, m.type) for vec, m in acks] == [
        (v, MsgType.HAVE),
        (w, MsgType.HAVE),
        (v, MsgType.REVEAL),
    ]
    assert naming(acks, {v}) == [have, reveal]


def test_two_versions_of_one_commit_in_one_signers_acknowledgements_are_a_proof() -> None:
    ours = vector_family(DIGESTS, {0, 1, 2}, must=2)
    swapped = vector_family({**DIGESTS, 2: OTHER.digest}, {0, 1, 2}, must=2)
    v, w = next(iter(ours)), next(iter(swapped))
    reveal, have = _reveal(1, v), _have(1, [w])
    assert conflicting_acks(acknowledgements([reveal, have]), ours, swapped) == (reveal, have)
    grown = _have(1, [v, w])  # one HAVE naming both is its own proof
    assert conflicting_acks(acknowledgements([grown]), ours, swapped) == (grown, grown)
    assert conflicting_acks(acknowledgements([reveal]), ours, swapped) is None
    assert conflicting_acks(acknowledgements([have]), ours, swapped) is None
    # A vector without the equivocator says nothing about which version its signer took.
    without = round_digest({0: DIGESTS[0], 1: DIGESTS[1]})
    assert conflicting_acks(acknowledgements([_have(1, [without, w])]), ours, swapped) is None
