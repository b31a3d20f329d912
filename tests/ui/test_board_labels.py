"""The console's board labels name every place as positions do (#37 item 6).

For each game, over random playouts and every zoom: each piece the painter draws is looked
up under the board's labels (the file over its column, the rank left of its row; Board
Tag's IT on the lines' files along the bottom line and their ranks on the right), and the
name read there must be the one ``lantag position`` writes for that piece.  So the screen,
the messages and a position file say ``c4`` for the same place.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from lanTag.rules.base import State
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game
from lanTag.ui.boards import Painted, paint, zooms
from lanTag.views.registry import game_view

CASES = [
    ("prototag", {}, 3),
    ("prototag", {"board_size": 12}, 5),
    ("assassination", {}, 4),
    ("assassination", {}, 8),  # the 6x6 board
    ("boardtag", {}, 3),
    ("stomptag", {}, 4),
    ("stomptag", {"grid_size": 28}, 3),  # files past z: aa, ab
    ("tagem", {"map": "outpost"}, 3),
    ("tagem", {"map": "crescent"}, 3),  # 35 files
]


def _texts(painted: Painted) -> list[str]:
    return ["".join(fragment[1] for fragment in row) for row in painted.rows]


def _label_over(labels: str, start: int, end: int) -> str:
    """The label word nearest the columns ``start..end-1`` (which must be unambiguous)."""
    words = []
    for found in re.finditer(r"\S+", labels):
        gap = max(found.start() - (end - 1), start - (found.end() - 1), 0)
        words.append((gap, found.group()))
    words.sort()
    assert words and (len(words) == 1 or words[0][0] < words[1][0]), (labels, start, end)
    return words[0][1]


def _expected(engine: str, position: dict[str, Any], seat: int, piece: int) -> object:
    """The place the position names for the piece the painter drew as (seat, piece)."""
    if engine == "boardtag":
        if piece == 0:
            return position["it_point"]
        return position["dice"][3 * seat + piece - 1]["square"]
    if engine == "stomptag":
        return position["players"][seat]["cell"]
    if engine == "tagem":
        return position["pawns"][seat][piece]
    return position["pieces"][seat]


def _read_labels(engine: str, painted: Painted, spot: tuple[int, int], it: bool) -> str:
    rows = _texts(painted)
    row, col = spot
    end = 0  # the piece's glyph: from its spot to the end of the fragment drawn there
    for _, text in painted.rows[row]:
        end += len(text)
        if end > col:
            end -= len(text) - len(text.rstrip())
            break
    assert end > col, (rows[row], col)
    if it:  # Board Tag's IT: the lines' files on the bottom line, their ranks on the right
        files = {found.start(): found.group() for found in re.finditer("[a-i]", rows[-1])}
        if row == len(rows) - 1:  # IT on the bottom line hides its own file's letter
            left = "".join(name for at, name in sorted(files.items()) if at < col)
            assert col not in files and len(files) == 8, rows[-1]
            hidden = "abcdefghi"[len(left)]  # the files left of IT are a.., in order
            assert left == "abcdefghi"[: len(left)] and hidden not in files.values()
            return hidden + rows[row].split()[-1]
        return files[col] + rows[row].split()[-1]
    return _label_over(rows[0], col, end) + rows[row][: painted.head_cols].strip()


def _zooms(engine: str, view: dict[str, Any]) -> range:
    # Tag 'em's narrowest cells name every other column once files take two letters.
    if engine == "tagem" and view["width"] > 26:
        return range(zooms(engine) - 1)
    return range(zooms(engine))


def _checked(engine: str, state: State) -> int:
    game, shown = get_game(engine), game_view(engine)
    position = game.position(state)
    view = shown.view(state, 0)
    names = [f"p{seat}" for seat in range(len(view.get("players") or [])) or range(8)]
    checked = 0
    for zoom in _zooms(engine, view):
        painted = paint(engine, view, names, lambda: shown.render(state), zoom)
        assert painted.head_rows == 1 or not painted.spots
        for (seat, piece), spot in painted.spots.items():
            want = _expected(engine, position, seat, piece)
            if want in (None, "safe-house"):  # off the board; the Safe House is no square
                continue
            it = engine == "boardtag" and piece == 0
            assert _read_labels(engine, painted, spot, it) == want, (zoom, seat, piece)
            checked += 1
    return checked


@pytest.mark.parametrize(("engine", "options", "seats"), CASES)
def test_the_board_labels_name_each_piece_as_its_position_does(
    engine: str, options: dict[str, Any], seats: int
) -> None:
    game = get_game(engine)
    rng = random.Random(f"labels-{engine}-{options}")
    state = game.new_state(seats, options)
    checked = 0
    for _ in range(60):  # steps, a new game after one ends (Stomptag's are short)
        checked += _checked(engine, state)
        if state.is_over:
            state = game.new_state(seats, options)
        else:
            state = state.apply(random_input(state, rng.randrange))
    assert checked > 40  # pieces on the board, at every zoom, over many positions


@pytest.mark.parametrize("point", ["a1", "e1", "i1", "i9", "a5"])
def test_it_on_the_edge_lines_is_named_by_the_labels_too(point: str) -> None:
    # On the bottom line IT's arrow hides its own line's letter: the letters around it say it.
    from tests.rules.test_positions import _boardtag

    state = get_game("boardtag").from_position(_boardtag(it_point=point))
    assert _checked("boardtag", state) >= 5 * zooms("boardtag")  # IT and four dice, each zoom
