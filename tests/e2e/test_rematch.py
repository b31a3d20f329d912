"""A game night on the console, in two tmux panes: game over -> the host's rematch (r) ->
the joiner accepts (a) -> the second game on both screens, with the standings shown."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, lantag
from tests.e2e.test_tmux import (
    MY_TURN,
    free_udp_port,
    play_one,
    player,
    seal_if_asked,
    shown_step,
    tmux,
    xdg,
)
from tests.e2e.tmux import TMUX, Pane, TmuxServer

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)
__all__ = ["tmux"]  # the fixture, shared with test_tmux.py
SHORT = ["--option", "end_steps=1", "--option", "board_size=5"]  # over after one tagged step


def play_until_over(panes: dict[int, Pane], guard: float = 90.0) -> None:
    """Both panes play their moves (first legal action) until both show the result box."""
    deadline = time.monotonic() + guard
    sealed: dict[int, set[int]] = {0: set(), 1: set()}
    while not all("Game over" in pane.text() for pane in panes.values()):
        assert time.monotonic() < deadline, "\n".join(p.text() for p in panes.values())
        for seat, pane in panes.items():
            screen = pane.text()
            if "Game over" in screen:
                continue
            step = shown_step(screen)
            if MY_TURN in screen and step is not None:
                # (returns once the title is past ``step``; a move into a battle says no
                # "played ...")
                play_one(pane, step)
            else:
                seal_if_asked(pane, seat, sealed[seat])
        time.sleep(0.1)


@pytest.mark.parametrize("logs", ["files", "directories"])
def test_game_over_rematch_second_game_on_both_screens(
    tmux: TmuxServer, tmp_path: Path, logs: str
) -> None:
    alice, bob = player(tmp_path, "alice"), player(tmp_path, "bob")
    port = free_udp_port()
    # --log FILE.lantag: the first game there, the next as FILE-2.lantag; --log DIR (a name
    # without a suffix): one NN-ENGINE.lantag per game on each side (issue 34 item 2).
    suffix = ".lantag" if logs == "files" else ""
    host_log, join_log = tmp_path / f"alice{suffix}", tmp_path / f"bob{suffix}"
    host = tmux.start(
        "host",
        [
            *LANTAG, "host", "--game", "prototag", *SHORT, "--seats", "2", "--port", str(port),
            "--bind", "127.0.0.1", "--no-advertise", "--log", str(host_log),
        ],
        xdg(alice),
    )  # fmt: skip
    host.wait_for(f"listening on 127.0.0.1:{port}")
    join = tmux.start(
        "join", [*LANTAG, "join", f"127.0.0.1:{port}", "--log", str(join_log)], xdg(bob)
    )
    join.wait_for("waiting for the host to start")
    host.wait(lambda s: "bob" in s and "(open)" not in s, "bob in the host's roster")
    host.keys("s", "Enter")
    panes = {0: host, 1: join}
    for pane in panes.values():
        pane.wait_for("lanTag │ Prototag │ step")
    play_until_over(panes)

    # Game over: the standings after game 1 on both; the host proposes the same game.
    screen = host.wait_for("r: play again (same game)")
    assert "standings after game 1" in screen and "3 points" in screen
    # The joiner's screen draws its result box on its own time: wait for it, not one capture.
    join.wait_for("standings after game 1")
    host.keys("r")
    screen = host.wait_for(f"listening on 127.0.0.1:{port}")  # the host's roster, for game 2
    assert f"others run: lantag join 127.0.0.1:{port}" in screen
    screen = join.wait_for("the host proposes Prototag: a accepts, q leaves")
    join.keys("a")
    join.wait_for("waiting for the host to start")
    host.wait(lambda s: "bob" in s and "(open)" not in s, "bob back in the host's roster")
    host.keys("s", "Enter")
    for seat, pane in panes.items():
        screen = pane.wait(
            lambda s: "lanTag │ Prototag │ step" in s and "Game over" not in s, "game 2"
        )
        assert f"you: seat {seat} {'alice' if seat == 0 else 'bob'}" in screen

    play_until_over(panes)
    assert "standings after game 2" in host.wait_for("standings after game 2")
    for pane in (host, join):
        pane.keys("q")
        assert pane.wait_exit() == 0
        assert "Traceback" not in pane.history()
    # Two games each, the second linked to the first: a series in each player's logs.
    for home, first in ((alice, host_log), (bob, join_log)):
        if logs == "directories":
            night = first
            assert sorted(p.name for p in night.glob("*.lantag")) == [
                "01-prototag.lantag",
                "02-prototag.lantag",
            ]
        else:
            second = first.with_name(f"{first.stem}-2{first.suffix}")
            night = tmp_path / f"{first.stem}-night"
            night.mkdir()
            first.rename(night / "01.lantag")
            second.rename(night / "02.lantag")
        verified = lantag(home, "verify", str(night))
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert "VALID series of 2 game(s)" in verified.stdout
