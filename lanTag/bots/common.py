"""Helpers shared by the bots: the uniform random bot and deterministic tie-breaking.

Every bot is a pure function of ``(state, seat, below)``.  Scores are integers, never
floats, so every peer (whatever its platform) ranks the candidate actions identically;
``below`` is only consulted to break exact ties, so the same state and the same
integer stream always give the same action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lanTag.rules.base import Action, IllegalAction, State

Below = Callable[[int], int]
BotFn = Callable[[State, int, Below], Action]


def random_legal(state: State, seat: int, below: Below) -> Action:
    """Uniformly random among the legal actions."""
    legal = state.legal_actions(seat)
    if not legal:
        raise IllegalAction(f"seat {seat} has no legal action")
    return legal[below(len(legal))]


def best_of(scored: Sequence[tuple[int, Action]], below: Below) -> Action:
    """The best-scored action; exact ties are broken by ``below`` (not consulted otherwise)."""
    if not scored:
        raise IllegalAction("no candidate actions")
    top = max(score for score, _ in scored)
    best = [action for score, action in scored if score == top]
    return best[0] if len(best) == 1 else best[below(len(best))]


def uniform(state: State, seat: int, below: Below) -> Action:
    """For secret simultaneous choices such as rock-paper-scissors, where the uniform mix is
    the equilibrium: any pattern a heuristic followed could be exploited by a human."""
    return random_legal(state, seat, below)
