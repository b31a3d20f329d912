"""The check without a replay (lanTag.log.audit, exit 3) follows drops as the replay does:
a seat voted silent at a roll is not part of that roll's draw, even when its link for that
step is logged later (its resumed process sends it again).  SPEC §9, "Without the rules"."""

from __future__ import annotations

import functools

import pytest

from lanTag.fair.draw import DrawStream, draw_seed
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.recorded import draw_of
from lanTag.log.report import VerifyReport
from lanTag.log.verify import verify_log
from lanTag.rules.base import Roll, decode_input
from lanTag.rules.playout import draw_values
from lanTag.rules.registry import get_game
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, parse_unverified, sign_message
from tests.log.honest_log import HONEST, Item, chained, items_of, messages_of, signer_of
from tests.support.table import Table

SEED = 11  # a table whose seat 2 is dropped at a roll and resumed (as scripts/ finds)
GONE = 2


@functools.cache
def _dropped_at_a_roll() -> tuple[bytes, int, int]:
    """The writer's log of a Prototag game whose peer 2 is killed at step 4, dropped by
    the others and resumed from its log; (log, the dropped seat, the roll step)."""
    table = Table("prototag", 3, bots=("random",), seed=SEED)
    table.start()
    victim = table.peers[GONE].session
    assert victim is not None and victim.seat is not None
    seat = victim.seat
    table.net.run_until(lambda: victim.step >= 4, table.net.now + 3600)
    table.kill(GONE)
    table.dropped_everywhere_but(GONE)
    dropped = next(e for e in table.peers[0].events if isinstance(e, ev.SeatsDropped))
    table.resume(GONE)
    table.run_to_end()
    return bytes(table.logs[table.peer_of_seat(0)]), seat, dropped.step


def _audit(data: bytes, monkeypatch: pytest.MonkeyPatch) -> VerifyReport:
    monkeypatch.setattr(get_game("prototag"), "rules_version", 1000, raising=False)
    report = verify_log(data)
    assert report.replayed is False
    return report


def _roll_entry(data: bytes, step: int) -> int:
    entries = parse_log(data).entries
    return next(
        k
        for k, e in enumerate(entries)
        if e.kind == EntryKind.STEP and e.step == step and isinstance(decode_input(e.data[0]), Roll)
    )


def test_a_seat_dropped_at_a_roll_is_not_in_its_draw_even_with_its_link_logged_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data, seat, step = _dropped_at_a_roll()
    entries = parse_log(data).entries
    roll = _roll_entry(data, step)  # the game is what this test is about: a drop at a roll,
    late = [  # and the dropped seat's link of that roll, logged after the roll was decided
        e
        for e in entries[roll:]
        if e.kind == EntryKind.MSG
        and (m := parse_unverified(e.data)).seat == seat
        and m.step == step
        and m.type is MsgType.ENTROPY
    ]
    assert late, "the dropped seat's link of the roll is not in the log"
    full = verify_log(data)
    assert full.valid and full.complete, full.failure
    report = _audit(data, monkeypatch)
    assert report.failure is None, report.failure
    assert report.rolls_verified == full.rolls_verified  # every roll checked, none skipped
    assert not report.unchecked


@pytest.mark.parametrize(
    ("votes", "left_out", "dropped"),
    [
        ([(0, [1], 1), (2, [1], 1)], {1}, True),  # a drop: seat 1's link draws nothing
        ([(0, [1], 1)], {1}, False),  # the writer's vote alone: seat 2 did not vote
        ([(0, [1, 2], 1)], {1, 2}, False),  # "every other seat" is the writer: under half
        # latest by seq, not by log position (SPEC §5.4): seat 2's vote is [0]
        ([(0, [1], 1), (2, [0], 2), (2, [1], 1)], {1}, False),
        # a drop is decided once the votes agree: a vote after it changes nothing
        ([(0, [1], 1), (2, [1], 1), (2, [0], 2)], {1}, True),
        ([(0, [1, 3], 1), (2, [1, 3], 1)], {1}, False),  # seat 3 is a bot's: not live
    ],
    ids=[
        "unanimous",
        "writer-alone",
        "under-half-stays",
        "latest-by-seq",
        "vote-after-the-drop",
        "not-live",
    ],
)
def test_only_a_drop_the_other_live_seats_voted_takes_a_link_out_of_a_roll(
    votes: list[tuple[int, list[int], int]],
    left_out: set[int],
    dropped: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a drop every other live seat voted (each by its latest VOTE of the step by
    ``seq``, half the table staying, of live seats) takes a seat out of a roll, as in the
    replay (``StepBox.unanimous_silent``): a cheater that signs VOTEs naming live seats
    silent at a roll and records the roll drawn without their links writes an invalid log,
    without the rules too, and both lanes say so at the same entry."""
    items = items_of(HONEST)
    k = next(  # a roll to which every human seat gave its link
        k
        for k, (step, kind, data) in enumerate(items)
        if kind == EntryKind.STEP
        and step > 0
        and isinstance(decode_input(data[0]), Roll)
        and len(_links(items, step)) == 3
    )
    step, _kind, (inp, digest, purpose, draws) = items[k]
    links = {s: link for s, link in _links(items, step).items() if s not in left_out}
    record = LobbyRecord.decode(items[0][2][1])
    stream = DrawStream(draw_seed(record.game_id, step, purpose, links.items()))
    values = [list(draw_values(draw_of(d), stream.below)) for d in draws]
    assert tuple(map(tuple, values)) != decode_input(inp).values  # else this proves nothing
    ours = next(m for _k, m in messages_of(items) if m.seat == 0 and m.step == step)
    signed = [
        sign_message(
            signer_of(seat), MsgType.VOTE, ours.game_id, step, seat, ours.state_hash,
            (silent, seq), version=ours.version,
        )
        for seat, silent, seq in votes
    ]
    # The votes reach the writer before the link of the first seat they name (once every
    # link is in, the roll is decided with all of them: a drop then comes too late).
    late = min(left_out)
    j = next(
        j
        for j, m in messages_of(items)
        if j < k and m.step == step and m.type is MsgType.ENTROPY and m.seat == late
    )
    forged = [
        *items[:j],
        *((step, EntryKind.MSG, vote.raw) for vote in signed),
        *items[j:k],
        (step, EntryKind.STEP, [[2, values], digest, purpose, draws]),
    ]
    report = _audit(chained(forged), monkeypatch)
    with_rules = verify_log(chained(forged))
    if dropped:
        assert report.failure is None, report.failure
        assert with_rules.failure is None, with_rules.failure  # and so says the full replay
        return
    assert report.failure is not None  # the roll is not decided, or not as recorded
    assert report.failure.entry == len(forged) - 1
    assert report.failure == with_rules.failure


def _links(items: list[Item], step: int) -> dict[int, bytes]:
    return {
        m.seat: m.payload[0]
        for _k, m in messages_of(items)
        if m.step == step and m.type is MsgType.ENTROPY
    }
