"""The real interactive console (not --headless), driven by keys in tmux panes of 100x30.

`lantag play --bots 2`: moves by Tab/Enter and by the arrow keys, the board, the step
counter and the panel follow, Ctrl-Q twice leaves.  `lantag host` + `lantag join` in two
panes (separate XDG directories): the host starts, both show the game, a move made in
the pane whose turn it is shows up in the other.  Also: NO_COLOR on a real terminal and
the replay viewer.

Skipped when tmux is not installed (apt-get install tmux).
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import LANTAG, Home, lantag, make_home, make_log
from tests.e2e.tmux import TMUX, Pane, TmuxServer, has_colour

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed (apt-get install tmux): no terminal to drive"
)

ARROW = {"n": "Up", "s": "Down", "e": "Right", "w": "Left"}
# (rank, file) steps: ranks count from the bottom of the board, north is up.
DELTA = {"n": (1, 0), "s": (-1, 0), "e": (0, 1), "w": (0, -1)}
MY_TURN = "turn you to move"
# The bots answer on loopback within milliseconds: between our move and the next screen
# capture they can play ten steps and scroll our line off the side panel.  A fixed delay
# in the project's own UDP layer paces the table so the panel checks see our move.
PACED = ["--netsim", "delay=150ms,seed=1"]


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[TmuxServer]:
    server = TmuxServer(tmp_path, make_home(tmp_path / "tmux-home").env())
    try:
        yield server
    finally:
        server.kill()


def player(tmp_path: Path, nickname: str) -> Home:
    home = make_home(tmp_path / nickname)
    assert lantag(home, "id", "--nickname", nickname).returncode == 0
    return home


def xdg(home: Home, **extra: str) -> dict[str, str]:
    return {
        "XDG_CONFIG_HOME": str(home.config),
        "XDG_DATA_HOME": str(home.data),
        "HOME": str(home.root),
        **extra,
    }


# ------------------------------------------------------------------ reading the game screen


def shown_step(screen: str) -> int | None:
    """The step in the title line, or None while it is not there (another screen, or a
    capture taken in the middle of a redraw): what a wait's predicate may poll."""
    match = re.search(r"│ step (\d+) │", screen.split("\n", 1)[0])
    return int(match.group(1)) if match else None


def title_step(screen: str) -> int:
    step = shown_step(screen)
    assert step is not None, screen
    return step


def past_step(step: int) -> Callable[[str], bool]:
    """A wait predicate: the title shows a step after ``step``."""
    return lambda s: (shown_step(s) or -1) > step


def pawn(screen: str, seat: int) -> tuple[int, int]:
    """(rank, file) of ``seat``'s piece on the prototag board (ranks 1-7 from the bottom,
    files a-g as 0-6)."""
    found = []
    for line in screen.split("\n")[2:16]:
        board = line.split("│", 1)[0]
        row = re.match(r"^ ?(\d+) ", board)
        if not row:
            continue
        cells = [board[3 + 3 * j : 6 + 3 * j].strip() for j in range((len(board) - 3) // 3 + 1)]
        for col, cell in enumerate(cells):
            if str(seat) in cell:
                found.append((int(row.group(1)), col))
    assert len(found) == 1, f"seat {seat} at {found}:\n{screen}"
    return found[0]


def message_line(screen: str) -> str:
    return screen.split("\n")[-2].strip()


def command_line(screen: str) -> str:
    last = screen.split("\n")[-1]
    return last.split("keys›", 1)[-1].strip() if "keys›" in last else ""


def panel(screen: str) -> str:
    """The side panel (right of the board's '│'), wrapped lines joined."""
    rows = screen.split("\n")[1:-2]
    return " ".join(r.rsplit("│", 1)[-1].strip() for r in rows if "│" in r)


def legal_actions(pane: Pane) -> list[str]:
    """Tab through the legal actions (the message line says "i/N: ...")."""
    pane.keys("Tab")
    screen = pane.wait(lambda s: re.match(r"1/\d+", message_line(s)) is not None, "1/N")
    total = int(re.match(r"1/(\d+)", message_line(screen)).group(1))  # type: ignore[union-attr]
    actions = [command_line(screen)]
    for i in range(2, total + 1):
        pane.keys("Tab")
        prefix = f"{i}/"

        def shows(s: str, prefix: str = prefix) -> bool:
            return message_line(s).startswith(prefix)

        screen = pane.wait(shows, f"{prefix}{total}")
        actions.append(command_line(screen))
    return actions


def secret_asked(screen: str, seat: int) -> int | None:
    """The step whose secret choice (rock-paper-scissors) ``screen`` asks of ``seat``, or
    None: none asked, or a bot plays the seat while we watch (idle, or not let back in
    yet), and the bot chooses."""
    asked = re.search(r"turn secret [\w-]+: seats ([\d ]+?) ·", panel(screen))
    if asked is None or str(seat) not in asked.group(1).split():
        return None
    if "│ watching: bot in your seat" in screen.split("\n", 1)[0]:
        return None
    return shown_step(screen)


def seal_if_asked(pane: Pane, seat: int, sealed: set[int], nth: int = 1) -> None:
    """A secret choice asked of ``seat``: Tab ``nth`` times picks the nth choice (the message
    line says "nth/N"), Enter seals it."""
    step = secret_asked(pane.text(), seat)
    if step is None or step in sealed:
        return
    pane.keys(*["Tab"] * nth)
    pane.wait(lambda s: re.match(rf"{nth}/\d+", message_line(s)) is not None, f"choice {nth}")
    pane.keys("Enter")
    # "committed ..." may be replaced before a capture sees it (a quick table decides the
    # round at once): the step moving on says it too.
    pane.wait(
        lambda s: message_line(s).startswith("committed") or shown_step(s) not in (None, step),
        "the choice sealed",
    )
    sealed.add(step)


def until_my_move(pane: Pane, seat: int, guard: float = 60.0) -> str:
    """Wait until ``seat`` is to move (sealing secret choices on the way); a settled screen."""
    deadline = time.monotonic() + guard
    sealed: set[int] = set()
    while MY_TURN not in pane.text():
        assert pane.dead() is None, pane.history()
        assert time.monotonic() < deadline, f"never our move:\n{pane.text()}"
        seal_if_asked(pane, seat, sealed)
        time.sleep(0.1)
    return pane.settled()


def play_one(pane: Pane, step: int) -> str:
    """Tab, then Enter: the first legal action at ``step``, played: the command line empties
    and the title moves past ``step`` (a move into a battle leaves no "played ..." on the
    message line).  Waiting for the step keeps the next look at this screen from taking the
    turn line of a step already played for a new turn (it did in CI: two ``play_on`` calls in
    a row, the second saw the first's last turn still on the screen and pressed Tab)."""
    pane.keys("Tab")
    action = command_line(pane.wait(lambda s: command_line(s) != "", "an action after Tab"))
    pane.keys("Enter")
    pane.wait(
        lambda s: command_line(s) == ""
        and (shown_step(s) not in (None, step) or "Game over" in s),
        f"{action} played at step {step}",
    )
    return action


def play_first_action(pane: Pane) -> tuple[str, str]:
    """Tab, then Enter: returns (action, the screen once "played <action>" shows)."""
    pane.keys("Tab")
    screen = pane.wait(lambda s: command_line(s) != "", "an action after Tab")
    action = command_line(screen)
    pane.keys("Enter")
    screen = pane.wait(lambda s: message_line(s) == f"played {action}", f"played {action}")
    return action, screen


def expect_moved(before: tuple[int, int], after: tuple[int, int], action: str) -> None:
    if not re.fullmatch(r"step [nesw]", action):
        return
    direction = action.split()[-1]
    dr, dc = DELTA[direction]
    assert after == (before[0] + dr, before[1] + dc), (before, after, action)


def quit_game(pane: Pane) -> int:
    pane.keys("C-q")
    pane.wait(lambda s: "press Ctrl-Q again" in s, "the quit confirmation")
    pane.keys("C-q")
    return pane.wait_exit()


# ------------------------------------------------------------------ lantag play


def test_play_against_bots_by_keys(tmux: TmuxServer, tmp_path: Path) -> None:
    me = player(tmp_path, "tester")
    log = tmp_path / "ui.lantag"
    pane = tmux.start("solo", [*LANTAG, "play", "--bots", "2", *PACED, "--log", str(log)], xdg(me))

    screen = until_my_move(pane, 0)
    assert "lanTag │ Prototag │ step" in screen and "you: seat 0 tester" in screen
    assert "    a  b  c  d  e  f  g" in screen
    # seat, nickname, key, the score/role badge (Prototag: TAGGED, immune or none), status
    assert re.search(r"0 tester\s+[0-9a-f]{6}\s+(TAGGED\s+|immune\s+)?you\b", screen)
    assert "bot-1" in screen and "bot-2" in screen
    step = title_step(screen)
    where = pawn(screen, 0)

    # Move 1: Tab puts a legal action on the command line, Enter plays it.
    action, screen = play_first_action(pane)
    line = f"{step}: you: {action}"
    screen = pane.wait(lambda s: line in panel(s), f"{line!r} in the panel")
    assert title_step(screen) > step
    expect_moved(where, pawn(screen, 0), action)
    moves = [(step, action)]

    # Move 2 (on our next turn if this one is over): an arrow key plays "step <direction>".
    screen = until_my_move(pane, 0)
    step, where = title_step(screen), pawn(screen, 0)
    steps = [a for a in legal_actions(pane) if re.fullmatch(r"step [nesw]", a)]
    assert steps, "no step action offered on our turn"
    action = steps[0]
    pane.keys(ARROW[action[-1]])
    pane.wait(lambda s: message_line(s) == f"played {action}", f"played {action}")
    screen = pane.wait(past_step(step), f"step {step} decided")
    expect_moved(where, pawn(screen, 0), action)
    moves.append((step, action))

    # Help opens and closes, then Ctrl-Q twice leaves mid-game (exit 1, docs/ui.md).
    pane.keys("F1")
    pane.wait_for("help — Esc, q, ? or F1 closes")
    pane.keys("F1")
    pane.wait(lambda s: "help — Esc" not in s and "players" in s, "the board again")
    assert quit_game(pane) == 1
    assert "Traceback" not in pane.history()
    # Leaving mid-game prints the log's full path on a line of its own, as lantag exits.
    assert str(log.resolve()) in pane.joined_history()

    # The signed log holds our moves and verifies (valid, not complete).
    verified = lantag(me, "verify", "--json", str(log))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert '"complete": false' in verified.stdout and '"valid": true' in verified.stdout
    replay = lantag(me, "replay", "--headless", str(log)).stdout
    for s, a in moves:
        assert f"## step {s + 1}: seat 0: {a}" in replay


def test_bug_first_hint_is_stale_on_your_turn(tmux: TmuxServer, tmp_path: Path) -> None:
    """Today the message line keeps the hint of the game's first screen (step 0, the start
    roll: "rolling: every live seat reveals its next chain link") until the first key
    press, even when the panel says "turn you to move".  GameApp.__init__ stores
    prompt_hint() once with model.say(); nothing refreshes it."""
    me = player(tmp_path, "tester")
    pane = tmux.start(
        "hint", [*LANTAG, "play", "--bots", "2", "--log", str(tmp_path / "h.lantag")], xdg(me)
    )
    # No key pressed: wait until something is asked of us (a move, or a secret choice).
    pane.wait(lambda s: MY_TURN in s or re.search(r"turn secret [\w-]+: seats [\d ]*0", panel(s))
              is not None, "our turn")  # fmt: skip
    hint = message_line(pane.settled())
    quit_game(pane)
    assert hint.startswith("your"), f"message line on our turn: {hint!r}"


def test_bug_bots_reported_lagging_after_a_slow_human_move(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    """Today, when you take longer than the lag threshold (2 s) to move, the log panel says
    "seat 1 bot-1 lagging (4.8s)" / "seat 2 bot-2 lagging" right after your move: the
    acknowledgements of your move are timed from the start of the step (SilenceClock.lag_time
    uses box.started_at), not from when they became due.  The same happens between two
    people (host/join): the one who waited is shown "lagging (12.4s)" by the slow mover."""
    me = player(tmp_path, "tester")
    pane = tmux.start(
        "lag",
        [*LANTAG, "play", "--bots", "2", *PACED, "--log", str(tmp_path / "l.lantag")],
        xdg(me),
    )
    step = title_step(until_my_move(pane, 0))
    time.sleep(3.0)  # think for longer than lag_ms (2 s); the bots have nothing to do
    action, _ = play_first_action(pane)
    # The panel as our move's line first shows: a Lagging event is logged before the step
    # it delays, so a false report is already there; later the bots' moves (or a settled
    # screen after them) can scroll our line off the panel.
    after = panel(
        pane.wait(lambda s: re.search(rf"(?:^|\s){step}: you: ", panel(s)) is not None, "our move")
    )
    quit_game(pane)
    # The anchor of the check below must be on screen, or a layout change would pass it.
    assert re.search(rf"(?:^|\s){step}: you: ", after), f"our move is not in the panel: {after!r}"
    false_lag = re.search(rf"((?:seat \d bot-\d lagging \([\d.]+s\) )+){step}: you: ", after)
    assert false_lag is None, f"reported right before our move {action!r}: {false_lag.group(1)}"


def test_no_color_on_a_real_terminal(tmux: TmuxServer, tmp_path: Path) -> None:
    me = player(tmp_path, "tester")
    args = [*LANTAG, "play", "--bots", "2"]
    coloured = tmux.start("colour", [*args, "--log", str(tmp_path / "a.lantag")], xdg(me))
    plain = tmux.start("plain", [*args, "--log", str(tmp_path / "b.lantag")], xdg(me, NO_COLOR="1"))
    for pane in (coloured, plain):
        pane.wait_for("players")
        pane.settled()
    assert has_colour(coloured.escaped())
    escaped = plain.escaped()
    assert "\x1b[" in escaped  # attributes (bold, reverse) stay ...
    assert not has_colour(escaped), "NO_COLOR=1 but the screen has colours"  # ... colours go
    for pane in (coloured, plain):
        assert quit_game(pane) == 1


def test_replay_viewer_in_a_terminal(tmux: TmuxServer, tmp_path: Path) -> None:
    me = player(tmp_path, "tester")
    log = make_log(me, tmp_path / "r.lantag")
    pane = tmux.start("replay", [*LANTAG, "replay", str(log)], xdg(me))
    screen = pane.wait_for("lanTag │ replay │ Prototag │ step 0/")
    last = int(re.search(r"step 0/(\d+)", screen).group(1))  # type: ignore[union-attr]
    pane.keys("Right", "Right", "Right")
    pane.wait_for(f"step 3/{last}")
    pane.keys("Left")
    pane.wait_for(f"step 2/{last}")
    pane.keys("End")
    screen = pane.wait_for(f"step {last}/{last}")
    assert "result:" in panel(screen)
    pane.keys("q")
    assert pane.wait_exit() == 0


# ------------------------------------------------------------------ lantag host + lantag join


EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_udp_port() -> int:
    """A free UDP port on 127.0.0.1 for ``--port``, chosen below the kernel's ephemeral range.

    A port the kernel handed out (bind to 0, close) can be handed out again to any other
    process's bind to port 0 before lantag binds it ("address in use" on a busy machine);
    ports below the ephemeral range are never handed out that way.
    """
    low = 32768  # Linux's default start of net.ipv4.ip_local_port_range
    with contextlib.suppress(OSError, ValueError, IndexError):
        low = int(EPHEMERAL.read_text(encoding="utf-8").split()[0])
    rng = random.Random()
    for _ in range(200 if low > 2048 else 0):
        port = rng.randrange(max(1024, low - 12000), low)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # no room below: the kernel's
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_host_and_join_in_two_panes(tmux: TmuxServer, tmp_path: Path) -> None:
    alice, bob = player(tmp_path, "alice"), player(tmp_path, "bob")
    port = free_udp_port()
    host_log, join_log = tmp_path / "alice.lantag", tmp_path / "bob.lantag"
    host = tmux.start(
        "host",
        [
            *LANTAG, "host", "--seats", "2", "--port", str(port), "--bind", "127.0.0.1",
            "--no-advertise", "--log", str(host_log),
        ],
        xdg(alice),
    )  # fmt: skip
    # No --game: the setup form comes first, pre-filled from the flags; s hosts.
    screen = host.wait_for("lanTag │ host a game")
    assert "◀ Prototag ▶" in screen and "[ host ]" in screen and "alice's Prototag" in screen
    host.keys("s")
    screen = host.wait_for(f"listening on 127.0.0.1:{port}")
    assert "lanTag │ your game" in screen and "(open)" in screen and "alice (you)" in screen
    # What the others type, in the lobby itself (it was printed only once the host exited).
    assert f"others run: lantag join 127.0.0.1:{port}" in screen

    join = tmux.start(
        "join", [*LANTAG, "join", f"127.0.0.1:{port}", "--log", str(join_log)], xdg(bob)
    )
    screen = join.wait_for("you are seat 1 — waiting for the host to start")
    assert "“alice's Prototag” · Prototag · 2/2 seats taken" in screen
    assert "bob (you)" in screen
    screen = host.wait(lambda s: "bob" in s and "(open)" not in s, "bob in the host's roster")

    host.keys("s", "Enter")
    panes = {0: host, 1: join}
    for seat, pane in panes.items():
        screen = pane.wait_for("lanTag │ Prototag │ step")
        name = "alice" if seat == 0 else "bob"
        assert f"you: seat {seat} {name}" in screen

    # Whose turn is it?  Exactly one pane says "turn you to move" (secret choices sealed).
    deadline = time.monotonic() + 60
    mover = None
    sealed: dict[int, set[int]] = {0: set(), 1: set()}
    while mover is None:
        assert time.monotonic() < deadline, host.text() + "\n" + join.text()
        turns = [seat for seat, pane in panes.items() if MY_TURN in pane.text()]
        mover = turns[0] if len(turns) == 1 else None
        for seat, pane in panes.items():
            if mover is None:
                seal_if_asked(pane, seat, sealed[seat])
        time.sleep(0.1)
    other = 1 - mover
    me, them = panes[mover], panes[other]
    screen = me.settled()
    step, where = title_step(screen), pawn(screen, mover)
    them.wait(lambda s: shown_step(s) == step, "the other pane at the same step")

    action, _ = play_first_action(me)
    # "played ..." shows on Enter; the panel's line once the other peer has the move and
    # the step is decided: wait for it (on a loaded machine that is a while later).
    line = f"{step}: you: {action}"
    screen = me.wait(lambda s: line in panel(s), f"{line!r} in the mover's panel")
    expect_moved(where, pawn(screen, mover), action)

    # The other pane shows the same move, by seat, and the pawn where it went.
    seen = them.wait(
        lambda s: f"{step}: seat {mover}: {action}" in panel(s), "the move in the other pane"
    )
    seen = them.settled()
    expect_moved(where, pawn(seen, mover), action)
    assert title_step(seen) > step

    for pane in (host, join):
        assert quit_game(pane) == 1
        assert "Traceback" not in pane.history()
    for home, log in ((alice, host_log), (bob, join_log)):
        verified = lantag(home, "verify", str(log))
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert (
            f"## step {step + 1}: seat {mover}: {action}"
            in lantag(home, "replay", "--headless", str(log)).stdout
        )


def test_bug_join_without_a_target_offers_the_lobby_browser(
    tmux: TmuxServer, tmp_path: Path
) -> None:
    """`lantag join --help` says "game name or HOST:PORT (default: pick from list)" and the UI
    has a lobby browser (lanTag.ui.run_lobby_browser, docs/ui.md), but no command uses it:
    `lantag join` with no target joins the first game mDNS finds, without asking."""
    alice, bob = player(tmp_path, "alice"), player(tmp_path, "bob")
    name = f"browse-{uuid.uuid4().hex[:8]}"
    flags = ["-g", "prototag", "--seats", "2", "--name", name, "--log", str(tmp_path / "h.lantag")]
    host = tmux.start("host", [*LANTAG, "host", *flags], xdg(alice))
    host.wait_for("listening on")
    listed: list[dict[str, object]] = []
    for _ in range(3):
        found = lantag(bob, "list", "--wait", "2", "--json")
        listed = json.loads(found.stdout) if found.returncode == 0 else []
        if any(g.get("name") == name for g in listed):
            break
    else:
        host.keys("C-c")
        pytest.skip("mDNS discovery does not work here (lantag list does not see the host)")
    if len(listed) != 1:
        host.keys("C-c")
        pytest.skip("other games are advertised on this network: lantag join could join them")
    join = tmux.start(
        "join", [*LANTAG, "join", "--wait", "2", "--log", str(tmp_path / "j.lantag")], xdg(bob)
    )
    screen = join.wait(
        lambda s: "games on this network" in s or "waiting for the host" in s or "refused" in s,
        "the browser or the join screen",
    )
    join.keys("C-c")
    host.keys("C-c")
    join.wait_exit()
    host.wait_exit()
    assert "games on this network" in screen, f"joined without asking:\n{screen}"


def test_h_in_the_lobby_browser_opens_the_host_setup_form(tmux: TmuxServer, tmp_path: Path) -> None:
    """`lantag join` (the browser) -> h -> the host setup form; Esc goes back to the browser
    without hosting (the form's own "Esc back"), and the browser then leaves as usual."""
    alice = player(tmp_path, "alice")
    pane = tmux.start("join", [*LANTAG, "join", "--log", str(tmp_path / "j.lantag")], xdg(alice))
    pane.wait_for("h host a game")
    pane.keys("h")
    screen = pane.wait_for("lanTag │ host a game")
    assert "◀ Prototag ▶" in screen and "(default: alice's Prototag)" in screen
    pane.keys("Escape")
    back = pane.wait_for("games on this network")
    assert "host a game" not in back.split("games on this network")[0]  # the form is gone
    pane.keys("C-c")
    assert pane.wait_exit() in (0, 130)
