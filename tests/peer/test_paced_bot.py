"""`lantag play`'s bots pace themselves while the person's seat is out (issue 34 item 1):
one move per TAKEN_OVER_PACE seconds, so the game is still on when the person comes back;
at full speed otherwise.  Simulated network, virtual time."""

from __future__ import annotations

from lanTag.peer.machine import TAKEN_OVER_PACE, BotDriver, PacedBotDriver
from lanTag.rules.base import Move
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from tests.support.table import Table


def _table(driver: BotDriver | PacedBotDriver, end_steps: int = 1000) -> Table:
    table = Table(
        "prototag",
        2,
        seed=4,
        timeouts=Timeouts(turn_ms=20_000),
        options=(("end_steps", end_steps),),
    )
    table.peers[0].driver = None  # a person, who will not press anything
    table.net.run_for(30.0)
    table.start()
    table.peers[1].driver = driver
    return table


def _bot_moves(table: Table) -> int:
    seat = table.seat_of(1)
    return sum(
        1
        for e in table.peers[1].events
        if isinstance(e, ev.StepApplied) and isinstance(e.input, Move) and e.input.seat == seat
    )


def _until_dropped(table: Table) -> None:
    table.net.run_until(lambda: 0 not in table.sessions([1])[0].live, table.net.now + 600)


def test_the_bots_wait_between_moves_while_the_persons_seat_is_out() -> None:
    table = _table(PacedBotDriver("random"), end_steps=100)
    before = _bot_moves(table)
    # Before the drop the table waits for the person: the bot is not slowed down there.
    _until_dropped(table)
    start, moved = table.net.now, _bot_moves(table)
    table.net.run_for(20.0)
    made = _bot_moves(table) - moved
    assert 2 <= made <= 20.0 / TAKEN_OVER_PACE + 1, (made, before)
    assert not table.over()
    assert table.net.now - start >= 20.0


def test_an_unpaced_bot_plays_on_at_once() -> None:
    # Without the pace the table ends its game (100 tagged steps: the test table's hash
    # chains are short) within those 20 s: what a person coming back found, before.
    table = _table(BotDriver("random"), end_steps=100)
    _until_dropped(table)
    moved = _bot_moves(table)
    table.net.run_for(20.0)
    assert _bot_moves(table) - moved > 20.0 / TAKEN_OVER_PACE + 1 or table.over()
