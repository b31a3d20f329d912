"""Board Tag state <-> msgpack-ready lists: one list entry per state field, in field order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import Field, fields
from typing import Any

from lanTag.games.boardtag.board import Runner
from lanTag.games.boardtag.state import BoardTagFields
from lanTag.rules.base import Fact, facts_from_obj


def _encode(value: object) -> Any:
    if isinstance(value, Runner):
        return [value.owner, value.score, value.square]
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def encode_state_generic(state: BoardTagFields) -> list[Any]:
    """The definition of the encoding; tests check :func:`encode_state` against it."""
    return [_encode(getattr(state, f.name)) for f in fields(state)]


def encode_state(state: BoardTagFields) -> list[Any]:
    """``encode_state_generic``, spelled out field by field (it runs once per replayed step)."""
    s = state
    return [
        s.seats,
        s.max_rounds,
        s.run_order,
        [[d.owner, d.score, d.square] for d in s.dice],
        s.phase,
        s.round,
        s.it_seat,
        s.it_die,
        s.it_point,
        s.it_facing,
        s.mover,
        s.active_die,
        s.steps,
        s.gained_near_it,
        list(s.finished),
        s.jumps,
        s.turns,
        list(s.passed_by_it),
        [list(fact) for fact in s.events],
        [list(g) for g in s.ranking],
        list(s.end),
    ]


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected an int, got {value!r}")
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected a bool, got {value!r}")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {value!r}")
    return value


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(_int(v) for v in _list(value))


def _runner(value: Any) -> Runner:
    owner, score, square = _ints(value)  # ValueError unless exactly three ints
    return Runner(owner, score, square)


# Keyed by the field annotations of BoardTagFields (state.py) (strings, under postponed evaluation).
_DECODERS: dict[str, Callable[[Any], object]] = {
    "int": _int,
    "str": _str,
    "bool": _bool,
    "tuple[int, ...]": _ints,
    "tuple[str, ...]": lambda v: tuple(_str(s) for s in _list(v)),
    "tuple[Runner, ...]": lambda v: tuple(_runner(d) for d in _list(v)),
    "tuple[tuple[int, ...], ...]": lambda v: tuple(_ints(g) for g in _list(v)),
    "tuple[Fact, ...]": facts_from_obj,
    "Fact": lambda v: _fact_or_nothing(v),
}


def _fact_or_nothing(value: Any) -> Fact:
    """One fact, or () (no fact yet)."""
    return facts_from_obj([value])[0] if _list(value) else ()


def decode_fields(obj: Any, state_fields: Sequence[Field[Any]]) -> list[Any]:
    """The field values encoded in ``obj``, each checked against its field's type by its
    decoder; ValueError on any structural mismatch."""
    items = _list(obj)
    if len(items) != len(state_fields):
        raise ValueError(f"a boardtag state has {len(state_fields)} fields, not {len(items)}")
    return [_DECODERS[str(f.type)](v) for f, v in zip(state_fields, items, strict=True)]
