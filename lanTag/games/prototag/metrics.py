"""Prototag in the balance lab: what a game's length is counted in, each seat's starting
role, and the figures the game's designer asked about (lanTag/sim/simulate.py)."""

from __future__ import annotations

from lanTag.games.prototag.engine import PrototagState
from lanTag.rules.base import Input, Outcome, Roll, State
from lanTag.sim.metrics import Figure, Tracker


class PrototagTracker(Tracker):
    unit = "turns"
    figures = (
        Figure("first_tagged_lost", "the first tagged player loses", "rate"),
        Figure("tags", "tags (the tag changes hands) per game"),
        Figure("battles", "rock-paper-scissors battles per game"),
    )

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0
        self.first_tagged = -1
        self.tags = 0
        self.battles = 0

    def observe(self, before: State, inp: Input, after: State) -> None:
        super().observe(before, inp, after)
        assert isinstance(before, PrototagState) and isinstance(after, PrototagState)
        if before.phase == "roll" and isinstance(inp, Roll):
            self.turns += 1
        if self.first_tagged < 0 and after.tagged >= 0:
            self.first_tagged = after.tagged
        if before.tagged >= 0 and after.tagged != before.tagged:
            self.tags += 1
        if before.phase == "move" and after.phase == "rps":
            self.battles += 1

    def length(self, final: State) -> int:
        return self.turns

    def roles(self, final: State, seats: int) -> tuple[str, ...]:
        return tuple("first tagged" if s == self.first_tagged else "runner" for s in range(seats))

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        lost = outcome is not None and self.first_tagged in outcome.ranking[-1]
        return {"first_tagged_lost": int(lost), "tags": self.tags, "battles": self.battles}

    def ending(self, final: State, outcome: Outcome) -> str:
        return "tagged when the steps ran out"  # the text's only ending
