"""TAG: The Assassination Game positions: the state as named fields a person can write.

Squares are named as the board shows them: a file letter from the west, then a rank from
the south ("c3"); a pawn in the Safe House stands on "safe-house".  A seat field holds a
seat number or null.  docs/rules/assassination.md lists the fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from lanTag.games.assassination.board import NO_SQUARE, PHASES, SAFE_HOUSE, SIDES, Board, board_for
from lanTag.games.assassination.state import AssassinationFields
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

S = TypeVar("S", bound=AssassinationFields)

FIELDS = (
    "phase",
    "victim",
    "mover",
    "pieces",
    "bases_touched",
    "catches",
    "last_assassin",
    "assassin_turns",
    "roll",
    "steps_left",
    "came_from",
    "rerolls",
    "winner",
    "last_events",
)


def _seat_or_none(seat: int) -> int | None:
    return seat if seat >= 0 else None


def _sides(coins: int) -> list[str]:
    return [side for bit, side in enumerate(SIDES) if coins >> bit & 1]


def position_of(state: State) -> dict[str, Any]:
    if not isinstance(state, AssassinationFields):
        raise PositionError([f"not an assassination state: {type(state).__name__}"])
    board = state.board
    options = {
        "variation_a": state.variation_a,
        "null_reroll": state.null_reroll,
        "max_rounds": state.max_rounds,
    }
    out = envelope(type(state).game, state.seats, options)
    out.update(
        {
            "phase": state.phase,
            "victim": _seat_or_none(state.victim),
            "mover": _seat_or_none(state.mover),
            "pieces": [board.name(cell) for cell in state.positions],
            "bases_touched": [_sides(coins) for coins in state.coins],
            "catches": list(state.catches),
            "last_assassin": _seat_or_none(state.last_assassin),
            "assassin_turns": state.assassin_turns,
            "roll": state.roll,
            "steps_left": state.steps_left,
            "came_from": None if state.came_from == NO_SQUARE else board.name(state.came_from),
            "rerolls": state.rerolls,
            "winner": _seat_or_none(state.winner),
            "last_events": [list(fact) for fact in state.events],
        }
    )
    return out


def read_square(board: Board, *, none: int | None = None) -> Callable[[object], int]:
    """A square name, "safe-house", or (when ``none`` is given) null."""

    def read(value: object) -> int:
        if value is None and none is not None:
            return none
        if value == "safe-house":
            return SAFE_HOUSE
        cell = board.cell_of(value) if isinstance(value, str) else None
        if cell is None:
            last = board.name(board.size - 1)
            raise ValueError(
                f"{value!r} is not a square of the {board.size}x{board.size} board "
                f"(a1..{last}, or safe-house)"
            )
        return cell

    return read


def _read_phase(value: object) -> str:
    if value not in PHASES:
        raise ValueError(f"{value!r} is not a phase ({', '.join(PHASES)})")
    assert isinstance(value, str)
    return value


def _read_coins(value: object) -> int:
    if not isinstance(value, list | tuple) or any(side not in SIDES for side in value):
        raise ValueError(f"{value!r} is not a list of bases ({', '.join(SIDES)})")
    return sum(1 << SIDES.index(side) for side in set(value))


def state_of(game: type[Game], position: Mapping[str, Any], make: type[S]) -> S:
    """The state of class ``make`` (the engine's) that ``position`` describes."""
    reader = FieldReader(game, position, FIELDS)
    seats = reader.seats or game.min_seats
    board, seat = board_for(seats), read_seat(seats)
    no_squares: tuple[int, ...] = ()
    pieces = reader.field("pieces", read_list(read_square(board)), no_squares)
    coins = reader.field("bases_touched", read_list(_read_coins), (0,) * seats)
    catches = reader.field("catches", read_list(read_count(0)), (0,) * seats)
    for name, values in (("bases_touched", coins), ("catches", catches)):
        if len(values) != seats:
            reader.problem(f"{name}: {len(values)} entries for {seats} seats")
    if pieces and len(pieces) != seats:
        reader.problem(f"pieces: {len(pieces)} squares for {seats} seats")
    phase = reader.field("phase", _read_phase, "pick")
    if "phase" not in reader.position:
        reader.problem(f"phase: one of {', '.join(PHASES)} is needed")
    options = reader.options
    state = make(
        seats=seats,
        variation_a=bool(options["variation_a"]),
        null_reroll=str(options["null_reroll"]),
        max_rounds=int(options["max_rounds"]),
        phase=phase,
        victim=reader.field("victim", seat, -1),
        mover=reader.field("mover", seat, -1),
        positions=pieces,
        coins=coins,
        catches=catches,
        last_assassin=reader.field("last_assassin", seat, -1),
        assassin_turns=reader.field("assassin_turns", read_count(0), 0),
        roll=reader.field("roll", read_count(0, 5), 0),
        steps_left=reader.field("steps_left", read_count(0, 5), 0),
        came_from=reader.field("came_from", read_square(board, none=NO_SQUARE), NO_SQUARE),
        rerolls=reader.field("rerolls", read_count(0), 0),
        winner=reader.field("winner", seat, -1),
        events=reader.field("last_events", read_list(read_fact), ()),
    )
    reader.check()
    broken = state.invariants()
    if broken:
        raise PositionError([f"not an assassination position: {problem}" for problem in broken])
    return state
