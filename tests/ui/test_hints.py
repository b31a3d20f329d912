"""One key rule, kept (issue #34, item 6): every hint a game screen shows does what it says.

Each test finds the hint on the drawn screen, then presses the keys it names through a real
pipe input (the application's own key bindings, not the named commands) and checks that
exactly that happened.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from lanTag.games.boardtag import board as bb
from lanTag.rules.base import Move, Simultaneous
from lanTag.ui.board_pane import CUT_HINT
from lanTag.ui.choosing import secret_text
from lanTag.ui.game_screen import KEYS_HELP, GameApp
from lanTag.ui.prompt_hint import INPUT_RULE
from lanTag.ui.series_info import (
    ACCEPT_NEXT,
    DECLINE_NEXT,
    REMATCH_SAME,
    REMATCH_SETUP,
    SeriesInfo,
)
from lanTag.ui.snapshot import screen_text
from lanTag.views.registry import game_view
from tests.ui.fakes import FakeHandle, NetHandle, advance, eventually, solo_handle, ui_table

ARROW = {"n": "\x1b[A", "s": "\x1b[B", "e": "\x1b[C", "w": "\x1b[D"}
SHIFT_LEFT, F1, CTRL_G, CTRL_Q, CTRL_D = "\x1b[1;2D", "\x1bOP", "\x07", "\x11", "\x04"
PGUP, PGDN = "\x1b[5~", "\x1b[6~"
ESC, TAB, ENTER = "\x1b", "\t", "\r"


class Screen:
    """A game screen running on a pipe input, drawn at ``size`` (its own renderer too: the
    scroll position belongs to the size drawn at)."""

    def __init__(self, handle: FakeHandle | NetHandle, inp: PipeInput, size: tuple[int, int]):
        self.handle, self.inp, self.size = handle, inp, size
        columns, rows = size
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=rows, columns=columns), term="xterm")
        self.game = GameApp(handle, input=inp, output=output, color=False)
        self.model = self.game.model
        self.task = asyncio.create_task(self.game.run())

    def text(self) -> str:
        screen_text(self.game.app, *self.size)
        return screen_text(self.game.app, *self.size)

    def words(self) -> str:
        """The drawn screen as one line of words, column by column (the board pane, the
        side panel, then the full-width rows), so text wrapped in a column reads on."""
        left, right, full = [], [], []
        for row in self.text().splitlines():
            if "│" in row and not row.startswith(" lanTag"):
                board, side = row.split("│", 1)
                left.append(board)
                right.append(side)
            else:
                full.append(row)
        return " ".join(" ".join([*left, *right, *full]).split())

    async def press(self, keys: str, until: Callable[[], bool]) -> None:
        self.inp.send_text(keys)
        await eventually(until)

    async def stop(self) -> int:
        if self.model.exit_code is None:
            self.model.exit_code = 1
        return await asyncio.wait_for(self.task, 30)


def _steps(handle: FakeHandle) -> int:
    session = handle.machine.session
    assert session is not None
    return session.step


def _advance_until(handle: FakeHandle, ready: Callable[[], bool], limit: int = 300) -> None:
    """Random moves of ours (seeded by their count) until ``ready()``; fail past ``limit``."""
    for n in range(limit):
        if ready():
            return
        advance(handle, 1, seed=n)
    raise AssertionError("the position never came")


# --------------------------------------------------------------------------- always shown


async def test_title_f1_and_ctrl_g_open_the_help_and_its_header_keys_close_and_scroll() -> None:
    with create_pipe_input() as inp:
        run = Screen(solo_handle("prototag"), inp, (80, 24))
        assert "F1/Ctrl-G help" in run.text()
        m = run.model
        for key in (F1, CTRL_G):
            await run.press(key, lambda: m.show_help)
            header = "help — Esc, q, ? or F1 closes; arrows, PgUp/PgDn, Ctrl-U/Ctrl-D scroll"
            assert header in run.text()
            await run.press(ARROW["s"], lambda: m.help_scroll == 1)  # arrows scroll
            await run.press(PGDN, lambda: m.help_scroll == 11)
            await run.press(CTRL_D, lambda: m.help_scroll == 21)
            await run.press(F1, lambda: not m.show_help)
        for key in (ESC, "q", "?", F1):  # each closes it
            await run.press("?", lambda: m.show_help)
            await run.press(key, lambda: not m.show_help)
            assert m.line.text == ""  # and none of them was typed
        await run.stop()


async def test_the_input_rule_letters_arrows_tab_enter_esc() -> None:
    handle = solo_handle("prototag")
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        assert "your turn: " + INPUT_RULE in run.words()
        before = _steps(handle)
        await run.press("st", lambda: m.line.text == "st")  # letters type (nothing moves)
        assert m.mode == "command" and _steps(handle) == before
        await run.press(ESC, lambda: m.line.text == "")  # Esc clears
        assert m.mode == "board"
        first = m.action_text(next(iter(m.legal())))
        await run.press(TAB, lambda: m.line.text == first)  # Tab cycles
        assert "Enter plays it, Tab for the next" in run.words()
        await run.press(ENTER, lambda: _steps(handle) > before)  # Enter plays
        direction = next(a for a in m.legal() if a.verb == "step").args[0]
        now = _steps(handle)
        await run.press(ARROW[str(direction)], lambda: _steps(handle) > now)  # arrows move
        await run.stop()


async def test_every_help_line_names_keys_that_do_it() -> None:
    # The help's key lines, one by one: what each key does on this screen.
    for line in (
        "Esc                clear the command line",
        "0-9                pick the piece the arrows move (Tag 'em pawns)",
        "/                  a slash command: /say text, /end, /help, /quit",
        "PgUp / PgDn        scroll a board taller than its pane (or Ctrl-U / Ctrl-D)",
        "Ctrl-Q twice       leave the game (a bot takes your seat; Ctrl-C too)",
        "Ctrl-L             redraw the screen",
        ".                  show all your pieces (where they fit) and follow them",
    ):
        assert line in KEYS_HELP
    handle = solo_handle("tagem", 3, options=(("map", "ringfort"),))
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        run.text()
        await run.press("2", lambda: m.selected == 2)  # a digit picks the pawn
        assert "pawn 2 selected: the arrows move it" in run.words()
        run.text()
        top = m.board_scroll  # the board scrolls (up if our pawns are at its bottom)
        if top > 0:
            await run.press(PGUP, lambda: m.board_scroll < top)
        else:
            await run.press(PGDN, lambda: m.board_scroll > top)
        await run.press("/say hello" + ENTER, lambda: any("hello" in x.text for x in m.log))
        await run.press("/help" + ENTER, lambda: m.show_help)
        await run.press(ESC, lambda: not m.show_help)
        await run.press(CTRL_Q, lambda: m.quit_armed)  # twice: the first one asks
        assert "press Ctrl-Q again to leave the game" in run.words() and m.exit_code is None
        await run.press(CTRL_Q, lambda: m.exit_code == 1)
        assert await run.stop() == 1


async def test_cut_off_hint_shift_arrows_pan_and_dot_shows_all_our_pieces() -> None:
    handle = solo_handle("tagem", 1, options=(("map", "crescent"),))
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 40))
        m = run.model
        assert CUT_HINT in run.words()
        left = m.board_left
        await run.press(SHIFT_LEFT * 20, lambda: m.board_left == 0 and not m.board_follow)
        assert left > 0 and "▶" in run.text()

        def drawn() -> str:
            return "".join("".join(f[1] for f in line) for line in run.game.pane.control.lines)

        # (waits for the redraw too: the model changes first, the pane's lines after)
        await run.press(
            ".",
            lambda: m.board_follow and m.board_fit and all(f"A{n}" in drawn() for n in range(5)),
        )
        assert m.board_left > 0
        await run.stop()


# --------------------------------------------------------------------------- arrows


def _blocked(handle: FakeHandle) -> tuple[int, str, list[int]] | None:
    """A pawn of ours that cannot move some way other pawns of ours can: (pawn, way, those)."""
    session = handle.machine.session
    assert session is not None
    if session.my_turn() != "turn":
        return None
    legal = [str(a) for a in session.state.legal_actions(0)]
    for pawn in range(5):
        for way in "nesw":
            can = [p for p in range(5) if f"move {p} {way}" in legal]
            movable = any(a.startswith(f"move {pawn} ") for a in legal)
            if movable and f"move {pawn} {way}" not in legal and len(can) > 1:
                return pawn, way, can
    return None


def _blocked_pawn(handle: FakeHandle) -> tuple[int, str, list[int]]:
    _advance_until(handle, lambda: _blocked(handle) is not None)
    found = _blocked(handle)
    assert found is not None
    return found


async def test_several_pawns_an_arrow_could_move_the_next_digit_moves_that_one() -> None:
    # The issue: with a blocked pawn an arrow filled "move 1 e" and the hint said "press a
    # digit", which then typed "move 1 e4".  Now the digit moves that pawn that way.
    handle = solo_handle("tagem", 1)
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (100, 30))
        m = run.model
        pawn, way, can = _blocked_pawn(handle)
        await run.press(str(pawn), lambda: m.selected == pawn)
        await run.press(ARROW[way], lambda: m.pending_arrow == way)
        hint = f"pawn {pawn} cannot move {way} now; {', '.join(map(str, can))} can: press a digit"
        assert hint in run.words() and m.line.text == ""
        before = _steps(handle)
        await run.press(str(can[-1]), lambda: _steps(handle) > before)
        assert m.line.text == "" and m.selected == can[-1]
        view = game_view("tagem").view(handle.machine.session.state, 0)  # type: ignore[union-attr]
        assert any(f"A{can[-1]} moves {way}" in e for e in view["events"]), view["events"]
        await run.stop()


async def test_several_pawns_and_none_selected_ask_for_a_digit() -> None:
    handle = solo_handle("tagem", 1)
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        legal = [m.action_text(a) for a in m.legal()]
        way = next(w for w in "nesw" if sum(a.endswith(f" {w}") for a in legal) > 1)
        await run.press(ARROW[way], lambda: m.pending_arrow == way)
        assert f"can move {way}: press a digit to move that one" in run.words()
        # Another key than a digit forgets the question: the digit after it just types.
        await run.press("x", lambda: m.line.text == "x")
        assert m.pending_arrow is None
        await run.stop()


async def test_arrows_leave_the_safe_house() -> None:
    # Seed "ui1": three players, seat 0 is the first victim and stands in the Safe House.
    handle = solo_handle("assassination", 2, seed="ui1")
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        assert "leave c4" in [m.action_text(a) for a in m.legal()]
        await run.press(ARROW["n"], lambda: any("you: leave c4" in x.text for x in m.log))
        await run.stop()


async def test_two_squares_one_way_out_of_the_big_safe_house_take_turns_on_the_line() -> None:
    # Seed "ui5": six players (6x6, a 2x2 Safe House), seat 0 the victim inside it.
    handle = solo_handle("assassination", 5, seed="ui5")
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        await run.press(ARROW["n"], lambda: m.line.text == "leave c5")
        assert "Enter plays 'leave c5'; the same arrow again: the next of 2" in run.words()
        await run.press(ARROW["n"], lambda: m.line.text == "leave d5")
        await run.press(ENTER, lambda: any("you: leave d5" in x.text for x in m.log))
        await run.stop()


# --------------------------------------------------------------------------- secret choices


def _battle() -> FakeHandle:
    """Prototag, two players, at a battle of ours (seed "ui0")."""
    handle = solo_handle("prototag", 1, seed="ui0")
    session = handle.machine.session
    assert session is not None
    _advance_until(handle, lambda: session.my_turn() == "secret")
    return handle


@pytest.mark.parametrize(("letter", "choice"), [("r", "rock"), ("p", "paper"), ("s", "scissors")])
async def test_one_letter_seals_a_rock_paper_scissors_choice(letter: str, choice: str) -> None:
    handle = _battle()
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        hint = "secret rock-paper-scissors: r rock · p paper · s scissors, then Enter seals it"
        assert hint in run.words()
        # The secret line is this battle, not the last one.
        assert secret_text(m) == "rock-paper-scissors now: seat 1 bot-1 vs you"
        assert "secret rock-paper-scissors now:" in run.words()
        # Sealed as that choice; here the bot's choice is drawn at once, so the round
        # resolves and the feed says what we chose.
        said = (f"you ({choice})", f"both chose {choice}")
        await run.press(letter + ENTER, lambda: any(w in x.text for x in m.log for w in said))
        await run.stop()


async def test_a_move_into_a_battle_says_so_not_played() -> None:
    handle = solo_handle("prototag", 1, seed="ui4")  # we get to step onto the other
    session = handle.machine.session
    assert session is not None

    def next_step_battles() -> bool:
        if session.my_turn() != "turn":
            return False
        for a in session.state.legal_actions(0):
            if isinstance(session.state.apply(Move(0, a)).decision(), Simultaneous):
                return True
        return False

    _advance_until(handle, next_step_battles)
    action = next(
        a
        for a in session.state.legal_actions(0)
        if isinstance(session.state.apply(Move(0, a)).decision(), Simultaneous)
    )
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        await run.press(f"{action}{ENTER}", lambda: session.my_turn() == "secret")
        await eventually(lambda: not m.message.startswith("played"))
        assert "r rock · p paper · s scissors" in run.words()
        await run.stop()


# --------------------------------------------------------------------------- answers


async def test_pick_of_the_die_picked_for_you_is_answered() -> None:
    handle = solo_handle("boardtag", 1, seed="ui0")
    session = handle.machine.session
    assert session is not None

    def auto_picked() -> bool:
        st = session.state
        return (
            session.my_turn() == "turn"
            and st.phase == bb.RUN
            and st.active_die != bb.OFF
            and bb.unmoved(st.dice, st.finished, 0) == (st.active_die,)
        )

    _advance_until(handle, auto_picked)
    square = bb.square_name(session.state.dice[session.state.active_die].square)
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        await run.press(f"pick {square}{ENTER}", lambda: "picked for you" in m.message)
        assert f"the die on {square} is your last to move" in run.words()
        assert "step <dir>, stay or done" in m.message
        await run.stop()


async def test_unknown_slash_command_names_slash_commands_that_work() -> None:
    handle = solo_handle("tagem", 1)
    with create_pipe_input() as inp:
        run = Screen(handle, inp, (80, 24))
        m = run.model
        await run.press("/nope" + ENTER, lambda: "unknown command /nope" in m.message)
        assert "(try /say, /msg, /end, /help, /quit)" in run.words()
        await run.press(ESC, lambda: m.line.text == "")
        before = _steps(handle)
        await run.press("/end" + ENTER, lambda: _steps(handle) > before)
        await run.press("/quit" + ENTER, lambda: m.exit_code == 1)
        assert await run.stop() == 1


# --------------------------------------------------------------------------- game over


def _over() -> FakeHandle:
    handle = solo_handle("stomptag")
    advance(handle, 100)
    return handle


@pytest.mark.parametrize("leave_key", ["q", ENTER])
async def test_game_over_q_enter_b_and_esc_do_what_the_hints_say(leave_key: str) -> None:
    with create_pipe_input() as inp:
        run = Screen(_over(), inp, (80, 24))
        m = run.model
        words = run.words()
        assert "game over: q or Enter leaves, b hides the result box" in words
        assert "q or Enter: leave b: look at the board F1/Ctrl-G: help" in words
        await run.press("b", lambda: not m.show_over)
        assert "game over: Esc shows the result box (q or Enter there leaves)" in run.words()
        await run.press(ESC, lambda: m.show_over)
        await run.press(F1, lambda: m.show_help)  # F1 on the box: the help
        await run.press(F1, lambda: not m.show_help)
        await run.press(leave_key, lambda: m.exit_code == 0)
        assert await run.stop() == 0


@pytest.mark.parametrize(("key", "code"), [("r", REMATCH_SAME), ("s", REMATCH_SETUP)])
async def test_the_hosts_rematch_keys(key: str, code: int) -> None:
    with create_pipe_input() as inp:
        run = Screen(_over(), inp, (80, 30))
        run.model.series = SeriesInfo(number=1, can_propose=True)
        assert "r: play again (same game) s: another game" in run.words()
        await run.press(key, lambda: run.model.exit_code == code)
        assert await run.stop() == code


@pytest.mark.parametrize(("key", "code"), [("a", ACCEPT_NEXT), ("q", DECLINE_NEXT)])
async def test_the_joiners_answer_to_a_proposed_game(key: str, code: int) -> None:
    from lanTag.peer.series_events import NextGame

    with create_pipe_input() as inp:
        run = Screen(_over(), inp, (80, 30))
        run.model.next_game = NextGame(b"", "prototag", "")
        assert "the host proposes Prototag: a accepts, q leaves" in run.words()
        await run.press(key, lambda: run.model.exit_code == code)
        assert await run.stop() == code


# --------------------------------------------------------------------------- watching


async def test_watching_ctrl_q_leaves_at_once() -> None:
    table = ui_table("assassination", 3, spectators=1, seed=9)
    table.start()
    NetHandle(table).settle()
    with create_pipe_input() as inp:
        run = Screen(NetHandle(table, index=3), inp, (80, 24))
        assert "watching: F1 or Ctrl-G help, Ctrl-Q leave" in run.words()
        await run.press(CTRL_Q, lambda: run.model.exit_code == 1)
        assert await run.stop() == 1


# --------------------------------------------------------------------------- hints fit


@pytest.mark.parametrize("size", [(100, 30), (60, 16)])
async def test_hints_wrap_rather_than_run_off_the_screen(size: tuple[int, int]) -> None:
    handle = solo_handle("tagem", 1)
    with create_pipe_input() as inp:
        run = Screen(handle, inp, size)
        pawn, way, _ = _blocked_pawn(handle)
        await run.press(str(pawn), lambda: run.model.selected == pawn)
        await run.press(ARROW[way], lambda: run.model.pending_arrow == way)
        assert " ".join(run.model.message.split()) in run.words()
        await run.stop()
