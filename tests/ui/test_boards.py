"""Boards a newcomer reads at a glance: Board Tag's squares and IT's crossing points are
distinct; Tag 'em's columns are labelled unambiguously, its cells apart, the tile under a
pawn visible, each team's start marked.  (Every board's labels against the positions'
names: tests/ui/test_board_labels.py.)"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.games.boardtag import board as bb
from lanTag.rules.coordinates import file_name
from lanTag.ui.boards import Painted, paint
from lanTag.ui.game_screen import GameApp
from lanTag.ui.snapshot import screen_text
from lanTag.views.registry import game_view
from tests.ui.fakes import advance, solo_handle


def _texts(painted: Painted) -> list[str]:
    return ["".join(frag[1] for frag in row) for row in painted.rows]


def _painted(
    engine: str, bots: int = 2, moves: int = 0, options: tuple[tuple[str, str], ...] = ()
) -> tuple[Painted, dict[str, Any]]:
    handle = solo_handle(engine, bots, options=options)
    advance(handle, moves)
    session = handle.machine.session
    assert session is not None
    shown = game_view(engine)
    view = shown.view(session.state, 0)
    names = ["me", "bot-1", "bot-2"][: bots + 1]
    return paint(engine, view, names, lambda: shown.render(session.state)), view


def test_boardtag_it_stands_on_a_named_crossing_point_between_lettered_squares() -> None:
    painted, view = _painted("boardtag", moves=8)
    rows = _texts(painted)
    x, y = view["it"]["point"]
    arrow = bb.ARROWS[view["it"]["facing"]]
    # Row 0: the squares' files; then the line of rank 9, the squares of rank 8, the line of
    # rank 8, ... the line of rank 1, whose crossing points carry the lines' files a-i.
    line = rows[1 + 2 * (bb.LATTICE - 1 - y)]
    assert line.endswith(f" {y + 1}") and line[3 + 4 * x] == arrow
    assert len(rows) == 2 * bb.LATTICE and y > 0  # (moves=8: IT is off the bottom line)
    assert rows[-1].startswith("   a---b---c---d---e---f---g---h---i 1")
    assert rows[-1][3 + 4 * x] == "abcdefghi"[x]  # the line's file stands under the point
    # Every other crossing point is a "+", every square is walled and three wide.
    points = [r for i, r in enumerate(rows[1:-1]) if i % 2 == 0]
    assert sum(r.count("+") for r in points) == (bb.LATTICE - 1) * bb.LATTICE - 1
    for rank in range(1, bb.SIZE + 1):
        squares = rows[2 * (bb.SIZE - rank + 1)]
        assert squares.startswith(f"{rank:>2} |") and squares.count("|") == bb.SIZE + 1
        for col in range(bb.SIZE):
            die = view["board"][rank - 1][col]
            inside = squares[4 + 4 * col : 7 + 4 * col]
            assert inside == ("   " if die is None else f" {'ABCDEF'[die['seat']]}{die['score']}")
    assert rows[0][5] == "a" and rows[0][5 + 4 * 7] == "h"  # files over the squares
    status = "".join(frag[1] for frag in painted.info[0])
    assert f"at point {'abcdefghi'[x]}{y + 1}" in status


def test_tagem_columns_past_ten_cells_apart_tiles_under_pawns_and_starts_per_team() -> None:
    painted, view = _painted("tagem", 2, moves=6, options=(("map", "outpost"),))
    rows = _texts(painted)
    width = view["width"]
    assert width > 10 and painted.head_rows == 1
    labels = rows[0]
    for c in range(width):
        # Each column's file (a.., two letters past z) over its cell's start.
        assert labels[4 + 4 * c : 6 + 4 * c] == f"{file_name(c):>2}"
    for r, cells in enumerate(view["cells"]):
        row = rows[1 + r]
        assert row.startswith(f"{len(view['cells']) - r:>3} ")  # ranks from the bottom
        for c in range(width):
            drawn, glyph = row[4 + 4 * c : 7 + 4 * c], view["terrain"][r][c]
            if c < width - 1:
                assert row[7 + 4 * c] == " "  # cells one apart
            text = cells[c].strip()
            if re.fullmatch(r"[A-H]\d", text):  # a pawn, and the tile it stands on
                assert drawn == text + (" " if glyph == "." else glyph)
            elif [r, c] in view["starts"]:
                assert drawn == f"[{'ABC'[view['starts'].index([r, c])]}]"
    assert "[A]" in "".join(rows)  # A's pawns left its start in the setup; B and C stand on theirs


def test_tagem_pawn_keeps_its_tile_in_colour_and_without() -> None:
    painted, view = _painted("tagem", 1)
    pawn = view["pawns"][0]
    frags = [f for f in painted.rows[1 + pawn["row"]] if f[1].startswith(pawn["name"])]
    assert len(frags) == 1
    glyph = view["terrain"][pawn["row"]][pawn["col"]]
    assert frags[0][1] == pawn["name"] + (" " if glyph == "." else glyph)
    if glyph in "%~^":
        assert "class:under." in frags[0][0]


@pytest.mark.parametrize("engine", ["prototag", "assassination", "boardtag", "stomptag", "tagem"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("no_color", [False, True])
async def test_every_board_at_80x24_and_120x40_with_and_without_colour(
    engine: str, size: tuple[int, int], no_color: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    handle = solo_handle(engine, seed="ui1" if engine == "stomptag" else "ui")
    advance(handle, 4)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        game.model.show_over = False
        text = screen_text(game.app, *size)
        await asyncio.sleep(0)
    lines = text.splitlines()
    assert "Window too small" not in text
    assert lines[0].startswith(" lanTag │") and lines[-1] == " keys›"
    painted = game.painted_at(game.pane.control.zoom)  # as drawn: maybe in compact cells
    shown = [line[: painted.width] for line in lines[1:]]
    # The top-left of the board (its first label row and first rows) is on screen.
    first = _texts(painted)[0].strip()[:12]
    assert any(first in line for line in shown), text


def test_the_rules_help_reads_the_board_as_it_is_drawn() -> None:
    from lanTag.ui.game_screen import rules_text

    painted, _ = _painted("boardtag")
    status = "".join(frag[1] for frag in painted.info[0])
    assert "at point e5" in status and "starts on e5" in rules_text("boardtag")
    assert "(a1 is the\nbottom-left tile" in rules_text("tagem") and "[A]" in rules_text("tagem")


def _tagem_attack_handle() -> Any:
    """Tag 'em from a position where A (us) may attack B0 on cover two ways, each with the
    other pawn as its horde: "+1 horde, -1 cover" against nothing (tests/rules/test_awaited)."""
    from lanTag.games.tagem.engine import Tagem
    from tests.rules.test_positions import _tagem

    start = Tagem.from_position(_tagem(pawns=[["k9", "l10"], ["l9", "l4"]]))
    options = tuple(sorted(Tagem.position(start)["options"].items()))
    return solo_handle("tagem", 1, options=options, start_position=start.encode())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_tagem_side_panel_lists_each_attack_with_its_modifiers(
    size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    handle = _tagem_attack_handle()
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        text = screen_text(game.app, *size)
        await asyncio.sleep(0)
    assert "Window too small" not in text
    # The side panel (right of the bar), its wrapped lines joined again.
    side = " ".join(line.split("│", 1)[1].strip() for line in text.splitlines() if "│" in line)
    assert "attacks you can make" in side, text
    for action, pawn in (("attack 0 e", "A0"), ("attack 1 s", "A1")):
        line = f"» {action}: {pawn} +0 vs B0 +0 (+1 horde, -1 cover against no modifier)"
        assert line in side, text


def test_tagem_status_names_the_game_type_as_the_rules_do() -> None:
    handle = _tagem_attack_handle()  # a Capture-Their-Flag game (mode=ctcf)
    session = handle.machine.session
    shown = game_view("tagem")
    view = shown.view(session.state, 0)
    painted = paint("tagem", view, ["me", "bot-1"], lambda: shown.render(session.state))
    status = "".join(frag[1] for frag in painted.info[0])
    assert view["mode"] == "ctcf" and status.startswith("Skirmish, Capture-Their-Flag, round 1")
    assert shown.render(session.state).startswith("Tag 'em: Skirmish, Capture-Their-Flag, ")
