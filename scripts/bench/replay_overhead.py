"""verify_log's cost outside Ed25519, on fixed logs: the number the bench_verify ratio hangs on.

The CPU-time ratio of bench_verify.py moves by +-0.05 with the machine's load.  This script
measures the other side of it, with ``Verifier.verify`` replaced by ``return True``:

  python -m scripts.bench.replay_overhead gen DIR   write DIR/<engine>.bin: the games
                                                    bench_verify plays
  ... time DIR           best CPU ms of verify_log per log (overhead only)
  ... once DIR ENGINE N  run verify_log N times (for an instruction counter)
  ... ir DIR ENGINE      callgrind instructions of one verify_log:
                         (3 calls - 1 call) / 2, so start-up cancels out

Instruction counts repeat to about 1% whatever else the machine does (hash seeds vary),
so two trees can be compared on a shared machine: run in each tree's root (``python -m``
imports the lanTag of the folder it runs in; the instruction counter's child too), on the
same absolute DIR.  Logs are written once and kept: regenerating them with changed engines would
compare different games.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.support.processes import root_env

HERE = Path(__file__).resolve().parent
ENGINES = ("prototag", "assassination", "boardtag", "stomptag", "tagem")


def stub_ed25519() -> None:
    import lanTag.identity as identity

    def verify(self: object, public_key: bytes, signature: bytes, data: bytes) -> bool:
        return True

    identity.Verifier.verify = verify  # type: ignore[method-assign]


def gen(logs: Path) -> None:
    from scripts.bench import bench_verify

    logs.mkdir(parents=True, exist_ok=True)
    for engine in ENGINES:
        peers, options = bench_verify.GAMES[engine]
        path = logs / f"{engine}.bin"
        path.write_bytes(bench_verify.play(engine, peers, options))
        print(f"{path}: {path.stat().st_size} bytes")


def timed(logs: Path, reps: int) -> None:
    stub_ed25519()
    from lanTag.log.verify import verify_log

    for engine in ENGINES:
        data = (logs / f"{engine}.bin").read_bytes()
        report = verify_log(data)
        if not report.valid:
            raise SystemExit(f"{engine}: the log does not verify: {report.failure}")
        best = float("inf")
        for _ in range(reps):
            t0 = time.process_time()
            verify_log(data)
            best = min(best, time.process_time() - t0)
        sigs = report.signatures_verified
        print(
            f"{engine:14s} overhead {best * 1000:8.2f} ms  signatures {sigs:5d}  "
            f"per signature {best / sigs * 1e6:6.1f} us"
        )


def once(logs: Path, engine: str, n: int) -> None:
    stub_ed25519()
    from lanTag.log.verify import verify_log

    data = (logs / f"{engine}.bin").read_bytes()
    for _ in range(n):
        if not verify_log(data).valid:
            raise SystemExit(f"{engine}: the log does not verify")


def instructions(logs: Path, engine: str) -> None:
    def run(n: int) -> int:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--callgrind-out-file=/dev/null",
                sys.executable,
                "-m",
                "scripts.bench.replay_overhead",
                "once",
                str(logs),
                engine,
                str(n),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=root_env(),
        )
        found = re.search(r"Collected : (\d+)", out.stderr)
        if found is None:
            raise SystemExit(f"no callgrind total in:\n{out.stderr[-2000:]}")
        return int(found.group(1))

    one, three = run(1), run(3)
    print(f"{engine} {(three - one) // 2}")


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.bench.replay_overhead", description=__doc__.splitlines()[0]
    )
    parser.add_argument("command", choices=("gen", "time", "once", "ir"))
    parser.add_argument("logs", type=Path, help="directory of the fixed logs")
    parser.add_argument("engine", nargs="?", choices=ENGINES)
    parser.add_argument("n", nargs="?", type=int, default=1)
    parser.add_argument("--reps", type=int, default=30, help="time: runs per log (best kept)")
    args = parser.parse_args()
    if args.command == "gen":
        gen(args.logs)
    elif args.command == "time":
        timed(args.logs, args.reps)
    elif args.engine is None:
        parser.error(f"{args.command} needs an engine")
    elif args.command == "once":
        once(args.logs, args.engine, args.n)
    else:
        instructions(args.logs, args.engine)


if __name__ == "__main__":
    main()
