"""The "heuristic" bot: dispatches by engine id to ``lanTag.bots.<engine>.choose``.

Per-engine modules are imported on first use, so a new engine's heuristic is added by
writing its module and one entry in :data:`HEURISTIC_MODULES` (or calling
:func:`register_heuristic`).  Engines without a heuristic fall back to the random bot,
so the bot name is valid for every game.
"""

from __future__ import annotations

import importlib
from typing import cast

from lanTag.bots.common import Below, BotFn, random_legal
from lanTag.rules.base import Action, State

# engine id -> module exposing ``choose(state, seat, below) -> Action``
HEURISTIC_MODULES: dict[str, str] = {
    "prototag": "lanTag.games.prototag.bot",
    "assassination": "lanTag.games.assassination.bot",
    "boardtag": "lanTag.games.boardtag.bot",
    "stomptag": "lanTag.games.stomptag.bot",
    "tagem": "lanTag.games.tagem.bot",
}


def register_heuristic(engine_id: str, module: str) -> None:
    """Add or replace the heuristic module for an engine (plugins, tests)."""
    HEURISTIC_MODULES[engine_id] = module


def heuristic_for(engine_id: str) -> BotFn:
    """The engine's heuristic, or the random bot where there is none."""
    module = HEURISTIC_MODULES.get(engine_id)
    if module is None:
        return random_legal
    return cast(BotFn, importlib.import_module(module).choose)


def heuristic(state: State, seat: int, below: Below) -> Action:
    """Evaluation-based play for the engine of ``state`` (see docs/bots.md)."""
    return heuristic_for(state.game.id)(state, seat, below)


# The second version of an engine's heuristic, where it has one.  A logged game replays its
# bot seats by bot name, so a heuristic that plays differently is a new name: ``heuristic``
# keeps every engine's first version and old logs still verify.
HEURISTIC2_MODULES: dict[str, str] = {
    "tagem": "lanTag.games.tagem.bot_hunt",
}


def heuristic2(state: State, seat: int, below: Below) -> Action:
    """``heuristic`` with each engine's second version where there is one (Tag 'em's hunt)."""
    module = HEURISTIC2_MODULES.get(state.game.id)
    if module is None:
        return heuristic(state, seat, below)
    fn = cast(BotFn, importlib.import_module(module).choose)
    return fn(state, seat, below)
