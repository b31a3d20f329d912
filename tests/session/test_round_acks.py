"""Protocol 6's round acknowledgement (SPEC §4.4) as a rule: which seats named the vector of
commitments we hold, on our state, in a REVEAL or a round HAVE."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from lanTag.fair.commit import commitment
from lanTag.identity import Identity
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, pack_bundle, parse_unverified, sign_message
from lanTag.session.sealed_choices import SealedChoices
from lanTag.session.steps import (
    ROUND_SUBJECT,
    round_digest,
    round_named,
    unacknowledged,
    unacknowledged_round,
)
from lanTag.wire import pack
from tests.session.harness import SimNet, addr_of, make_record, make_sessions, two_versions

GAME, STEP = bytes(32), 7
OURS, OTHER = hashlib.sha256(b"our state").digest(), hashlib.sha256(b"another").digest()
KEYS = [Identity(hashlib.sha256(b"round acks %d" % i).digest()) for i in range(4)]


def _signed(seat: int, kind: MsgType, payload: tuple[object, ...], state: bytes = OURS) -> Signed:
    return sign_message(KEYS[seat].signer(), kind, GAME, STEP, seat, state, payload)


def _commit(seat: int, value: bytes) -> Signed:
    return _signed(seat, MsgType.COMMIT, (hashlib.sha256(value).digest(),))


def _have(seat: int, vectors: list[bytes], state: bytes = OURS) -> Signed:
    return _signed(seat, MsgType.HAVE, (ROUND_SUBJECT, vectors), state)


def _reveal(seat: int, vector: bytes) -> Signed:
    return _signed(seat, MsgType.REVEAL, (["guess", 1], bytes(32), bytes(32), vector))


def _claims(
    haves: dict[int, dict[int, Signed]], reveals: dict[int, Signed], seats: Iterable[int]
) -> dict[int, set[bytes]]:
    return {v: round_named(v, haves, reveals, OURS) for v in seats}


COMMITS = {0: _commit(0, b"a"), 1: _commit(1, b"b")}
VECTOR = round_digest({s: c.digest for s, c in COMMITS.items()})


def test_the_vector_is_of_seats_and_digests_in_seat_order() -> None:
    digests = {s: c.digest for s, c in COMMITS.items()}
    assert round_digest(dict(reversed(digests.items()))) == VECTOR
    assert round_digest({0: digests[1], 1: digests[0]}) != VECTOR  # who committed what
    assert round_digest({2: digests[0], 1: digests[1]}) != VECTOR  # the seat is hashed too
    assert round_digest({0: digests[0]}) != VECTOR


def test_a_seat_acknowledges_by_its_reveal_or_its_round_have_on_our_state() -> None:
    haves = {ROUND_SUBJECT: {2: _have(2, [VECTOR]), 3: _have(3, [VECTOR], OTHER)}}
    reveals = {0: _reveal(0, VECTOR), 1: _reveal(1, bytes(32))}
    assert round_named(2, haves, reveals, OURS) == {VECTOR}
    assert round_named(3, haves, reveals, OURS) == set()  # another history: a claim, not ours
    assert round_named(0, haves, reveals, OURS) == {VECTOR}
    assert round_named(1, haves, reveals, OURS) == {bytes(32)}
    # Seat 1 named another vector, seat 3 ours on another state; seat 0 is us.
    claims = _claims(haves, reveals, range(4))
    assert unacknowledged_round({VECTOR}, claims, range(4), 0) == {1, 3}
    assert unacknowledged_round({VECTOR}, claims, range(4), None) == {1, 3}
    assert unacknowledged_round({VECTOR}, _claims({}, {}, range(4)), range(4), 0) == {1, 2, 3}
    assert unacknowledged_round({bytes(32), VECTOR}, claims, range(4), 0) == {3}


def test_a_round_have_that_grew_counts_for_each_vector_it_names() -> None:
    haves = {ROUND_SUBJECT: {2: _have(2, [bytes(32), VECTOR])}}
    assert unacknowledged_round({VECTOR}, _claims(haves, {}, [0, 2]), [0, 2], 0) == frozenset()


def test_the_protocol_decides_which_acknowledgements_count() -> None:
    # Protocol 6: the round's; protocol 5: a HAVE per commitment of another seat.
    round_haves = {ROUND_SUBJECT: {1: _have(1, [VECTOR]), 0: _have(0, [VECTOR])}}
    assert unacknowledged(6, COMMITS, round_haves, {}, [0, 1], 0, OURS) == frozenset()
    assert unacknowledged(5, COMMITS, round_haves, {}, [0, 1], 0, OURS) == {1}
    per_commit = {0: {1: _signed(1, MsgType.HAVE, (0, [COMMITS[0].digest]))}}
    assert unacknowledged(5, COMMITS, per_commit, {}, [0, 1], 0, OURS) == frozenset()
    assert unacknowledged(6, COMMITS, per_commit, {}, [0, 1], 0, OURS) == {1}


# ----------------------------------------------------------------- in a session (protocol 6)


def _two_commits(seed: str) -> tuple[list[Session], SimNet, list[int]]:
    """Toy table of 3; seat 2 signs COMMIT A + REVEAL A for seat 0 and B for seat 1 at the
    secret step (each opening, each naming the vector its victim holds).  Returns the
    sessions, the network, and how many COMMIT copies each honest session sent there."""
    record, ids, secrets = make_record("toy", 3, seed=seed)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=11)
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(2)
    copies = [0, 0]
    for i in (0, 1):
        send = sessions[i].journal.broadcast

        def counting(raws: list[bytes], send: Any = send, i: int = i) -> None:
            copies[i] += sum(
                1 for r in raws if (m := parse_unverified(r)).type is MsgType.COMMIT and m.seat != i
            )
            send(raws)

        sessions[i].journal.broadcast = counting  # type: ignore[method-assign]
    for victim, pair in two_versions(sessions, ids[2].signer(), 2, 1, {0: 1, 1: 2}).items():
        for msg in pair:
            sessions[victim].receive_datagram(pack_bundle([msg.raw]), addr_of(2), net.now)
    return sessions, net, copies


def test_two_commits_meet_within_message_delays_by_the_copies_a_mismatch_sends() -> None:
    # Each honest peer's REVEAL names its vector; the other holds another one and answers
    # with the COMMITs it holds: both hold the proof a few one-way delays later, long before
    # anyone would nudge (lag 1 s) or vote, and each sent its copies once, not per message.
    sessions, net, copies = _two_commits("meet")
    start = net.now
    net.run_until(lambda: all(s.proofs for s in sessions[:2]))
    assert net.now - start < 10 * net.delay, net.now - start
    net.run_until(lambda: all(s.state.is_over for s in sessions[:2]))
    for s in sessions[:2]:
        mine = [m for m in s.inbox.slots.values() if m.seat == s.seat and m.step == 1]
        assert not [m for m in mine if m.type in (MsgType.NUDGE, MsgType.VOTE)], s.seat
    # Pinned (a protocol count): each honest peer sent the others' COMMITs it holds (2)
    # once for the other's mismatched REVEAL, once more for its REVEAL after the drop changed
    # the vector, and the proof (the cheater's 2) on.  Sent per message instead: 9 each.
    assert copies == [6, 6], copies


def test_a_seat_names_at_most_eight_vectors_of_one_round() -> None:
    # A round HAVE's digest list holds 8 at most (SPEC §3): after 8 vectors of one round
    # (7 drops in it) a seat signs no ninth, it is waited for like a silent one.
    record, ids, secrets = make_record("toy", 3, options=(("guessers", 2),), seed="cap")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    net.run_until(lambda: all(len(s._box(1).of(MsgType.COMMIT)) == 2 for s in sessions))
    bystander = sessions[2]
    ours = bystander.state.state_hash()
    full = [hashlib.sha256(b"vector %d" % k).digest() for k in range(8)]
    have = sign_message(
        ids[2].signer(), MsgType.HAVE, bystander.game_id, 1, 2, ours, (ROUND_SUBJECT, full)
    )
    slot = (2, (1, int(MsgType.HAVE), ROUND_SUBJECT, ours))
    bystander.inbox.slots[slot] = have  # as if it had named 8 vectors of this round already
    before = len(bystander.journal.outbox)
    bystander.agreement.acknowledge_round(bystander._box(1), bystander.needs())
    assert bystander.inbox.slots[slot] is have and len(bystander.journal.outbox) == before


def test_a_late_proof_before_every_commitment_is_in_waits_to_judge_the_split() -> None:
    # Both COMMITs of seat 2 reach seat 0 while seat 3's is not in yet: whether the round is
    # split is decided once seat 0 can name the vectors (SPEC §5.7, protocol 6), then the
    # table goes on alike, only the cheater blamed.
    record, ids, secrets = make_record("toy", 4, seed="early-proof")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=7)
    net.hold_secret.update({2, 3})
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.run_until(lambda: all(len(s._box(1).of(MsgType.COMMIT)) == 2 for s in sessions))
    net.silent.add(2)
    cheat = sessions[2]
    h = cheat.state.state_hash()
    for guess in (1, 2):
        nonce = bytes([guess]) * 32
        sealed = commitment(cheat.game_id, 1, 2, "guess", nonce, pack(["guess", guess]))
        c = sign_message(ids[2].signer(), MsgType.COMMIT, cheat.game_id, 1, 2, h, (sealed,))
        sessions[0].receive_datagram(pack_bundle([c.raw]), addr_of(2), net.now)
    assert sessions[0].proofs and 3 not in sessions[0]._box(1).of(MsgType.COMMIT)
    net.hold_secret.clear()
    net.run(max_time=net.now + 600)
    honest = sessions[0], sessions[1], sessions[3]
    assert all(s.state.is_over for s in honest)
    assert len({s.state.state_hash() for s in honest}) == 1
    for i in (0, 1, 3):
        assert {e.seat for e in net.events[i] if isinstance(e, ev.Blame)} == {2}, i


def test_a_choice_recovered_after_a_restart_is_revealed_once_every_commitment_is_in() -> None:
    # A protocol-6 REVEAL names the vector of the round's commitments, so a peer that got
    # its sealed choice back from its log (recover_sealed_choice) reveals only once it holds
    # them all, naming them all; never early, with a vector nobody else holds.
    record, ids, secrets = make_record("toy", 3, seed="recover")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    net.hold_secret.update({0, 1})
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    s0 = sessions[0]
    s0.commit(s0.state.legal_actions(0)[0], None, net.now)  # the derived nonce, as the UI
    assert 1 not in s0._box(1).of(MsgType.COMMIT)
    s0.sealed = SealedChoices()  # as after a restart: the choice is known only by its commitment
    s0._box(1).sent_reveal = False
    assert s0.recovery.recover_sealed_choice()
    assert not s0._box(1).sent_reveal  # seat 1's commitment is not in yet
    net.hold_secret.discard(1)
    net.run_until(lambda: s0._box(1).sent_reveal)
    commits = s0._box(1).of(MsgType.COMMIT)
    mine = next(m for m in s0.inbox.slots.values() if m.type is MsgType.REVEAL and m.seat == 0)
    assert mine.payload[3] == round_digest({s: c.digest for s, c in commits.items()})
    assert sorted(commits) == [0, 1, 2]
