"""The small books the session's state lives in (issue #37 item 2), each on its own: the
agreed History, the Inbox of messages taken, the StateClaims of the peers' state hashes.
Whole games drive them in the other session tests; these pin each rule alone."""

from __future__ import annotations

from lanTag.identity import Identity
from lanTag.session.features import Features
from lanTag.session.handback import Handback
from lanTag.session.inbox import Inbox
from lanTag.session.lobby_record import start_state
from lanTag.session.messages import MsgType, Signed, sign_message
from lanTag.session.state_claims import StateClaims
from lanTag.session.steps import History, Snapshot
from tests.session.harness import make_record

GAME = b"g" * 32
HASH_A, HASH_B, HASH_C = b"a" * 32, b"b" * 32, b"c" * 32


def message(step: int, text: str, state_hash: bytes = HASH_A, seat: int = 0) -> Signed:
    signer = Identity(b"k" * 32).signer()
    return sign_message(signer, MsgType.CHAT, GAME, step, seat, state_hash, (text,))


def test_history_appends_changes_live_seats_and_forgets_after_a_step() -> None:
    record, _ids, _secrets = make_record("prototag", 2)
    state = start_state(record)
    first = Snapshot(state, (b"", b""), (0, 0), frozenset({0, 1}))
    history = History(first, HASH_A)
    assert (history.step, history.current, history.hash_at(0)) == (0, first, HASH_A)
    history.append(first, HASH_B)
    history.append(first, HASH_A)
    assert (history.step, len(history), history.hash_at(1)) == (2, 3, HASH_B)
    history.set_live(1, frozenset({1}))
    assert history[1].live == frozenset({1}) and history[0].live == frozenset({0, 1})
    history.forget_after(0)
    assert history.step == 0 and list(history) == [first] and history.hash_at(0) == HASH_A
    history.append(first, HASH_C)
    assert history.hash_at(1) == HASH_C  # the old step's hash was forgotten with it


def test_inbox_files_by_step_proves_a_slot_once_and_refiles_from_a_rollback() -> None:
    inbox = Inbox()
    box = inbox.box(3)
    assert inbox.box(3) is box and inbox.boxes == {3: box}
    key = (0, (3, int(MsgType.CHAT), 0, HASH_A))
    assert inbox.first_proof(key) and not inbox.first_proof(key)  # one proof per slot
    early, late, later = message(1, "a"), message(4, "b"), message(5, "c")
    for m in (early, late, later):
        inbox.slots[(m.seat, (m.step, int(m.type), len(inbox.slots), m.state_hash))] = m
    inbox.box(1).pending.append(early)
    inbox.box(4).votes[2] = late
    inbox.reopen_from(4)
    assert inbox.box(1).pending == [early]  # before the rollback's step: untouched
    assert inbox.boxes[4].votes == {} and inbox.boxes[4].pending == [late]
    assert inbox.boxes[5].pending == [later] and 3 in inbox.boxes


def test_state_claims_keep_the_first_and_tell_a_desync_once() -> None:
    claims = StateClaims()
    first, second = message(2, "x", HASH_A), message(2, "y", HASH_B)
    assert claims.first(first) is first and claims.first(second) is first
    assert claims.first(message(2, "z", seat=1)).seat == 1  # per seat
    assert claims.differs(1) and not claims.differs(1)  # news once
    claims.agrees(1)
    assert claims.differs(1)  # it agreed in between: news again
    claims.forget_desyncs()
    assert claims.desynced == set() and claims.differs(1)


def test_handback_keeps_the_first_leave_and_none_from_before_a_hand_back() -> None:
    book = Handback(Features.of(6))
    assert book.take_leave(1, 5) and book.leaves == {1: 5}
    assert not book.take_leave(1, 7) and book.leaves == {1: 5}  # the first LEAVE counts
    book.admit(1, 9, ours=False)  # given back by step 9's decision: live from step 10
    assert book.leaves == {}  # back: no longer leaving
    assert not book.take_leave(1, 9)  # signed at the admitting step: before it was back
    assert not book.take_leave(1, 4) and book.leaves == {}
    assert book.take_leave(1, 10) and book.leaves == {1: 10}  # it leaves again
    book.say_leave(0, 3)  # our own seat's LEAVE, as we sent it
    assert book.leaves == {1: 10, 0: 3}
