"""Deterministic players.  A bot's choice is a pure function of the state and an
injected integer source, so every peer computes the same move for a bot seat."""

from __future__ import annotations

from collections.abc import Callable

from lanTag.rules.base import Action, IllegalAction, State

Below = Callable[[int], int]
BotFn = Callable[[State, int, Below], Action]


def random_legal(state: State, seat: int, below: Below) -> Action:
    """Uniformly random among the legal actions."""
    legal = state.legal_actions(seat)
    if not legal:
        raise IllegalAction(f"seat {seat} has no legal action")
    return legal[below(len(legal))]


BOTS: dict[str, BotFn] = {"random": random_legal}
DEFAULT_BOT = "random"


def bot_names() -> tuple[str, ...]:
    return tuple(BOTS)


def choose_action(bot: str, state: State, seat: int, below: Below) -> Action:
    """The named bot's action; an unknown bot name falls back to nothing: it is an error."""
    try:
        fn = BOTS[bot]
    except KeyError:
        raise ValueError(f"unknown bot {bot!r} (bots: {', '.join(BOTS)})") from None
    return fn(state, seat, below)
