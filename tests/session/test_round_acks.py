"""Protocol 6's round acknowledgement (SPEC §4.4) as a rule: which seats named the vector of
commitments we hold, on our state, in a REVEAL or a round HAVE."""

from __future__ import annotations

import hashlib

from lanTag.identity import Identity
from lanTag.session.messages import MsgType, Signed, sign_message
from lanTag.session.steps import (
    ROUND_SUBJECT,
    round_digest,
    round_named,
    unacknowledged,
    unacknowledged_round,
)

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
    assert unacknowledged_round({VECTOR}, haves, reveals, range(4), 0, OURS) == {1, 3}
    assert unacknowledged_round({VECTOR}, haves, reveals, range(4), None, OURS) == {1, 3}
    assert unacknowledged_round({VECTOR}, {}, {}, range(4), 0, OURS) == {1, 2, 3}
    assert unacknowledged_round({bytes(32), VECTOR}, haves, reveals, range(4), 0, OURS) == {3}


def test_a_round_have_that_grew_counts_for_each_vector_it_names() -> None:
    haves = {ROUND_SUBJECT: {2: _have(2, [bytes(32), VECTOR])}}
    assert unacknowledged_round({VECTOR}, haves, {}, [0, 2], 0, OURS) == frozenset()


def test_the_protocol_decides_which_acknowledgements_count() -> None:
    # Protocol 6: the round's; protocol 5: a HAVE per commitment of another seat.
    round_haves = {ROUND_SUBJECT: {1: _have(1, [VECTOR]), 0: _have(0, [VECTOR])}}
    assert unacknowledged(6, COMMITS, round_haves, {}, [0, 1], 0, OURS) == frozenset()
    assert unacknowledged(5, COMMITS, round_haves, {}, [0, 1], 0, OURS) == {1}
    per_commit = {0: {1: _signed(1, MsgType.HAVE, (0, [COMMITS[0].digest]))}}
    assert unacknowledged(5, COMMITS, per_commit, {}, [0, 1], 0, OURS) == frozenset()
    assert unacknowledged(6, COMMITS, per_commit, {}, [0, 1], 0, OURS) == {1}
