"""Idle is not leaving (issue 34 item 1), in a real terminal: `lantag play --bots 1`, nothing
pressed.  The clock is on our row and the turn line from the start; warnings (message
line and the terminal bell) come at 30 s and 10 s before the limit; at the limit a bot
takes the seat; Enter takes it back and we play again; the log verifies.  Waits are for
what the screen shows, with hang guards; nothing asserts how long anything takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, lantag
from tests.e2e.test_tmux import (
    panel,
    play_one,
    player,
    quit_game,
    title_step,
    tmux,
    until_my_move,
    xdg,
)
from tests.e2e.tmux import TMUX, TmuxServer

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)
__all__ = ["tmux"]  # the fixture, shared with test_tmux.py
LIMIT = 32  # just over the first warning mark: the test waits the limit out in real time


def _message(screen: str) -> str:
    """The message line, which wraps onto up to three rows above the command line."""
    return " ".join(" ".join(screen.split("\n")[-4:-1]).split())


def _asked_of_us(screen: str) -> bool:
    """Our move, or a secret choice asked of seat 0 (the panel's turn line)."""
    turn = re.search(r"turn (you to move|secret [\w-]+: seats ([\d ]+?)) ·", panel(screen))
    return turn is not None and (turn.group(2) is None or "0" in turn.group(2).split())


@pytest.mark.slow  # waits out a 32 s turn limit in real time
def test_an_idle_player_is_warned_loses_the_seat_and_takes_it_back_with_one_key(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    me = player(tmp_path, "tester")
    log = tmp_path / "idle.lantag"
    pane = tmux.start(
        "idle",
        [
            *LANTAG, "play", "--bots", "1", "--turn-timeout", str(LIMIT),
            "--option", "end_steps=400", "--log", str(log),
        ],
        xdg(me),
    )  # fmt: skip
    screen = pane.wait(_asked_of_us, "something asked of us")
    # The clock on our own row and on the turn line, from the start of our decision.
    assert re.search(rf"tester\s+[0-9a-f]{{6}}\s+.*you \d+/{LIMIT}s", screen), screen
    assert re.search(rf"turn .* · \d+/{LIMIT}s", panel(screen)), panel(screen)
    assert not pane.bell_rang()
    # Nothing pressed: the warnings, each with the bell.
    screen = pane.wait(lambda s: re.search(r"\b30 s left to (move|choose)", s) is not None, "30 s")
    assert "a bot plays it" in _message(screen)
    assert pane.bell_rang()
    pane.wait(lambda s: re.search(r"\b10 s left to (move|choose)", s) is not None, "10 s")
    # At the limit the bot's peer votes our seat out: a bot plays it, and we are told how
    # to come back.
    screen = pane.wait_for("press Enter to play it again")
    assert "watching: bot in your seat 0" in screen
    assert f"idle past the {LIMIT} s limit" in _message(screen)
    # One key.
    pane.keys("Enter")
    pane.wait_for("you are back in seat 0 from step")
    # ... and we play again: Tab + Enter on our next move.
    action = play_one(pane, title_step(until_my_move(pane, 0)))
    assert "watching" not in pane.text().split("\n", 1)[0]
    assert quit_game(pane) == 1
    assert "Traceback" not in pane.history()
    verified = lantag(me, "verify", str(log))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    replay = lantag(me, "replay", "--headless", str(log)).stdout
    assert f"seat 0: {action}" in replay
