"""Soak: many bot games on a faulty network; report desyncs, stalls, bad logs, disagreement.

Two modes:

* ``sim`` (default): whole peers (links + lobby + session + heuristic bots) on the
  in-memory simulated network (``tests.support.table``), virtual time, seeded
  faults.  Fast: hundreds of games a minute.
* ``real``: ``lantag selfplay`` (separate peer processes, real UDP on loopback,
  faults injected in each process's UDP layer), one game per seed.

For every game: the game must end for every peer (no stall), no peer may see
a desync, every peer's log must verify as valid and complete, and the logs
must agree on every decided step (``verify_log(...).applied``: step and state
hash after it, the last decision of a step after a rollback).

Examples::

    python -m scripts.soak --budget 900 --workers 2 --json soak.jsonl
    python -m scripts.soak --games 10 --engines prototag,boardtag,tagem
    python -m scripts.soak --mode real --games 10 --peers 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FAULTS = "loss=0.2,dup=0.05,reorder=0.1,delay=30ms,jitter=20ms"
ENGINES = ("prototag", "assassination", "boardtag", "stomptag", "tagem")


@dataclass
class SoakResult:
    index: int
    engine: str
    humans: int
    seed: int
    steps: int = 0
    virtual_seconds: float = 0.0
    wall_seconds: float = 0.0
    drops: int = 0
    rollbacks: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def humans_for(engine: str, index: int) -> int:
    from lanTag.rules.registry import get_game

    game = get_game(engine)
    low = max(2, game.min_seats)
    high = min(4, game.max_seats)
    return low + index % (high - low + 1)


def play_sim(index: int, engine: str, seed: int, faults: str, bot: str) -> SoakResult:
    """One simulated game; every check of the module docstring."""
    from lanTag.net.sim_network import SimulationStalled, SimulationTimeout
    from lanTag.session import events as ev
    from lanTag.session.lobby_record import Timeouts
    from tests.support.table import Table, final_history, recorded_steps

    humans = humans_for(engine, index)
    result = SoakResult(index, engine, humans, seed)
    began = time.perf_counter()
    table = Table(
        engine, humans, faults=faults, seed=seed, bot=bot, timeouts=Timeouts()
    )  # product defaults: turn 120 s, step 10 s, lag 2 s
    try:
        table.start()
        table.run_to_end(max_time=6 * 3600)
    except (SimulationTimeout, SimulationStalled) as exc:
        result.problems.append(f"stall: {exc}")
    except Exception as exc:  # a crash in a peer is exactly what we look for
        result.problems.append(f"crash: {type(exc).__name__}: {exc}")
    result.virtual_seconds = table.net.now
    histories = set()
    recorded = set()
    for i in range(humans):
        peer = table.peers[i]
        if any(isinstance(e, ev.Desync) for e in peer.events):
            result.problems.append(f"peer {i} saw a desync")
        result.drops += sum(isinstance(e, ev.SeatsDropped) for e in peer.events)
        try:
            report = table.report(i)
        except Exception as exc:
            result.problems.append(f"peer {i} log unreadable: {exc}")
            continue
        if not report.valid:
            assert report.failure is not None
            result.problems.append(f"peer {i} log invalid: {report.failure}")
        elif not report.complete and result.ok:
            result.problems.append(f"peer {i} log incomplete at step {report.steps}")
        histories.add(final_history(report))
        recorded.add(recorded_steps(bytes(table.logs[i])))
        result.rollbacks += bytes(table.logs[i]).count(b"redecide from here")
        result.steps = max(result.steps, report.steps)
    if len(histories) > 1 or len(recorded) > 1:
        result.problems.append("logs disagree on the decided steps")
    result.wall_seconds = time.perf_counter() - began
    return result


def play_real(
    index: int, engine: str, seed: int, faults: str, bot: str, log_dir: Path
) -> SoakResult:
    humans = humans_for(engine, index)
    result = SoakResult(index, engine, humans, seed)
    began = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "lanTag",
            "selfplay",
            "--game",
            engine,
            "--peers",
            str(humans),
            "--games",
            "1",
            "--netsim",
            f"{faults},seed={seed}",
            "--bot",
            bot,
            "--log-dir",
            str(log_dir / f"g{index}"),
            "--stall",
            "600",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    result.wall_seconds = time.perf_counter() - began
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        result.problems.append(f"selfplay exited {out.returncode}: {out.stderr.strip()[-300:]}")
        return result
    game = json.loads(lines[-1])
    result.steps = int(game.get("steps", 0))
    result.problems.extend(game.get("problems", []))
    if out.returncode != 0 and not result.problems:
        result.problems.append(f"selfplay exited {out.returncode}")
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m scripts.soak",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    p.add_argument("--mode", choices=("sim", "real"), default="sim")
    p.add_argument("--games", type=int, default=0, help="games to play (0: until --budget)")
    p.add_argument("--budget", type=float, default=0.0, help="wall seconds; no new game after")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument("--faults", default=FAULTS)
    p.add_argument("--seed", type=int, default=1000, help="first seed; game k uses seed+k")
    p.add_argument("--bot", default="heuristic")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--json", metavar="FILE", help="append one JSON line per game")
    p.add_argument("--log-dir", default="", help="real mode: where the logs go (default: temp)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if not args.games and not args.budget:
        args.games = 10
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    out = open(args.json, "a", encoding="utf-8") if args.json else None  # noqa: SIM115
    tmp = tempfile.TemporaryDirectory(prefix="lantag-soak-")
    log_dir = Path(args.log_dir or tmp.name)
    began = time.perf_counter()
    results: list[SoakResult] = []

    def want_more(k: int) -> bool:
        if args.games and k >= args.games:
            return False
        return not (args.budget and time.perf_counter() - began > args.budget)

    def record(r: SoakResult) -> None:
        results.append(r)
        if out is not None:
            out.write(json.dumps({**asdict(r), "ok": r.ok}) + "\n")
            out.flush()
        if not args.quiet or not r.ok:
            status = "ok" if r.ok else "FAIL " + "; ".join(r.problems)
            extra = (
                f"{r.virtual_seconds:.0f}s virtual, {r.wall_seconds:.2f}s wall, "
                f"drops {r.drops}, rollbacks {r.rollbacks}"
                if args.mode == "sim"
                else f"{r.wall_seconds:.2f}s wall"  # selfplay reports no drops/rollbacks
            )
            print(
                f"game {r.index} {r.engine} x{r.humans} seed {r.seed}: {r.steps} steps, "
                f"{extra}: {status}",
                flush=True,
            )

    def job(k: int) -> tuple[int, str, int, str, str]:
        return (k, engines[k % len(engines)], args.seed + k, args.faults, args.bot)

    k = 0
    if args.mode == "real":
        while want_more(k):
            record(play_real(*job(k), log_dir))
            k += 1
    elif args.workers <= 1:
        while want_more(k):
            record(play_sim(*job(k)))
            k += 1
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            running: set[Future[SoakResult]] = set()
            while True:
                while want_more(k) and len(running) < 2 * args.workers:
                    running.add(pool.submit(play_sim, *job(k)))
                    k += 1
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    record(fut.result())
    wall = time.perf_counter() - began
    failed = [r for r in results if not r.ok]
    by_engine: dict[str, list[SoakResult]] = {}
    for r in results:
        by_engine.setdefault(r.engine, []).append(r)
    print(f"\n{len(results)} games ({args.mode}, faults {args.faults}) in {wall:.0f}s wall")
    for engine, rs in sorted(by_engine.items()):
        print(
            f"  {engine:<14} {len(rs):5d} games, {sum(r.steps for r in rs):7d} steps, "
            f"{sum(not r.ok for r in rs)} failed, {sum(r.drops > 0 for r in rs)} with drops, "
            f"{sum(r.rollbacks > 0 for r in rs)} with rollbacks"
        )
    print(
        f"desyncs {sum(any('desync' in x for x in r.problems) for r in results)}, "
        f"stalls {sum(any(x.startswith('stall') for x in r.problems) for r in results)}, "
        f"bad logs {sum(any('log' in x for x in r.problems) for r in results)}, "
        f"failed {len(failed)}"
    )
    if out is not None:
        out.close()
    tmp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
