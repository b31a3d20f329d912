"""Per-engine figures for the simulator: what a game's length is measured in, each seat's
starting role, and the numbers the game's designer asked about.

A :class:`Tracker` watches one game input by input; engines without a tracker of their own
get the generic one (length in inputs, one role, no figures).  A game's own tracker
subclasses :class:`Tracker` in its package (lanTag/games/<id>/metrics.py), named by its
entry's ``metrics``.
"""

from __future__ import annotations

from dataclasses import dataclass

from lanTag.rules.base import Input, Outcome, State
from lanTag.rules.registry import find_entry


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


def _tracker_class(engine_id: str) -> type[Tracker]:
    """The game's own tracker (its entry's ``metrics``), else the generic one."""
    entry = find_entry(engine_id)
    if entry is None or entry.metrics is None:
        return Tracker
    found = entry.attribute(entry.metrics)
    if not (isinstance(found, type) and issubclass(found, Tracker)):
        raise TypeError(f"{entry.metrics} is not a Tracker class")
    return found


def tracker_for(engine_id: str) -> Tracker:
    return _tracker_class(engine_id)()


def figures_for(engine_id: str) -> tuple[Figure, ...]:
    return _tracker_class(engine_id).figures


def unit_for(engine_id: str) -> str:
    return _tracker_class(engine_id).unit
