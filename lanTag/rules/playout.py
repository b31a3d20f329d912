"""Drive any engine with an injected integer source (for tests, bots and simulations).

Pure: the caller supplies ``below(n)`` returning an int in ``range(n)``, so a
seeded generator, a fair beacon or a test script can all drive the same code.
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag.rules.base import (
    Chance,
    Die,
    Draw,
    Input,
    Joint,
    Move,
    Over,
    Pick,
    Roll,
    Simultaneous,
    State,
    Turn,
)

Below = Callable[[int], int]


def draw_values(draw: Draw, below: Below) -> tuple[int, ...]:
    """A uniform outcome of ``draw`` from ``below`` (Fisher-Yates for shuffles)."""
    if isinstance(draw, Die):
        return tuple(draw.faces[below(len(draw.faces))] for _ in range(draw.count))
    if isinstance(draw, Pick):
        return tuple(below(draw.n) for _ in range(draw.count))
    perm = list(range(draw.n))
    for i in range(draw.n - 1, 0, -1):
        j = below(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def random_roll(chance: Chance, below: Below) -> Roll:
    return Roll(tuple(draw_values(d, below) for d in chance.draws))


def random_input(state: State, below: Below) -> Input:
    """A uniformly random legal input for the current decision."""
    d = state.decision()
    if isinstance(d, Turn):
        legal = state.legal_actions(d.seat)
        return Move(d.seat, legal[below(len(legal))])
    if isinstance(d, Simultaneous):
        choices = []
        for seat in sorted(d.seats):
            legal = state.legal_actions(seat)
            choices.append((seat, legal[below(len(legal))]))
        return Joint(tuple(choices))
    if isinstance(d, Chance):
        return random_roll(d, below)
    assert isinstance(d, Over)
    raise ValueError("the game is over")
