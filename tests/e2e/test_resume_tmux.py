"""Leaving and coming back on the console (issue 34 item 3): a joiner presses Ctrl-Q twice
mid-game (a signed LEAVE: the others read "NAME left; a bot plays seat N"), then runs
`lantag join --resume LOG` in a terminal and plays its seat again, with 2 and 3 seats.
Real processes in tmux panes; every wait is for what a screen shows, with hang guards."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, lantag
from tests.e2e.test_tmux import (
    MY_TURN,
    free_udp_port,
    panel,
    play_one,
    player,
    quit_game,
    seal_if_asked,
    shown_step,
    title_step,
    tmux,
    xdg,
)
from tests.e2e.tmux import TMUX, Pane, TmuxServer

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)
__all__ = ["tmux"]  # the fixture, shared with test_tmux.py
NAMES = ("alice", "bob", "carol")
LEAVER = 1  # bob's seat


def play_on(
    panes: dict[int, Pane], until: object, guard: float = 90.0, moves: set[int] | None = None
) -> None:
    """Every pane plays its own moves (first legal action; only the seats ``moves`` when
    given) and seals its secret choices until ``until()`` holds."""
    assert callable(until)
    deadline = time.monotonic() + guard
    sealed: dict[int, set[int]] = {seat: set() for seat in panes}
    while not until():
        assert time.monotonic() < deadline, "\n\n".join(p.text() for p in panes.values())
        for seat, pane in panes.items():
            screen = pane.text()
            step = shown_step(screen)
            mine = moves is None or seat in moves
            if mine and MY_TURN in screen and step is not None:
                play_one(pane, step)  # (it returns once the title is past ``step``)
            else:
                # seat k takes the (k+1)-th choice, so two seats never choose alike and a
                # battle does not draw on and on
                seal_if_asked(pane, seat, sealed[seat], nth=seat + 1)
        time.sleep(0.1)


class BackInSeat:
    """Whether a resumed console plays ``seat`` again, polled: it says "you are back in
    seat N from step K"; or, that feed line scrolled away while the others played on (it
    did under load), its title went from "watching: bot in your seat N" (the seat dropped,
    learnt after the resume) to naming the seat as ours.  (The title names it as ours too
    before the drop is learnt: only the change says it is back.)"""

    def __init__(self, pane: Pane, seat: int, name: str) -> None:
        self.pane, self.seat, self.name = pane, seat, name
        self.watched = False

    def __call__(self) -> bool:
        screen = self.pane.text()
        if f"you are back in seat {self.seat} from step" in screen:
            return True
        title = screen.split("\n", 1)[0]
        if f"│ watching: bot in your seat {self.seat} │" in title:
            self.watched = True
        return self.watched and f"│ you: seat {self.seat} {self.name} │" in title


def row_says_left(screen: str, seat: int, name: str) -> bool:
    """The players panel's row of ``seat`` ends in "left" (a LEAVE taken: a bot plays it).
    The row: seat, name, key, the role badge when it has one (TAGGED, immune), status."""
    rows = (r.rsplit("│", 1)[-1] for r in screen.split("\n") if "│" in r)
    row = rf"[▶ ]?{seat} {name}\s+[0-9a-f]{{6}}\s+(\w+\s+)?left$"
    return any(re.match(row, r.strip()) for r in rows)


@pytest.mark.slow  # three or four real consoles for a while
@pytest.mark.parametrize("seats", [2, 3])
def test_ctrl_q_then_join_resume_plays_the_seat_again(
    tmux: TmuxServer, tmp_path: Path, seats: int
) -> None:
    homes = [player(tmp_path, name) for name in NAMES[:seats]]
    logs = [tmp_path / f"{name}.lantag" for name in NAMES[:seats]]
    port = free_udp_port()
    host = tmux.start(
        "host",
        [
            *LANTAG, "host", "--game", "prototag", "--option", "end_steps=300",
            "--seats", str(seats), "--port", str(port), "--bind", "127.0.0.1",
            "--no-advertise", "--log", str(logs[0]),
        ],
        xdg(homes[0]),
    )  # fmt: skip
    host.wait_for(f"listening on 127.0.0.1:{port}")
    panes = {0: host}
    for seat in range(1, seats):
        pane = tmux.start(
            NAMES[seat],
            [*LANTAG, "join", f"127.0.0.1:{port}", "--log", str(logs[seat])],
            xdg(homes[seat]),
        )
        pane.wait_for(f"you are seat {seat} — waiting for the host to start")
        panes[seat] = pane
    host.wait(lambda s: "(open)" not in s, "a full roster")
    host.keys("s")  # (acts at once, as on the setup form)
    for pane in panes.values():
        pane.wait_for("lanTag │ Prototag │ step")

    def leaver_moved() -> bool:
        return ": you: " in panel(panes[LEAVER].text())

    play_on(panes, leaver_moved)
    assert quit_game(panes[LEAVER]) == 1  # Ctrl-Q twice: the LEAVE
    del panes[LEAVER]
    # The others take the drop at the next step that needs the seat: they play on to it.
    # The feed's "bob left; a bot plays seat 1" may scroll away while the others play on
    # (it did under load in CI); the players row, set by the same event, stays.  (The feed
    # line itself: tests/ui/test_leaving.py.)
    play_on(panes, lambda: row_says_left(host.text(), LEAVER, "bob"))

    back = tmux.start(
        "bob-again", [*LANTAG, "join", "--resume", str(logs[LEAVER])], xdg(homes[LEAVER])
    )
    panes[LEAVER] = back
    # The others play on (their turns come) while the resumed seat asks back.
    play_on(panes, BackInSeat(back, LEAVER, "bob"))
    # It plays its seat again: a move of its own, seen by the host.
    # (Its secret choices are sealed on the way: a battle with it may come first.)
    others = {s for s in panes if s != LEAVER}
    play_on(panes, lambda: MY_TURN in back.text(), moves=others)
    action = play_one(back, title_step(back.text()))
    host.wait(lambda s: f": seat {LEAVER}: {action}" in panel(s), "the resumed seat's move")
    for pane in panes.values():
        assert quit_game(pane) == 1
        assert "Traceback" not in pane.history()
    for home, log in zip(homes, logs, strict=True):
        verified = lantag(home, "verify", str(log))
        assert verified.returncode == 0, verified.stdout + verified.stderr
