"""Scan one-sided silence over many seeds: the long form of the bounded sweep in
tests/session/test_one_sided_silence.py (same cases, same checks, more seeds).

For each seed and phase, the first peer found in that phase (from peer ``seed % peers``)
stops reaching one peer (and, with 4 or more peers, two); the honest peers must finish
the same game, agree on any drop (the mute seat's only), blame nobody else, and keep logs
that verify.  Prints one line per game and a summary; exit 1 when a game broke the rule.

    python -m scripts.one_sided_scan --engine prototag --peers 4 --seeds 0 20
    python -m scripts.one_sided_scan --engine stomptag --peers 3 --phases commit,reveal,over
"""

from __future__ import annotations

import argparse
import sys
import time


def main() -> int:
    from lanTag.net.sim_network import SimulationTimeout
    from tests.session.test_one_sided_silence import Silence, check_silence, play_with_silence

    parser = argparse.ArgumentParser(
        prog="python -m scripts.one_sided_scan", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--engine", default="prototag")
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--seeds", type=int, nargs=2, default=(0, 10), metavar=("FROM", "TO"))
    parser.add_argument("--phases", default="commit,reveal,aside,entropy,turn,over")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=INT")
    args = parser.parse_args()
    options = tuple((k, int(v)) for k, v in (o.split("=", 1) for o in args.option))
    broken = played = 0
    began = time.process_time()
    for seed in range(*args.seeds):
        for phase in args.phases.split(","):
            deafs: list[tuple[int, ...]] = [(1 + seed % (args.peers - 1),)]
            if args.peers > 3:
                deafs.append((1, 2))
            for deaf in deafs:
                case = Silence(
                    args.engine, args.peers, seed, seed % args.peers, deaf, phase, 3, options, 1
                )
                try:
                    game = play_with_silence(case)
                except AssertionError:
                    print(f"seed {seed} {phase}: no peer gets there", flush=True)
                    continue
                except SimulationTimeout as exc:
                    broken += 1
                    played += 1
                    print(f"seed {seed} {phase} deaf {deaf}: STALLED {exc}", flush=True)
                    continue
                played += 1
                try:
                    drops = check_silence(case, game)
                except AssertionError as exc:
                    broken += 1
                    print(f"seed {seed} {phase} deaf {deaf}: BROKEN {exc}", flush=True)
                    continue
                print(
                    f"seed {seed} {phase}: mute {game.mute} deaf {game.deaf} "
                    f"cut at {game.cut_at}, drops {drops}",
                    flush=True,
                )
    cpu = time.process_time() - began
    print(f"{broken} broken of {played} played ({cpu:.0f} s CPU)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
