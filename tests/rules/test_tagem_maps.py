"""Tag 'em maps: the loader's errors, the shipped maps, and random games on each."""

from __future__ import annotations

import random

import pytest

from lanTag.games.tagem.board import SHIPPED_MAPS, MapError, Tile, auto_map, parse_map, shipped_map
from lanTag.games.tagem.engine import MODES, Tagem
from lanTag.rules.base import Over, State
from lanTag.rules.playout import random_input
from tests.rules.tagem_helpers import FIELD, map_text, paint

HEADER_LINES = 4  # name, pom, players, grid:


def error(text: str) -> MapError:
    with pytest.raises(MapError) as info:
        parse_map(text, "test.map")
    return info.value


def test_a_good_map_loads() -> None:
    board = parse_map(map_text(FIELD))
    assert (board.name, board.pom, board.min_players, board.max_players) == ("Testbed", 10, 2, 3)
    assert (board.width, board.height) == (12, 9)
    assert board.starts == (1 * 12 + 1, 1 * 12 + 10, 7 * 12 + 1) and board.flag_spot == -1


def test_unknown_glyph_names_file_line_and_column() -> None:
    err = error(map_text(paint({(3, 7): "x"})))
    assert (err.source, err.line, err.column) == ("test.map", HEADER_LINES + 4, 8)
    assert "unknown glyph 'x'" in str(err) and str(err).startswith("test.map:8:8: ")
    assert isinstance(err, ValueError)


def test_ragged_rows_must_be_padded_with_void() -> None:
    grid = list(FIELD)
    grid[4] = grid[4][:-2]
    err = error(map_text(grid))
    assert (err.line, err.column) == (HEADER_LINES + 5, 11) and "pad a shorter row" in err.reason
    grid[4] += "__"
    assert parse_map(map_text(grid)).tiles[4 * 12 + 11] == Tile.VOID


def test_fewer_starting_points_than_players() -> None:
    err = error(map_text(FIELD, players="2-4"))
    assert (err.line, err.column) == (3, 10)
    assert "allows 4 but the grid has only 3 starting points" in err.reason


def test_more_seats_than_the_map_allows() -> None:
    with pytest.raises(MapError, match="for 2-3 players, not 4"):
        Tagem.new_state(4, map_text=map_text(FIELD))


def test_unreachable_starting_point() -> None:
    walled = paint({(6, 0): "#", (6, 1): "#", (6, 2): "#", (6, 3): "#", (7, 3): "#", (8, 3): "#"})
    err = error(map_text(walled))
    assert (err.line, err.column) == (HEADER_LINES + 8, 2)
    assert "starting point 3 cannot be reached" in err.reason


def test_x_formation_blocked_by_a_block_tile() -> None:
    err = error(map_text(paint({(2, 11): "#"})))
    assert (err.line, err.column) == (HEADER_LINES + 3, 12)
    assert "X formation of starting point 2 (SE, pawn 4) is blocked by a Block tile" in err.reason


def test_x_formation_off_the_map_or_into_void() -> None:
    err = error(map_text(paint({(1, 1): ".", (0, 1): "1"})))
    assert "runs off the map" in err.reason and (err.line, err.column) == (HEADER_LINES + 1, 2)
    err = error(map_text(paint({(0, 0): "_"})))
    assert "blocked by a Void tile" in err.reason


def test_x_formations_may_not_overlap() -> None:
    err = error(map_text(paint({(7, 1): ".", (3, 3): "3"})))
    assert "overlaps the formation of starting point 1" in err.reason


def test_header_errors() -> None:
    grid = "\n".join(FIELD)
    assert "needs 'pom:'" in error(f"name: X\nplayers: 2\ngrid:\n{grid}").reason
    assert "unknown header 'size'" in error(f"size: 3\n{map_text(FIELD)}").reason
    assert "whole number" in error(map_text(FIELD).replace("pom: 10", "pom: ten")).reason
    assert "given twice" in error("name: A\n" + map_text(FIELD)).reason
    assert "no 'grid:' line" in error("name: X\npom: 3\nplayers: 2\n").reason
    assert "N-M" in error(map_text(FIELD, players="3-2")).reason


def test_starting_point_and_flag_spot_errors() -> None:
    assert "starting point 1 appears twice" in error(map_text(paint({(4, 6): "1"}))).reason
    assert "starting point 3 without 2" in error(map_text(paint({(1, 10): "."}))).reason
    two_flags = paint({(4, 4): "F", (4, 8): "F"})
    assert "at most one flag spot" in error(map_text(two_flags)).reason


def test_with_source_renames_the_file() -> None:
    err = error(map_text(paint({(3, 7): "x"}))).with_source("maps/mine.map")
    assert str(err).startswith("maps/mine.map:8:8: unknown glyph")


def test_shipped_maps_load_and_use_every_tile_type() -> None:
    sizes = {}
    for name in SHIPPED_MAPS:
        board = shipped_map(name)
        used = set(board.tiles)
        assert {Tile.PATH, Tile.COVER, Tile.WADE, Tile.GARRISON, Tile.BLOCK} <= used, name
        assert board.flag_spot >= 0, name
        sizes[name] = (board.width * board.height, board.pom, board.max_players)
    assert sizes["skirmish"][1:] == (10, 2)
    assert sizes["crescent"][2] == 4 and Tile.VOID in set(shipped_map("crescent").tiles)
    assert sizes["skirmish"][0] < sizes["outpost"][0] < sizes["crescent"][0]


def test_auto_picks_the_smallest_map_that_seats_everyone() -> None:
    assert [auto_map(n).name for n in range(2, 9)] == [
        "Skirmish", "Outpost", "Crescent", "Ringfort", "Ringfort", "Ringfort", "Ringfort"]


@pytest.mark.parametrize("name", SHIPPED_MAPS)
@pytest.mark.parametrize("mode", MODES)
def test_a_seeded_random_game_finishes(name: str, mode: str) -> None:
    board = shipped_map(name)
    rng = random.Random(f"tagem-{name}-{mode}")
    state: State = Tagem.new_state(board.max_players, {"map": name, "mode": mode, "max_turns": 6})
    steps = 0
    while not isinstance(decision := state.decision(), Over):
        state = state.apply(random_input(state, rng.randrange))
        steps += 1
        assert steps < Tagem.playout_step_bound(board.max_players)
    assert state.invariants() == []
    ranked = sorted(s for group in decision.outcome.ranking for s in group)
    assert ranked == list(range(board.max_players))
