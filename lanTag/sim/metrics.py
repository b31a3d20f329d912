"""Per-engine figures for the simulator: what a game's length is measured in, each seat's
starting role, and the numbers the game's designer asked about.

A :class:`Tracker` watches one game input by input; engines without a tracker of their own
get the generic one (length in inputs, one role, no figures).  Add a tracker for a new
engine by subclassing :class:`Tracker` and listing it in :data:`TRACKERS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from lanTag.games.assassination.engine import AssassinationState
from lanTag.games.boardtag.engine import BoardTagState
from lanTag.games.prototag.engine import PrototagState
from lanTag.games.stomptag.codec import BIDS
from lanTag.games.stomptag.engine import StomptagState
from lanTag.games.tagem.engine import TagemState
from lanTag.rules.base import Input, Outcome, Roll, State


@dataclass(frozen=True, slots=True)
class Figure:
    """One per-game number: ``rate`` figures are 0/1 per game and shown as a percentage,
    ``mean`` figures are counts averaged over games."""

    name: str
    label: str
    kind: str = "mean"  # "rate" or "mean"


class Tracker:
    """Generic: length counted in inputs, every seat a "player", no extra figures."""

    unit = "steps"
    figures: tuple[Figure, ...] = ()

    def __init__(self) -> None:
        self.steps = 0

    def observe(self, before: State, inp: Input, after: State) -> None:
        self.steps += 1

    def length(self, final: State) -> int:
        return self.steps

    def roles(self, final: State, seats: int) -> tuple[str, ...]:
        return ("player",) * seats

    def values(self, final: State, outcome: Outcome | None) -> dict[str, int]:
        return {}

    def ending(self, final: State, outcome: Outcome) -> str:
        """How a finished game ended: by which of the rules' goals, or by their limit
        (words from :data:`LIMIT` for the limit, so reports can tell the two apart)."""
        return "the rules' end"


# The ending of every game stopped by a turn or round limit rather than by a goal.
LIMIT = "turn/round limit"


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


# engine id -> tracker class; engines not listed get the generic Tracker.
TRACKERS: dict[str, type[Tracker]] = {
    "prototag": PrototagTracker,
    "assassination": AssassinationTracker,
    "boardtag": BoardTagTracker,
    "stomptag": StomptagTracker,
    "tagem": TagemTracker,
}


def tracker_for(engine_id: str) -> Tracker:
    return TRACKERS.get(engine_id, Tracker)()


def figures_for(engine_id: str) -> tuple[Figure, ...]:
    return TRACKERS.get(engine_id, Tracker).figures


def unit_for(engine_id: str) -> str:
    return TRACKERS.get(engine_id, Tracker).unit
