"""Minimal engines for the protocol benchmarks (registered only by the bench scripts).

* ``benchdice``: every step is one Chance (a d6) until ``rolls`` rolls are done, so the
  lockstep rate of a game *is* the rate of fair die rolls.
* ``benchsecret``: every step is one Simultaneous secret choice ("pick 0|1|2") by every
  seat until ``rounds`` rounds are done: the rate of commit + reveal rounds.
* ``benchpair``: every step is one Simultaneous secret choice by ``choosers`` seats
  (default 2; all seats if there are fewer), rotating: step k's choosers are seats k,
  k+1, ... mod N; the other seats are bystanders that only acknowledge.
* ``benchmove``: every step is one seat's Turn ("pick 0|1|2"), rotating: seat k mod N.

They follow the same Game/State contract as the shipped engines (lanTag.rules.base), so
the session, the log and the verifier treat them like any other game.  Register them with
:func:`register` (in every process that plays or verifies them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
    Die,
    Game,
    IllegalAction,
    Input,
    Joint,
    Move,
    OptionSpec,
    Outcome,
    Over,
    Roll,
    Simultaneous,
    State,
    Turn,
)
from lanTag.rules.registry import register_engine

D6 = Die((1, 2, 3, 4, 5, 6))


def _ranking(totals: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple((s,) for s in sorted(range(len(totals)), key=lambda s: (-totals[s], s)))


@dataclass(frozen=True)
class DiceState(State):
    game: ClassVar[type[Game]]
    seats: int
    rolls: int
    done: int = 0
    total: int = 0

    def decision(self) -> Decision:
        if self.done >= self.rolls:
            return Over(Outcome(tuple((s,) for s in range(self.seats)), "rolled", ()))
        return Chance((D6,), "bench-roll")

    def legal_actions(self, seat: int) -> Sequence[Action]:
        return ()

    def _apply(self, inp: Input) -> State:
        if not isinstance(inp, Roll):
            raise IllegalAction("only rolls")
        return replace(self, done=self.done + 1, total=self.total + inp.values[0][0])

    def to_obj(self) -> Any:
        return [self.seats, self.rolls, self.done, self.total]


class BenchDice(Game):
    id = "benchdice"
    display_name = "Bench dice"
    min_seats = 1
    max_seats = 256
    rules_version = 1
    option_specs = (OptionSpec("rolls", 100, "rolls to make", min=1, max=100_000),)

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        cls.check_seats(seats)
        return DiceState(seats, int(cls.validate_options(options)["rolls"]))

    @classmethod
    def state_from_obj(cls, obj: Any) -> State:
        return DiceState(*obj)


DiceState.game = BenchDice

PICKS = tuple(Action("pick", (i,)) for i in range(3))


@dataclass(frozen=True)
class SecretState(State):
    game: ClassVar[type[Game]]
    seats: int
    rounds: int
    done: int = 0
    scores: tuple[int, ...] = ()

    def decision(self) -> Decision:
        if self.done >= self.rounds:
            return Over(Outcome(_ranking(self.scores), "picked", self.scores))
        return Simultaneous(tuple(range(self.seats)), "pick")

    def legal_actions(self, seat: int) -> Sequence[Action]:
        return PICKS if self.done < self.rounds and 0 <= seat < self.seats else ()

    def default_action(self, seat: int) -> Action:
        return PICKS[0]

    def _apply(self, inp: Input) -> State:
        if not isinstance(inp, Joint):
            raise IllegalAction("only joint picks")
        picks = [a.args[0] for _, a in inp.choices]
        scores = list(self.scores)
        for seat, action in inp.choices:
            if picks.count(action.args[0]) == 1:  # a unique pick scores
                scores[seat] += 1
        return replace(self, done=self.done + 1, scores=tuple(scores))

    def to_obj(self) -> Any:
        return [self.seats, self.rounds, self.done, list(self.scores)]


class BenchSecret(Game):
    id = "benchsecret"
    display_name = "Bench secret"
    min_seats = 1
    max_seats = 256
    rules_version = 1
    option_specs = (OptionSpec("rounds", 20, "secret rounds to play", min=1, max=100_000),)

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        cls.check_seats(seats)
        rounds = int(cls.validate_options(options)["rounds"])
        return SecretState(seats, rounds, scores=(0,) * seats)

    @classmethod
    def state_from_obj(cls, obj: Any) -> State:
        seats, rounds, done, scores = obj
        return SecretState(seats, rounds, done, tuple(scores))


SecretState.game = BenchSecret


@dataclass(frozen=True)
class PairState(State):
    game: ClassVar[type[Game]]
    seats: int
    rounds: int
    choosers: int
    done: int = 0
    scores: tuple[int, ...] = ()

    def choosing(self) -> tuple[int, ...]:
        """This step's choosers: ``choosers`` seats from seat ``done`` on, mod N, sorted."""
        count = min(self.choosers, self.seats)
        return tuple(sorted((self.done + i) % self.seats for i in range(count)))

    def decision(self) -> Decision:
        if self.done >= self.rounds:
            return Over(Outcome(_ranking(self.scores), "picked", self.scores))
        return Simultaneous(self.choosing(), "pick")

    def legal_actions(self, seat: int) -> Sequence[Action]:
        return PICKS if self.done < self.rounds and seat in self.choosing() else ()

    def default_action(self, seat: int) -> Action:
        return PICKS[0]

    def _apply(self, inp: Input) -> State:
        if not isinstance(inp, Joint):
            raise IllegalAction("only joint picks")
        picks = [a.args[0] for _, a in inp.choices]
        scores = list(self.scores)
        for seat, action in inp.choices:
            if picks.count(action.args[0]) == 1:  # a unique pick scores
                scores[seat] += 1
        return replace(self, done=self.done + 1, scores=tuple(scores))

    def to_obj(self) -> Any:
        return [self.seats, self.rounds, self.choosers, self.done, list(self.scores)]


class BenchPair(Game):
    id = "benchpair"
    display_name = "Bench pair secret"
    min_seats = 1
    max_seats = 256
    rules_version = 1
    option_specs = (
        OptionSpec("rounds", 20, "secret rounds to play", min=1, max=100_000),
        OptionSpec("choosers", 2, "seats choosing in each round (rotating)", min=1, max=256),
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        cls.check_seats(seats)
        opts = cls.validate_options(options)
        return PairState(seats, int(opts["rounds"]), int(opts["choosers"]), scores=(0,) * seats)

    @classmethod
    def state_from_obj(cls, obj: Any) -> State:
        seats, rounds, choosers, done, scores = obj
        return PairState(seats, rounds, choosers, done, tuple(scores))


PairState.game = BenchPair


@dataclass(frozen=True)
class MoveState(State):
    game: ClassVar[type[Game]]
    seats: int
    moves: int
    done: int = 0
    total: int = 0

    def decision(self) -> Decision:
        if self.done >= self.moves:
            return Over(Outcome(tuple((s,) for s in range(self.seats)), "moved", ()))
        return Turn(self.done % self.seats)

    def legal_actions(self, seat: int) -> Sequence[Action]:
        return PICKS if self.done < self.moves and seat == self.done % self.seats else ()

    def _apply(self, inp: Input) -> State:
        if not isinstance(inp, Move):
            raise IllegalAction("only moves")
        return replace(self, done=self.done + 1, total=self.total + int(inp.action.args[0]))

    def to_obj(self) -> Any:
        return [self.seats, self.moves, self.done, self.total]


class BenchMove(Game):
    id = "benchmove"
    display_name = "Bench move"
    min_seats = 1
    max_seats = 256
    rules_version = 1
    option_specs = (OptionSpec("moves", 100, "moves to make", min=1, max=100_000),)

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        cls.check_seats(seats)
        return MoveState(seats, int(cls.validate_options(options)["moves"]))

    @classmethod
    def state_from_obj(cls, obj: Any) -> State:
        return MoveState(*obj)


MoveState.game = BenchMove

ENGINES = ("benchdice", "benchsecret", "benchpair", "benchmove")


def register() -> None:
    """Make the bench engines (ENGINES) known to lanTag.rules.registry."""
    register_engine("benchdice", __name__, "BenchDice")
    register_engine("benchsecret", __name__, "BenchSecret")
    register_engine("benchpair", __name__, "BenchPair")
    register_engine("benchmove", __name__, "BenchMove")
