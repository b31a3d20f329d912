"""Reading a position (``Game.from_position``): named fields, every problem named once.

A position is a JSON-ready dict a person can write: ``game``, ``rules``, ``coordinates``,
``seats``, ``options``, then each engine's own fields (its rules doc lists them).  Places
are named the algebraic way (``lanTag.rules.coordinates``) when ``coordinates`` says
``"algebraic"``, as every position written now does; a position without the field was
written before that and holds its game's old spelling (:attr:`FieldReader.algebraic`).  A
:class:`FieldReader` reads the fields one by one and notes each problem in words
("tagged: seat 5 does not exist (seats 0-2)") instead of stopping at the first; the
engine then builds the state and adds its invariants' complaints.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from lanTag.rules.base import Game, OptionError, PositionError, facts_from_obj
from lanTag.rules.coordinates import ALGEBRAIC, FIELD

T = TypeVar("T")

ENVELOPE = ("game", "rules", FIELD, "seats", "options")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class FieldReader:
    """Reads named fields of one position, collecting problems (never raising midway)."""

    def __init__(self, game: type[Game], position: object, fields: tuple[str, ...]) -> None:
        self.game = game
        self.problems: list[str] = []
        self.seats = 0
        self.options: dict[str, int | bool | str] = {}
        # Places spelled the algebraic way; False: an old file, in its game's old spelling.
        self.algebraic = True
        if not isinstance(position, Mapping):  # nothing else can be read
            raise PositionError([f"a {game.id} position is an object of named fields"])
        self.position: Mapping[str, Any] = position
        known = (*ENVELOPE, *fields)
        for name in position:
            if name not in known:
                self.problems.append(f"unknown field {name!r} (fields: {', '.join(known)})")
        self._envelope()

    def _envelope(self) -> None:
        game = self.game
        if self.position.get("game") != game.id:
            self.problems.append(f"game: {self.position.get('game')!r} is not {game.id!r}")
        rules = self.position.get("rules")
        if rules != game.rules_version:
            self.problems.append(
                f"rules: the position is for {game.id} rules {rules!r}; this lanTag plays "
                f"rules {game.rules_version}"
            )
        if FIELD not in self.position:
            self.algebraic = False
        elif self.position[FIELD] != ALGEBRAIC:
            self.problems.append(
                f"{FIELD}: {self.position[FIELD]!r} is not {ALGEBRAIC!r} (a position without "
                f"the field holds its game's old spelling)"
            )
        seats = self.position.get("seats")
        if not isinstance(seats, int) or isinstance(seats, bool):
            self.problems.append(f"seats: {seats!r} is not a number of seats")
        else:
            try:
                game.check_seats(seats)
                self.seats = seats
            except OptionError as exc:
                self.problems.append(f"seats: {exc}")
        options = self.position.get("options", {})
        if not isinstance(options, Mapping):
            self.problems.append("options: an object of option values")
            options = {}
        try:
            self.options = game.validate_options(options)
        except OptionError as exc:
            self.problems.append(f"options: {exc}")
            self.options = game.validate_options({})

    def field(self, name: str, read: Callable[[object], T], default: T) -> T:
        """``read(value)`` of field ``name`` (``default`` when absent); a ValueError it
        raises becomes the problem "name: message" and the default stands in."""
        if name not in self.position:
            return default
        try:
            return read(self.position[name])
        except ValueError as exc:
            self.problems.append(f"{name}: {exc}")
            return default

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def check(self) -> None:
        """PositionError with every problem noted so far, if any."""
        if self.problems:
            raise PositionError(self.problems)


def read_count(low: int, high: int | None = None) -> Callable[[object], int]:
    """A reader of an int in ``low..high`` (no upper bound when ``high`` is None)."""

    def read(value: object) -> int:
        if not _is_int(value):
            raise ValueError(f"{value!r} is not a whole number")
        assert isinstance(value, int)
        if value < low:
            raise ValueError(f"{value} is below {low}")
        if high is not None and value > high:
            raise ValueError(f"{value} is above {high}")
        return value

    return read


def read_seat(seats: int, *, none: int | None = -1) -> Callable[[object], int]:
    """A reader of a seat number (or null, read as ``none``, when ``none`` is not None)."""

    def read(value: object) -> int:
        if value is None and none is not None:
            return none
        if not _is_int(value):
            raise ValueError(f"{value!r} is not a seat")
        assert isinstance(value, int)
        if not 0 <= value < seats:
            raise ValueError(f"seat {value} does not exist (seats 0-{seats - 1})")
        return value

    return read


def read_list(item: Callable[[object], T]) -> Callable[[object], tuple[T, ...]]:
    """A reader of an array whose items ``item`` reads (the problem names the index)."""

    def read(value: object) -> tuple[T, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError(f"{value!r} is not a list")
        out = []
        for index, element in enumerate(value):
            try:
                out.append(item(element))
            except ValueError as exc:
                raise ValueError(f"item {index}: {exc}") from None
        return tuple(out)

    return read


def read_fact(value: object) -> tuple[int | str, ...]:
    """An event fact as a list: a code, then ints or codes (lanTag.rules.base)."""
    if not isinstance(value, list):
        raise ValueError(f"{value!r} is not a fact [code, values...]")
    return facts_from_obj([value])[0]


def envelope(game: type[Game], seats: int, options: Mapping[str, object]) -> dict[str, Any]:
    """The fields every position starts with."""
    return {
        "game": game.id,
        "rules": game.rules_version,
        FIELD: ALGEBRAIC,
        "seats": seats,
        "options": dict(options),
    }
