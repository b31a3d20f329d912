"""Tag 'em positions: the state as named fields a person can read and write.

Tiles are named "r<row>c<col>" from 0 (the top-left tile is r0c0), pawns "A0" (seat
letter, pawn number), as the board and the view name them.  The map is its grid and
header lines; a seat field holds a seat number or null.  A pending attack lists its
modifiers (horde, garrison, cover) by name.  docs/rules/tagem.md lists the fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from lanTag.games.tagem.board import GameMap, canonical_map, parse_map
from lanTag.games.tagem.checks import invariants
from lanTag.games.tagem.pieces import LETTERS, Attack, Flag, cell_name, pawn_name
from lanTag.games.tagem.state import TagemFields
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

S = TypeVar("S", bound=TagemFields)

FIELDS = (
    "map",
    "order",
    "turn",
    "round",
    "pom_left",
    "stopped",
    "pawns",
    "flags",
    "out",
    "tags",
    "pending",
    "winner",
    "last_events",
)
_CELL = re.compile(r"r(\d+)c(\d+)")
_PAWN = re.compile(r"([A-H])(\d)")
_ATTACK_COUNTS = ("attacker_horde", "defender_horde")
_ATTACK_FLAGS = ("attacker_garrison", "defender_garrison", "defender_cover")


def _or_none(value: int) -> int | None:
    return value if value >= 0 else None


def _pawn_or_none(seat: int, pawn: int) -> str | None:
    return pawn_name(seat, pawn) if seat >= 0 else None


def position_of(state: State) -> dict[str, Any]:
    if not isinstance(state, TagemFields):
        raise PositionError([f"not a tagem state: {type(state).__name__}"])
    board = state.board

    def name(cell: int) -> str | None:
        return cell_name(board, cell) if cell >= 0 else None

    options = {
        "mode": state.mode,
        "pom": state.pom,
        "pawns": state.pawn_count,
        "max_turns": state.max_turns,
    }
    attack = state.pending
    out = envelope(type(state).game, len(state.pawns), options)
    out.update(
        {
            "map": board.text.splitlines(),
            "order": list(state.order),
            "turn": state.turn,
            "round": state.round,
            "pom_left": state.pom_left,
            "stopped": list(state.stopped),
            "pawns": [[name(cell) for cell in team] for team in state.pawns],
            "flags": [
                {
                    "owner": _or_none(flag.owner),
                    "cell": name(flag.cell),
                    "carrier": _pawn_or_none(flag.carrier, flag.carrier_pawn),
                }
                for flag in state.flags
            ],
            "out": [list(group) for group in state.out],
            "tags": list(state.tags),
            "pending": None
            if attack is None
            else {
                "attacker": pawn_name(attack.attacker, attack.attacker_pawn),
                "defender": pawn_name(attack.defender, attack.defender_pawn),
                **{key: getattr(attack, key) for key in (*_ATTACK_COUNTS, *_ATTACK_FLAGS)},
            },
            "winner": _or_none(state.winner),
            "last_events": [list(fact) for fact in state.events],
        }
    )
    return out


def _read_map(value: object) -> GameMap:
    if not isinstance(value, list) or not all(isinstance(line, str) for line in value):
        raise ValueError("the map is a list of its lines")
    return canonical_map(parse_map("\n".join(value) + "\n", "<position>"))


def _read_cell(board: GameMap) -> Callable[[object], int]:
    def read(value: object) -> int:
        if value is None:
            return -1
        match = _CELL.fullmatch(value) if isinstance(value, str) else None
        if match is not None:
            row, col = int(match.group(1)), int(match.group(2))
            if row < board.height and col < board.width:
                return row * board.width + col
        last = cell_name(board, len(board.tiles) - 1)
        raise ValueError(f"{value!r} is not a tile of the map (r0c0..{last}, or null)")

    return read


def _read_pawn(seats: int, pawns: int) -> Callable[[object], tuple[int, int]]:
    def read(value: object) -> tuple[int, int]:
        match = _PAWN.fullmatch(value) if isinstance(value, str) else None
        if match is None:
            raise ValueError(f"{value!r} is not a pawn (A0, B2, ...)")
        seat, pawn = LETTERS.index(match.group(1)), int(match.group(2))
        if seat >= seats or pawn >= pawns:
            raise ValueError(f"there is no pawn {value} with {seats} seats of {pawns} pawns")
        return seat, pawn

    return read


def _read_flag(board: GameMap, seats: int, pawns: int) -> Callable[[object], Flag]:
    def read(value: object) -> Flag:
        if not isinstance(value, Mapping) or set(value) != {"owner", "cell", "carrier"}:
            raise ValueError(f"{value!r} is not a flag {{owner, cell, carrier}}")
        owner = read_seat(seats)(value["owner"])
        carrier = (-1, -1)
        if value["carrier"] is not None:
            carrier = _read_pawn(seats, pawns)(value["carrier"])
        return Flag(owner, _read_cell(board)(value["cell"]), *carrier)

    return read


def _read_attack(seats: int, pawns: int) -> Callable[[object], Attack | None]:
    keys = {"attacker", "defender", *_ATTACK_COUNTS, *_ATTACK_FLAGS}

    def read(value: object) -> Attack | None:
        if value is None:
            return None
        if not isinstance(value, Mapping) or set(value) != keys:
            raise ValueError(f"an attack has the fields {', '.join(sorted(keys))}")
        pawn = _read_pawn(seats, pawns)
        horde = [read_count(0, 8)(value[key]) for key in _ATTACK_COUNTS]
        flags = [value[key] for key in _ATTACK_FLAGS]
        if not all(isinstance(flag, bool) for flag in flags):
            raise ValueError(f"{', '.join(_ATTACK_FLAGS)} are true or false")
        attacker, defender = pawn(value["attacker"]), pawn(value["defender"])
        return Attack(*attacker, *defender, horde[0], horde[1], *(bool(f) for f in flags))

    return read


def state_of(game: type[Game], position: Mapping[str, Any], make: type[S]) -> S:
    """The state of class ``make`` (the engine's) that ``position`` describes."""
    reader = FieldReader(game, position, FIELDS)
    seats = reader.seats or game.min_seats
    options = reader.options
    board = reader.field("map", _read_map, None)
    if board is None:
        if "map" not in reader.position:
            reader.problem("map: the map's lines are needed")
        reader.check()
    assert board is not None
    pawn_count, pom = int(options["pawns"]), int(options["pom"]) or board.pom
    cell, seat = _read_cell(board), read_seat(seats)
    known = len(reader.problems)
    no_teams: tuple[tuple[int, ...], ...] = ()
    pawns = reader.field("pawns", read_list(read_list(cell)), no_teams)
    if len(reader.problems) == known and (
        len(pawns) != seats or any(len(team) != pawn_count for team in pawns)
    ):
        reader.problem(f"pawns: {seats} teams of {pawn_count} pawns (a tile or null each)")
    no_flags: tuple[Flag, ...] = ()
    state = make(
        board=board,
        mode=str(options["mode"]),
        pom=pom,
        pawn_count=pawn_count,
        max_turns=int(options["max_turns"]),
        order=reader.field("order", read_list(read_seat(seats, none=None)), ()),
        turn=reader.field("turn", read_count(0, max(seats - 1, 0)), 0),
        round=reader.field("round", read_count(1), 1),
        pom_left=reader.field("pom_left", read_count(0, pom), pom),
        stopped=reader.field("stopped", read_list(read_count(0, pawn_count - 1)), ()),
        pawns=pawns,
        flags=reader.field("flags", read_list(_read_flag(board, seats, pawn_count)), no_flags),
        out=reader.field("out", read_list(read_list(read_seat(seats, none=None))), ()),
        tags=reader.field("tags", read_list(read_count(0)), (0,) * seats),
        pending=reader.field("pending", _read_attack(seats, pawn_count), None),
        winner=reader.field("winner", seat, -1),
        events=reader.field("last_events", read_list(read_fact), ()),
    )
    reader.check()
    broken = invariants(state)
    if broken:
        raise PositionError([f"not a tagem position: {problem}" for problem in broken])
    return state
