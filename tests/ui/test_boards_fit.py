"""Boards that fit (issue #34, item 5): every shipped board of every game is playable at
80x24 (compact cells or scrolling, our pieces in view, status lines whole), the status lines
stay on screen down to 60x16, and "." brings all our pieces back after a pan."""

from __future__ import annotations

import re
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.games.tagem.paint import paint as tagem
from lanTag.rules.coordinates import file_name
from lanTag.ui import game_commands as commands
from lanTag.ui.board_pane import board_width, rows_of
from lanTag.ui.game_screen import GameApp
from lanTag.ui.snapshot import screen_text
from lanTag.ui.viewport import Viewport, focus_cell, focus_cells, follow_all
from lanTag.views.registry import game_view
from tests.ui.fakes import FakeHandle, advance, solo_handle

# (engine, bots, options, moves): every game's default board and its biggest ones, and
# every shipped Tag 'em map with as many players as it seats.
CASES: list[tuple[str, int, tuple[tuple[str, Any], ...], int]] = [
    ("prototag", 2, (), 0),
    ("prototag", 2, (("board_size", 15),), 0),
    ("prototag", 7, (), 0),
    ("assassination", 2, (), 2),
    ("assassination", 7, (), 2),  # 6x6 with the Safe House 2x2
    ("boardtag", 1, (), 4),
    ("boardtag", 5, (), 12),
    ("stomptag", 2, (), 2),
    ("stomptag", 15, (), 2),  # 16 players: a 7x7 grid
    ("tagem", 1, (("map", "skirmish"),), 0),
    ("tagem", 2, (("map", "outpost"),), 0),
    ("tagem", 3, (("map", "crescent"),), 0),
    ("tagem", 7, (("map", "ringfort"),), 0),
]


def _handle(engine: str, bots: int, options: tuple[tuple[str, Any], ...], moves: int) -> FakeHandle:
    handle = solo_handle(
        engine, bots, options=options, seed="ui1" if engine == "stomptag" else "ui"
    )
    advance(handle, moves)
    return handle


def _drawn(game: GameApp) -> list[str]:
    """The board rows as the pane last drew them, the pinned row labels cut off."""
    painted = game.painted_at(game.pane.control.zoom)
    rows = ["".join(f[1] for f in line) for line in game.pane.control.lines]
    return [row[painted.head_cols :] for row in rows[painted.head_rows :]]


def _our_pieces_shown(game: GameApp) -> None:
    """Every piece of seat 0 on the board is among the rows drawn."""
    view = game.model.view()
    board = "\n".join(_drawn(game))
    engine = game.model.engine
    if engine == "tagem":
        ours = [p["name"] for p in view["pawns"] if p["seat"] == 0]
        assert ours and all(re.search(rf"\b{n}|{n.lower()}", board) for n in ours), board
    elif engine == "boardtag":
        ours = [d for d in view["dice"] if d["seat"] == 0 and d["square"] is not None]
        assert ours and len(re.findall(r"A\d", board)) == len(ours), board
    else:  # one piece: seat 0's digit (prototag "*0", assassination "V0", stomptag "@0")
        assert len(re.findall(r"(?<!\d)0(?!\d)", board)) == 1, board


def _followed_piece_shown(game: GameApp) -> None:
    """The piece the pane follows (the one that acts now, else our first) is drawn on its
    row: its glyph is in the drawn row that shows the painted row it is on."""
    m = game.model
    painted = game.painted_at(game.pane.control.zoom)
    spot = focus_cell(painted.spots, m.seat, m.selected, painted.primary)
    assert spot is not None
    row, col = spot
    glyph = "".join(f[1] for f in painted.rows[row])[col : col + 2].strip()
    drawn = ["".join(f[1] for f in line) for line in game.pane.control.lines]
    shown = painted.head_rows + row - painted.head_rows - m.board_scroll
    assert 0 <= shown < len(drawn) and glyph in drawn[shown], (glyph, drawn)


def _kept_text(game: GameApp) -> str:
    """The warnings and status lines as one line of words."""
    painted = game.painted()
    lines = [*painted.warnings, *("".join(f[1] for f in line) for line in painted.info)]
    return " ".join(" ".join(lines).split())


def _pane_words(text: str) -> str:
    """The board pane's column (left of the bar) of a screen, as one line of words."""
    rows = [line.split("│")[0] for line in text.splitlines()[1:-2]]
    return " ".join(" ".join(rows).split())


def _status_shown(game: GameApp, text: str) -> None:
    lines = text.splitlines()
    assert "Window too small" not in text
    assert lines[0].startswith(" lanTag │") and lines[-1] == " keys›", text
    assert _kept_text(game) in _pane_words(text), text


@pytest.mark.parametrize(("engine", "bots", "options", "moves"), CASES)
async def test_every_shipped_board_is_playable_at_80x24(
    engine: str, bots: int, options: tuple[tuple[str, Any], ...], moves: int
) -> None:
    handle = _handle(engine, bots, options, moves)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        game.model.show_over = False
        screen_text(game.app, 80, 24)
        text = screen_text(game.app, 80, 24)
        _status_shown(game, text)
        _followed_piece_shown(game)
        _our_pieces_shown(game)


@pytest.mark.parametrize(("engine", "bots", "options", "moves"), CASES)
async def test_status_lines_and_our_pieces_stay_on_screen_at_60x16(
    engine: str, bots: int, options: tuple[tuple[str, Any], ...], moves: int
) -> None:
    handle = _handle(engine, bots, options, moves)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        game.model.show_over = False
        screen_text(game.app, 60, 16)
        text = screen_text(game.app, 60, 16)
        _status_shown(game, text)
        _followed_piece_shown(game)
        if engine == "tagem":  # five pawns in an X: all of them fit
            _our_pieces_shown(game)


async def test_outpost_at_100x32_shows_every_column_in_narrower_cells() -> None:
    # The case: 3 players on Outpost (19 columns) showed about 14 columns at 100x32.
    handle = solo_handle("tagem", 2, options=(("map", "outpost"),))
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        text = screen_text(game.app, 100, 32)
        assert game.pane.control.zoom == 1 and not game.pane.control.clipped.any
        assert "A0% pawn on cover" in " ".join(text.split())  # the tile still beside it
        label_row = text.splitlines()[1].split("│")[0]
        assert label_row.split() == list("abcdefghijklmnopqrs"), text  # the 19 files
        assert not any(m in _pane_words(text) for m in "◀▶▲▼")
        # Wide cells where there is room for them.
        screen_text(game.app, 160, 40)
        assert game.pane.control.zoom == 0


async def test_compact_cells_say_in_the_legend_how_the_tile_under_a_pawn_shows() -> None:
    handle = solo_handle("tagem", 2, options=(("map", "outpost"),))
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        screen_text(game.app, 80, 40)  # the zoom is known after a first draw
        text = screen_text(game.app, 80, 40)
    assert game.pane.control.zoom == 2
    words = " ".join(" ".join(row.split("│", 1)[-1] for row in text.splitlines()).split())
    assert "A0 on % ~ ^: coloured (underlined)" in words and "A0% pawn" not in words


async def test_dot_shows_all_our_pawns_again_after_a_pan() -> None:
    handle = solo_handle("tagem", 1, options=(("map", "crescent"),))
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        model = game.model
        screen_text(game.app, 80, 24)
        commands.run(model, "select", "1")  # follows pawn 1 only
        assert model.selected == 1 and not model.board_fit
        commands.run(model, "board-pan", "-80,0")
        screen_text(game.app, 80, 24)
        assert not any(re.search(r"A\d", row) for row in _drawn(game))
        commands.run(model, "board-follow")  # "."
        screen_text(game.app, 80, 24)
        assert model.board_fit and model.board_follow
        _our_pieces_shown(game)
        assert "shows all your pieces" in model.message


def test_compact_tagem_cells_keep_labels_apart_and_pawns_whole() -> None:
    handle = solo_handle("tagem", 3, options=(("map", "crescent"),))
    session = handle.machine.session
    assert session is not None
    view = game_view("tagem").view(session.state, 0)
    wide, narrow, compact = (tagem(view, ["me", "b1", "b2", "b3"], z) for z in range(3))
    assert (wide.width, narrow.width, compact.width) == (4 + 35 * 4 - 1, 4 + 35 * 3, 4 + 35 * 2)
    labels = "".join(f[1] for f in compact.rows[0])
    # Every other column once files take two letters (35 columns: a..z, aa..ai).
    assert labels.split() == [file_name(c) for c in range(0, 35, 2)]
    for (seat, pawn), (row, col) in compact.spots.items():
        text = "".join(f[1] for f in compact.rows[row])
        assert text[col : col + 2].upper() == f"{'ABCD'[seat]}{pawn}"
        assert (col - 4) % 2 == 0  # on its own column's two characters
    # Starts read [A in compact cells, [A] otherwise.
    assert "[C" in "".join("".join(f[1] for f in r) for r in compact.rows)


def test_follow_all_keeps_every_cell_in_view_where_they_fit() -> None:
    body, shown = (40, 100), (10, 20)
    cells = [(5, 50), (3, 44), (8, 58)]
    vp = follow_all(Viewport(), cells, body, shown)
    for row, col in cells:
        assert vp.top <= row < vp.top + 10 and vp.left <= col and col + 1 < vp.left + 20
    # Too far apart for one view: the first (the selected piece) is kept in view.
    vp = follow_all(Viewport(), [(5, 90), (5, 2)], body, shown)
    assert vp.left <= 90 < vp.left + 20 and not vp.left <= 2


def test_focus_cells_start_with_the_selected_piece() -> None:
    spots = {(0, 0): (1, 1), (0, 1): (2, 5), (1, 0): (3, 3)}
    assert focus_cells(spots, 0, 1, fit=True) == [(2, 5), (1, 1)]
    assert focus_cells(spots, 0, 1, fit=False) == [(2, 5)]
    assert focus_cells(spots, None, 1, fit=True) == []


def test_board_width_takes_the_widest_zoom_that_leaves_the_side_panel_its_room() -> None:
    # 80 columns: 80 - 1 (bar) - 28 (side) = 51 for the board.
    assert board_width([143, 109, 74], 80).min == 51  # nothing fits: all the room
    assert board_width([79, 61, 42], 80).min == 43  # compact fits
    assert board_width([79, 61, 42], 100).min == 62  # narrow fits in 100
    assert board_width([20], 80).min == 21 and board_width([20], 80).preferred == 36


def test_rows_of_counts_wrapped_rows() -> None:
    assert rows_of([("", "one two three")], 7) == 2
    assert rows_of([("", "a\nb")], 10) == 2
    assert rows_of([], 10) == 0
