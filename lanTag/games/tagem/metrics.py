"""Tag 'em in the balance lab: what a game's length is counted in, each seat's starting
role, and the figures the game's designer asked about (lanTag/sim/simulate.py)."""

from __future__ import annotations

from lanTag.games.tagem.engine import TagemState
from lanTag.rules.base import Outcome, State
from lanTag.sim.metrics import LIMIT, Figure, Tracker


class TagemTracker(Tracker):
    unit = "rounds"
    figures = (
        Figure("decided", "decided in play (last team standing or flag brought home)", "rate"),
        Figure("turn_limit", "ended by the turn limit (tie-break)", "rate"),
        Figure("tags", "pawns defeated per game"),
        Figure("first_mover_won", "the first player in turn order wins (alone or shared)", "rate"),
    )

    def roles(self, final: State, seats: int) -> tuple[str, ...]:
        assert isinstance(final, TagemState)
        first = final.order[0] if final.order else -1
        return tuple("moves first" if s == first else "moves later" for s in range(seats))

    def length(self, final: State) -> int:
        assert isinstance(final, TagemState)
        # The game stops when the round after the last one would begin.
        return min(final.round, final.max_turns) if final.max_turns else final.round

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        assert isinstance(final, TagemState)
        limit = 0 < final.max_turns < final.round and final.winner < 0
        decided = outcome is not None and not limit
        first = final.order[0] if final.order else -1
        return {
            "decided": int(decided),
            "turn_limit": int(outcome is not None and limit),
            "tags": sum(final.tags),
            "first_mover_won": int(outcome is not None and first in outcome.ranking[0]),
        }

    def ending(self, final: State, outcome: Outcome) -> str:
        assert isinstance(final, TagemState)
        if final.winner >= 0:
            return "flag brought home"
        return LIMIT if self.values(final, outcome)["turn_limit"] else "last team standing"
