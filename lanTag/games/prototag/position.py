"""Prototag positions: the state as named fields a person can read and write.

Tiles are named as the board shows them: a column letter from the west (a..), then a
row number from the north (1..): "a1" is the north-west corner.  A seat field holds a
seat number or null ("nobody").  docs/rules/prototag.md lists the fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypeVar

from lanTag.games.prototag.board import Tile, column_name
from lanTag.games.prototag.state import PHASES, PrototagFields, Rules
from lanTag.rules.base import PositionError, State
from lanTag.rules.positions import (
    FieldReader,
    envelope,
    read_count,
    read_fact,
    read_list,
    read_seat,
)

if TYPE_CHECKING:
    from lanTag.rules.base import Game

S = TypeVar("S", bound=PrototagFields)

FIELDS = (
    "phase",
    "pieces",
    "tagged",
    "mover",
    "contenders",
    "start_rolls",
    "roll",
    "path",
    "tagged_steps",
    "immune",
    "immunity_left",
    "opponent",
    "rps_draws",
    "last_events",
)
_TILE = re.compile(r"([a-z])([0-9]{1,2})")


def tile_name(tile: Tile) -> str:
    row, col = tile
    return f"{column_name(col)}{row + 1}"


def read_tile(size: int) -> Callable[[object], Tile]:
    def read(value: object) -> Tile:
        match = _TILE.fullmatch(value) if isinstance(value, str) else None
        if match is not None:
            row, col = int(match.group(2)) - 1, ord(match.group(1)) - ord("a")
            if 0 <= row < size and 0 <= col < size:
                return (row, col)
        last = tile_name((size - 1, size - 1))
        raise ValueError(f"{value!r} is not a tile of the {size}x{size} board (a1..{last})")

    return read


def _seat_or_none(seat: int) -> int | None:
    return seat if seat >= 0 else None


def position_of(state: State) -> dict[str, Any]:
    if not isinstance(state, PrototagFields):
        raise PositionError([f"not a prototag state: {type(state).__name__}"])
    out = envelope(type(state).game, state.seats, asdict(state.rules))
    out.update(
        {
            "phase": state.phase,
            "pieces": [tile_name(tile) for tile in state.positions],
            "tagged": _seat_or_none(state.tagged),
            "mover": _seat_or_none(state.mover),
            "contenders": list(state.contenders),
            "start_rolls": [list(pair) for pair in state.start_rolls],
            "roll": state.roll,
            "path": [tile_name(tile) for tile in state.path],
            "tagged_steps": state.tagged_steps,
            "immune": _seat_or_none(state.immune),
            "immunity_left": state.immunity_left,
            "opponent": _seat_or_none(state.opponent),
            "rps_draws": state.rps_draws,
            "last_events": [list(fact) for fact in state.events],
        }
    )
    return out


def _read_phase(value: object) -> str:
    if value not in PHASES:
        raise ValueError(f"{value!r} is not a phase ({', '.join(PHASES)})")
    assert isinstance(value, str)
    return value


def state_of(game: type[Game], position: Mapping[str, Any], make: type[S]) -> S:
    """The state of class ``make`` (the engine's) that ``position`` describes."""
    reader = FieldReader(game, position, FIELDS)
    rules = Rules.from_options(reader.options)
    seats, size = reader.seats or game.min_seats, rules.board_size
    tile, seat = read_tile(size), read_seat(seats)
    no_tiles: tuple[Tile, ...] = ()
    known = len(reader.problems)
    pieces = reader.field("pieces", read_list(tile), no_tiles)
    if "pieces" not in reader.position:
        reader.problem("pieces: the tile of every seat is needed")
    elif len(reader.problems) == known and len(pieces) != seats:
        reader.problem(f"pieces: {len(pieces)} tiles for {seats} seats")
    die = max(rules.tagged_die, rules.other_die, 6)

    def start_roll(value: object) -> tuple[int, int]:
        pair = read_list(read_count(0))(value)
        if len(pair) != 2:
            raise ValueError(f"{value!r} is not [seat, throw]")
        return (seat(pair[0]), read_count(1, 6)(pair[1]))

    phase = reader.field("phase", _read_phase, "start")
    if "phase" not in reader.position:
        reader.problem(f"phase: one of {', '.join(PHASES)} is needed")
    state = make(
        rules=rules,
        seats=seats,
        phase=phase,
        positions=pieces,
        tagged=reader.field("tagged", seat, -1),
        mover=reader.field("mover", seat, -1),
        contenders=reader.field("contenders", read_list(read_seat(seats, none=None)), ()),
        start_rolls=reader.field("start_rolls", read_list(start_roll), ()),
        roll=reader.field("roll", read_count(0, die), 0),
        path=reader.field("path", read_list(tile), no_tiles),
        tagged_steps=reader.field("tagged_steps", read_count(0), 0),
        immune=reader.field("immune", seat, -1),
        immunity_left=reader.field("immunity_left", read_count(0), 0),
        opponent=reader.field("opponent", seat, -1),
        rps_draws=reader.field("rps_draws", read_count(0), 0),
        events=reader.field("last_events", read_list(read_fact), ()),
    )
    reader.check()
    broken = state.invariants()
    if broken:
        raise PositionError([f"not a prototag position: {problem}" for problem in broken])
    return state
