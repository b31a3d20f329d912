"""Kill a peer process mid-game (SIGKILL); the others must drop its seat and finish.

Like ``lantag selfplay``: N ``lantag host|join --headless`` processes on
loopback, each with its own XDG directories (its own identity) and log.  When
the victim prints ``step K``, it is SIGKILLed.  The survivors' stdout lines
are timestamped to measure how long the game paused: from the kill to the
drop (the ``SeatsDropped`` note) and the longest gap between two decided steps
after the kill.  With ``--resume S`` the victim is restarted S seconds after
the kill with ``lantag join --resume LOG`` (same identity).  What it must do
depends on whether the others were still playing when it restarted:

* still playing (a survivor's ``game over`` came after the restart): catch up
  and finish, exit 0, its log complete and agreeing with theirs;
* all done before the restart: nothing to catch up from.  Expected: ``game
  over already`` (its log holds the end, exit 0), or the give-up line ``no peer
  of this game answered`` (exit 1, log valid, incomplete), or, if a survivor
  was still up to answer, catching up as above.  Reported as such, not as a
  problem.

Afterwards every log must verify; the survivors' logs (and a caught-up
victim's) must be complete and agree on every decided step.

    python -m scripts.chaos_kill --peers 4 --turn-timeout 5 --runs 3
    python -m scripts.chaos_kill --peers 3 --turn-timeout 5 --resume 1
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import re
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lanTag.log.verify import verify_log
from lanTag.peer.selfplay import peer_env
from tests.support.table import final_history

PORT = re.compile(rb"on port (\d+)")
PORT_GUARD = 60.0  # seconds the host may take to announce its port (a hang guard only)
STEP = re.compile(r"^step (\d+):")
DROP = re.compile(r"SeatsDropped\(step=(\d+), seats=\(([\d, ]*)\)")


@dataclass
class KillRun:
    run: int
    engine: str
    peers: int
    turn_timeout: float
    kill_step: int = -1
    killed_at: float = 0.0
    drop_after: float | None = None  # seconds from the kill to the first survivor's drop note
    drop_step: int | None = None
    longest_pause: float = 0.0  # longest gap between survivor step lines after the kill
    game_seconds: float = 0.0
    resumed_after: float | None = None
    resume_caught_up: float | None = None  # seconds from restart to the victim's game over
    others_done_first: bool | None = None  # every survivor's game over before the restart
    resume_outcome: str | None = None  # caught up | game over already | gave up | failed
    survivors_over_after: float | None = None  # seconds from the kill to the last game over
    steps: int = 0
    problems: list[str] = field(default_factory=list)


async def spawn(args: list[str], env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lanTag",
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


GAVE_UP = "no peer of this game answered"
OVER_ALREADY = "game over already"


async def read_lines(
    proc: asyncio.subprocess.Process, sink: list[tuple[float, str]], stderr: bool = False
) -> None:
    stream = proc.stderr if stderr else proc.stdout
    assert stream is not None
    while True:
        line = await stream.readline()
        if not line:
            return
        sink.append((time.monotonic(), line.decode(errors="replace").rstrip()))


async def one_run(k: int, args: argparse.Namespace, log_dir: Path) -> KillRun:
    r = KillRun(k, args.game, args.peers, args.turn_timeout)
    victim = args.victim if args.victim is not None else args.peers - 1
    with tempfile.TemporaryDirectory(prefix="lantag-kill-") as tmp:
        root = Path(tmp)
        logs = [log_dir / f"run{k}-peer{i}.lantag" for i in range(args.peers)]
        for p in logs:
            p.unlink(missing_ok=True)
        common = ["--headless", "--bot", "heuristic"]
        if args.netsim:
            common += ["--netsim", f"{args.netsim},seed={k}"]
        host_args = [
            "host",
            "--game",
            args.game,
            "--seats",
            str(args.peers),
            "--no-advertise",
            "--bind",
            "127.0.0.1",
            "--log",
            str(logs[0]),
            "--turn-timeout",
            str(args.turn_timeout),
            *common,
        ]
        procs = [await spawn(host_args, peer_env(root, 0))]
        lines: list[list[tuple[float, str]]] = [[] for _ in range(args.peers)]
        assert procs[0].stderr is not None
        port = None
        # A hang guard on the host's start (imports, key, socket): a loaded 2-core machine
        # can take many seconds; past the guard it is reported as a problem, not raised.
        deadline = time.monotonic() + PORT_GUARD
        while time.monotonic() < deadline and port is None:
            try:
                line = await asyncio.wait_for(
                    procs[0].stderr.readline(), max(0.0, deadline - time.monotonic())
                )
            except asyncio.TimeoutError:
                break
            if not line:  # the host exited before announcing its port
                break
            m = PORT.search(line)
            port = int(m.group(1)) if m else None
        if port is None:
            r.problems.append("host did not announce its port")
            if procs[0].returncode is None:
                procs[0].kill()
            await procs[0].wait()
            return r
        for i in range(1, args.peers):
            procs.append(
                await spawn(
                    [
                        "join",
                        f"127.0.0.1:{port}",
                        "--bind",
                        "127.0.0.1",
                        "--log",
                        str(logs[i]),
                        *common,
                    ],
                    peer_env(root, i),
                )
            )
        readers = [asyncio.create_task(read_lines(p, lines[i])) for i, p in enumerate(procs)]
        drains = [asyncio.create_task(p.stderr.read()) for p in procs if p.stderr is not None]
        began = time.monotonic()
        # ---- wait for the victim to reach the kill step, then SIGKILL it
        while time.monotonic() - began < 120:
            steps = [int(s.group(1)) for _, t in lines[victim] if (s := STEP.match(t))]
            if steps and steps[-1] >= args.kill_at:
                r.kill_step = steps[-1]
                break
            if procs[victim].returncode is not None:
                break
            await asyncio.sleep(0.002)
        if r.kill_step < 0:
            r.problems.append("the victim never reached the kill step")
        os.kill(procs[victim].pid, signal.SIGKILL)
        r.killed_at = time.monotonic()
        await procs[victim].wait()
        resumed = None
        resumed_err: list[tuple[float, str]] = []
        if args.resume is not None:
            await asyncio.sleep(args.resume)
            resumed = await spawn(
                ["join", "--resume", str(logs[victim]), "--headless", "--bot", "heuristic"],
                peer_env(root, victim),
            )
            r.resumed_after = time.monotonic() - r.killed_at
            lines[victim] = []
            readers.append(asyncio.create_task(read_lines(resumed, lines[victim])))
            readers.append(asyncio.create_task(read_lines(resumed, resumed_err, stderr=True)))
        survivors = [p for i, p in enumerate(procs) if i != victim]
        waiting = [asyncio.create_task(p.wait()) for p in survivors]
        if resumed is not None:
            waiting.append(asyncio.create_task(resumed.wait()))
        _, pending = await asyncio.wait(waiting, timeout=args.stall)
        if pending:
            r.problems.append(
                f"stall: {len(pending)} process(es) still running after {args.stall}s"
            )
            # What each survivor said last (its steps, drops, votes): a stall seen once in
            # CI under load is then readable from the report alone.
            for i in range(args.peers):
                if i != victim:
                    last = " | ".join(text for _, text in lines[i][-8:])
                    r.problems.append(f"peer {i} said last: {last}")
        for proc in [*procs, *([resumed] if resumed else [])]:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        await asyncio.gather(*readers, *drains, return_exceptions=True)
        r.game_seconds = time.monotonic() - began
        for i, proc in enumerate(procs):
            if i != victim and proc.returncode != 0:
                r.problems.append(f"peer {i} exited {proc.returncode}")
        caught_up = False
        if resumed is not None:
            restarted = r.killed_at + (r.resumed_after or 0)
            firsts = [
                next((t for t, x in lines[i] if x.startswith("game over")), None)
                for i in range(args.peers)
                if i != victim
            ]
            r.others_done_first = all(t is not None and t <= restarted for t in firsts)
            over = [t for t, line in lines[victim] if line.startswith("game over")]
            said = [x for _, x in [*lines[victim], *resumed_err]]
            if resumed.returncode == 0 and any(x.startswith(OVER_ALREADY) for x in said):
                r.resume_outcome = OVER_ALREADY  # its own log held the end
            elif resumed.returncode == 0 and over:
                r.resume_outcome = "caught up"
                r.resume_caught_up = over[0] - restarted
                caught_up = True
            elif resumed.returncode == 1 and any(GAVE_UP in x for x in said):
                r.resume_outcome = "gave up"
            else:
                r.resume_outcome = f"failed (exit {resumed.returncode})"
            if not r.others_done_first and r.resume_outcome != "caught up":
                r.problems.append(f"resumed while the others still played, but {r.resume_outcome}")
            elif r.resume_outcome.startswith("failed"):
                r.problems.append(f"resumed victim {r.resume_outcome}")
        # ---- timings from the survivors' stdout
        times: list[float] = []
        for i in range(args.peers):
            if i == victim:
                continue
            for t, text in lines[i]:
                drop = DROP.search(text)
                if drop and t >= r.killed_at and r.drop_after is None:
                    r.drop_after = t - r.killed_at
                    r.drop_step = int(drop.group(1))
                if STEP.match(text) and t >= r.killed_at:
                    times.append(t)
        overs = [
            t
            for i in range(args.peers)
            if i != victim
            for t, x in lines[i]
            if x.startswith("game over")
        ]
        if overs:
            r.survivors_over_after = max(overs) - r.killed_at
        times.sort()
        marks = [r.killed_at, *times]
        r.longest_pause = max((b - a for a, b in itertools.pairwise(marks)), default=0.0)
        # ---- logs
        histories = set()
        for i, p in enumerate(logs):
            try:
                report = verify_log(p.read_bytes())
            except Exception as exc:
                r.problems.append(f"peer {i} log unreadable: {exc}")
                continue
            if not report.valid:
                r.problems.append(f"peer {i} log invalid: {report.failure}")
                continue
            if i != victim or caught_up or r.resume_outcome == OVER_ALREADY:
                if not report.complete:
                    r.problems.append(f"peer {i} log incomplete at step {report.steps}")
                histories.add(final_history(report))
            r.steps = max(r.steps, report.steps)
        if len(histories) > 1:
            r.problems.append("logs disagree on the decided steps")
    return r


async def main_async(args: argparse.Namespace) -> int:
    log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="lantag-kill-logs-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for k in range(args.runs):
        r = await one_run(k, args, log_dir)
        results.append(r)
        status = "ok" if not r.problems else "FAIL: " + "; ".join(r.problems)
        drop = (
            "no drop"
            if r.drop_after is None
            else f"dropped at step {r.drop_step} after {r.drop_after:.2f}s"
        )
        resume = ""
        if r.resumed_after is not None:
            when = "after the others finished" if r.others_done_first else "while others played"
            resume = f", resumed {r.resumed_after:.1f}s after the kill ({when}): {r.resume_outcome}"
            if r.resume_caught_up is not None:
                resume += f", game over {r.resume_caught_up:.2f}s after the restart"
        print(
            f"run {k}: {r.engine} x{r.peers}, turn timeout {r.turn_timeout:g}s, killed at step "
            f"{r.kill_step}: {drop}, longest pause {r.longest_pause:.2f}s{resume}; "
            f"survivors' game over {r.survivors_over_after or -1:.1f}s after the kill; "
            f"{r.steps} steps, {r.game_seconds:.1f}s: {status}",
            flush=True,
        )
        if args.json:
            with open(args.json, "a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(r)) + "\n")
    print(f"logs in {log_dir}")
    return 1 if any(r.problems for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m scripts.chaos_kill",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    p.add_argument("--game", default="prototag")
    p.add_argument("--peers", type=int, default=4)
    p.add_argument("--victim", type=int, help="peer index to kill (default: the last joiner)")
    p.add_argument("--kill-at", type=int, default=20, help="kill when the victim reaches step K")
    p.add_argument("--turn-timeout", type=float, default=5.0)
    p.add_argument("--resume", type=float, help="restart the victim with --resume after S s")
    p.add_argument("--netsim", help="faults for every peer (seed = run index)")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--stall", type=float, default=180.0)
    p.add_argument("--log-dir", default="")
    p.add_argument("--json", metavar="FILE", help="append one JSON line per run")
    return asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
