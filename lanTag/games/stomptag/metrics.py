"""Stomptag in the balance lab: what a game's length is counted in, each seat's starting
role, and the figures the game's designer asked about (lanTag/sim/simulate.py)."""

from __future__ import annotations

from lanTag.games.stomptag.engine import StomptagState
from lanTag.games.stomptag.state import BIDS
from lanTag.rules.base import Input, Outcome, State
from lanTag.sim.metrics import LIMIT, Figure, Tracker


class StomptagTracker(Tracker):
    unit = "rounds"
    figures = (
        Figure("last_standing", "one player (or none) left standing", "rate"),
        Figure("round_limit", "ended by the round limit (ranked by points)", "rate"),
        Figure("out_after_bids", "players knocked out by their own bids per game"),
        Figure("tags", "tags per game"),
        Figure("first_it_won", "the first it wins", "rate"),
    )

    def __init__(self) -> None:
        super().__init__()
        self.first_it = -1
        self.tags = 0
        self.out_after_bids = 0

    def observe(self, before: State, inp: Input, after: State) -> None:
        super().observe(before, inp, after)
        assert isinstance(before, StomptagState) and isinstance(after, StomptagState)
        if before.phase == BIDS:
            self.out_after_bids = sum(1 for wave in after.table.out if wave)
        if self.first_it < 0 and after.table.it >= 0:
            self.first_it = after.table.it
        if before.events is not after.events:
            self.tags += sum(1 for e in after.events if e.what == "tag")

    def length(self, final: State) -> int:
        assert isinstance(final, StomptagState)
        return final.round

    def roles(self, final: State, seats: int) -> tuple[str, ...]:
        return tuple("first it" if s == self.first_it else "player" for s in range(seats))

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        assert isinstance(final, StomptagState)
        standing = len(final.table.living()) <= 1
        ended = outcome is not None
        return {
            "last_standing": int(ended and standing),
            "round_limit": int(ended and not standing),
            "out_after_bids": self.out_after_bids,
            "tags": self.tags,
            "first_it_won": int(outcome is not None and self.first_it in outcome.ranking[0]),
        }

    def ending(self, final: State, outcome: Outcome) -> str:
        return "last player standing" if self.values(final, outcome)["last_standing"] else LIMIT
