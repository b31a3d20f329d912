"""The first run on a real terminal asks for a nickname; `lantag id` shows the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, lantag, make_home
from tests.e2e.test_tmux import tmux, xdg
from tests.e2e.tmux import TMUX, TmuxServer

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)
__all__ = ["tmux"]  # the fixture, shared with test_tmux.py


def test_the_first_run_asks_for_a_nickname(tmux: TmuxServer, tmp_path: Path) -> None:
    home = make_home(tmp_path / "newcomer")
    pane = tmux.start("first", [*LANTAG, "id"], xdg(home, USER="zoe"))
    pane.wait_for("Your nickname at the table [zoe]:")
    pane.keys("Quinn", "Enter")
    assert pane.wait_exit() == 0
    screen = pane.history()
    assert "nickname:    Quinn" in screen and "lantag id --nickname NAME" in screen
    # Asked once: the identity now holds it (without a terminal, nothing is asked anyway).
    again = lantag(home, "id")
    assert again.returncode == 0 and "nickname:    Quinn" in again.stdout


@pytest.mark.parametrize("command", [["id"], ["play", "--bots", "1"]])
def test_the_first_ctrl_c_at_the_nickname_prompt_leaves(
    tmux: TmuxServer, tmp_path: Path, command: list[str]
) -> None:
    # asyncio's SIGINT handler only cancels the command's task, which a blocking read never
    # notices: the first Ctrl-C used to be swallowed until Enter.  One Ctrl-C leaves now.
    home = make_home(tmp_path / "newcomer")
    pane = tmux.start("first", [*LANTAG, *command], xdg(home, USER="zoe"))
    pane.wait_for("Your nickname at the table [zoe]:")
    pane.keys("C-c")
    # (The pane's shell gets the SIGINT too, so there is no "[lantag-exit N]" line: the
    # one lantag prints for KeyboardInterrupt, exit 130, is the sign.)
    pane.wait_for("lantag: interrupted", guard=30)
    history = pane.history()
    assert "Traceback" not in history
    assert not home.identity.exists()  # nothing was made: the next run asks again
    assert not (home.data / "lantag" / "logs").exists() or not any(
        (home.data / "lantag" / "logs").iterdir()
    )
