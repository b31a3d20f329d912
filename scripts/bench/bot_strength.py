"""How much stronger is the heuristic bot than random play?  One row per case.

For each case (engine, seat count, options) the heuristic takes each seat in turn, the
other seats play ``random``; the baseline is a random bot in the same seats of all-random
games with the same seeds (lanTag.sim.bot_strength.matchup).  Columns: first places (shared
or alone), first places alone, last places, and the edge: the mean over games of
(seats ranked below - seats ranked above) / (seats - 1): 0 for an average seat, +1 for
always winning alone.

Usage::

    python -m scripts.bench.bot_strength                     # every default case, 200 games
    python -m scripts.bench.bot_strength --games 400 prototag:2 tagem:4:mode=ctf
    python -m scripts.bench.bot_strength --json
    python -m scripts.bench.bot_strength --quick            # 40 games per case

A case is ``engine[:seats[:key=value,key=value]]``.  Results: docs/bots.md.
"""

from __future__ import annotations

import argparse
import json
import time

from lanTag.bots.heuristic import heuristic_ids
from lanTag.sim.bot_strength import Matchup, matchup

DEFAULT_CASES = (
    "prototag:2",
    "prototag:4",
    "assassination:3",
    "assassination:4",
    "boardtag:2",
    "boardtag:4",
    "stomptag:3",
    "stomptag:4",
    "tagem:2",
    "tagem:4",
    "tagem:2:mode=ctf",
    "tagem:4:mode=ctf",
    "tagem:2:mode=ctcf",
    "tagem:4:mode=ctcf",
)


def parse_case(text: str) -> tuple[str, int | None, dict[str, str]]:
    engine, _, rest = text.partition(":")
    seats_text, _, opts_text = rest.partition(":")
    options = dict(kv.split("=", 1) for kv in opts_text.split(",") if kv)
    return engine, int(seats_text) if seats_text else None, options


def row(case: str, m: Matchup) -> str:
    def pct(x: float) -> str:
        return f"{100 * x:5.1f}%"

    n = m.games
    return (
        f"| {case:<20} | {n:>5} | {pct(m.win_rate)} | {pct(m.sole / n)} | {pct(m.last_rate)} "
        f"| {m.edge:+.2f} | {pct(m.base_win_rate)} | {pct(m.base_sole / n)} "
        f"| {pct(m.base_last_rate)} | {m.base_edge:+.2f} | {1000 * m.seconds_per_game:6.1f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.bench.bot_strength", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("cases", nargs="*", help="engine[:seats[:k=v,...]] (default: all)")
    parser.add_argument("--games", type=int, default=200, help="games per case (default 200)")
    parser.add_argument("--quick", action="store_true", help="40 games per case (a few s each)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="one JSON object per case")
    args = parser.parse_args()
    if args.quick:
        args.games = 40
    cases = args.cases or [c for c in DEFAULT_CASES if c.split(":")[0] in heuristic_ids()]
    if not args.json:
        print(
            "| case                 | games | heur win | alone  | last   | edge  "
            "| rand win | alone  | last   | edge  | ms/game |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    started = time.monotonic()
    for case in cases:
        engine, seats, options = parse_case(case)
        m = matchup(
            engine, args.games, args.seed, seats=seats, options=options, workers=args.workers
        )
        if args.json:
            print(json.dumps({"case": case, **{k: getattr(m, k) for k in m.__slots__}}))
        else:
            print(row(case, m), flush=True)
    if not args.json:
        print(
            f"\n{len(cases)} cases, {args.games} games each, seed {args.seed}, "
            f"{time.monotonic() - started:.0f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
