"""Issue #34 items 5-6 on a real terminal: Tag 'em's Outpost at 80x24 shows all our pawns
and its status lines, an arrow several pawns could follow asks for a digit and the digit
moves that pawn (it used to type ``move 1 e4``), and at 60x16 the status lines stay.

Skipped when tmux is not installed (apt-get install tmux).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, make_home
from tests.e2e.test_tmux import MY_TURN, PACED, player, xdg
from tests.e2e.tmux import TMUX, TmuxServer

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[TmuxServer]:
    server = TmuxServer(tmp_path, make_home(tmp_path / "tmux-home").env())
    try:
        yield server
    finally:
        server.kill()


def _board(screen: str) -> str:
    """The board pane (left of the bar) of a screen."""
    return "\n".join(row.split("│")[0] for row in screen.split("\n")[1:-2])


def test_outpost_fits_80x24_and_a_digit_answers_the_arrow(tmux: TmuxServer, tmp_path: Path) -> None:
    me = player(tmp_path, "tester")
    log = tmp_path / "outpost.lantag"
    command = [*LANTAG, "play", "--game", "tagem", "-o", "map=outpost", "--bots", "2"]
    pane = tmux.start("outpost", [*command, *PACED, "--log", str(log)], xdg(me), 80, 24)
    screen = pane.wait(lambda s: MY_TURN in s, "our turn", guard=90)
    screen = pane.settled()
    board = _board(screen)
    assert all(re.search(rf"A{n}|a{n}", board) for n in range(5)), screen
    assert "Outpost, elimination, round" in board and "tags A:" in board
    assert not any(mark in board for mark in "◀▶"), screen  # all 19 columns
    # Right: every pawn of ours that can go east is offered; the line stays empty.
    pane.keys("Right")
    screen = pane.wait(lambda s: "press a digit to move that one" in s, "the question")
    can = re.search(r"pawns ([\d, ]+) can move e", screen)
    assert can is not None, screen
    pawn = can.group(1).split(", ")[-1]
    pane.keys(pawn)
    pane.wait(lambda s: f"played move {pawn} e" in s, f"played move {pawn} e")
    # At 60x16 the status lines stay under a scrolled board.
    tmux.tmux("resize-window", "-t", pane.target, "-x", "60", "-y", "16")
    screen = pane.wait(lambda s: len(s.split("\n")[0]) <= 60 and "tags A:" in s, "60x16")
    assert "Outpost, elimination" in " ".join(_board(screen).split()), screen
    pane.keys("C-q")
    pane.wait(lambda s: "press Ctrl-Q again" in s, "the quit confirmation")
    pane.keys("C-q")
    assert pane.wait_exit() == 1
    assert "Traceback" not in pane.history()
