"""Deterministic players.  A bot's choice is a pure function of the state and an
injected integer source, so every peer computes the same move for a bot seat.

Bots never import ``random``, read clocks or keep state between calls: ``below(n)``
(a fair integer in ``range(n)`` supplied by the caller) is their only randomness.
docs/bots.md describes each bot and its measured strength.
"""

from __future__ import annotations

from lanTag.bots.common import Below, BotFn, random_legal
from lanTag.bots.heuristic import heuristic, heuristic2
from lanTag.rules.base import Action, State

__all__ = [
    "BOTS",
    "DEFAULT_BOT",
    "Below",
    "BotFn",
    "bot_names",
    "choose_action",
    "random_legal",
]

BOTS: dict[str, BotFn] = {"random": random_legal, "heuristic": heuristic, "heuristic2": heuristic2}
DEFAULT_BOT = "random"


def bot_names() -> tuple[str, ...]:
    return tuple(BOTS)


def choose_action(bot: str, state: State, seat: int, below: Below) -> Action:
    """The named bot's action; an unknown bot name is an error (ValueError)."""
    try:
        fn = BOTS[bot]
    except KeyError:
        raise ValueError(f"unknown bot {bot!r} (bots: {', '.join(BOTS)})") from None
    return fn(state, seat, below)
