"""One key rule, kept (issue #34, item 6) on the screens around a game: the lobby browser
(`lantag join` without a target), the host setup form, the join wait and the replay viewer.

As tests/ui/test_hints.py does for the game screen: each test finds the hint on the drawn
screen, presses the keys it names through a real pipe input (the screen's own key
bindings) and checks that exactly that happened.
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.log.verify import verify_log
from lanTag.net.lobby_adverts import LobbyTable, ServiceAdded
from lanTag.session.compatibility import rules_version_of
from lanTag.ui import replay
from lanTag.ui.browser import browser_screen
from lanTag.ui.host_setup import HELP_LEGEND, TYPING_LEGEND, HostForm, host_setup_screen
from lanTag.ui.lobby_screens import join_screen
from lanTag.ui.replay import (
    HELP_HINT,
    HINT,
    STOP_SERIES,
    SeriesPlace,
    replay_screen,
    run_replay_app,
)
from lanTag.ui.snapshot import screen_text
from lanTag.wire import PROTOCOL_VERSION
from tests.peer.harness import Table
from tests.ui.fakes import NetHandle, eventually, ui_table
from tests.ui.test_lobby_screens import _with_network

UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"
ENTER, ESC, TAB, SHIFT_TAB, BACKSPACE = "\r", "\x1b", "\t", "\x1b[Z", "\x7f"
F1, CTRL_C = "\x1bOP", "\x03"


def _words(text: str) -> str:
    """The drawn screen as one line of words (a wrapped hint reads on)."""
    return " ".join(text.split())


# =========================================================================== browser


def _advert(
    name: str, *, seats: str = "1/4", state: str = "lobby", version: int = PROTOCOL_VERSION
) -> ServiceAdded:
    props = {
        b"v": str(version).encode(),
        b"engine": b"prototag",
        b"name": name.encode(),
        b"seats": seats.encode(),
        b"pw": b"0",
        b"fp": b"0123456789abcdef",
        b"state": state.encode(),
        b"port": b"4000",
    }
    if version >= 2:
        props[b"rules"] = str(rules_version_of("prototag")).encode()
    return ServiceAdded(f"{name} 0123._lantag._udp.local.", props, ("192.168.1.9",))


def _lan() -> LobbyTable:
    """alpha: open; bravo: playing; charlie: full; delta: another protocol."""
    table = LobbyTable()
    for event in (
        _advert("alpha"),
        _advert("bravo", state="playing"),
        _advert("charlie", seats="4/4"),
        _advert("delta", version=1),
    ):
        table = table.apply(event)
    return table


class Browser:
    def __init__(self, inp: PipeInput, **kwargs: Any) -> None:
        lan = _lan()
        self.screen = browser_screen(lambda: lan, input=inp, output=DummyOutput(), **kwargs)
        self.model = self.screen.model
        self.inp = inp
        self.task = asyncio.ensure_future(self.screen.run())

    def text(self) -> str:
        return _words(screen_text(self.screen.app, 100, 24))

    def selected(self) -> str:
        return self.model.lobbies[self.model.selected].name

    async def press(self, keys: str, until: Any) -> None:
        self.inp.send_text(keys)
        await eventually(until)

    async def done(self) -> None:
        await asyncio.wait_for(self.task, 30)


async def test_browser_arrows_and_jk_select_and_enter_joins_the_selected_game() -> None:
    with create_pipe_input() as inp:
        run = Browser(inp, can_host=True)
        assert "↑↓/jk select · Enter join · h host a game · q quit" in run.text()
        assert run.selected() == "alpha" and "▶ alpha" in run.text()
        await run.press(DOWN, lambda: run.selected() == "bravo")
        assert "▶ bravo" in run.text()
        await run.press("j", lambda: run.selected() == "charlie")
        await run.press("k", lambda: run.selected() == "bravo")
        await run.press(UP, lambda: run.selected() == "alpha")
        await run.press(ENTER, lambda: run.model.done)
        await run.done()
    assert run.model.result is not None and run.model.result.name == "alpha"
    assert not run.model.host_requested


@pytest.mark.parametrize(
    ("moves", "why"),
    [
        (DOWN, "“bravo” is already playing: nobody can join it until its game ends"),
        (DOWN * 2, "“charlie” is full (4/4): pick another game, or watch it with `lantag join"),
        (DOWN * 3, "cannot join “delta”: the host runs lanTag protocol 1"),
    ],
)
async def test_browser_enter_on_a_game_it_cannot_join_says_why_and_stays(
    moves: str, why: str
) -> None:
    # Enter used to leave the browser with such a game: the join then failed (a playing
    # host no longer answers a hello: "no answer within 5 s", with network causes).
    with create_pipe_input() as inp:
        run = Browser(inp, can_host=True)
        await run.press(moves, lambda: run.model.selected == len(moves) // len(DOWN))
        await run.press(ENTER, lambda: bool(run.model.message))
        assert why in run.text() and not run.model.done
        await run.press(UP * 3, lambda: run.selected() == "alpha")
        assert not run.model.message and why not in run.text()  # the next key forgets it
        await run.press("q", lambda: run.model.done)
        await run.done()
    assert run.model.result is None


async def test_browser_to_watch_enter_takes_a_full_game() -> None:
    with create_pipe_input() as inp:
        run = Browser(inp, spectate=True)
        assert "↑↓/jk select · Enter watch · q quit" in run.text()
        await run.press(DOWN * 2, lambda: run.selected() == "charlie")
        await run.press(ENTER, lambda: run.model.done)
        await run.done()
    assert run.model.result is not None and run.model.result.name == "charlie"


async def test_browser_h_hosts_only_where_the_hint_offers_it() -> None:
    with create_pipe_input() as inp:
        run = Browser(inp, can_host=True)
        await run.press("h", lambda: run.model.done)
        await run.done()
    assert run.model.host_requested and run.model.result is None
    with create_pipe_input() as inp:
        run = Browser(inp)  # run_lobby_browser: its caller cannot host
        assert "h host" not in run.text()
        await run.press("hj", lambda: run.selected() == "bravo")  # h did nothing
        assert not run.model.done and not run.model.host_requested
        await run.press("q", lambda: run.model.done)
        await run.done()


@pytest.mark.parametrize("key", ["q", ESC, CTRL_C])
async def test_browser_q_esc_and_ctrl_c_quit(key: str) -> None:
    with create_pipe_input() as inp:
        run = Browser(inp, can_host=True)
        await run.press(key, lambda: run.model.done)
        await run.done()
    assert run.model.result is None and not run.model.host_requested


async def test_browser_enter_with_no_game_yet_says_so() -> None:
    with create_pipe_input() as inp:
        screen = browser_screen(LobbyTable, input=inp, output=DummyOutput(), can_host=True)
        task = asyncio.ensure_future(screen.run())
        inp.send_text(ENTER)
        await eventually(lambda: bool(screen.model.message))
        text = _words(screen_text(screen.app, 80, 24))
        assert "no game to join yet: wait for one to appear, or h to host one" in text
        inp.send_text("q")
        await asyncio.wait_for(task, 30)


async def test_browser_h_then_esc_on_the_form_comes_back_to_the_browser(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The form's "Esc back", reached by the browser's h, goes back to the browser (it used
    to end `lantag join`); hosting from the form opens the host with the form's answer."""
    import argparse

    from lanTag.cli import play_commands
    from lanTag.cli.entry import build_parser
    from lanTag.peer.join_handshake import HostConfig
    from lanTag.ui import host_setup, lobby_screens
    from lanTag.ui.lobby_screens import HOST

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    browsed: list[bool] = []
    answers: list[HostConfig | None] = [None, HostForm.prefill(engine="tagem").to_config("me")]
    hosted: list[HostConfig | None] = []

    async def fake_browser(source: object, **kwargs: Any) -> str | None:
        browsed.append(kwargs["spectate"])
        return HOST if len(browsed) <= 2 else None

    async def fake_form(args: argparse.Namespace, nickname: str, **kwargs: Any) -> Any:
        return answers.pop(0)

    async def fake_host(args: argparse.Namespace, picked: HostConfig | None = None) -> int:
        hosted.append(picked)
        return 0

    class NoBrowser:
        async def __aenter__(self) -> NoBrowser:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(lobby_screens, "browse_or_host", fake_browser)
    monkeypatch.setattr(host_setup, "run_host_setup_for", fake_form)
    monkeypatch.setattr(play_commands, "cmd_host", fake_host)
    monkeypatch.setattr("lanTag.net.discovery.LobbyBrowser", NoBrowser)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    args = build_parser().parse_args(["join"])
    assert await play_commands.cmd_join(args) == 0
    # h, Esc on the form: the browser again; h, s on the form: hosted with its answer.
    assert browsed == [False, False] and answers == []
    assert len(hosted) == 1 and hosted[0] is not None and hosted[0].engine == "tagem"


# =========================================================================== host setup form


class Form:
    def __init__(self, inp: PipeInput) -> None:
        form = HostForm.prefill(engine="prototag")
        self.screen = host_setup_screen(form, nickname="alice", input=inp, output=DummyOutput())
        self.model = self.screen.model
        self.inp = inp
        self.task = asyncio.ensure_future(self.screen.run())

    def legend(self) -> str:
        return screen_text(self.screen.app, 80, 24).splitlines()[-1]

    def key(self) -> str:
        return self.model.form.focused().key

    async def press(self, keys: str, until: Any) -> None:
        self.inp.send_text(keys)
        await eventually(until)

    async def done(self) -> None:
        await asyncio.wait_for(self.task, 30)


async def test_form_legend_on_a_choice_arrows_field_and_change_enter_takes_the_next() -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        m = run.model
        assert run.key() == "engine"
        assert run.legend() == " ↑↓ field · ←→ change · Enter next · s host · ? help · Esc back"
        await run.press(RIGHT, lambda: m.form.engine != "prototag")  # ←→ change
        second = m.form.engine
        await run.press(LEFT, lambda: m.form.engine == "prototag")
        await run.press(ENTER, lambda: m.form.engine == second)  # Enter: the next value
        assert m.editing is None
        await run.press(LEFT, lambda: m.form.engine == "prototag")
        await run.press(DOWN, lambda: run.key() == "opt:board_size")  # ↑↓ field
        await run.press(UP, lambda: run.key() == "engine")
        await run.press("q", lambda: m.done)
        await run.done()


async def test_form_legend_on_a_number_enter_edits_and_the_typing_legend_holds() -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        m = run.model
        await run.press(DOWN, lambda: run.key() == "opt:board_size")
        assert run.legend() == " ↑↓ field · ←→ change · Enter edit · s host · ? help · Esc back"
        await run.press(RIGHT, lambda: m.form.option("board_size") == "8")
        await run.press(ENTER, lambda: m.editing == "opt:board_size")
        assert run.legend() == TYPING_LEGEND
        # While typing, s and q type (the legend does not offer them) and ←→ move the cursor.
        await run.press(LEFT + "1" + RIGHT + "q", lambda: m.edit.text == "18q")
        assert not m.done
        await run.press(BACKSPACE * 3 + "9", lambda: m.edit.text == "9")
        await run.press(ENTER, lambda: m.editing is None)  # Enter keeps it
        assert m.form.option("board_size") == "9"
        await run.press(ENTER + BACKSPACE + "5", lambda: m.edit.text == "5")
        await run.press(ESC, lambda: m.editing is None)  # Esc drops it
        assert m.form.option("board_size") == "9" and not m.done
        await run.press("q", lambda: m.done)
        await run.done()


async def test_form_legend_on_a_text_field_offers_enter_not_arrows() -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        m = run.model
        await run.press(UP * 3, lambda: run.key() == "name")  # (the focus wraps around)
        assert run.legend() == " ↑↓ field · Enter type it · s host · ? help · Esc back"
        await run.press(RIGHT, lambda: m.message == "Enter to type it")
        assert m.form.name == ""
        await run.press(ENTER + "Friday" + ENTER, lambda: m.form.name == "Friday")
        await run.press("q", lambda: m.done)
        await run.done()
    assert m.result is None


async def test_form_legend_on_host_enter_hosts() -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        await run.press(UP, lambda: run.key() == "host")
        assert run.legend() == " ↑↓ field · Enter or s host · ? help · Esc back"
        await run.press(ENTER, lambda: run.model.done)
        await run.done()
    assert run.model.result is not None and run.model.result.engine == "prototag"


async def test_form_s_hosts_from_any_field() -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        await run.press(DOWN * 3, lambda: run.key() == "opt:immunity_steps")
        await run.press("s", lambda: run.model.done)
        await run.done()
    assert run.model.result is not None


@pytest.mark.parametrize("key", [ESC, "q"])
async def test_form_esc_and_q_go_back_without_hosting(key: str) -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        await run.press(key, lambda: run.model.done)
        await run.done()
    assert run.model.result is None


@pytest.mark.parametrize("close", [ESC, "q", "?", F1])
async def test_form_help_legend_names_the_keys_that_close_it(close: str) -> None:
    with create_pipe_input() as inp:
        run = Form(inp)
        await run.press("?", lambda: run.model.show_help)
        assert run.legend() == HELP_LEGEND
        await run.press(close, lambda: not run.model.show_help)
        assert not run.model.done  # closing the help does not leave the form
        await run.press("q", lambda: run.model.done)
        await run.done()


async def test_form_help_lines_tab_shift_tab_and_plus_minus() -> None:
    # The help's own lines: "↑ ↓ / Tab / Shift-Tab  move", "← → / - +  change the value".
    with create_pipe_input() as inp:
        run = Form(inp)
        m = run.model
        await run.press(TAB, lambda: run.key() == "opt:board_size")
        await run.press("+", lambda: m.form.option("board_size") == "8")
        await run.press("-", lambda: m.form.option("board_size") == "7")
        await run.press(SHIFT_TAB, lambda: run.key() == "engine")
        await run.press("q", lambda: m.done)
        await run.done()


# =========================================================================== join wait


@pytest.mark.parametrize("key", ["q", ESC])
async def test_join_hint_q_or_esc_leave(key: str) -> None:
    table = ui_table("prototag", 2, seed=6)
    handle = NetHandle(table, index=1)
    with create_pipe_input() as inp:
        screen = join_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: screen.model.your_seat == 1)
        assert screen_text(screen.app, 80, 24).splitlines()[-1] == " q or Esc leave"
        inp.send_text(key)
        await asyncio.wait_for(run, 30)
    assert screen.model.done and not screen.model.started
    table.net.run_for(1.0)
    assert table.peers[0].lobby.taken == 1  # type: ignore[union-attr]  # the host saw us go


async def test_join_asking_the_password_q_types_and_ctrl_c_leaves() -> None:
    # The hint used to say "q leave" while the password line took the q.
    table = ui_table("prototag", 2, password="sesame", seed=4)
    table.peers[1].lobby.password = ""  # type: ignore[union-attr]
    handle = NetHandle(table, index=1)
    with create_pipe_input() as inp:
        screen = join_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: screen.app.layout.has_focus(screen.model.password))
        hint = screen_text(screen.app, 80, 24).splitlines()[-1]
        assert hint == " type the password, then Enter · Ctrl-C leave"
        inp.send_text("q")
        await eventually(lambda: screen.model.password.text == "q")
        assert not screen.model.done
        inp.send_text(CTRL_C)
        await asyncio.wait_for(run, 30)
    assert screen.model.done and not screen.model.started


async def test_join_a_changed_host_key_anything_but_yes_leaves() -> None:
    table = ui_table("prototag", 2, seed=5)
    table.peers[1].lobby.known_hosts = {"host": "0123456789abcdef"}  # type: ignore[union-attr]
    handle = NetHandle(table, index=1)
    with create_pipe_input() as inp:
        screen = join_screen(handle, input=inp, output=DummyOutput())
        run = asyncio.ensure_future(_with_network(handle, screen.run()))
        await eventually(lambda: screen.app.layout.has_focus(screen.model.password))
        hint = _words(screen_text(screen.app, 80, 24).splitlines()[-1])
        assert hint == "yes then Enter joins · anything else then Enter leaves · Ctrl-C leave"
        inp.send_text("no" + ENTER)
        await asyncio.wait_for(run, 30)
    assert screen.model.done and not screen.model.started and screen.model.your_seat is None


# =========================================================================== replay


@functools.cache
def _log() -> bytes:
    table = Table("prototag", 2, seed=8)
    table.start()
    table.net.run_until(table.over, max_time=3600)
    return bytes(table.logs[0])


class Replay:
    def __init__(self, inp: PipeInput, series: SeriesPlace | None = None) -> None:
        data = _log()
        self.model, self.app = replay_screen(
            data, verify_log(data), input=inp, output=DummyOutput(), series=series
        )
        self.inp = inp
        self.task: asyncio.Task[Any] = asyncio.ensure_future(self.app.run_async())

    def text(self, size: tuple[int, int] = (80, 24)) -> str:
        return screen_text(self.app, *size)

    def hint(self) -> str:
        """The hint rows under the body (they wrap), as one line of words."""
        rows = self.text().splitlines()
        last = max(i for i, row in enumerate(rows) if "│" in row or i == 0)
        return _words(" ".join(rows[last + 1 :]))

    async def press(self, keys: str, until: Any) -> None:
        self.inp.send_text(keys)
        await eventually(until)

    async def done(self) -> Any:
        return await asyncio.wait_for(self.task, 30)


async def test_replay_hint_fits_80_columns_whole() -> None:
    # It was one row, cut at "+/-" at 80 columns: "speed · q quit" was not drawn.
    with create_pipe_input() as inp:
        run = Replay(inp)
        assert run.hint() == _words(HINT)
        await run.press("q", lambda: run.task.done())
        assert await run.done() is None


async def test_replay_arrows_l_h_and_space_step() -> None:
    # Hint "←→ step"; help "→ l Space / ← h  one step on / back".
    with create_pipe_input() as inp:
        run = Replay(inp)
        m = run.model
        await run.press(RIGHT, lambda: m.index == 1)
        await run.press("l", lambda: m.index == 2)
        await run.press(" ", lambda: m.index == 3)
        await run.press(LEFT, lambda: m.index == 2)
        await run.press("h", lambda: m.index == 1)
        assert f"step {m.positions[1][0]}/" in run.text().splitlines()[0]
        await run.press("q", lambda: run.task.done())


async def test_replay_colon_jumps_to_a_step_or_a_turn_and_esc_cancels() -> None:
    with create_pipe_input() as inp:
        run = Replay(inp)
        m = run.model
        await run.press(":", lambda: "jump to:" in run.hint())
        assert replay.JUMP_HINT in run.hint()
        await run.press("12" + ENTER, lambda: m.positions[m.index][0] == 12)
        await run.press(":t3" + ENTER, lambda: m.index == m.turn_starts[2])
        assert m.turn() == 3
        at = m.index
        await run.press(":40", lambda: "jump to: 40" in run.hint())
        await run.press(ESC, lambda: "jump to" not in run.hint())
        assert m.index == at
        await run.press(":x" + ENTER, lambda: bool(m.message))  # a bad jump says so
        assert "jump: type a step number" in run.hint()
        await run.press("q", lambda: run.task.done())


async def test_replay_p_plays_and_the_hint_then_says_pause() -> None:
    with create_pipe_input() as inp:
        run = Replay(inp)
        m = run.model
        await run.press("p", lambda: m.playing)
        assert "p pause" in run.hint() and "▶" in run.text().splitlines()[0]
        await eventually(lambda: m.index >= 2)  # the timer steps on by itself
        await run.press("p", lambda: not m.playing)
        assert "p play" in run.hint() and "⏸" in run.text().splitlines()[0]
        at = m.index
        await run.press(RIGHT, lambda: m.index == at + 1)  # paused: only keys move it
        assert not m.playing
        await run.press("q", lambda: run.task.done())


async def test_replay_plus_equals_and_minus_change_the_speed_in_the_title() -> None:
    with create_pipe_input() as inp:
        run = Replay(inp)
        m = run.model
        start = m.steps_per_second
        assert f"speed {start:g}/s" in run.text().splitlines()[0]
        await run.press("+", lambda: m.steps_per_second > start)
        faster = m.steps_per_second
        assert f"speed {faster:g}/s" in run.text().splitlines()[0]
        await run.press("=", lambda: m.steps_per_second > faster)
        await run.press("---", lambda: m.steps_per_second < start)  # 20 → 1 step/s
        await run.press("q", lambda: run.task.done())


@pytest.mark.parametrize("close", [ESC, "q", "?", F1])
async def test_replay_help_hint_names_the_keys_that_close_it(close: str) -> None:
    with create_pipe_input() as inp:
        run = Replay(inp)
        await run.press("?", lambda: "replay keys" in run.text())
        assert run.hint().endswith(_words(HELP_HINT)) and "q quit" not in run.hint()
        await run.press(close, lambda: "replay keys" not in run.text())
        assert not run.task.done()  # closing the help does not close the viewer
        await run.press("q", lambda: run.task.done())
        assert await run.done() is None


@pytest.mark.parametrize("key", ["q", ESC, CTRL_C])
async def test_replay_q_esc_and_ctrl_c_close_the_viewer(key: str) -> None:
    with create_pipe_input() as inp:
        run = Replay(inp)
        await run.press(key, lambda: run.task.done())
        assert await run.done() is None


async def test_replay_in_a_series_q_opens_the_next_game_and_ctrl_c_stops() -> None:
    with create_pipe_input() as inp:
        run = Replay(inp, SeriesPlace(1, 2))
        assert "q next game · Ctrl-C stop" in run.hint() and "q quit" not in run.hint()
        await run.press("q", lambda: run.task.done())
        assert await run.done() is None
    with create_pipe_input() as inp:
        run = Replay(inp, SeriesPlace(1, 2))
        await run.press(CTRL_C, lambda: run.task.done())
        assert await run.done() == STOP_SERIES
    with create_pipe_input() as inp:
        run = Replay(inp, SeriesPlace(2, 2))  # the last game: q quits, so does Ctrl-C
        assert "q quit" in run.hint() and "next game" not in run.hint()
        await run.press(CTRL_C, lambda: run.task.done())
        assert await run.done() is None


async def test_replay_of_a_series_directory_stops_at_ctrl_c(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lanTag.cli.series_verify import replay_series_dir
    from tests.cli.test_verify_series import _series

    directory = _series(tmp_path, "prototag.log", "boardtag.log")
    shown: list[int] = []

    async def viewer(data: bytes, report: Any, *, series: SeriesPlace) -> int:
        # The real viewer, on a pipe: Ctrl-C in the first game's viewer.
        shown.append(series.number)
        with create_pipe_input() as inp:
            inp.send_text(CTRL_C)
            return await run_replay_app(
                data, report, input=inp, output=DummyOutput(), series=series
            )

    monkeypatch.setattr(replay, "run_replay_app", viewer)
    assert await replay_series_dir(directory, headless=False, force=True) == 0
    assert shown == [1]
