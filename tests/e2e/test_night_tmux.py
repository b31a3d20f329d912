"""A game night on the console never strands the host (issue 34 item 2), in tmux panes:
the joiner leaves at game over (q); the host's rematch (r) opens a lobby with the open
seat, which a newcomer may take (the advert counts it open again) or, when the host
starts without one, a bot plays (as docs/series.md says).  The night's logs, without
--log, go to one directory, which `lantag verify DIR` checks with the standings."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, Home, lantag
from tests.e2e.test_resume_tmux import play_on
from tests.e2e.test_tmux import free_udp_port, player, tmux, xdg
from tests.e2e.tmux import TMUX, Pane, TmuxServer

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)
__all__ = ["tmux"]  # the fixture, shared with test_tmux.py
SHORT = ["--option", "end_steps=1", "--option", "board_size=5"]  # over after one tagged step


def play_until_over(panes: dict[int, Pane]) -> None:
    """Every pane plays its moves and seals its choices until each shows the result box."""
    play_on(panes, lambda: all("Game over" in p.text() for p in panes.values()))


def _first_game_then_the_joiner_leaves(
    tmux: TmuxServer, tmp_path: Path, name: str, advertise: bool
) -> tuple[Pane, Home, int]:
    alice, bob = player(tmp_path, "alice"), player(tmp_path, "bob")
    port = free_udp_port()
    flags = [] if advertise else ["--no-advertise"]
    host = tmux.start(
        "host",
        [
            *LANTAG, "host", "--game", "prototag", *SHORT, "--seats", "2", "--port", str(port),
            "--bind", "127.0.0.1", "--name", name, *flags,
        ],
        xdg(alice),
    )  # fmt: skip
    host.wait_for(f"listening on 127.0.0.1:{port}")
    join = tmux.start("join", [*LANTAG, "join", f"127.0.0.1:{port}"], xdg(bob))
    join.wait_for("waiting for the host to start")
    host.wait(lambda s: "bob" in s and "(open)" not in s, "bob in the host's roster")
    host.keys("s")  # (acts at once, as on the setup form)
    for pane in (host, join):
        pane.wait_for("lanTag │ Prototag │ step")
    play_until_over({0: host, 1: join})
    join.wait_for("standings after game 1")
    join.keys("q")  # bob goes home: no next game for him
    assert join.wait_exit() == 0
    host.wait_for("r: play again (same game)")
    host.keys("r")
    screen = host.wait_for(f"listening on 127.0.0.1:{port}")  # game 2's lobby
    assert "(open)" in screen and "a seat still open at the start: a heuristic2 bot" in screen
    return host, alice, port


def _night_directory(home: Home) -> Path:
    """The one directory the night's logs went to (no --log: in the default log folder)."""
    logs = home.data / "lantag" / "logs"
    found = [p for p in logs.iterdir() if p.is_dir()]
    assert len(found) == 1, sorted(p.name for p in logs.iterdir())
    assert [p.name for p in logs.iterdir() if p.is_file()] == []  # nothing left scattered
    return found[0]


def _verified_night(home: Home) -> str:
    night = _night_directory(home)
    assert sorted(p.name for p in night.glob("*.lantag")) == [
        "01-prototag.lantag",
        "02-prototag.lantag",
    ]
    verified = lantag(home, "verify", str(night))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "VALID series of 2 game(s)" in verified.stdout and "standings" in verified.stdout
    return verified.stdout


def test_a_seat_left_open_at_a_rematch_is_played_by_a_bot(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    host, alice, _port = _first_game_then_the_joiner_leaves(tmux, tmp_path, "night", False)
    host.keys("s")  # (acts at once, as on the setup form)
    screen = host.wait_for("s again starts with a heuristic2 bot in each")
    assert "1 seat(s) still open" in screen  # (it used to say "Prototag needs at least 2")
    host.keys("s")  # (acts at once, as on the setup form)
    # Game 2, with the bot in bob's seat (with one tagged step to play, maybe over already).
    host.wait(lambda s: "lanTag │ Prototag │ step" in s and "heuristic2-bot" in s, "game 2")
    play_until_over({0: host})
    host.wait_for("standings after game 2")
    host.keys("q")
    assert host.wait_exit() == 0
    assert "Traceback" not in host.history()
    out = _verified_night(alice)
    assert "heuristic2-bot" in out and "bob" in out
    # The console replay of the night: which game it is, and the standings at the end.
    viewer = tmux.start("replay", [*LANTAG, "replay", str(_night_directory(alice))], xdg(alice))
    viewer.wait_for("lanTag │ replay │ game 1/2 │ Prototag │ step 0/")
    viewer.keys("q")
    viewer.wait_for("lanTag │ replay │ game 2/2 │ Prototag │ step 0/")
    assert "standings" not in viewer.text()
    viewer.keys("G")
    screen = viewer.wait_for("standings after 2 game(s)")
    assert "alice" in screen.split("standings after 2 game(s)", 1)[1]
    viewer.keys("q")
    assert viewer.wait_exit() == 0
    assert "standings (master of games" in viewer.history()  # left on the terminal too


def _listed(home: Home, name: str) -> dict[str, object] | None:
    found = lantag(home, "list", "--wait", "2", "--json")
    games = json.loads(found.stdout) if found.returncode == 0 else []
    return next((g for g in games if g.get("name") == name), None)


def _until_listed(home: Home, name: str, want: Callable[[dict[str, object]], bool]) -> bool:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        game = _listed(home, name)
        if game is not None and want(game):
            return True
    return False


@pytest.mark.slow  # polls mDNS (lantag list) a few times
def test_a_newcomer_takes_the_open_seat_and_the_advert_counts_it(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    name = f"night-{uuid.uuid4().hex[:8]}"
    carol = player(tmp_path, "carol")
    if _listed(carol, "no such game") is None and lantag(carol, "list", "--wait", "1").returncode:
        pytest.skip("lantag list does not run here")
    host, alice, port = _first_game_then_the_joiner_leaves(tmux, tmp_path, name, True)
    mdns = _listed(carol, name) is not None
    if mdns:  # the leaver is no longer counted: one seat open, a lobby again
        assert _until_listed(
            carol, name, lambda g: (g["seats_taken"], g["state"]) == (1, "lobby")
        ), _listed(carol, name)
    join = tmux.start("carol", [*LANTAG, "join", f"127.0.0.1:{port}"], xdg(carol))
    join.wait_for("you are seat 1 — waiting for the host to start")
    host.wait(lambda s: "carol" in s and "(open)" not in s, "carol in the host's roster")
    if mdns:
        assert _until_listed(carol, name, lambda g: g["seats_taken"] == 2), _listed(carol, name)
    host.keys("s")  # (acts at once, as on the setup form)
    panes = {0: host, 1: join}
    for seat, pane in panes.items():
        screen = pane.wait(
            lambda s: "lanTag │ Prototag │ step" in s and "Game over" not in s, "game 2"
        )
        assert f"you: seat {seat} {'alice' if seat == 0 else 'carol'}" in screen
    play_until_over(panes)
    for pane in panes.values():
        pane.keys("q")
        assert pane.wait_exit() == 0
        assert "Traceback" not in pane.history()
    out = _verified_night(alice)
    assert "carol" in out and "bob" in out  # both played a game of alice's night
