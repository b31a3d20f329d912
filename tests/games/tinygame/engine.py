"""Countdown: take one or two counters in turn; who takes the last one wins.

A drawn seat starts (a Chance), then every input is one seat's ``take 1`` or ``take 2``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
    Fact,
    Game,
    Input,
    Move,
    OptionError,
    OptionSpec,
    Outcome,
    Over,
    Pick,
    Roll,
    State,
    Turn,
    facts_from_obj,
)

TAKES = (Action("take", (1,)), Action("take", (2,)))


class Countdown(Game):
    id: ClassVar[str] = "tinygame"
    display_name: ClassVar[str] = "Countdown"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4
    rules_version: ClassVar[int] = 1
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("counters", 9, "counters on the table at the start", min=3, max=30),
    )
    summary: ClassVar[str] = "Take one or two counters in turn; who takes the last one wins."

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> CountdownState:
        cls.check_seats(seats)
        counters = cls.validate_options(options)["counters"]
        if map_text:
            raise OptionError("Countdown takes no map")
        assert isinstance(counters, int)
        return CountdownState(seats, counters)

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        return 1 + 30

    @classmethod
    def state_from_obj(cls, obj: Any) -> CountdownState:
        if not isinstance(obj, list) or len(obj) != 5:
            raise ValueError("a countdown state is an array of 5 fields")
        *numbers, events = obj
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            raise ValueError("a countdown state's first fields are integers")
        seats, left, mover, winner = numbers
        cls.check_seats(seats)
        if not 0 <= left <= 30 or not -1 <= mover < seats or not -1 <= winner < seats:
            raise ValueError("a countdown state out of range")
        return CountdownState(seats, left, mover, winner, facts_from_obj(events))


@dataclass(frozen=True, slots=True)
class CountdownState(State):
    game: ClassVar[type[Game]] = Countdown

    seats: int
    left: int  # counters still on the table
    mover: int = -1  # -1 until the draw of who starts
    winner: int = -1
    events: tuple[Fact, ...] = ()  # what the last input did: ("first", seat), ("takes", ...)

    def decision(self) -> Decision:
        if self.winner >= 0:
            others = tuple(s for s in range(self.seats) if s != self.winner)
            summary = f"seat {self.winner} took the last counter"
            return Over(Outcome(((self.winner,), others), summary))
        if self.mover < 0:
            return Chance((Pick(self.seats),), "first-taker")
        return Turn(self.mover)

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if seat != self.mover or self.winner >= 0:
            return ()
        return TAKES[: min(2, self.left)]

    def _apply(self, inp: Input) -> CountdownState:
        if isinstance(inp, Roll):
            first = inp.values[0][0]
            return replace(self, mover=first, events=(("first", first),))
        assert isinstance(inp, Move)  # base.apply checked the kind and the legality
        taken = int(inp.action.args[0])
        left = self.left - taken
        event: Fact = ("takes", inp.seat, taken, left)
        if left == 0:
            return replace(self, left=0, winner=inp.seat, mover=-1, events=(event,))
        return replace(self, left=left, mover=(inp.seat + 1) % self.seats, events=(event,))

    def to_obj(self) -> Any:
        facts = [list(fact) for fact in self.events]
        return [self.seats, self.left, self.mover, self.winner, facts]
