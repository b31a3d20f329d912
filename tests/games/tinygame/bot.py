"""Countdown's heuristic: leave the next player a multiple of three, else take at random."""

from __future__ import annotations

from lanTag.bots.common import Below
from lanTag.rules.base import Action, State
from tests.games.tinygame.engine import TAKES, CountdownState


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, CountdownState)
    legal = state.legal_actions(seat)
    winning = state.left % 3  # taking this many leaves a multiple of three
    if winning:
        return TAKES[winning - 1]
    return legal[below(len(legal))]
