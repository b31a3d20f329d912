"""A tiny engine that exercises every decision kind: chance, secret choice, turns.

Registered only by the session tests (lanTag.rules.registry.register_engine).
Each round: a d6 roll for a bonus seat, a secret "guess 0|1|2" by everyone,
then one "add 1|2" turn per seat.  Highest score after ``rounds`` rounds wins.
Option ``guessers`` (0: everyone) limits the secret guess to the first seats, so the others
are bystanders of it (the acknowledgement rules of SPEC §4.4 and §5.4 need one).  Option
``round_turn`` (1) makes a whole round one turn in ``awaited()`` (it starts at the roll), so
a turn holds several steps (the hand-back's wait for the end of a turn, SPEC §5.6, needs one).
``turns`` 0 leaves the turns out: a round is a roll and a guess, and a guess ends the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    FORFEIT,
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


@dataclass(frozen=True)
class ToyState(State):
    game: ClassVar[type[Game]]
    seats: int
    rounds: int
    round: int = 0
    phase: str = "roll"  # roll -> guess -> turns
    turn: int = 0
    scores: tuple[int, ...] = ()
    guessers: int = 0  # seats in the secret round (the first ones); 0: every seat
    round_turn: int = 0  # 1: a round is one turn, from its roll on (awaited())
    turns: bool = True  # False: no turns, the next round starts after the guess

    def decision(self) -> Decision:
        if self.round >= self.rounds:
            order = sorted(range(self.seats), key=lambda s: (-self.scores[s], s))
            return Over(Outcome(tuple((s,) for s in order), "done", self.scores))
        if self.phase == "roll":
            return Chance((Die((1, 2, 3, 4, 5, 6)),), "bonus")
        if self.phase == "guess":
            return Simultaneous(tuple(range(self.guessers or self.seats)), "guess")
        return Turn(self.turn)

    def awaited(self) -> Awaited:
        awaited = super().awaited()
        if not self.round_turn or self.round >= self.rounds:
            return awaited
        return replace(awaited, turn_starts=self.phase == "roll")

    def legal_actions(self, seat: int) -> Sequence[Action]:
        d = self.decision()
        if isinstance(d, Simultaneous) and seat in d.seats:
            return tuple(Action("guess", (g,)) for g in range(3))
        if isinstance(d, Turn) and d.seat == seat:
            return (Action("add", (1,)), Action("add", (2,)))
        return ()

    def default_action(self, seat: int) -> Action:
        if self.phase == "guess":
            return Action("guess", (0,))
        return Action("add", (1,))

    def _apply(self, inp: Input) -> State:
        scores = list(self.scores)
        if isinstance(inp, Roll):
            scores[(inp.values[0][0] - 1) % self.seats] += 1
            return replace(self, phase="guess", scores=tuple(scores))
        if isinstance(inp, Joint):
            # A forfeit (a convicted seat) scores nothing and blocks nobody's guess.
            guesses = [a.args[0] for _, a in inp.choices if a != FORFEIT]
            for seat, action in inp.choices:
                if action != FORFEIT and guesses.count(action.args[0]) == 1:
                    scores[seat] += 3
            if not self.turns:
                return replace(self, round=self.round + 1, phase="roll", scores=tuple(scores))
            return replace(self, phase="turns", turn=0, scores=tuple(scores))
        if not isinstance(inp, Move):
            raise IllegalAction("unexpected input")
        scores[inp.seat] += int(inp.action.args[0])
        if self.turn + 1 < self.seats:
            return replace(self, turn=self.turn + 1, scores=tuple(scores))
        return replace(self, round=self.round + 1, phase="roll", turn=0, scores=tuple(scores))

    def to_obj(self) -> Any:
        obj = [self.seats, self.rounds, self.round, self.phase, self.turn, list(self.scores)]
        if self.round_turn or not self.turns:
            # one slot for both (each branch's encoding kept): 0 no turns, 1 round_turn, 2 both
            code = self.round_turn if self.turns else 2 * self.round_turn
            return [*obj, self.guessers, code]
        return [*obj, self.guessers] if self.guessers else obj  # 0: the encoding before it


class Toy(Game):
    id = "toy"
    display_name = "Toy"
    min_seats = 1
    max_seats = 64
    rules_version = 1
    option_specs = (
        OptionSpec("rounds", 3, "rounds to play", min=1, max=100),
        OptionSpec("guessers", 0, "seats in the secret guess (0: all)", min=0, max=64),
        OptionSpec("round_turn", 0, "1: a round is one turn", min=0, max=1),
        OptionSpec("turns", 1, "1: a turn per seat after each guess; 0: none", min=0, max=1),
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        cls.check_seats(seats)
        opts = cls.validate_options(options)
        guessers = min(int(opts["guessers"]), seats)
        return ToyState(
            seats,
            int(opts["rounds"]),
            scores=(0,) * seats,
            guessers=guessers,
            round_turn=int(opts["round_turn"]),
            turns=bool(opts["turns"]),
        )

    @classmethod
    def state_from_obj(cls, obj: Any) -> State:
        seats, rounds, rnd, phase, turn, scores, *rest = obj
        guessers = rest[0] if rest else 0
        # the slot after guessers: absent (turns, no round turn), 0, 1 or 2 (see to_obj)
        round_turn, turns = {None: (0, True), 0: (0, False), 1: (1, True), 2: (1, False)}[
            rest[1] if len(rest) > 1 else None
        ]
        return ToyState(
            seats, rounds, rnd, phase, turn, tuple(scores), guessers, round_turn, turns
        )


ToyState.game = Toy
