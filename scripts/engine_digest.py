#!/usr/bin/env python3
"""One digest over every state of N random games of an engine: compare two trees' engines.

For each seed: random seat count and random option values (within each option's range),
random legal inputs (random choices, draws and joint choices), up to 400 steps; every
state's canonical bytes go into the digest.  Run it under ``PYTHONPATH=<old tree>`` and
``PYTHONPATH=<new tree>``: the same digest means the engines agree, byte for byte, on
every state those games reach (a rules refactor or fast path must keep it).

    python scripts/engine_digest.py stomptag 150
"""

from __future__ import annotations

import argparse
import hashlib
import random

from lanTag.rules.base import (
    Action,
    Chance,
    Draw,
    Input,
    Joint,
    Move,
    Over,
    Roll,
    Simultaneous,
    State,
)
from lanTag.rules.registry import get_game

MAX_STEPS = 400


def draw_values(draw: Draw, rng: random.Random) -> tuple[int, ...]:
    kind = type(draw).__name__
    if kind == "Die":
        return tuple(rng.choice(draw.faces) for _ in range(draw.count))  # type: ignore[union-attr]
    if kind == "Pick":
        return tuple(rng.randrange(draw.n) for _ in range(draw.count))  # type: ignore[union-attr]
    order = list(range(draw.n))  # type: ignore[union-attr]
    rng.shuffle(order)
    return tuple(order)


def random_input(state: State, rng: random.Random) -> Input:
    decision = state.decision()
    if isinstance(decision, Chance):
        return Roll(tuple(draw_values(draw, rng) for draw in decision.draws))
    if isinstance(decision, Simultaneous):
        choices: list[tuple[int, Action]] = []
        for seat in sorted(decision.seats):
            legal = state.legal_actions(seat)
            choices.append(
                (seat, legal[rng.randrange(len(legal))] if rng.random() < 0.8 else legal[0])
            )
        return Joint(tuple(choices))
    legal = state.legal_actions(decision.seat)  # type: ignore[union-attr]
    return Move(decision.seat, legal[rng.randrange(len(legal))])  # type: ignore[union-attr]


def digest(engine: str, games: int) -> str:
    game = get_game(engine)
    total = hashlib.sha256()
    for seed in range(games):
        rng = random.Random(seed)
        seats = rng.randint(game.min_seats, min(game.max_seats, 12))
        options: dict[str, object] = {}
        for spec in game.option_specs:
            if isinstance(spec.default, bool):
                options[spec.name] = rng.random() < 0.5
            elif isinstance(spec.default, int) and spec.min is not None and spec.max is not None:
                options[spec.name] = rng.randint(spec.min, min(spec.max, 30))
        try:
            state = game.new_state(seats, options)
        except ValueError:  # options or a map it refuses (OptionError, MapError): defaults
            state = game.new_state(seats, {})
        for _ in range(MAX_STEPS):
            total.update(state.encode())
            if isinstance(state.decision(), Over):
                break
            state = state.apply(random_input(state, rng))
    return total.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine")
    parser.add_argument("games", type=int, nargs="?", default=100)
    args = parser.parse_args()
    print(args.engine, args.games, digest(args.engine, args.games))


if __name__ == "__main__":
    main()
