"""What a decision takes: actions (text and msgpack forms), the three inputs a step
applies (a Move, a Joint of secret choices, a Roll) and their wire form, and the refusals
of an input (lanTag.rules.base re-exports every name here: the one API of an engine)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from lanTag.errors import LanTagError


class IllegalAction(LanTagError, ValueError):
    """An input this state does not take; the message says why.

    Raised as itself it is a rule refusal: a well-formed action (or input) that the rules
    forbid here and now.  Its subclass :class:`MalformedAction` says the text or bytes are
    no action of the game at all, so every caller that refuses one refuses both.
    """


class MalformedAction(IllegalAction):
    """Text or bytes that are no action at all: not an action's form (``Action.parse``,
    ``decode_input``), or no action of this game (``Game.reads``: an unknown verb, arguments
    of the wrong number or kind, a word outside the game's vocabulary)."""


# --------------------------------------------------------------------------- actions

_WORD = re.compile(r"[a-z][a-z0-9_+\-]*")  # used with fullmatch: "$" would allow "word\n"
_INT = re.compile(r"-?[0-9]+")

Arg: TypeAlias = int | str


@dataclass(frozen=True, slots=True)
class Action:
    """A small value object: a verb and a few int/word arguments.

    Text form ``"step n"``, ``"rps rock"``, ``"move 3 4"``; msgpack form
    ``[verb, *args]``.  Words are lower-case identifiers and never look like
    integers, so the text form parses back to exactly the same value.
    """

    verb: str
    args: tuple[Arg, ...] = ()

    def __post_init__(self) -> None:
        if not _WORD.fullmatch(self.verb):
            raise MalformedAction(f"bad action verb {self.verb!r}")
        for a in self.args:
            if isinstance(a, bool) or not isinstance(a, int | str):
                raise MalformedAction(f"bad action argument {a!r}")
            if isinstance(a, str) and not _WORD.fullmatch(a):
                raise MalformedAction(f"bad action word {a!r}")

    def __str__(self) -> str:
        return " ".join([self.verb, *(str(a) for a in self.args)])

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the text form; raises MalformedAction on anything malformed."""
        tokens = text.strip().lower().split()
        if not tokens:
            raise MalformedAction("empty action")
        args: list[Arg] = [int(t) if _INT.fullmatch(t) else t for t in tokens[1:]]
        return cls(tokens[0], tuple(args))

    def to_msgpack(self) -> list[Arg]:
        return [self.verb, *self.args]

    @classmethod
    def from_msgpack(cls, obj: object) -> Action:
        if not isinstance(obj, list | tuple) or not obj or not isinstance(obj[0], str):
            raise MalformedAction("action must be a non-empty array starting with a verb")
        return cls(obj[0], tuple(obj[1:]))


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class Move:
    """One seat's action on its turn."""

    seat: int
    action: Action


@dataclass(frozen=True, slots=True)
class Joint:
    """The revealed actions of every seat of a Simultaneous decision, sorted by seat."""

    choices: tuple[tuple[int, Action], ...]

    def __post_init__(self) -> None:
        seats = [s for s, _ in self.choices]
        if seats != sorted(set(seats)):
            raise MalformedAction("joint choices must be sorted by seat, one per seat")

    def of(self, seat: int) -> Action:
        for s, a in self.choices:
            if s == seat:
                return a
        raise KeyError(seat)


# A convicted seat's share of a joint secret choice (State.forfeit_action, SPEC §4.4): a
# fact code, never legal from a player, so a Joint holding it says "this seat forfeited".
FORFEIT = Action("forfeit")


@dataclass(frozen=True, slots=True)
class Roll:
    """The outcome of a Chance decision: one tuple of values per Draw of its spec."""

    values: tuple[tuple[int, ...], ...]


Input: TypeAlias = Move | Joint | Roll


def encode_input(inp: Input) -> list[Any]:
    """msgpack-ready: ``[0, seat, action]``, ``[1, [[seat, action]...]]``, ``[2, [[v...]...]]``."""
    if isinstance(inp, Move):
        return [0, inp.seat, inp.action.to_msgpack()]
    if isinstance(inp, Joint):
        return [1, [[s, a.to_msgpack()] for s, a in inp.choices]]
    return [2, [list(v) for v in inp.values]]


def input_text(inp: Input, describe: Callable[[Action], str] = str) -> str:
    """A one-line human form: ``seat 1: step n``, ``joint: 0=rps rock 1=rps paper``, ``roll: 4``.

    ``describe`` writes each action: ``str`` (the wire text) or a game's ``action_text``.
    """
    if isinstance(inp, Move):
        return f"seat {inp.seat}: {describe(inp.action)}"
    if isinstance(inp, Joint):
        return "joint: " + " ".join(f"{s}=[{describe(a)}]" for s, a in inp.choices)
    return "roll: " + " | ".join(" ".join(str(v) for v in vals) for vals in inp.values)


def decode_input(obj: object) -> Input:
    """Inverse of :func:`encode_input`; raises MalformedAction on malformed input."""
    try:
        if not isinstance(obj, list | tuple) or len(obj) < 2:
            raise MalformedAction("input must be an array")
        tag = obj[0]
        if tag == 0 and len(obj) == 3 and is_plain_int(obj[1]):
            return Move(obj[1], Action.from_msgpack(obj[2]))
        if tag == 1 and len(obj) == 2 and isinstance(obj[1], list | tuple):
            pairs = []
            for pair in obj[1]:
                seat_first = isinstance(pair, list | tuple) and len(pair) == 2
                if not seat_first or not is_plain_int(pair[0]):
                    raise MalformedAction("joint choice must be [seat, action]")
                pairs.append((pair[0], Action.from_msgpack(pair[1])))
            return Joint(tuple(pairs))
        if tag == 2 and len(obj) == 2 and isinstance(obj[1], list | tuple):
            values = []
            for v in obj[1]:
                if not isinstance(v, list | tuple) or not all(is_plain_int(x) for x in v):
                    raise MalformedAction("roll values must be arrays of ints")
                values.append(tuple(v))
            return Roll(tuple(values))
    except (TypeError, KeyError) as exc:  # defensive: never let a bad input crash a peer
        raise MalformedAction(f"malformed input: {exc}") from exc
    raise MalformedAction("unknown input form")


def is_plain_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)
