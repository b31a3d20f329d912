"""Assassination in the balance lab: what a game's length is counted in, each seat's starting
role, and the figures the game's designer asked about (lanTag/sim/simulate.py)."""

from __future__ import annotations

from lanTag.games.assassination.engine import AssassinationState
from lanTag.rules.base import Input, Outcome, State
from lanTag.sim.metrics import LIMIT, Figure, Tracker


class AssassinationTracker(Tracker):
    unit = "rounds"
    figures = (
        Figure("catches", "catches per game"),
        Figure("victim_won", "a victim wins (touches all four bases)", "rate"),
        Figure("first_victim_won", "the first victim wins", "rate"),
        Figure("round_limit", "the round limit ends the game", "rate"),
    )

    def __init__(self) -> None:
        super().__init__()
        self.first_victim = -1

    def observe(self, before: State, inp: Input, after: State) -> None:
        super().observe(before, inp, after)
        assert isinstance(after, AssassinationState)
        if self.first_victim < 0 and after.victim >= 0:
            self.first_victim = after.victim

    def length(self, final: State) -> int:
        assert isinstance(final, AssassinationState)
        # A round is one turn of every assassin; a started round counts.
        return -(-final.assassin_turns // final.round_turns)

    def roles(self, final: State, seats: int) -> tuple[str, ...]:
        return tuple("first victim" if s == self.first_victim else "assassin" for s in range(seats))

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        assert isinstance(final, AssassinationState)
        won = final.winner >= 0
        return {
            "catches": sum(final.catches),
            "victim_won": int(won),
            "first_victim_won": int(won and final.winner == self.first_victim),
            "round_limit": int(outcome is not None and not won),
        }

    def ending(self, final: State, outcome: Outcome) -> str:
        assert isinstance(final, AssassinationState)
        return "a victim touched all four bases" if final.winner >= 0 else LIMIT
