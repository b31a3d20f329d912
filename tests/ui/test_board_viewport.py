"""Boards bigger than their pane: clipping marks, panning by keys and following our piece."""

from __future__ import annotations

import asyncio
import io

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from lanTag.ui import game_commands as commands
from lanTag.ui.boards import Painted
from lanTag.ui.game_screen import GameApp
from lanTag.ui.snapshot import screen_text
from lanTag.ui.viewport import Viewport, clip, cut, focus_cell, follow
from tests.ui.fakes import FakeHandle, eventually, solo_handle

MARKS = "◀▶▲▼"


def _grid(rows: int, cols: int) -> Painted:
    """A board with a header row and 3-column row labels; cell (r, c) shows 'rc' digits."""
    p = Painted(head_rows=1, head_cols=3)
    p.rows.append([("", "   " + "".join(str(c % 10) for c in range(cols)))])
    for r in range(rows):
        p.rows.append(
            [("", f"{r:>2} "), ("", "".join(chr(65 + (r + c) % 26) for c in range(cols)))]
        )
    return p


def _text(line: list[tuple[str, str]]) -> str:
    return "".join(f[1] for f in line)


# ----------------------------------------------------------------------------- pure parts


def test_cut_slices_styled_fragments() -> None:
    row = [("a", "abc"), ("b", "def"), ("c", "gh")]
    assert cut(row, 2, 5) == [("a", "c"), ("b", "de")]
    assert cut(row, 0, 0) == [] and _text(cut(row, 6, 99)) == "gh"


def test_a_board_that_fits_has_no_marks() -> None:
    lines, vp, clipped = clip(_grid(5, 10), Viewport(), 40, 10)
    assert not clipped.any and vp == Viewport()
    assert len(lines) == 6 and not any(m in _text(line) for line in lines for m in MARKS)


def test_a_wide_tall_board_is_clipped_with_marks_and_pinned_labels() -> None:
    lines, vp, clipped = clip(_grid(30, 100), Viewport(top=4, left=10), 30, 12)
    texts = [_text(line) for line in lines]
    assert len(texts) == 12 and all(len(t) <= 30 for t in texts)
    assert texts[0].startswith("   ◀0123")  # labels pinned, then the marks column
    assert texts[1].startswith(" 4 ◀")  # body row 4 under the pinned header
    assert texts[1].endswith("▲") and texts[-1].endswith("▼") and texts[2].endswith("▶")
    assert clipped.above == 4 and clipped.before == 10 and clipped.after > 0 and clipped.below > 0
    # Scrolled all the way: nothing more on that side, no mark there.
    lines, vp, clipped = clip(_grid(30, 100), Viewport(top=99, left=999), 30, 12)
    texts = [_text(line) for line in lines]
    assert clipped.after == 0 and clipped.below == 0 and vp.left == 100 - 25
    assert not texts[2].endswith("▶") and "◀" in texts[2] and texts[1].endswith("▲")


def test_follow_scrolls_as_little_as_needed() -> None:
    body, shown = (30, 100), (10, 20)
    assert follow(Viewport(), (3, 5), body, shown) == Viewport()  # already in view
    right = follow(Viewport(), (3, 50), body, shown)
    assert right.top == 0 and right.left <= 50 < right.left + 20 - 1
    assert follow(right, (3, 49), body, shown) == right  # a small step needs no scroll
    down = follow(Viewport(), (25, 5), body, shown)
    assert down.top <= 25 < down.top + 10 and down.left == 0
    assert follow(Viewport(), (29, 99), body, shown) == Viewport(20, 80)  # clamped at the end


def test_focus_cell_picks_the_selected_piece_else_the_lowest() -> None:
    spots = {(0, 2): (5, 9), (0, 1): (4, 7), (1, 0): (1, 1)}
    assert focus_cell(spots, 0, 2) == (5, 9)
    assert focus_cell(spots, 0, None) == (4, 7) and focus_cell(spots, 0, 7) == (4, 7)
    assert focus_cell(spots, None, 1) is None and focus_cell(spots, 3, None) is None


@pytest.mark.parametrize("engine", ["prototag", "assassination", "stomptag", "tagem"])
def test_painters_record_where_each_seat_piece_is_drawn(engine: str) -> None:
    handle = solo_handle(engine, 2)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        if engine == "stomptag":  # pieces are placed after the bids
            from tests.ui.fakes import advance

            advance(handle, 2)
            game.model.poll()
        painted = game.painted()
    assert painted.spots, "no piece recorded"
    for (seat, _piece), (row, col) in painted.spots.items():
        text = _text(painted.rows[row])
        assert str(seat) in text[col : col + 2] or text[col] in "ABCDEFGH"


# ----------------------------------------------------------------------------- the game screen


def _board(text: str) -> list[str]:
    """The board pane's part of each screen row (left of the side panel's divider)."""
    return [line.split("│")[0] for line in text.splitlines()[1:-3]]


def _crescent() -> FakeHandle:
    # Crescent is 35 tiles (143 columns) wide: more than the board pane of 80 columns.
    return solo_handle("tagem", 1, options=(("map", "crescent"),))


async def test_big_map_follows_our_pawns_and_marks_the_cut() -> None:
    with create_pipe_input() as inp:
        game = GameApp(_crescent(), input=inp, output=DummyOutput())
        board = _board(screen_text(game.app, 80, 24))
        # All our pawns are in view (in compact cells; the map is cut off to the west).
        assert all(any(f"A{n}" in row for row in board) for n in range(5)), board
        assert any(row.rstrip().endswith("▶") or "◀" in row for row in board)
        # The hint takes a row only where the board leaves one (the marks always show).
        screen_text(game.app, 80, 40)  # the hint follows the first draw at a size
        assert "board cut off" in screen_text(game.app, 80, 40)


async def test_panning_by_keys_then_following_brings_the_selected_pawn_back() -> None:
    # The running app draws at 80x24 too: the scroll position belongs to the size drawn at.
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm")
    with create_pipe_input() as inp:
        game = GameApp(_crescent(), input=inp, output=output, color=False)
        task = asyncio.create_task(game.run())
        model = game.model
        screen_text(game.app, 80, 24)
        start = model.board_left
        inp.send_text("\x1b[1;2D" * 40)  # Shift+Left: our pawns (east horn) leave the view
        await eventually(lambda: model.board_left == 0 and not model.board_follow)
        board = _board(screen_text(game.app, 80, 24))
        assert start > 0 and not any("A3" in row for row in board)
        assert "◀" not in "".join(board) and "▶" in "".join(board)
        inp.send_text("1")  # picking pawn 1 scrolls back to it
        await eventually(lambda: model.selected == 1 and model.board_follow)
        board = _board(screen_text(game.app, 80, 24))
        assert any("A1" in row for row in board)
        assert model.board_scroll == 0  # pawn 1 is on the map's second row
        inp.send_text("\x1b[1;2B")  # Shift+Down pans down, away from it
        await eventually(lambda: model.board_scroll > 0 and not model.board_follow)
        board = _board(screen_text(game.app, 80, 24))
        assert not any("A1" in row for row in board) and "▲" in "".join(board)
        inp.send_text(".")  # follow again
        await eventually(lambda: model.board_follow)
        board = _board(screen_text(game.app, 80, 24))
        assert any("A1" in row for row in board)
        model.exit_code = 1
        await asyncio.wait_for(task, 30)


def test_pan_commands_switch_following_off_and_on() -> None:
    handle = _crescent()
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
    model = game.model
    commands.run(model, "board-pan", "-5,2")
    assert not model.board_follow and model.board_scroll == 2 and model.board_left == 0
    commands.run(model, "board-scroll", "-9")  # PgUp pans too, never below 0
    assert model.board_scroll == 0
    commands.run(model, "board-follow")
    assert model.board_follow and "follows" in model.message
