"""The "heuristic" bots: each game's own, found by engine id in the game registry.

A game's ``GameEntry.heuristic`` names its module (``choose(state, seat, below) ->
Action``), imported on first use; engines without one fall back to the random bot, so the
bot name is valid for every game.  ``heuristic2`` is each game's second version where its
entry names one (``GameEntry.heuristic2``), else its first.
"""

from __future__ import annotations

from typing import cast

from lanTag.bots.common import Below, BotFn, random_legal
from lanTag.rules.base import Action, State
from lanTag.rules.registry import engine_ids, find_entry


def heuristic_ids() -> tuple[str, ...]:
    """The registered engines with a heuristic of their own."""
    return tuple(e for e in engine_ids() if (entry := find_entry(e)) and entry.heuristic)


def heuristic2_ids() -> tuple[str, ...]:
    """The registered engines with a second version of their heuristic."""
    return tuple(e for e in engine_ids() if (entry := find_entry(e)) and entry.heuristic2)


def heuristic_for(engine_id: str) -> BotFn:
    """The engine's heuristic, or the random bot where there is none."""
    entry = find_entry(engine_id)
    module = entry.module(entry.heuristic) if entry is not None else None
    if module is None:
        return random_legal
    return cast(BotFn, module.choose)


def heuristic(state: State, seat: int, below: Below) -> Action:
    """Evaluation-based play for the engine of ``state`` (see docs/bots.md)."""
    return heuristic_for(state.game.id)(state, seat, below)


# A logged game replays its bot seats by bot name, so a heuristic that plays differently is
# a new name: ``heuristic`` keeps every engine's first version and old logs still verify.
def heuristic2(state: State, seat: int, below: Below) -> Action:
    """``heuristic`` with each engine's second version where there is one (Tag 'em's hunt)."""
    entry = find_entry(state.game.id)
    module = entry.module(entry.heuristic2) if entry is not None else None
    if module is None:
        return heuristic(state, seat, below)
    fn = cast(BotFn, module.choose)
    return fn(state, seat, below)
