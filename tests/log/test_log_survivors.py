"""Valid logs in an order no test game happens to produce: a REVEAL stored before the
commitments it waits for, messages stored twice, a message for the next step before this
one is decided, a message as far ahead as the step window allows.  Both lanes of
verify_log must take them and count each signature once (built from a corpus log and from
the must-fail vectors' honest game by moving or repeating entries and re-chaining; a
message keeps its own signature, except the one the test signs with its seat's key).
"""

from __future__ import annotations

from typing import Any

import pytest

from lanTag.log import plain_replay
from lanTag.log.entries import EntryKind
from lanTag.log.report import VerifyReport
from lanTag.log.verify import verify_log
from lanTag.session.core import STEP_WINDOW
from lanTag.session.messages import MsgType, parse_unverified, sign_message
from lanTag.session.steps import ROUND_SUBJECT
from tests.log.honest_log import (
    HONEST,
    ROOT,
    chained,
    first_msg,
    items_of,
    messages_of,
    signer_of,
)

# A game whose secret rounds ask two seats to commit (its step 20 asks seats 1 and 2).
TWO_COMMITTERS = ROOT / "tests" / "corpus" / "protocol2" / "prototag.log"


def both_lanes(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[bool, VerifyReport, VerifyReport]:
    """Whether the fast lane took ``data``, its report, and the full replay's report."""
    verdicts: list[bool] = []
    real = plain_replay.PlainReplay.report

    def spy(self: plain_replay.PlainReplay, *args: Any) -> bool:
        verdicts.append(real(self, *args))
        return verdicts[-1]

    with monkeypatch.context() as patch:
        patch.setattr(plain_replay.PlainReplay, "report", spy)
        fast = verify_log(data)
    with monkeypatch.context() as patch:
        patch.setattr(plain_replay.PlainReplay, "report", lambda self, *args: False)
        slow = verify_log(data)
    assert len(verdicts) == 1
    return verdicts[0], fast, slow


def test_a_reveal_stored_before_every_commitment_waits_for_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first secret round, with one seat's REVEAL moved before the round's first COMMIT
    # (its own COMMIT comes later): both lanes hold it until every commitment is in.
    data = TWO_COMMITTERS.read_bytes()
    items = items_of(data)
    c = first_msg(items, lambda m: m.type == MsgType.COMMIT)
    commit = parse_unverified(items[c][2])
    # A REVEAL of another seat: moved first, it waits for that COMMIT, then for its own.
    r = first_msg(
        items,
        lambda m: m.type == MsgType.REVEAL and m.step == commit.step and m.seat != commit.seat,
    )
    moved = [*items[:c], items[r], *items[c:r], *items[r + 1 :]]
    honest = verify_log(data)
    took_fast, fast, slow = both_lanes(chained(moved), monkeypatch)
    assert took_fast
    for report in (fast, slow):
        assert report.valid and report.complete, report.failure
        assert report.applied == honest.applied
        assert report.signatures_verified == honest.signatures_verified
        assert report.secrets_verified == honest.secrets_verified > 0


@pytest.mark.parametrize("kind", [MsgType.HAVE, MsgType.MOVE, MsgType.COMMIT], ids=lambda k: k.name)
def test_a_message_stored_twice_is_counted_once(
    kind: MsgType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first message of ``kind`` stored again right after itself, and again after the
    # next entries: an exact repeat changes nothing and is one signature, in both lanes.
    items = items_of(HONEST)
    k = first_msg(items, lambda m: m.type == kind)
    repeated = [*items[: k + 1], items[k], *items[k + 1 : k + 4], items[k], *items[k + 4 :]]
    honest = verify_log(HONEST)
    took_fast, fast, slow = both_lanes(chained(repeated), monkeypatch)
    assert took_fast
    for report in (fast, slow):
        assert report.valid and report.complete, report.failure
        assert report.applied == honest.applied
        assert report.signatures_verified == honest.signatures_verified


def test_a_message_for_the_next_step_waits_for_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # An ENTROPY for a roll moved before the MOVE that decides the step before it: both
    # lanes keep it until its step comes (the fast lane too: it is a plain log).
    items = items_of(HONEST)
    moves = {m.step: k for k, m in messages_of(items) if m.type == MsgType.MOVE}
    k, msg = next(
        (k, m) for k, m in messages_of(items) if m.type == MsgType.ENTROPY and m.step - 1 in moves
    )
    before = moves[msg.step - 1]
    moved = [*items[:before], items[k], *items[before:k], *items[k + 1 :]]
    honest = verify_log(HONEST)
    took_fast, fast, slow = both_lanes(chained(moved), monkeypatch)
    assert took_fast
    for report in (fast, slow):
        assert report.valid and report.complete, report.failure
        assert report.applied == honest.applied


def test_a_message_as_far_ahead_as_allowed_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # A MOVE dated exactly STEP_WINDOW steps ahead of the replay is within the window: it
    # waits (for a step the game never reaches), and the log is plain and valid.
    items = items_of(HONEST)
    k, msg = next((k, m) for k, m in messages_of(items) if m.type == MsgType.MOVE)
    far = msg.step + STEP_WINDOW
    ahead = sign_message(
        signer_of(msg.seat),
        msg.type,
        msg.game_id,
        far,
        msg.seat,
        msg.state_hash,
        tuple(msg.payload),
        version=msg.version,
    ).raw
    honest = verify_log(HONEST)
    took_fast, fast, slow = both_lanes(
        chained([*items[:k], (far, EntryKind.MSG, ahead), *items[k:]]), monkeypatch
    )
    assert took_fast
    for report in (fast, slow):
        assert report.valid and report.complete, report.failure
        assert report.applied == honest.applied
        assert report.signatures_verified == honest.signatures_verified + 1


def test_a_last_move_acknowledged_by_a_have_alone_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    # The honest game without the other seats' SEALs: its last MOVE still counts, because
    # another seat's HAVE names it (SPEC §9 seals; must-fail last_move_resigned: without).
    items = items_of(HONEST)
    messages = messages_of(items)
    last = max(k for k, m in messages if m.type == MsgType.MOVE)
    move = parse_unverified(items[last][2])
    others = {k for k, m in messages if m.type == MsgType.SEAL and m.seat != move.seat}
    acks = {
        k
        for k, m in messages
        if m.type == MsgType.HAVE and m.step == move.step and m.payload[0] == move.seat
    }
    assert others and acks
    unsealed = [it for k, it in enumerate(items) if k not in others]
    for report in both_lanes(chained(unsealed), monkeypatch)[1:]:
        assert report.valid and report.complete and report.unacknowledged == "", report


def test_a_secret_round_a_bystander_did_not_acknowledge_is_decided_by_neither_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The honest game's first secret round with a human bystander other than the writer:
    # each bystander names the round's vector of commitments in a round HAVE (protocol 6,
    # SPEC §4.4; the seats of the round name it in their REVEALs).  The other bystander's
    # HAVE dropped, or every round HAVE: neither lane may apply the round (the writer's own
    # acknowledgement does not count), and the fast lane hands the log to the full replay.
    items = items_of(HONEST)
    messages = messages_of(items)
    rounds: dict[int, dict[int, int]] = {}
    for k, m in messages:
        if m.type == MsgType.HAVE and m.payload[0] == ROUND_SUBJECT:
            rounds.setdefault(m.step, {})[m.seat] = k
    step, acks = next((step, acks) for step, acks in sorted(rounds.items()) if set(acks) - {0})
    commit = next(m for _k, m in messages if m.type == MsgType.COMMIT and m.step == step)
    bystander = min(set(acks) - {0})
    for drop in ({acks[bystander]}, set(acks.values())):
        kept = [it for k, it in enumerate(items) if k not in drop]
        plain, fast, slow = both_lanes(chained(kept), monkeypatch)
        assert not plain and fast.failure == slow.failure and fast.failure is not None
        assert fast.failure.reason == (
            f"step {commit.step} is recorded but its messages do not decide it"
        )
