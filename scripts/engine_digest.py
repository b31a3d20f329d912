#!/usr/bin/env python3
"""One digest over every state of N random games of an engine: compare two trees' engines.

For each seed: random seat count and random option values (within each option's range),
random legal inputs (``lanTag.rules.playout.random_input``), up to 400 steps; every
state's canonical bytes go into the digest.  Run it under ``PYTHONPATH=<old tree>`` and
``PYTHONPATH=<new tree>``: the same digest means the engines agree, byte for byte, on
every state those games reach (a rules refactor or fast path must keep it).

    python scripts/engine_digest.py stomptag 150
"""

from __future__ import annotations

import argparse
import hashlib
import random

from lanTag.rules.base import Over
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game

MAX_STEPS = 400


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
            state = state.apply(random_input(state, rng.randrange))
    return total.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine")
    parser.add_argument("games", type=int, nargs="?", default=100)
    args = parser.parse_args()
    print(args.engine, args.games, digest(args.engine, args.games))


if __name__ == "__main__":
    main()
