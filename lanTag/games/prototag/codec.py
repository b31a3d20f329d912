"""Prototag states on the wire: the msgpack-ready encoding and its checked decoding."""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

from lanTag.games.prototag.state import PrototagFields, Rules
from lanTag.rules.base import canonical_pack, facts_from_obj

if TYPE_CHECKING:
    from lanTag.rules.base import Game

S = TypeVar("S", bound=PrototagFields)


def state_to_obj(state: PrototagFields) -> list[Any]:
    return [
        state.rules.to_obj(),
        state.seats,
        state.phase,
        [list(tile) for tile in state.positions],
        state.tagged,
        state.mover,
        list(state.contenders),
        [list(pair) for pair in state.start_rolls],
        state.roll,
        [list(tile) for tile in state.path],
        state.tagged_steps,
        state.immune,
        state.immunity_left,
        state.opponent,
        state.rps_draws,
        [list(fact) for fact in state.events],
    ]


def read_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def read_str(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def read_ints(value: object) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(f"expected an array of integers, got {value!r}")
    return tuple(read_int(v) for v in value)


def read_pairs(value: object) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, list) or not all(isinstance(v, list) and len(v) == 2 for v in value):
        raise ValueError(f"expected an array of integer pairs, got {value!r}")
    return tuple((read_int(a), read_int(b)) for a, b in value)


_RULES_FIELDS = attrgetter(
    "board_size", "end_steps", "immunity_steps", "tagged_die", "other_die", "first_tagged"
)
_STATE_FIELDS = attrgetter(
    "seats",
    "phase",
    "positions",
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
    "events",
)


def encode(state: PrototagFields) -> bytes:
    """``canonical_pack([id, state_to_obj(state)])``: the same bytes (msgpack packs a tuple
    as an array) without the list copies.  Keep in step with :func:`state_to_obj`."""
    return canonical_pack((state.game.id, (_RULES_FIELDS(state.rules), *_STATE_FIELDS(state))))


def state_from_obj(game: type[Game], obj: Any, make: type[S]) -> S:
    """Inverse of :func:`state_to_obj` for ``game`` (its options), a state of class ``make``
    (the engine's); ValueError on any malformed or unsound structure."""
    try:
        (
            rules_obj,
            seats,
            phase,
            positions,
            tagged,
            mover,
            contenders,
            start_rolls,
            roll,
            path,
            tagged_steps,
            immune,
            immunity_left,
            opponent,
            rps_draws,
            events,
        ) = obj
    except (TypeError, ValueError):
        raise ValueError("a prototag state is an array of 16 fields") from None
    names = [spec.name for spec in game.option_specs]
    if not isinstance(rules_obj, list) or len(rules_obj) != len(names):
        raise ValueError(f"prototag rules are an array of {len(names)} options")
    rules = Rules.from_options(game.validate_options(dict(zip(names, rules_obj, strict=True))))
    game.check_seats(read_int(seats))
    state = make(
        rules=rules,
        seats=read_int(seats),
        phase=read_str(phase),
        positions=read_pairs(positions),
        tagged=read_int(tagged),
        mover=read_int(mover),
        contenders=read_ints(contenders),
        start_rolls=read_pairs(start_rolls),
        roll=read_int(roll),
        path=read_pairs(path),
        tagged_steps=read_int(tagged_steps),
        immune=read_int(immune),
        immunity_left=read_int(immunity_left),
        opponent=read_int(opponent),
        rps_draws=read_int(rps_draws),
        events=facts_from_obj(events),
    )
    broken = state.invariants()
    if broken:
        raise ValueError("inconsistent prototag state: " + "; ".join(broken))
    return state
