"""`--headless` says the turn clock in lines (issue #34): where the console counts the clock
and warns at 30 s and 10 s before the turn limit and says when a bot takes the seat, a
headless peer prints one line at each of those moments, never one a second, and tells
how (or whether) its own dropped seat comes back.  Virtual time: the simulated network's
clock, or a fake handle's; no sleeps, nothing timed."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from lanTag.cli import play_commands
from lanTag.cli.entry import build_parser
from lanTag.cli.headless import play_headless
from lanTag.cli.headless_clock import PLAY_NO_WAY_BACK, PREFIX, IdleLines, resume_way_back
from lanTag.peer.machine import PacedBotDriver
from lanTag.rules.base import Outcome
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.session.lockstep import Session
from tests.support.table import Table
from tests.ui.fakes import FakeHandle, eventually, solo_handle

LIMIT = 60
LOG = Path("night/02-prototag.lantag")


def _table(seed: int, idle: int) -> Table:
    """Prototag, two people, a 60 s limit: peer ``idle`` decides nothing (a person away, or
    a headless peer whose bot stalls); the other is a headless peer played by its bot."""
    table = Table(
        "prototag",
        2,
        seed=seed,
        timeouts=Timeouts(turn_ms=LIMIT * 1000),
        options=(("end_steps", 1000),),
    )
    table.peers[idle].driver = None
    # Paced once a seat is out, as `lantag play`'s bots: the game is still on to be read.
    table.peers[1 - idle].driver = PacedBotDriver("heuristic2")
    table.start()
    return table


def _watch(table: Table, peer: int, clock: IdleLines, until_dropped: int) -> list[str]:
    """What the headless loop of ``peer`` prints of the clock (its events and ``tick``
    every half second of virtual time), until seat ``until_dropped`` is voted out."""
    session = table.peers[peer].session
    assert session is not None
    lines: list[str] = []
    end = table.net.now + 10 * LIMIT
    while True:
        assert table.net.now < end, lines
        events = table.peers[peer].events
        while events:
            event = events.popleft()
            if isinstance(event, ev.SeatsDropped):
                lines += clock.dropped(session, event)
                if session.seat in event.seats:
                    lines.append(clock.seat_lost(session, event.step))
                if until_dropped in event.seats:
                    return lines
        lines += clock.tick(session, table.net.now)
        table.net.run_for(0.5)


def test_an_idle_person_elsewhere_gets_one_line_at_30_s_at_10_s_and_at_the_drop() -> None:
    table = _table(seed=11, idle=1)  # peer 1 (seat 1, "p1") is away; we are headless peer 0
    session = table.peers[0].session
    assert session is not None and session.seat == 0
    lines = _watch(table, 0, IdleLines(resume_way_back(LOG)), until_dropped=1)
    clock = [line for line in lines if line.startswith(PREFIX)]
    assert len(clock) == 3, lines  # not a line a second: one per moment
    what = r"(seat 1 p1 to move|the secret choice of seats 1 p1)"
    assert re.fullmatch(PREFIX + rf"30 s left for {what}: at 60 s .* a bot plays it", clock[0])
    assert re.fullmatch(PREFIX + rf"10 s left for {what}: at 60 s .* a bot plays it", clock[1])
    assert clock[2] == (
        PREFIX + "seat 1 p1 did not decide within the 60 s turn limit: a bot plays the seat now"
    )
    assert 1 not in session.live


@pytest.mark.parametrize(
    ("way_back", "said"),
    [
        (
            resume_way_back(LOG),
            "in headless mode no key gives it back: stop this peer (Ctrl-C) and run "
            f"`lantag join --resume {LOG} --headless`, which asks the table for it",
        ),
        (
            PLAY_NO_WAY_BACK,
            "in headless `lantag play` nothing gives it back (its bots stop with this "
            "process): a bot plays it to the end",
        ),
    ],
)
def test_our_own_seat_awaited_warns_and_its_drop_says_how_it_comes_back(
    way_back: str, said: str
) -> None:
    table = _table(seed=11, idle=0)  # our headless peer's bot stalls (the table waits on us)
    session = table.peers[0].session
    assert session is not None and session.seat == 0
    lines = _watch(table, 0, IdleLines(way_back), until_dropped=0)
    assert len(lines) == 3, lines
    assert re.fullmatch(PREFIX + r"30 s left for you to (move|choose): at 60 s the others vote "
                        r"your seat out and a bot plays it", lines[0])
    assert lines[1].startswith(PREFIX + "10 s left for you to ")
    assert lines[2] == (
        PREFIX + "you did not decide within the 60 s turn limit: a bot plays your seat 0 now; "
        + said
    )
    assert 0 not in session.live


def _our_turn() -> tuple[FakeHandle, Session, float]:
    """A solo table (replicated bots) waiting for our decision, and its turn limit."""
    handle = solo_handle("prototag")
    session = handle.machine.session
    assert session is not None and session.my_turn() is not None
    return handle, session, session.record.timeouts.turn_ms / 1000


def test_a_line_at_each_mark_and_none_between_them() -> None:
    _, session, limit = _our_turn()
    clock = IdleLines(PLAY_NO_WAY_BACK)
    said = {t: clock.tick(session, 100.0 + t) for t in range(int(limit) + 5)}
    marks = {t: lines for t, lines in said.items() if lines}
    assert sorted(marks) == [limit - 30, limit - 10]
    assert all(len(lines) == 1 for lines in marks.values())
    # A look that comes late says the nearest mark only, once.
    late = IdleLines(PLAY_NO_WAY_BACK)
    assert late.tick(session, 0.0) == []
    assert [x[: len(PREFIX) + 8] for x in late.tick(session, limit - 5)] == [PREFIX + "5 s left"]
    assert late.tick(session, limit - 4) == []


async def _started(
    handle: FakeHandle, capsys: pytest.CaptureFixture[str]
) -> tuple[list[str], Callable[[str], bool], asyncio.Future[int]]:
    """play_headless running on ``handle`` past its start line; what it printed so far, a
    predicate "printed this by now", and its task."""
    out: list[str] = []

    def printed(needle: str) -> bool:
        out.extend(capsys.readouterr().out.splitlines())
        return any(needle in line for line in out)

    task = asyncio.ensure_future(play_headless(handle))  # type: ignore[arg-type]
    await eventually(lambda: printed("started: prototag"))
    return out, printed, task


async def test_play_headless_prints_the_clock_lines_as_its_clock_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    handle, session, limit = _our_turn()
    out, printed, task = await _started(handle, capsys)
    handle.clock += limit - 30
    await eventually(lambda: printed(PREFIX + "30 s left for you to "))
    handle.clock += 20
    await eventually(lambda: printed(PREFIX + "10 s left for you to "))
    handle.machine.events.append(ev.GameOver(session.step, Outcome(((1,), (0, 2)), "done")))
    assert await asyncio.wait_for(task, 30) == 0
    out.extend(capsys.readouterr().out.splitlines())
    clock = [line for line in out if line.startswith(PREFIX)]
    assert [line.split(" s left")[0] for line in clock] == [PREFIX + "30", PREFIX + "10"]


async def test_lantag_play_headless_says_its_bots_stop_with_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`lantag play --headless` runs its game as a local table: no resume can ask its
    stopped bots for the seat (host and join run theirs as one a resume can ask)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    asked: list[bool] = []

    async def run(handle: object, headless: bool, *, local_table: bool = False) -> int:
        asked.append(local_table)
        return 0

    monkeypatch.setattr(play_commands, "run_ui_or_headless", run)
    args = build_parser().parse_args(["play", "--headless", "--bots", "1"])
    args.log = str(tmp_path / "p.lantag")
    assert await play_commands.cmd_play(args) == 0
    assert asked == [True]


async def test_play_headless_says_when_the_table_cannot_go_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    handle, session, _ = _our_turn()
    out, printed, task = await _started(handle, capsys)
    handle.machine.events.append(ev.CannotGoOn(session.step, (1, 2)))
    handle.machine.events.append(ev.CannotGoOn(session.step, (2,), bound=(1,)))
    await eventually(lambda: printed("settle "))
    handle.machine.events.append(ev.GameOver(session.step, Outcome(((1,), (0, 2)), "done")))
    assert await asyncio.wait_for(task, 30) == 0
    lines = [x for x in out if x.startswith("the table cannot go on without ")]
    assert len(lines) == 2 and all("Ctrl-C" in line for line in lines), lines
    assert "half of the table" in lines[0] and "can settle bot-1's move" in lines[1], lines
