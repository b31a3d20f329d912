"""Board Tag in the balance lab: what a game's length is counted in, each seat's starting
role, and the figures the game's designer asked about (lanTag/sim/simulate.py)."""

from __future__ import annotations

from lanTag.games.boardtag.engine import BoardTagState
from lanTag.rules.base import Input, Outcome, State
from lanTag.sim.metrics import LIMIT, Figure, Tracker


class BoardTagTracker(Tracker):
    unit = "rounds"
    figures = (
        Figure("tags", "tags per game"),
        Figure("sixes_win", "won by three sixes", "rate"),
        Figure("round_limit", "ended by the round limit (ranked by pips)", "rate"),
        Figure("winning_pips", "pips of the best seat at the end"),
    )

    def __init__(self) -> None:
        super().__init__()
        self.first_it = -1
        self.tags = 0

    def observe(self, before: State, inp: Input, after: State) -> None:
        super().observe(before, inp, after)
        assert isinstance(before, BoardTagState) and isinstance(after, BoardTagState)
        if self.first_it < 0 and after.it_seat >= 0:
            self.first_it = after.it_seat
        if before.it_seat >= 0 and after.it_seat != before.it_seat:
            self.tags += 1

    def length(self, final: State) -> int:
        assert isinstance(final, BoardTagState)
        return final.round

    def roles(self, final: State, seats: int) -> tuple[str, ...]:
        return tuple("first IT" if s == self.first_it else "runner" for s in range(seats))

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        assert isinstance(final, BoardTagState)
        sixes = any(
            all(final.dice[i].score == 6 for i in range(3 * s, 3 * s + 3))
            for s in range(final.seats)
        )
        ended = outcome is not None
        return {
            "tags": self.tags,
            "sixes_win": int(ended and sixes),
            "round_limit": int(ended and not sixes),
            "winning_pips": max(final.totals()),
        }

    def ending(self, final: State, outcome: Outcome) -> str:
        return "three sixes" if self.values(final, outcome)["sixes_win"] else LIMIT
