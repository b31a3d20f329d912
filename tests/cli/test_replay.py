"""`lantag replay`: the headless text replay (subprocess) and the viewer's keys (in-process,
prompt-toolkit pipe input, no terminal): stepping, jumps, play/pause, the help overlay
and the fairness panel (each roll's links, each secret round's commitments and reveals).

The fairness details themselves are tested against the log in test_replay_detail.py.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.rules.base import Joint, Roll
from lanTag.session.messages import MsgType, parse_unverified
from lanTag.ui.replay import ReplayModel, replay_screen, run_replay_app
from lanTag.ui.snapshot import screen_text
from tests.cli.helpers import Home, forge_state_hash, lantag, user_error

RIGHT, LEFT, PGDN, PGUP, HOME_KEY, END_KEY = (
    "\x1b[C", "\x1b[D", "\x1b[6~", "\x1b[5~", "\x1b[H", "\x1b[F",
)  # fmt: skip
HANG_GUARD = 20.0


# ------------------------------------------------------------------ headless


def test_replay_headless_prints_every_step(home: Home, tmp_path: Path) -> None:
    log = tmp_path / "g.lantag"
    played = lantag(home, "play", "--headless", "--bots", "2", "--log", str(log))
    assert played.returncode == 0, played.stderr
    moves = re.findall(r"^step (\d+): (.*)$", played.stdout, re.MULTILINE)
    assert moves

    result = lantag(home, "replay", "--headless", str(log))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    headers = re.findall(r"^## step (\d+): (.*)$", result.stdout, re.MULTILINE)
    assert headers[0] == ("0", "start")
    # The position after step k is "## step k+1", and the replay words each step as the
    # game did (one wording table: a roll by its result, a battle by its outcome).
    assert [(str(int(k) + 1), text) for k, text in moves] == headers[1:]
    assert any(not re.match(r"seat \d+: ", text) for _, text in moves)  # not moves alone
    blocks = result.stdout.split("## step ")[1:]
    assert all(len(block.strip().splitlines()) >= 3 for block in blocks)  # a board under each
    assert "game over" in blocks[-1]


@pytest.mark.parametrize("game", ["assassination", "boardtag", "stomptag", "tagem"])
def test_replay_headless_every_game(home: Home, logs: Callable[[str], Path], game: str) -> None:
    log = logs(game)
    report = verify_log(log.read_bytes())
    result = lantag(home, "replay", "--headless", str(log))
    assert result.returncode == 0, result.stderr
    assert (
        len(re.findall(r"^## step \d+: ", result.stdout, re.MULTILINE)) == len(report.applied) + 1
    )


def test_replay_refuses_a_forged_log_with_the_reason(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    forged, entry, step = forge_state_hash(game_log.read_bytes())
    path = tmp_path / "forged.lantag"
    path.write_bytes(forged)
    for args in (["replay", "--headless", str(path)], ["replay", str(path)]):
        message = user_error(lantag(home, *args))
        assert f"fails verification at entry {entry}" in message
        assert f"state hash after step {step} differs" in message
        assert "--force" in message


def test_replay_force_shows_a_forged_log_up_to_the_failure(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    forged, _entry, step = forge_state_hash(game_log.read_bytes())
    path = tmp_path / "forged.lantag"
    path.write_bytes(forged)
    result = lantag(home, "replay", "--headless", "--force", str(path))
    assert result.returncode == 0, result.stderr
    shown = [int(n) for n in re.findall(r"^## step (\d+): ", result.stdout, re.MULTILINE)]
    assert shown[0] == 0 and step <= shown[-1] < step + 3


def test_replay_of_a_truncated_log_shows_what_is_there(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    data = game_log.read_bytes()
    path = tmp_path / "cut.lantag"
    path.write_bytes(data[: len(data) // 2])
    report = verify_log(path.read_bytes())
    assert report.valid and not report.complete
    result = lantag(home, "replay", "--headless", str(path))
    assert result.returncode == 0, result.stderr
    assert (
        len(re.findall(r"^## step \d+: ", result.stdout, re.MULTILINE)) == len(report.applied) + 1
    )


def _links(data: bytes, step: int, kind: MsgType) -> dict[int, list[Any]]:
    """Per seat, the payload of that seat's ``kind`` message(s) for ``step`` in the log."""
    out: dict[int, list[Any]] = {}
    for entry in parse_log(data).entries:
        if entry.kind != EntryKind.MSG:
            continue
        msg = parse_unverified(entry.data)
        if msg.type == kind and msg.step == step:
            out.setdefault(msg.seat, []).append(msg.payload)
    return out


def _board_column(screen: str) -> str:
    """The board column's words on one line: a wrapped fairness line must not run into
    the side panel's text on the same screen row."""
    left = "\n".join(line.split("│")[0] for line in screen.splitlines()[1:])
    return " ".join(left.split())


def _first(report: VerifyReport, kind: type) -> int:
    return next(a.step for a in report.applied if isinstance(a.input, kind))


def test_replay_headless_shows_roll_contributions_and_commitments(
    home: Home, game_log: Path
) -> None:
    """`lantag replay --headless` prints, under a roll, the hash-chain link each seat
    contributed and, under a secret round, each seat's commitment and its opening."""
    data = game_log.read_bytes()
    report = verify_log(data)
    result = lantag(home, "replay", "--headless", str(game_log))
    blocks = {
        int(b.split(":", 1)[0]): b for b in result.stdout.split("## step ")[1:]
    }  # position -> text
    roll = _first(report, Roll)
    shown = blocks[roll + 1]
    links = _links(data, roll, MsgType.ENTROPY)
    assert links
    for seat, payloads in links.items():
        assert any(p[0].hex()[:6] in shown for p in payloads), f"seat {seat}'s link not shown"
    secret = _first(report, Joint)
    shown = blocks[secret + 1]
    commits = _links(data, secret, MsgType.COMMIT)
    assert commits
    for seat, payloads in commits.items():
        assert any(p[0].hex()[:6] in shown for p in payloads), f"seat {seat}'s commitment"
    for seat, payloads in _links(data, secret, MsgType.REVEAL).items():
        assert any(p[1].hex()[:6] in shown for p in payloads), f"seat {seat}'s nonce"
    assert "✓ opens it" in shown and "= the recorded choices" in shown
    assert "✗" not in result.stdout  # an honest game: every link chains, every seal opens


# ------------------------------------------------------------------ the viewer


def _panel(screen: str) -> str:
    """The side panel's text with its wrapped lines joined (right of the last '│')."""
    return " ".join(line.rsplit("│", 1)[-1].strip() for line in screen.splitlines()[1:-1])


class Viewer:
    """The replay viewer running on a pipe input (keys in, model and screen text out)."""

    def __init__(self, data: bytes, inp: PipeInput) -> None:
        self.report = verify_log(data)
        self.model: ReplayModel
        self.app: Application[Any]
        self.model, self.app = replay_screen(
            data, self.report, input=inp, output=DummyOutput(), color=False
        )
        self.inp = inp
        self.task = asyncio.create_task(self.app.run_async())

    @property
    def step(self) -> int:
        return self.model.positions[self.model.index][0]

    @property
    def last(self) -> int:
        return len(self.model.positions) - 1

    async def keys(self, text: str, until: Callable[[], bool]) -> None:
        """Type ``text`` and yield until ``until()`` holds (a hang guard, not a timing claim)."""
        self.inp.send_text(text)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + HANG_GUARD
        while not until():
            assert loop.time() < deadline, f"after keys {text!r}: index {self.model.index}"
            await asyncio.sleep(0.01)

    async def at(self, text: str, index: int) -> None:
        await self.keys(text, lambda: self.model.index == index)

    def screen(self, width: int = 100, height: int = 40) -> str:
        return screen_text(self.app, width, height)

    def bound(self, *keys: str) -> bool:
        return any(
            tuple(getattr(k, "value", k) for k in b.keys) == keys
            for b in self.app.key_bindings.bindings  # type: ignore[union-attr]
        )

    async def close(self) -> None:
        self.inp.send_text("q")
        assert await asyncio.wait_for(self.task, HANG_GUARD) is None


async def test_viewer_steps_on_and_back(game_log: Path) -> None:
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        assert v.model.index == 0 and v.last == len(v.report.applied)
        await v.at(RIGHT, 1)
        await v.at("l", 2)
        await v.at(" ", 3)
        await v.at(LEFT, 2)
        await v.at("h", 1)
        await v.at(LEFT + LEFT + LEFT, 0)  # clamps at the start
        await v.at(PGDN, 10)
        await v.at(PGDN, 20)
        await v.at(PGUP, 10)
        await v.at("G", v.last)
        await v.at(RIGHT, v.last)  # clamps at the end
        await v.at("g", 0)
        await v.at(END_KEY, v.last)
        await v.at(HOME_KEY, 0)
        await v.close()


async def test_viewer_shows_step_board_players_and_result(game_log: Path) -> None:
    data = game_log.read_bytes()
    with create_pipe_input() as inp:
        v = Viewer(data, inp)
        first = v.screen()
        assert f"replay │ Prototag │ step 0/{v.last} │ verified" in first
        for p in v.report.players:
            assert re.search(rf"{p.seat} {re.escape(p.nickname[:10])}\s+{p.fingerprint[:6]}", first)
        assert (
            f"{v.report.signatures_verified} signatures, {v.report.rolls_verified} rolls and "
            f"{v.report.secrets_verified} secret choices verified"
        ) in _panel(first)
        assert "0: start" in first
        # A few steps on: the title, the moves list and the board follow.
        await v.at(RIGHT * 5, 5)
        later = v.screen()
        assert f"step 5/{v.last}" in later
        step, text, _ = v.model.positions[5]
        assert f"{step}: {text}" in later
        await v.at("G", v.last)
        end = v.screen()
        assert f"result: {v.report.outcome}" in _panel(end)
        assert f"{v.last}: {v.model.positions[-1][1]}" in end
        await v.close()


async def test_viewer_board_follows_the_moves(game_log: Path) -> None:
    """The board drawn at each position is that position's board: a move changes it."""
    data = game_log.read_bytes()
    with create_pipe_input() as inp:
        v = Viewer(data, inp)
        moved = next(
            i
            for i, (_, text, _s) in enumerate(v.model.positions)
            if re.match(r"seat \d+: step", text)
        )
        await v.at(RIGHT * (moved - 1), moved - 1)
        before = v.screen()
        await v.at(RIGHT, moved)
        after = v.screen()

        def board(screen: str) -> list[str]:  # the 7x7 board and its header row, no panel
            return [line.split("│", 1)[0] for line in screen.splitlines()[1:9]]

        assert board(before) != board(after)
        await v.close()


async def test_viewer_of_a_forced_invalid_log_says_so(game_log: Path) -> None:
    forged, entry, step = forge_state_hash(game_log.read_bytes())
    with create_pipe_input() as inp:
        v = Viewer(forged, inp)
        text = v.screen()
        assert "NOT VALID" in text
        assert f"fails at entry {entry} (step {step})" in text
        await v.close()


@pytest.mark.parametrize("key", ["q", "\x1b", "\x03"])
async def test_viewer_closes_with_q_escape_and_ctrl_c(game_log: Path, key: str) -> None:
    data = game_log.read_bytes()
    with create_pipe_input() as inp:
        inp.send_text(key)
        code = await asyncio.wait_for(
            run_replay_app(data, verify_log(data), input=inp, output=DummyOutput()), HANG_GUARD
        )
    assert code == 0


async def test_viewer_jumps_to_a_step(game_log: Path) -> None:
    """':' then a step number and Enter goes there."""
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            assert v.bound(":"), "the replay viewer has no ':' (jump) key"
            await v.keys(":40\r", lambda: v.step == 40)
        finally:
            await v.close()


async def test_viewer_plays_and_pauses(game_log: Path) -> None:
    """'p' plays the game forward on its own and pauses; '+'/'-' change the speed (shown
    on screen)."""
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            assert v.bound("p"), "the replay viewer has no play/pause key"
            assert v.bound("+") and v.bound("-"), "the replay viewer has no speed keys"
            await v.keys("p", lambda: v.model.index >= 3)  # it advances by itself
            await v.keys("p", lambda: True)
            assert "speed" in v.screen().lower()
        finally:
            await v.close()


async def test_viewer_shows_roll_contributions(game_log: Path) -> None:
    """At a roll the viewer shows what each seat contributed: its hash-chain link and
    that it chains, and the value derived from them."""
    data = game_log.read_bytes()
    with create_pipe_input() as inp:
        v = Viewer(data, inp)
        try:
            roll = _first(v.report, Roll)
            await v.at(RIGHT * (roll + 1), roll + 1)
            text = v.screen(120, 50)
            links = _links(data, roll, MsgType.ENTROPY)
            assert links
            for seat, payloads in links.items():
                assert any(p[0].hex()[:6] in text for p in payloads), f"seat {seat}'s link"
            panel = _board_column(text)
            assert panel.count("✓ hashes to its anchor") == len(links)  # the first roll
            assert f"derived {v.model.positions[roll + 1][1]} ✓ = the recorded roll" in panel
        finally:
            await v.close()


async def test_viewer_shows_secret_commitments_and_reveals(game_log: Path) -> None:
    """At a secret round the viewer shows each seat's commitment, its opening (nonce)
    and that it matched."""
    data = game_log.read_bytes()
    with create_pipe_input() as inp:
        v = Viewer(data, inp)
        try:
            secret = _first(v.report, Joint)
            await v.at(RIGHT * (secret + 1), secret + 1)
            text = v.screen(120, 50)
            commits = _links(data, secret, MsgType.COMMIT)
            reveals = _links(data, secret, MsgType.REVEAL)
            assert commits and reveals
            for seat, payloads in commits.items():
                assert any(p[0].hex()[:6] in text for p in payloads), f"seat {seat}'s commitment"
            for seat, payloads in reveals.items():
                assert any(p[1].hex()[:6] in text for p in payloads), f"seat {seat}'s nonce"
            panel = _board_column(text)
            assert panel.count("✓ opens it") == len(reveals)
            assert "= the recorded choices" in panel
        finally:
            await v.close()


async def test_viewer_jumps_to_a_turn(game_log: Path) -> None:
    """':t' and a turn number goes to where that turn begins; the title names the turn."""
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            starts = v.model.turn_starts
            assert len(starts) > 3 and v.bound(":")
            await v.at(":t3\r", starts[2])
            assert f"turn 3/{len(starts)}" in v.screen(120, 40)
            await v.at(":t1\r", starts[0])
            await v.at(f":{v.model.positions[-2][0]}\r", v.last - 1)
        finally:
            await v.close()


async def test_viewer_jump_prompt_takes_the_keys_until_enter_or_escape(game_log: Path) -> None:
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            await v.at(RIGHT * 5, 5)
            # While typing, navigation letters are text, not moves.
            await v.keys(":lgG", lambda: "jump to: lgG" in v.screen())
            await v.keys("\x7f", lambda: "jump to: lg▏" in v.screen())  # backspace
            await v.keys("\x1b", lambda: "jump to" not in v.screen())  # Esc cancels ...
            assert v.model.index == 5 and not v.task.done()  # ... and does not quit
            await v.keys(":zz\r", lambda: "jump: type a step number" in v.screen())
            assert v.model.index == 5
            await v.at(RIGHT, 6)  # the next key clears the complaint
            assert "jump:" not in v.screen() and ":N/:tN jump" in v.screen(120, 40)
        finally:
            await v.close()


async def test_viewer_plays_to_the_end_and_pauses_there(game_log: Path) -> None:
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            await v.at(f":{v.model.positions[-4][0]}\r", v.last - 3)
            await v.keys("p", lambda: v.model.index == v.last and not v.model.playing)
            assert "⏸ speed" in v.screen(120, 40)  # paused
            # Playing from the end starts over; pausing holds the position.
            await v.keys("p", lambda: v.model.playing and v.model.index < v.last)
            await v.keys("p", lambda: not v.model.playing)
            held = v.model.index
            await v.at(RIGHT, held + 1)  # keys still step while paused
        finally:
            await v.close()


async def test_viewer_speed_keys_change_the_speed_on_screen(game_log: Path) -> None:
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            speed = v.model.speed
            shown = f"speed {v.model.steps_per_second:g}/s"
            assert shown in v.screen(120, 40)
            await v.keys("+", lambda: v.model.speed == speed + 1)
            assert f"speed {v.model.steps_per_second:g}/s" in v.screen(120, 40)
            await v.keys("--", lambda: v.model.speed == speed - 1)
            await v.keys("=", lambda: v.model.speed == speed)  # '=' is '+' unshifted
            assert shown in v.screen(120, 40)
        finally:
            await v.close()


async def test_viewer_help_overlay_lists_the_keys(game_log: Path) -> None:
    with create_pipe_input() as inp:
        v = Viewer(game_log.read_bytes(), inp)
        try:
            assert "? help" in v.screen(120, 40)
            await v.keys("?", lambda: "replay keys" in v.screen(100, 40))
            help_text = v.screen(100, 40)
            for keys in (":N Enter", ":tN Enter", "p ", "+ -", "fairness panel"):
                assert keys in help_text
            await v.keys("l", lambda: True)  # keys do not step behind the help
            await v.keys("\x1b", lambda: "replay keys" not in v.screen(100, 40))
            assert v.model.index == 0 and not v.task.done()
            await v.keys("?", lambda: "replay keys" in v.screen(100, 40))
            await v.keys("q", lambda: "replay keys" not in v.screen(100, 40))
            assert not v.task.done()
        finally:
            await v.close()
