"""Crash safety of the log: SIGKILL a process while it writes a real game's log.

Parent: starts a child that plays a game (whole peers on the simulated network,
prototag by default) and writes peer 0's log through ``lanTag.log.file.LogWriter``
as the game goes; kills it with SIGKILL at a random moment; then verifies the
file.  Every file must be a valid log up to its last whole entry (``verify_log``:
valid, maybe incomplete, ``truncated_bytes`` for a cut entry), or hold no whole
entry at all (killed before the header was written).

A kill between two ``write`` calls never tears an entry, so ``--cuts`` also
checks torn writes directly: a finished log cut at random byte offsets must
verify as valid (incomplete) up to the last whole entry before the cut.

    python -m scripts.crash_log --kills 50 --cuts 200
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.processes import root_env


def child(path: str, seed: int, engine: str) -> None:
    from lanTag.log.file import LogWriter
    from tests.support.table import Table

    writer = LogWriter(path)
    table = Table(engine, 3, seed=seed, faults="loss=0.1,delay=5ms,jitter=5ms")
    table.peers[0].write_log = writer.write
    print("ready", flush=True)
    table.start()
    n = 0
    while not table.over() and table.net.step():  # paced: a few seconds a game, to be killed
        n += 1
        if n % 10 == 0:
            time.sleep(0.003)
    print("over", flush=True)
    writer.close()


def check(data: bytes) -> tuple[str, int, int]:
    """(verdict, steps, truncated bytes): verdict is valid, valid-complete, empty or INVALID."""
    from lanTag.log.entries import LogFormatError
    from lanTag.log.verify import verify_log

    try:
        report = verify_log(data)
    except LogFormatError:
        return ("empty", 0, len(data))
    except Exception as exc:  # a verifier crash is a finding too
        return (f"INVALID: verifier raised {type(exc).__name__}: {exc}", 0, 0)
    if not report.valid:
        return (f"INVALID: {report.failure}", report.steps, report.truncated_bytes)
    return ("valid-complete" if report.complete else "valid", report.steps, report.truncated_bytes)


def kills(n: int, seed: int, engine: str, quiet: bool) -> list[str]:
    rng = random.Random(seed)
    problems = []
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="lantag-crash-") as tmp:
        for k in range(n):
            path = Path(tmp) / f"log{k}.lantag"
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "scripts.crash_log",
                    "--child",
                    str(path),
                    "--seed",
                    str(seed + k),
                    "--engine",
                    engine,
                ],
                stdout=subprocess.PIPE,
                text=True,
                env=root_env(),
            )
            assert proc.stdout is not None
            proc.stdout.readline()  # "ready": imports done, the game begins
            time.sleep(rng.uniform(0.0, 1.2))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            data = path.read_bytes() if path.exists() else b""
            verdict, steps, cut = check(data)
            counts[verdict.split(":")[0]] = counts.get(verdict.split(":")[0], 0) + 1
            if verdict.startswith("INVALID"):
                problems.append(f"kill {k}: {len(data)} bytes: {verdict}")
            if not quiet:
                print(f"kill {k}: {len(data)} bytes, {verdict}, {steps} steps, {cut} torn bytes")
    print(f"{n} kills: {counts}")
    return problems


def cuts(n: int, seed: int, engine: str) -> list[str]:
    from lanTag.log.entries import parse_log
    from tests.support.table import Table

    table = Table(engine, 3, seed=seed)
    table.start()
    table.run_to_end(max_time=36_000)
    log = bytes(table.logs[0])
    bounds = [0]
    for e in parse_log(log).entries:
        bounds.append(bounds[-1] + len(e.raw))
    rng = random.Random(seed)
    problems = []
    offsets = sorted({rng.randrange(1, len(log)) for _ in range(n)})
    for off in offsets:
        verdict, _steps, torn = check(log[:off])
        whole = max(b for b in bounds if b <= off)
        if verdict.startswith("INVALID") or (verdict != "empty" and torn != off - whole):
            problems.append(f"cut at {off}: {verdict}, torn {torn}, expected {off - whole}")
    print(f"{len(offsets)} torn-write cuts of a {len(log)}-byte log: {len(problems)} problems")
    return problems


def main() -> int:
    p = argparse.ArgumentParser(
        prog="python -m scripts.crash_log",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--cuts", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--engine", default="prototag")
    p.add_argument("--child", metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args()
    if args.child:
        child(args.child, args.seed, args.engine)
        return 0
    problems = kills(args.kills, args.seed, args.engine, args.quiet)
    problems += cuts(args.cuts, args.seed, args.engine)
    for line in problems:
        print("PROBLEM:", line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
