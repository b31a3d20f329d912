"""Countdown in the balance lab: does the seat that starts win?"""

from __future__ import annotations

from lanTag.rules.base import Input, Outcome, Roll, State
from lanTag.sim.metrics import Figure, Tracker
from tests.games.tinygame.engine import CountdownState


class CountdownTracker(Tracker):
    unit = "takes"
    figures = (Figure("first_won", "the seat that starts wins", "rate"),)

    def __init__(self) -> None:
        super().__init__()
        self.first = -1

    def observe(self, before: State, inp: Input, after: State) -> None:
        super().observe(before, inp, after)
        if isinstance(inp, Roll) and isinstance(after, CountdownState):
            self.first = after.mover

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        return {"first_won": int(outcome is not None and self.first in outcome.ranking[0])}
