"""Rules throughput of each engine: random steps per second and full random games per second.

Each game starts from ``Game.new_state(seats)`` with default options and is played to the
end by ``lanTag.rules.playout.random_input`` driven by ``random.Random(seed).randrange``
(a uniformly random legal input at every decision, chance draws included), through the
checked ``State.apply``.  Columns:

* steps/s, games/s, steps/game: that loop alone (decision + legal actions + checked apply);
* hash/s: ``State.state_hash()`` (canonical msgpack + SHA-256 of the whole state) over the
  states the games went through; the session hashes the state of every step and compares
  it with every message's, so this bounds the session's step rate too;
* floor: the same loop over a trivial Python call (``rng.randrange(6)``), for scale.

Usage::

    python -m scripts.bench.bench_rules                 # 3 s per engine, 4 seats
    python -m scripts.bench.bench_rules --quick         # 0.4 s per engine
    python -m scripts.bench.bench_rules --seats 8 --json
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from lanTag.rules.base import State
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game
from scripts.bench import benchlib as bl

ENGINES = ("prototag", "assassination", "boardtag", "stomptag", "tagem")


def run_engine(engine: str, seats: int, budget: float, seed: int = 1) -> dict[str, Any]:
    game = get_game(engine)
    rng = random.Random(seed)
    below = rng.randrange
    bound = game.playout_step_bound(seats)
    steps = games = truncated = 0
    sample: list[State] = []  # states to hash afterwards
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < budget or games == 0:
        state = game.new_state(seats)
        n = 0
        while not state.is_over:
            state = state.apply(random_input(state, below))
            n += 1
            if n % 7 == 0 and len(sample) < 2000:
                sample.append(state)
            if n >= bound:
                truncated += 1
                break
        steps += n
        games += 1
    dt = time.perf_counter() - t0
    h0 = time.perf_counter()
    reps = 0
    while True:
        for s in sample:
            s.state_hash()
        reps += 1
        hdt = time.perf_counter() - h0
        if hdt > min(budget / 3, 1.0) or not sample:
            break
    return {
        "engine": engine,
        "seats": seats,
        "games": games,
        "steps": steps,
        "steps_s": steps / dt,
        "games_s": games / dt,
        "us_step": dt / steps * 1e6 if steps else None,
        "steps_game": steps / games,
        "hash_s": reps * len(sample) / hdt if sample else None,
        "truncated": truncated,
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_rules", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--budget", type=float, help="seconds per engine (default 3, quick 0.4)")
    ap.add_argument("--engines", nargs="+", default=list(ENGINES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    budget = args.budget or (0.4 if args.quick else 3.0)

    rng = random.Random(0)
    n, dt = bl.timed_loop(lambda: rng.randrange(6), min(budget, 0.5))
    table = bl.Table(
        f"rules throughput, random legal inputs (random.Random), {args.seats} seats, "
        f"default options, {budget:g} s per engine",
        [
            ("engine", "engine", ""),
            ("games", "games", ""),
            ("steps_game", "steps/game", ".1f"),
            ("steps_s", "steps/s", ".0f"),
            ("us_step", "us/step", ".1f"),
            ("games_s", "games/s", ".2f"),
            ("hash_s", "state_hash/s", ".0f"),
            ("truncated", "cut at bound", ""),
        ],
        notes=[
            f"floor: rng.randrange(6) alone runs {n / dt:,.0f}/s ({dt / n * 1e6:.2f} us) here",
            "cut at bound: games stopped at Game.playout_step_bound (not finished)",
        ],
    )
    for engine in args.engines:
        table.add(**run_engine(engine, args.seats, budget))
        print(f"... {engine}", file=sys.stderr, flush=True)
    table.close()
    bl.output("bench_rules", [table], [], args.json)


if __name__ == "__main__":
    main()
