"""One coordinate convention (#37 item 6): every game names places the algebraic way.

Files a.. from the left, ranks 1.. from the bottom (lanTag.rules.coordinates); positions
say so with ``"coordinates": "algebraic"``.  A position file written before (no such
field, tests/rules/old_positions/) is still read, in its game's old spelling, to the very
state it was written from; the actions that name squares (consensus words) agree with the
convention.  The console's labels: tests/ui/test_board_labels.py.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from lanTag.cli.position_command import states_of_log
from lanTag.games.assassination.board import board_for
from lanTag.games.boardtag import board as bb
from lanTag.games.prototag.engine import Prototag
from lanTag.games.tagem.engine import Tagem
from lanTag.rules.base import PositionError, State
from lanTag.rules.coordinates import (
    ALGEBRAIC,
    FIELD,
    file_index,
    file_labels,
    file_name,
    grid_name,
    parse,
    parse_grid,
    place_name,
    span,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game

OLD = Path(__file__).parent / "old_positions"
CORPUS = Path(__file__).parents[1] / "corpus" / "protocol6"
# Each old sample: the corpus log and step it was written from (README.md there).
FROM_LOG = {"prototag": 20, "assassination": 15, "boardtag": 30, "stomptag": 5, "tagem": 19}


# ---------------------------------------------------------------- the names themselves


def test_files_run_a_to_z_then_aa_like_spreadsheet_columns() -> None:
    named = {0: "a", 7: "h", 25: "z", 26: "aa", 27: "ab", 51: "az", 52: "ba", 701: "zz"}
    for index, name in named.items():
        assert file_name(index) == name and file_index(name) == index
    names = [file_name(i) for i in range(800)]
    assert len(set(names)) == 800 and all(file_index(n) == i for i, n in enumerate(names))
    with pytest.raises(ValueError):
        file_name(-1)


def test_a_place_has_exactly_one_name() -> None:
    assert place_name(0, 0) == "a1" and place_name(4, 4) == "e5" and place_name(26, 99) == "aa100"
    assert parse("e5") == (4, 4) and parse("aa100") == (26, 99)
    for junk in ("A1", "a0", "a01", "1a", "", "a", "e5 ", "(1,1)", "r0c0", None, 5, ["a1"]):
        assert parse(junk) is None, junk
    for file in range(40):
        for rank in range(40):
            assert parse(place_name(file, rank)) == (file, rank)
    with pytest.raises(ValueError):
        place_name(0, -1)


def test_rows_counted_from_the_top_are_named_from_the_bottom() -> None:
    # Engines number rows from the north; the name counts ranks from the south.
    assert grid_name(0, 0, 7) == "a7" and grid_name(6, 0, 7) == "a1" and grid_name(6, 6, 7) == "g1"
    for width, height in ((5, 5), (19, 15), (35, 21), (1, 1)):
        for row in range(height):
            for col in range(width):
                assert parse_grid(grid_name(row, col, height), width, height) == (row, col)
    assert parse_grid("f1", 5, 5) is None and parse_grid("a6", 5, 5) is None
    assert span(5, 5) == "a1..e5" and span(35, 21) == "a1..ai21"


def test_file_labels_read_downwards_past_z() -> None:
    assert file_labels(3) == [["a", "b", "c"]]
    tall = file_labels(28)
    assert len(tall) == 2 and tall[0][25] == " " and [row[27] for row in tall] == ["a", "b"]


def test_the_actions_that_name_squares_already_spell_them_this_way() -> None:
    # Board Tag's place/pick/tag and Assassination's leave are consensus words with their
    # own parsers: they must name every square exactly as the convention does.
    for square in range(bb.SIZE * bb.SIZE):
        name = place_name(square % bb.SIZE, square // bb.SIZE)
        assert bb.square_name(square) == name and bb.parse_square(name) == square
    for point in range(bb.LATTICE * bb.LATTICE):
        assert bb.point_name(point) == place_name(point % bb.LATTICE, point // bb.LATTICE)
    assert bb.point_name(bb.CENTRE) == "e5"  # the corner of d4, e4, d5 and e5
    for seats in (3, 8):  # the 5x5 and the 6x6 board
        board = board_for(seats)
        for cell in board.squares:
            if board.is_square(cell):
                name = grid_name(*divmod(cell, board.size), board.size)
                assert board.name(cell) == name and board.cell_of(name) == cell


# ---------------------------------------------------------------- old files still read


def _old_spelling_to_new(engine: str, position: dict[str, Any], value: object) -> object:
    """A place in the game's old spelling, renamed by hand (not by the code under test)."""
    if value is None or value == "safe-house":
        return value
    assert isinstance(value, str)
    if engine == "prototag":  # the same letters, the rank counted from the north
        size = position["options"]["board_size"]
        return f"{value[0]}{size + 1 - int(value[1:])}"
    if engine == "boardtag" and value.startswith("("):  # IT's point (x,y) from 0
        x, y = map(int, value.strip("()").split(","))
        return f"{'abcdefghi'[x]}{y + 1}"
    if engine == "stomptag":  # (column,row) from 1, row 1 at the top
        col, row = map(int, value.strip("()").split(","))
        side = position["options"]["grid_size"]
        return f"{'abcdefghijklmnopqrstuvwxyz'[col - 1]}{side + 1 - row}"
    if engine == "tagem":  # rRcC from 0, r0 at the top
        match = re.fullmatch(r"r(\d+)c(\d+)", value)
        assert match is not None
        height = sum(1 for line in position["map"][position["map"].index("grid:") + 1 :])
        row, col = int(match.group(1)), int(match.group(2))
        return f"{'abcdefghijklmnopqrstuvwxyz'[col]}{height - row}"
    return value  # Assassination, Board Tag's squares: spelled this way already


def _places(engine: str, position: dict[str, Any]) -> list[object]:
    """Every place a position names, in field order."""
    if engine == "prototag":
        return [*position["pieces"], *position["path"]]
    if engine == "assassination":
        return [*position["pieces"], position["came_from"]]
    if engine == "boardtag":
        return [*(d["square"] for d in position["dice"]), position["it_point"]]
    if engine == "stomptag":
        return [p.get("cell") for p in position["players"]]
    return [
        *(cell for team in position["pawns"] for cell in team),
        *(flag["cell"] for flag in position["flags"]),
    ]


def _written_from(sample: str) -> State:
    if sample == "tagem-ctcf":
        rng = random.Random("old-tagem-ctcf")
        state: State = Tagem.new_state(2, {"mode": "ctcf", "pawns": 2})
        for _ in range(40):
            state = state.apply(random_input(state, rng.randrange))
        return state
    log = CORPUS / f"{sample}.log"
    return states_of_log(log.read_bytes(), str(log))[FROM_LOG[sample]]


@pytest.mark.parametrize("sample", [*FROM_LOG, "tagem-ctcf"])
def test_a_position_file_written_before_the_convention_reads_back_to_its_state(
    sample: str,
) -> None:
    old = json.loads((OLD / f"{sample}.json").read_text(encoding="utf-8"))
    assert FIELD not in old
    engine = old["game"]
    game = get_game(engine)
    state = game.from_position(old)
    assert state.encode() == _written_from(sample).encode()
    # Written again: the convention, marked, every place renamed as the old spelling said.
    new = game.position(state)
    assert new[FIELD] == ALGEBRAIC
    renamed = [_old_spelling_to_new(engine, old, value) for value in _places(engine, old)]
    assert _places(engine, new) == renamed
    assert game.from_position(json.loads(json.dumps(new))).encode() == state.encode()
    if any(a != b for a, b in zip(_places(engine, new), _places(engine, old), strict=True)):
        # The new spelling read as an old file is another state or no state at all.
        relabelled = {**new}
        del relabelled[FIELD]
        with contextlib.suppress(PositionError):
            assert game.from_position(relabelled).encode() != state.encode()


def test_prototag_a1_is_the_south_west_corner_now_and_the_north_west_in_old_files() -> None:
    # The one spelling both conventions share: only the field tells them apart.
    fields = {"game": "prototag", "rules": Prototag.rules_version, "seats": 2}
    fields |= {"phase": "roll", "pieces": ["a1", "g7"], "tagged": 0, "mover": 0}
    new = Prototag.from_position({**fields, FIELD: ALGEBRAIC})
    old = Prototag.from_position(fields)
    assert new.positions == ((6, 0), (0, 6))  # (row from the north, column): south-west
    assert old.positions == ((0, 0), (6, 6))  # north-west, as the old files meant it


@pytest.mark.parametrize(
    ("engine", "field", "old", "new", "old_range"),
    [
        ("tagem", "pawns", [["r2c10"], ["r2c11"]], [["k13"], ["l13"]], "r0c0.."),
        ("stomptag", "players", [{"cell": "(3,4)"}, {}, {}], [{"cell": "c2"}, {}, {}], "(1,1).."),
        ("boardtag", "it_point", "(4,4)", "e5", "(0,0)..(8,8)"),
    ],
)
def test_each_spelling_is_read_only_where_it_belongs(
    engine: str, field: str, old: object, new: object, old_range: str
) -> None:
    # An old spelling in a marked position, or the new one in an unmarked file, is refused
    # naming the spelling expected (never silently read as the other convention).
    game = get_game(engine)
    marked = game.position(game.new_state(3 if engine == "stomptag" else 2))
    unmarked = {k: v for k, v in marked.items() if k != FIELD}
    with pytest.raises(PositionError) as refused:
        game.from_position({**marked, field: old})
    assert f"{field}: " in str(refused.value) and "a1.." in str(refused.value)
    with pytest.raises(PositionError) as refused:
        game.from_position({**unmarked, field: new})
    assert f"{field}: " in str(refused.value) and old_range in str(refused.value)
    assert '"coordinates"' in str(refused.value)


def test_only_the_algebraic_convention_is_named() -> None:
    position = Prototag.position(Prototag.new_state(3))
    with pytest.raises(PositionError, match="coordinates: 'chess' is not 'algebraic'"):
        Prototag.from_position({**position, FIELD: "chess"})


@pytest.mark.parametrize(
    ("engine", "options"),
    [
        ("tagem", {"map": "crescent"}),  # 35 files: a..z, aa..ai
        ("stomptag", {"grid_size": 30}),
        ("prototag", {"board_size": 15}),
        ("assassination", {}),
        ("boardtag", {}),
    ],
)
def test_wide_boards_round_trip_through_their_names(engine: str, options: dict[str, Any]) -> None:
    game = get_game(engine)
    rng = random.Random(f"coordinates-{engine}")
    state = game.new_state(3, options)
    names: set[object] = set()
    for _ in range(120):
        position = json.loads(json.dumps(game.position(state)))
        assert position[FIELD] == ALGEBRAIC
        assert game.from_position(position).encode() == state.encode()
        names.update(p for p in _places(engine, position) if isinstance(p, str))
        if state.is_over:
            break
        state = state.apply(random_input(state, rng.randrange))
    spelled = {n for n in names if n != "safe-house"}
    assert spelled and all(parse(n) is not None for n in spelled), spelled
