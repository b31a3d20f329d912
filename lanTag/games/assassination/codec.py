"""Assassination states on the wire: the msgpack-ready encoding and its checked decoding."""

from __future__ import annotations

from dataclasses import fields
from operator import attrgetter
from typing import Any, TypeVar

from lanTag.games.assassination.board import PHASES
from lanTag.games.assassination.state import REROLL_MODES, AssassinationFields
from lanTag.rules.base import canonical_pack, facts_from_obj

S = TypeVar("S", bound=AssassinationFields)

# The state's fields in wire order (the memo field is no part of the value).
FIELD_NAMES = tuple(f.name for f in fields(AssassinationFields) if f.init)
field_values = attrgetter(*FIELD_NAMES)  # a state's field values, in wire order


def state_to_obj(state: AssassinationFields) -> list[Any]:
    return [
        state.seats,
        state.variation_a,
        state.null_reroll,
        state.max_rounds,
        state.phase,
        state.victim,
        state.mover,
        list(state.positions),
        list(state.coins),
        list(state.catches),
        state.last_assassin,
        state.assassin_turns,
        state.roll,
        state.steps_left,
        state.came_from,
        state.rerolls,
        state.winner,
        [list(fact) for fact in state.events],
    ]


def encode(state: AssassinationFields) -> bytes:
    """``canonical_pack([id, state_to_obj(state)])``: the same bytes (msgpack packs a tuple
    as an array) without the list copies."""
    return canonical_pack((state.game.id, field_values(state)))


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _ints(value: object) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(f"expected an array of integers, got {value!r}")
    return tuple(_int(v) for v in value)


def state_from_obj(obj: Any, make: type[S]) -> S:
    """Inverse of :func:`state_to_obj`, a state of class ``make`` (the engine's); ValueError
    on any malformed or unsound structure."""
    if not isinstance(obj, list) or len(obj) != 18:
        raise ValueError("an assassination state is an array of 18 fields")
    ints = [_int(obj[i]) for i in (0, 3, 5, 6, 10, 11, 12, 13, 14, 15, 16)]
    seats, max_rounds, victim, mover, last, turns, roll, steps, came, rerolls, winner = ints
    if not 3 <= seats <= 8:
        raise ValueError(f"bad seat count {seats}")
    if not isinstance(obj[1], bool) or obj[2] not in REROLL_MODES:
        raise ValueError("bad variation_a or null_reroll field")
    if not isinstance(obj[4], str) or obj[4] not in PHASES:
        raise ValueError(f"bad phase {obj[4]!r}")
    state = make(
        seats=seats,
        variation_a=obj[1],
        null_reroll=obj[2],
        max_rounds=max_rounds,
        phase=obj[4],
        victim=victim,
        mover=mover,
        positions=_ints(obj[7]),
        coins=_ints(obj[8]),
        catches=_ints(obj[9]),
        last_assassin=last,
        assassin_turns=turns,
        roll=roll,
        steps_left=steps,
        came_from=came,
        rerolls=rerolls,
        winner=winner,
        events=facts_from_obj(obj[17]),
    )
    broken = state.invariants()
    if broken:
        raise ValueError("inconsistent assassination state: " + "; ".join(broken))
    return state
