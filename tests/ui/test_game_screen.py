"""The game screen, headless: real sessions of every engine drawn and driven by keys."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from lanTag.log.entries import EntryKind, parse_log
from lanTag.rules.base import Action, Move, decode_input
from lanTag.session import events as ev
from lanTag.ui import game_commands as commands
from lanTag.ui.app import GameApp
from lanTag.ui.boards import badge
from lanTag.ui.snapshot import screen_text
from tests.ui.fakes import (
    FakeHandle,
    FakeMachine,
    NetHandle,
    advance,
    eventually,
    solo_handle,
    ui_table,
)

# Something only that engine's board shows (its label row, at any zoom).
BOARD_MARK = {
    "prototag": "    a  b  c  d  e  f  g",
    "assassination": "   a  b  c  d  e",
    "boardtag": r"a-*b-*c-*d|a +b +c +d",  # the crossing points' files (coordinates)
    "stomptag": "round",
    "tagem": r"a +(b +c +d +e|c +e +g)",
}


def _marked(engine: str, text: str) -> bool:
    return re.search(BOARD_MARK[engine], text) is not None


ENGINES = list(BOARD_MARK)
ARROWS = {"n": "\x1b[A", "s": "\x1b[B", "e": "\x1b[C", "w": "\x1b[D"}


class Running:
    """A GameApp running on a pipe input; ``keys`` types, ``stop`` leaves."""

    def __init__(self, handle: FakeHandle, inp: PipeInput, **kwargs: object) -> None:
        self.game = GameApp(handle, input=inp, output=DummyOutput(), **kwargs)  # type: ignore[arg-type]
        self.inp = inp
        self.task = asyncio.create_task(self.game.run())

    def keys(self, text: str) -> None:
        self.inp.send_text(text)

    async def stop(self) -> int:
        self.game.model.exit_code = self.game.model.exit_code or 1
        return await asyncio.wait_for(self.task, 30)


@pytest.mark.parametrize("engine", ENGINES)
async def test_every_engine_draws_its_board_players_and_legend(engine: str) -> None:
    handle = solo_handle(engine)
    advance(handle, 2 if engine == "stomptag" else 6)  # three-seat Stomptag ends quickly
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        text = screen_text(game.app, 80, 24)
    session = handle.machine.session
    assert session is not None
    lines = text.splitlines()
    # 80x24 is the size the layout is made for: all of it fits, the command line at the bottom
    assert "Window too small" not in text and lines[-1] == " keys›"
    assert session.game.display_name in lines[0] and f"step {session.step}" in lines[0]
    assert not session.state.is_over
    assert _marked(engine, text)
    for word in ("players", "legend", "me", "bot-1", "bot-2", "keys›"):
        assert word in text, word
    assert "turn" in text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("moves", [0, 4])
@pytest.mark.parametrize("size", [(80, 24), (40, 12), (60, 16), (132, 50), (20, 6)])
async def test_screens_survive_any_terminal_size(
    engine: str, moves: int, size: tuple[int, int]
) -> None:
    # "ui1": a Stomptag game still going after 4 moves (the game id, so the draws, decides)
    handle = solo_handle(engine, seed="ui1" if engine == "stomptag" else "ui")
    advance(handle, moves)  # 0: the opening (Stomptag's board is still empty then)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        game.model.show_over = False  # a game over in 4 moves (Stomptag): look at the board
        game.model.show_help = True
        helped = screen_text(game.app, *size)
        game.model.show_help = False
        text = screen_text(game.app, *size)
    for shown in (text, helped):
        lines = shown.splitlines()
        # Whatever the size: the title bar on top and the command line at the bottom, so
        # the player can still type (screen_text itself always gives size[1] rows).
        # (a game that ended meanwhile shows its result box on top, which may cover both)
        over = "Game over" in shown
        assert lines[0].startswith(" lanTag │") or over, shown
        assert lines[-1] == " keys›" or over, shown
    assert "help — Esc" in helped
    if size[0] >= 80 and size[1] >= 24:  # the size the layout is made for, or larger
        assert "Window too small" not in text and _marked(engine, text), text
    else:  # smaller: the board drawn whole, the screen saying it does not fit, or the result
        assert _marked(engine, text) or any(m in text for m in ("Window too small", "Game over"))


async def test_tab_then_enter_plays_the_first_legal_action() -> None:
    handle = solo_handle("boardtag")
    session = handle.machine.session
    assert session is not None and session.seat is not None
    first = str(session.state.legal_actions(session.seat)[0])
    before = session.step
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        run.keys("\t")
        await eventually(lambda: run.game.model.line.text == first)
        run.keys("\r")
        await eventually(lambda: session.step > before)
        assert await run.stop() == 1
    assert any(line.text.endswith(f"you: {first}") for line in run.game.model.log)
    # ... and the session played exactly that action, at that step, as the log records it
    steps = [e for e in parse_log(session.take_log()).entries if e.kind == EntryKind.STEP]
    played = next(e for e in steps if e.step == before)
    assert decode_input(played.data[0]) == Move(session.seat, Action.parse(first))


async def test_arrow_keys_step_and_typed_commands_play() -> None:
    handle = solo_handle("prototag")
    session = handle.machine.session
    assert session is not None and session.seat is not None
    steps = [str(a) for a in session.state.legal_actions(session.seat)]
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        before = session.step
        run.keys(ARROWS[steps[0].split()[1]])
        await eventually(lambda: session.step > before)
        await eventually(lambda: session.my_turn() == "turn")
        typed = str(session.state.legal_actions(session.seat)[-1])
        before = session.step
        run.keys(":" + typed + "\r")
        await eventually(lambda: session.step > before)
        assert run.game.model.mode == "board"
        await run.stop()


async def test_tab_completes_while_typing() -> None:
    handle = solo_handle("tagem", 1)
    session = handle.machine.session
    assert session is not None and session.seat is not None
    legal = [str(a) for a in session.state.legal_actions(session.seat)]
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        run.keys(":mo")
        await eventually(lambda: run.game.model.line.text == "mo")
        run.keys("\t")
        await eventually(lambda: run.game.model.line.text in legal)
        assert run.game.model.line.text.startswith("move ")
        run.keys("\t")
        await eventually(lambda: run.game.model.line.text not in ("mo", legal[0]))
        assert run.game.model.line.text in legal
        await run.stop()


async def test_help_overlay_toggles_and_shows_the_rules() -> None:
    handle = solo_handle("prototag")
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        run.keys("?")
        await eventually(lambda: run.game.model.show_help)
        text = screen_text(run.game.app, 80, 24)
        assert "One rule: letters and words always go to the command line" in text
        assert "# Prototag" in screen_text(run.game.app, 80, 60)  # the rules follow the keys
        run.keys("x")  # stray letters do nothing under the help
        run.keys("\x1bOP")  # F1 closes it too
        await eventually(lambda: not run.game.model.show_help)
        assert "Keys (board mode)" not in screen_text(run.game.app, 80, 24)
        assert run.game.model.line.text == ""
        await run.stop()


async def test_rules_summary_is_in_the_help() -> None:
    handle = solo_handle("tagem")
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        game.model.show_help = True
        # Scrolled past the key list to the rule summary (as far as the keys' lines take).
        for scroll in range(20, 80):
            game.model.help_scroll = scroll
            text = screen_text(game.app, 80, 24)
            if "By Santo Ciaravino" in text:
                break
        assert "By Santo Ciaravino" in text and "Keys (board mode)" not in text


async def test_chat_typed_on_the_command_line_appears_in_the_log() -> None:
    handle = solo_handle("prototag")
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        run.keys("/say good luck\r")
        await eventually(lambda: any("good luck" in line.text for line in run.game.model.log))
        assert "<me> good luck" in screen_text(run.game.app, 80, 24)
        await run.stop()


async def test_network_events_are_consumed_and_redrawn() -> None:
    handle = solo_handle("assassination")
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        handle.machine.events.append(ev.Chat(1, "over here"))
        await eventually(lambda: not handle.machine.events)
        assert "<bot-1> over here" in screen_text(run.game.app, 80, 24)
        await run.stop()


async def test_game_over_screen_names_the_winner_and_the_log_file() -> None:
    handle = solo_handle("stomptag", log_path=Path("/tmp/lantag-test.lantag"))
    advance(handle, 100)
    session = handle.machine.session
    assert session is not None and session.state.is_over
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        await eventually(lambda: run.game.model.outcome is not None)
        text = screen_text(run.game.app, 80, 24)
        assert "Game over" in text and "log saved to" in text
        assert re.search(r"│/tmp/lantag-test\.lantag +│", text)  # on a line of its own
        assert "1. " in text
        run.keys("b")
        await eventually(lambda: not run.game.model.show_over)
        assert "Game over" not in screen_text(run.game.app, 80, 24)
        run.keys("q")  # with the box hidden a letter is typed, it does not leave
        await eventually(lambda: run.game.model.line.text == "q")
        run.keys("\x1b")  # Esc clears the line...
        await eventually(lambda: run.game.model.line.text == "")
        run.keys("\x1b")  # ...then shows the box again, where q leaves
        await eventually(lambda: run.game.model.show_over)
        run.keys("q")
        assert await asyncio.wait_for(run.task, 30) == 0


_COLOUR = re.compile(r"\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;5;[0-9]+)[;m]")


async def _drawn_escapes(color: bool) -> str:
    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(rows=24, columns=80), term="xterm-256color")
    handle = solo_handle("prototag")
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=output, color=color)
        task = asyncio.create_task(game.run())
        await eventually(lambda: "players" in out.getvalue())
        game.model.exit_code = 1
        await asyncio.wait_for(task, 30)
    return out.getvalue()


async def test_colour_is_drawn_and_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _COLOUR.search(await _drawn_escapes(True))
    assert not _COLOUR.search(await _drawn_escapes(False))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _COLOUR.search(await _drawn_escapes(True))


async def test_a_spectator_watches_a_networked_game() -> None:
    table = ui_table("assassination", 3, spectators=1, seed=9)
    table.start()
    host = NetHandle(table)
    host.settle()
    watcher = NetHandle(table, index=3)
    with create_pipe_input() as inp:
        game = GameApp(watcher, input=inp, output=DummyOutput())
        game.model.poll()
        text = screen_text(game.app, 80, 24)
        assert "watching" in text and "host" in text and "p1" in text
        assert game.model.last_roll is not None
        assert "from 3/3 seats' reveals, verified" in game.model.last_roll.text()
        game.model.line.text = "step n"
        commands.run(game.model, "submit")
        assert "watching" in game.model.message


async def test_before_the_start_the_screen_waits() -> None:
    handle = FakeHandle(FakeMachine(None))
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        assert "waiting for the game to start" in screen_text(game.app, 80, 24)
        assert list(game.model.legal()) == []


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_typed_word_reaches_the_command_line_whole_and_moves_nothing(engine: str) -> None:
    # The one input rule: letters never act on the board (h/j/k/l/e used to), digits
    # only pick a piece; "jump" in Board Tag used to turn IT south.
    handle = solo_handle(engine)
    session = handle.machine.session
    assert session is not None
    before = session.step
    with create_pipe_input() as inp:
        run = Running(handle, inp)
        run.keys("jump hjkl e")
        await eventually(lambda: run.game.model.line.text == "jump hjkl e")
        assert session.step == before and run.game.model.mode == "command"
        text = screen_text(run.game.app, 80, 24)
        assert "type› jump hjkl e" in text
        run.keys("\x1b")  # Esc clears the whole line
        await eventually(lambda: run.game.model.line.text == "")
        assert run.game.model.mode == "board" and session.step == before
        run.keys("end")  # and a fresh word starts clean after it
        await eventually(lambda: run.game.model.line.text == "end")
        await run.stop()


def test_the_input_rule_is_one_line_in_the_hint_and_the_help() -> None:
    from lanTag.ui.app import KEYS_HELP
    from lanTag.ui.prompt_hint import INPUT_RULE

    assert len("your turn: " + INPUT_RULE) <= 80
    assert "letters and words always go to the command line" in KEYS_HELP.replace("\n", " ")


@pytest.mark.parametrize("size", [(40, 12), (80, 24)])
async def test_the_result_box_never_covers_the_title_or_the_command_line(
    size: tuple[int, int],
) -> None:
    handle = solo_handle("stomptag")
    advance(handle, 100)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        assert game.model.is_over() and game.model.show_over
        lines = screen_text(game.app, *size).splitlines()
    assert "Game over" in "\n".join(lines)
    assert lines[0].startswith(" lanTag │") and lines[-1] == " keys›"
    # The hint above it, whole (wrapped on a narrow screen).
    assert "game over: q or Enter leaves, b hides the result box" in " ".join(lines[-3:-1])


@pytest.mark.parametrize("engine", ["boardtag", "assassination"])
async def test_a_long_status_never_hides_a_score_at_80_columns(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "thinking 12/120s" used to come before the score and push it off the side panel.
    handle = solo_handle(engine)
    advance(handle, 6)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        monkeypatch.setattr(game.model, "seat_status", lambda seat: "thinking 12/120s")
        text = screen_text(game.app, 80, 24)
        view = game.model.view()
    for seat, name in ((1, "bot-1"), (2, "bot-2")):
        row = next(line for line in text.splitlines() if f" {name} " in line)
        assert "thinking" in row and badge(engine, view, seat) in row, row
