"""Keys that reach the app on every terminal (issue 35, item 5).

macOS Terminal.app keeps PgUp/PgDn/Home/End for its own scrollback and F1 is a media
key there, so every binding on one of them has a plain-letter or Ctrl twin, and the
help names the twin.  Each test sends the key and its twin through a real pipe input
and checks they do the same thing.
"""

from __future__ import annotations

import asyncio
import functools

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.log.verify import verify_log
from lanTag.ui import game_commands as commands
from lanTag.ui import game_screen as game_app
from lanTag.ui import host_setup, replay
from lanTag.ui.game_screen import GameApp
from lanTag.ui.host_form import HostForm
from lanTag.ui.host_setup import host_setup_screen
from lanTag.ui.model import GameModel
from lanTag.ui.replay import replay_screen
from lanTag.ui.snapshot import screen_text
from tests.peer.harness import Table
from tests.ui.fakes import eventually, solo_handle

PGUP, PGDN, HOME, END, F1 = "\x1b[5~", "\x1b[6~", "\x1b[H", "\x1b[F", "\x1bOP"
CTRL_U, CTRL_D, CTRL_G = "\x15", "\x04", "\x07"


# ---------------------------------------------------------------- game screen


async def _game_commands(key: str, *, helping: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The named commands one key press runs on a fresh game screen."""
    ran: list[str] = []
    real = commands.run

    def spy(model: GameModel, name: str, arg: str = "") -> None:
        ran.append(f"{name} {arg}")
        real(model, name, arg)

    monkeypatch.setattr(commands, "run", spy)
    with create_pipe_input() as inp:
        game = GameApp(solo_handle("prototag"), input=inp, output=DummyOutput())
        game.model.show_help = helping
        task = asyncio.create_task(game.app.run_async())
        inp.send_text(key)
        await eventually(lambda: bool(ran))
        game.app.exit(result=0)
        await asyncio.wait_for(task, 30)
    return ran


@pytest.mark.parametrize(
    ("key", "twin", "helping", "runs"),
    [
        (PGUP, CTRL_U, False, "board-scroll -5"),
        (PGDN, CTRL_D, False, "board-scroll 5"),
        (PGUP, CTRL_U, True, "help-scroll -10"),
        (PGDN, CTRL_D, True, "help-scroll 10"),
        (F1, CTRL_G, False, "toggle-help "),
        (F1, CTRL_G, True, "toggle-help "),
    ],
)
async def test_game_screen_ctrl_twins_run_the_same_command(
    key: str, twin: str, helping: bool, runs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert await _game_commands(key, helping=helping, monkeypatch=monkeypatch) == [runs]
    assert await _game_commands(twin, helping=helping, monkeypatch=monkeypatch) == [runs]


async def test_ctrl_g_opens_the_help_while_a_word_is_typed() -> None:
    # "?" is text on a non-empty command line; Ctrl-G, like F1, still opens the help.
    with create_pipe_input() as inp:
        game = GameApp(solo_handle("prototag"), input=inp, output=DummyOutput())
        task = asyncio.create_task(game.app.run_async())
        inp.send_text("mo" + CTRL_G)
        await eventually(lambda: game.model.show_help)
        assert game.model.line.text == "mo"
        game.app.exit(result=0)
        await asyncio.wait_for(task, 30)


async def test_game_help_names_the_ctrl_twins() -> None:
    assert "PgUp / PgDn" in game_app.KEYS_HELP and "Ctrl-U / Ctrl-D" in game_app.KEYS_HELP
    assert "F1 or Ctrl-G" in game_app.KEYS_HELP
    with create_pipe_input() as inp:
        game = GameApp(solo_handle("prototag"), input=inp, output=DummyOutput())
        assert "F1/Ctrl-G help" in screen_text(game.app, 80, 24).splitlines()[0]
        game.model.show_help = True
        header = screen_text(game.app, 100, 24).splitlines()[1]
        assert "PgUp/PgDn, Ctrl-U/Ctrl-D scroll" in header


# ---------------------------------------------------------------- replay viewer


@functools.cache
def _log() -> bytes:
    table = Table("prototag", 2, seed=8)
    table.start()
    table.net.run_until(table.over, max_time=3600)
    return bytes(table.logs[0])


async def _replay_index(keys: str) -> int:
    """Where the replay stands after ``keys`` (then q) on a fresh viewer."""
    data = _log()
    with create_pipe_input() as inp:
        model, app = replay_screen(data, verify_log(data), input=inp, output=DummyOutput())
        assert model.last > 20  # room for a ten-step move each way
        inp.send_text(keys + "q")
        await asyncio.wait_for(app.run_async(), 30)
    return model.index


@pytest.mark.parametrize(
    ("before", "key", "twin"),
    [
        ("", PGDN, CTRL_D),
        (PGDN + PGDN, PGUP, CTRL_U),
        (PGDN, HOME, "g"),
        ("", END, "G"),
    ],
)
async def test_replay_twins_move_to_the_same_position(before: str, key: str, twin: str) -> None:
    start = await _replay_index(before)
    by_key = await _replay_index(before + key)
    assert by_key != start
    assert await _replay_index(before + twin) == by_key


@pytest.mark.parametrize("key", [F1, "?"])
async def test_replay_question_mark_opens_the_help_like_f1(key: str) -> None:
    data = _log()
    with create_pipe_input() as inp:
        _model, app = replay_screen(data, verify_log(data), input=inp, output=DummyOutput())
        assert "replay keys" not in screen_text(app, 80, 40)
        task = asyncio.create_task(app.run_async())
        inp.send_text(key)
        await eventually(lambda: "replay keys" in screen_text(app, 80, 40))
        app.exit()
        await asyncio.wait_for(task, 30)


def test_replay_help_and_hint_name_the_twins() -> None:
    assert "PgDn / PgUp" in replay.KEYS_HELP and "Ctrl-D / Ctrl-U" in replay.KEYS_HELP
    assert "Home g / End G" in replay.KEYS_HELP and "? F1" in replay.KEYS_HELP
    assert "PgUp/Dn or ^U/^D" in replay.HINT and "g/G ends" in replay.HINT


# ---------------------------------------------------------------- host setup form


@pytest.mark.parametrize("key", [F1, "?"])
async def test_host_setup_question_mark_opens_the_help_like_f1(key: str) -> None:
    with create_pipe_input() as inp:
        screen = host_setup_screen(
            HostForm.prefill(engine="prototag"), nickname="alice", input=inp, output=DummyOutput()
        )
        run = asyncio.ensure_future(screen.run())
        inp.send_text(key)
        await eventually(lambda: screen.model.show_help)
        inp.send_text(key)  # the same key closes it
        await eventually(lambda: not screen.model.show_help)
        inp.send_text("q")
        await asyncio.wait_for(run, 30)


def test_host_setup_help_names_the_question_mark() -> None:
    model = host_setup.SetupModel(HostForm.prefill(engine="prototag"), "alice")
    assert "? / F1" in host_setup.HELP and "? help" in model.legend()
