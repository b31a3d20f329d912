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

from lanTag.fair.commit import commitment
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import FORFEIT, Joint, Simultaneous
from lanTag.session import events as ev
from lanTag.session.messages import MsgType, Signed, pack_bundle, sign_message
from lanTag.session.round_evidence import (
    acknowledgements,
    conflicting_acks,
    naming,
    vector_family,
)
from lanTag.session.steps import ROUND_SUBJECT, round_digest
from lanTag.wire import pack
from tests.session.colluders import (
    BYSTANDER,
    ROUND_VARIANTS,
    VARIANTS,
    WHEN,
    OrderedNet,
    Outcome,
    play,
)
from tests.session.harness import addr_of, make_record, make_sessions, two_versions
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
        # The verifier, replaying the log, finds the same convictions the peer made.
        assert {(seat, code) for seat, _k, code, _r in report.blames} == blames, i
        for _at, seats in out.drops(i):
            assert not set(seats) - colluders, (i, out.drops(i))
        # A decided step is never decided again: a round another honest peer applied
        # stands (SPEC §5.7); only a victim's undecided step is taken back.
        decided = collections.Counter(
            e.step for e in parse_log(out.logs[i]).entries if e.kind is EntryKind.STEP
        )
        assert max(decided.values()) == 1, (i, decided)
    assert len(finals) == 1
    convicted = set.intersection(
        *({seat for seat, code in out.blames(i) if code == "equivocation"} for i in out.honest)
    )
    if not out.last:
        # ... and every seat convicted at every honest peer is voted out or dropped.
        for i in out.honest:
            assert convicted <= {s for _k, seats in out.drops(i) for s in seats}, i
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
        named = [r for r in reasons if f"named two versions of seat {a}'s COMMIT" in r]
        assert len(named) == 1, reasons  # one proof, one conviction


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


# ------------------------------------------------------------------ one cheater, one crash


def test_a_split_shown_by_a_seat_that_fell_silent_is_taken_by_every_peer() -> None:
    # Seat 3 signs two COMMITs: the first to seats 0 and 1, the second to seat 2, an honest
    # peer, which names it in its REVEAL, to seat 1 only (its link to seat 0 is down), then
    # dies.  Seat 1 holds the proof and seat 2's REVEAL: the round is split.  Seat 0 never
    # heard seat 2; once seat 2 is voted out it could apply the round with the first COMMIT,
    # but seat 1 sent it what showed the split before anything else: both split, one history.
    record, ids, secrets = make_record("toy", 4, seed="shown")
    sessions = make_sessions(record, ids, secrets)
    net = OrderedNet(sessions, seed=2)
    cheat, silent, shown_to = 3, 2, 1
    net.hold_secret.add(cheat)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(cheat)
    net.run_until(lambda: all(len(sessions[i]._box(1).of(MsgType.COMMIT)) == 3 for i in range(3)))
    versions = two_versions(sessions, ids[cheat].signer(), cheat, 1, {0: 1, silent: 2})
    first, second = versions[0], versions[silent]
    net.drop_to[silent] = {0}
    for victim, (commit, reveal) in ((0, first), (shown_to, first), (silent, second)):
        sessions[victim].receive_datagram(
            pack_bundle([commit.raw, reveal.raw]), addr_of(cheat), net.now
        )
    sessions[shown_to].receive_datagram(pack_bundle([second[0].raw]), addr_of(cheat), net.now)
    ack = (silent, (1, int(MsgType.REVEAL), 0, sessions[silent].state.state_hash()))
    net.run_until(lambda: ack in sessions[shown_to].inbox.slots)
    net.silent.add(silent)
    # Shown, not pulled: seat 0 holds it a few one-way delays later, long before it would
    # nudge for seat 2 (lag 1 s) and get it in seat 1's relay.
    start = net.now
    net.run_until(lambda: ack in sessions[0].inbox.slots)
    assert net.now - start < 10 * net.delay, net.now - start
    net.run(max_time=net.now + 600)
    honest = [0, shown_to]
    assert all(sessions[i].state.is_over for i in honest)
    assert len({sessions[i].state.state_hash() for i in honest}) == 1
    for i in honest:
        blames = {(e.seat, e.code) for e in net.events.get(i, []) if isinstance(e, ev.Blame)}
        assert (cheat, "equivocation") in blames and {s for s, _ in blames} <= {cheat, silent}
        assert (silent, "equivocation") not in blames, blames  # fell silent: no liar
        joint = next(x.input for x in verify_log(sessions[i].take_log()).applied if x.step == 1)
        assert isinstance(joint, Joint) and joint.of(cheat) == FORFEIT


def test_a_late_proof_is_judged_once_the_last_commitment_is_in() -> None:
    # Everything that shows seat 2's round split reaches seat 0 before seat 3's COMMIT, the
    # last one: the proof of seat 2's two COMMITs, seat 4's round HAVE naming the second one,
    # the REVEALs.  Nothing comes after that COMMIT, and the round is judged all the same.
    record, ids, secrets = make_record("toy", 5, options=(("guessers", 4),), seed="judge")
    sessions = make_sessions(record, ids, secrets)
    net = OrderedNet(sessions, seed=4)
    net.hold_secret.update(range(5))
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.update({1, 2, 3, 4})
    p = sessions[0]
    p.commit(p.state.legal_actions(0)[0], bytes(32), net.now)
    h = p.state.state_hash()

    def signed(seat: int, kind: MsgType, payload: tuple[object, ...]) -> Signed:
        return sign_message(ids[seat].signer(), kind, p.game_id, 1, seat, h, payload)

    def pair(seat: int, guess: int, nonce: bytes) -> tuple[Signed, tuple[object, ...]]:
        value = pack(["guess", guess])
        sealed = commitment(p.game_id, 1, seat, "guess", nonce, value)
        chain = sessions[seat]._chain
        assert chain is not None
        link = chain.reveal(p.history[-1].chain_used[seat] + 1)
        return signed(seat, MsgType.COMMIT, (sealed,)), (["guess", guess], nonce, link)

    c1, r1 = pair(1, 1, bytes([1]) * 32)
    a1, ra = pair(2, 2, bytes([2]) * 32)
    a2, _ = pair(2, 0, bytes([3]) * 32)
    d, rd = pair(3, 1, bytes([4]) * 32)
    mine = p._box(1).of(MsgType.COMMIT)[0]
    digests = {0: mine.digest, 1: c1.digest, 2: a1.digest, 3: d.digest}
    ours, other = round_digest(digests), round_digest({**digests, 2: a2.digest})
    before = [
        c1,
        a1,
        a2,
        signed(4, MsgType.HAVE, (ROUND_SUBJECT, [other])),
        signed(1, MsgType.REVEAL, (*r1, ours)),
        signed(2, MsgType.REVEAL, (*ra, ours)),
        signed(3, MsgType.REVEAL, (*rd, ours)),
    ]
    for msg in before:
        p.receive_datagram(pack_bundle([msg.raw]), addr_of(msg.seat), net.now)
    # seat 3's commitment is missing: not judged
    assert p.late.commits and not p.convictions.splits
    p.receive_datagram(pack_bundle([d.raw]), addr_of(3), net.now)
    assert (2, 1) in p.convictions.splits and p.convictions.banned.get(2) == 1


def test_the_equivocator_naming_its_two_versions_is_one_cheat() -> None:
    # Seat 2 names the vector of its first COMMIT in its REVEAL and, to seat 0, the vector of
    # its second one in a round HAVE: the same equivocation as its two COMMITs (convicted
    # for those), not conflicting acknowledgements of another seat's COMMIT.
    record, ids, secrets = make_record("toy", 3, seed="one-cheat")
    sessions = make_sessions(record, ids, secrets)
    net = OrderedNet(sessions, seed=1)
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(2)
    net.run_until(lambda: all(len(sessions[i]._box(1).of(MsgType.COMMIT)) == 2 for i in (0, 1)))
    versions = two_versions(sessions, ids[2].signer(), 2, 1, {0: 1, 1: 2})
    (a1, r1), (a2, _r2) = versions[0], versions[1]
    h = sessions[0].state.state_hash()
    digests = {s: c.digest for s, c in sessions[0]._box(1).of(MsgType.COMMIT).items()}
    other = round_digest({**digests, 2: a2.digest})
    have = sign_message(
        ids[2].signer(), MsgType.HAVE, sessions[0].game_id, 1, 2, h, (ROUND_SUBJECT, [other])
    )
    for i, msgs in ((0, [a1, r1, a2, have]), (1, [a1, r1])):
        sessions[i].receive_datagram(pack_bundle([m.raw for m in msgs]), addr_of(2), net.now)
    net.run(max_time=net.now + 600)
    assert all(sessions[i].state.is_over for i in (0, 1))
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    reasons = [e.reason for e in net.events.get(0, []) if isinstance(e, ev.Blame) and e.seat == 2]
    assert "two different COMMIT for step 1" in reasons
    assert not [r for r in reasons if "named two versions" in r], reasons


def test_a_seat_proven_during_its_round_still_reveals_there() -> None:
    # Seat 3 names the first vector in a round HAVE to seat 0 and the second (with seat 2's
    # other COMMIT) to seat 1, and sends its REVEAL only once both hold the proof: it is
    # convicted during the round, yet its REVEAL there is its choice like anyone's (voted
    # out from the next step on, not refused at once: the round would wait for good).
    game = (("rounds", 1), ("turns", 0))  # the round ends the game (the colluders stay mute)
    record, ids, secrets = make_record("toy", 4, options=game, seed="reveals")
    sessions = make_sessions(record, ids, secrets)
    net = OrderedNet(sessions, seed=6)
    net.hold_secret.update({2, 3})
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.update({2, 3})
    net.run_until(lambda: all(len(sessions[i]._box(1).of(MsgType.COMMIT)) == 2 for i in (0, 1)))
    p = sessions[0]
    h = p.state.state_hash()

    def signed(seat: int, kind: MsgType, payload: tuple[object, ...]) -> Signed:
        return sign_message(ids[seat].signer(), kind, p.game_id, 1, seat, h, payload)

    def pair(seat: int, guess: int, nonce: bytes) -> tuple[Signed, tuple[object, ...]]:
        sealed = commitment(p.game_id, 1, seat, "guess", nonce, pack(["guess", guess]))
        chain = sessions[seat]._chain
        assert chain is not None
        link = chain.reveal(p.history[-1].chain_used[seat] + 1)
        return signed(seat, MsgType.COMMIT, (sealed,)), (["guess", guess], nonce, link)

    a1, ra = pair(2, 1, bytes([2]) * 32)
    a2, _ = pair(2, 2, bytes([3]) * 32)
    b, rb = pair(3, 0, bytes([4]) * 32)
    digests = {s: c.digest for s, c in p._box(1).of(MsgType.COMMIT).items()}
    digests.update({2: a1.digest, 3: b.digest})
    ours, other = round_digest(digests), round_digest({**digests, 2: a2.digest})
    for i, extra in ((0, [signed(3, MsgType.HAVE, (ROUND_SUBJECT, [ours]))]),
                     (1, [a2, signed(3, MsgType.HAVE, (ROUND_SUBJECT, [other]))])):  # fmt: skip
        msgs = [a1, b, signed(2, MsgType.REVEAL, (*ra, ours)), *extra]
        sessions[i].receive_datagram(pack_bundle([m.raw for m in msgs]), addr_of(3), net.now)
    net.run_until(lambda: all((3, 1) in sessions[i].late.acks_proven for i in (0, 1)))
    reveal = signed(3, MsgType.REVEAL, (*rb, ours))
    for i in (0, 1):
        assert sessions[i].step == 1 and 3 not in sessions[i].convictions.contradicted, i
        sessions[i].receive_datagram(pack_bundle([reveal.raw]), addr_of(3), net.now)
    net.run(max_time=net.now + 600)
    for i in (0, 1):
        s = sessions[i]
        assert s.state.is_over, i
        joint = next(x.input for x in verify_log(s.take_log()).applied if x.step == 1)
        assert isinstance(joint, Joint) and joint.of(3) != FORFEIT and joint.of(2) != FORFEIT
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()


def test_beyond_the_bound_the_table_stalls_and_never_splits() -> None:
    # Three of five seats withhold their COMMITs together: the two honest seats are fewer
    # than half of the live ones, so no drop can form (SPEC §5.4, §5.8 the bound).  They wait
    # at that step, both, blaming and dropping nobody; their logs verify (incomplete).
    record, ids, secrets = make_record("toy", 5, seed="bound")
    sessions = make_sessions(record, ids, secrets)
    net = OrderedNet(sessions, seed=3)
    cheaters = {2, 3, 4}
    net.hold_secret.update(cheaters)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.update(cheaters)
    net.run(max_time=net.now + 3600)
    for i in (0, 1):
        s = sessions[i]
        assert s.step == 1 and not s.state.is_over, i
        events = net.events.get(i, [])
        assert not [e for e in events if isinstance(e, ev.Blame | ev.SeatsDropped)], i
        votes = [m for m in s.inbox.slots.values() if m.type is MsgType.VOTE and m.seat == i]
        assert votes and all(set(v.payload[0]) <= cheaters for v in votes), i
        report = verify_log(s.take_log())
        assert report.valid and not report.complete, report.failure
