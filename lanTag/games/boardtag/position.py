"""Board Tag positions: the state as named fields a person can read and write.

Squares are named as on the board ("a1".."h8", rank 1 at the bottom), IT's lattice points
as "(x,y)" (0..8 from the left and bottom lines).  Dice are numbered ``3 * seat + k`` (seat
0's dice are 0-2); each die is {"owner", "score", "square"} (square null: off the board).
A seat or die field holds its number or null.  docs/rules/boardtag.md lists the fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import DICE_PER_SEAT, OFF, PHASES, Runner
from lanTag.games.boardtag.state import BoardTagFields
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

S = TypeVar("S", bound=BoardTagFields)

FIELDS = (
    "phase",
    "dice",
    "round",
    "it_seat",
    "it_die",
    "it_point",
    "it_facing",
    "mover",
    "active_die",
    "steps",
    "gained_near_it",
    "finished",
    "jumps",
    "turns",
    "passed_by_it",
    "last_events",
    "ranking",
    "end",
)
_POINT = re.compile(r"\((\d),(\d)\)")


def _or_none(value: int) -> int | None:
    return value if value >= 0 else None


def position_of(state: State) -> dict[str, Any]:
    if not isinstance(state, BoardTagFields):
        raise PositionError([f"not a boardtag state: {type(state).__name__}"])
    options = {"max_rounds": state.max_rounds, "run_order": state.run_order}
    out = envelope(type(state).game, state.seats, options)
    out.update(
        {
            "phase": state.phase,
            "dice": [
                {
                    "owner": d.owner,
                    "score": d.score,
                    "square": bb.square_name(d.square) if d.square != OFF else None,
                }
                for d in state.dice
            ],
            "round": state.round,
            "it_seat": _or_none(state.it_seat),
            "it_die": _or_none(state.it_die),
            "it_point": bb.point_name(state.it_point),
            "it_facing": state.it_facing,
            "mover": _or_none(state.mover),
            "active_die": _or_none(state.active_die),
            "steps": state.steps,
            "gained_near_it": state.gained_near_it,
            "finished": list(state.finished),
            "jumps": state.jumps,
            "turns": state.turns,
            "passed_by_it": list(state.passed_by_it),
            "last_events": [list(fact) for fact in state.events],
            "ranking": [list(group) for group in state.ranking],
            "end": list(state.end),
        }
    )
    return out


def _read_square(value: object) -> int:
    if value is None:
        return OFF
    square = bb.parse_square(value) if isinstance(value, str) else None
    if square is None:
        raise ValueError(f"{value!r} is not a square (a1..h8, or null: off the board)")
    return square


def _read_point(value: object) -> int:
    match = _POINT.fullmatch(value) if isinstance(value, str) else None
    if match is None or not all(0 <= int(v) < bb.LATTICE for v in match.groups()):
        raise ValueError(f"{value!r} is not a lattice point ((0,0)..(8,8))")
    return int(match.group(1)) + bb.LATTICE * int(match.group(2))


def _read_die(seats: int) -> Callable[[object], Runner]:
    def read(value: object) -> Runner:
        if not isinstance(value, Mapping) or set(value) != {"owner", "score", "square"}:
            raise ValueError(f"{value!r} is not a die {{owner, score, square}}")
        owner = read_seat(seats, none=None)(value["owner"])
        score = read_count(bb.MIN_SCORE, bb.MAX_SCORE)(value["score"])
        return Runner(owner, score, _read_square(value["square"]))

    return read


def _read_word(words: tuple[str, ...]) -> Callable[[object], str]:
    def read(value: object) -> str:
        if value not in words:
            raise ValueError(f"{value!r} is not one of {', '.join(words)}")
        assert isinstance(value, str)
        return value

    return read


def _read_flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{value!r} is not true or false")
    return value


def _read_end(value: object) -> tuple[int | str, ...]:
    return read_fact(value) if value != [] else ()


def state_of(game: type[Game], position: Mapping[str, Any], make: type[S]) -> S:
    """The state of class ``make`` (the engine's) that ``position`` describes."""
    reader = FieldReader(game, position, FIELDS)
    seats = reader.seats or game.min_seats
    count = DICE_PER_SEAT * seats
    seat, die = read_seat(seats), read_seat(count)
    no_dice: tuple[Runner, ...] = ()
    known = len(reader.problems)
    dice = reader.field("dice", read_list(_read_die(seats)), no_dice)
    if "dice" not in reader.position:
        reader.problem(f"dice: the {count} dice are needed")
    elif len(reader.problems) == known and len(dice) != count:
        reader.problem(f"dice: {len(dice)} dice for {seats} seats (3 each)")
    phase = reader.field("phase", _read_word(PHASES), PHASES[0])
    if "phase" not in reader.position:
        reader.problem(f"phase: one of {', '.join(PHASES)} is needed")
    state = make(
        seats=seats,
        max_rounds=int(reader.options["max_rounds"]),
        run_order=str(reader.options["run_order"]),
        dice=dice,
        phase=phase,
        round=reader.field("round", read_count(0), 0),
        it_seat=reader.field("it_seat", seat, -1),
        it_die=reader.field("it_die", die, -1),
        it_point=reader.field("it_point", _read_point, bb.CENTRE),
        it_facing=reader.field("it_facing", _read_word(tuple(bb.FACINGS)), "n"),
        mover=reader.field("mover", seat, -1),
        active_die=reader.field("active_die", die, -1),
        steps=reader.field("steps", read_count(0), 0),
        gained_near_it=reader.field("gained_near_it", _read_flag, False),
        finished=reader.field("finished", read_list(read_seat(count, none=None)), ()),
        jumps=reader.field("jumps", read_count(0), 0),
        turns=reader.field("turns", read_count(0), 0),
        passed_by_it=reader.field("passed_by_it", read_list(read_seat(count, none=None)), ()),
        events=reader.field("last_events", read_list(read_fact), ()),
        ranking=reader.field("ranking", read_list(read_list(read_seat(seats, none=None))), ()),
        end=reader.field("end", _read_end, ()),
    )
    reader.check()
    broken = state.invariants()
    if broken:
        raise PositionError([f"not a boardtag position: {problem}" for problem in broken])
    return state
