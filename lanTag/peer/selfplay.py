"""`lantag selfplay`: N peer processes on loopback play K games through the real stack.

Each peer is a separate ``lantag host|join --headless`` process with its own
identity (its own config directory); the host announces its port on stderr.
After each game every peer's log is verified and the logs must agree on every
decided step.  Any desync, stall or invalid log makes the exit code non-zero.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lanTag.log.entries import LogFormatError
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.session.events import StepApplied

PORT_LINE = re.compile(rb"on port (\d+)")


@dataclass
class GameResult:
    index: int
    engine: str
    peers: int
    steps: int = 0
    winner: str = ""
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        status = "ok" if self.ok else "FAIL: " + "; ".join(self.problems)
        return (
            f"game {self.index}: {self.engine} {self.peers} peers, {self.steps} steps, "
            f"winner {self.winner or '-'}, {self.seconds:.1f}s, {status}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.index,
            "engine": self.engine,
            "peers": self.peers,
            "steps": self.steps,
            "winner": self.winner,
            "seconds": round(self.seconds, 3),
            "ok": self.ok,
            "problems": self.problems,
            "logs": self.logs,
        }


def peer_env(root: Path, i: int) -> dict[str, str]:
    """Peer i's own identity and data directories (so each process is a different player)."""
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(root / f"peer{i}" / "config")
    env["XDG_DATA_HOME"] = str(root / f"peer{i}" / "data")
    env["USER"] = f"peer{i}"
    env["PYTHONUNBUFFERED"] = "1"
    return env


async def _spawn(args: list[str], env: dict[str, str]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "lanTag",
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


async def _host_port(proc: asyncio.subprocess.Process, timeout: float) -> int:
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    seen = b""
    while time.monotonic() < deadline:
        try:
            line = await asyncio.wait_for(proc.stderr.readline(), deadline - time.monotonic())
        except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
            break
        if not line:
            break
        seen += line
        match = PORT_LINE.search(line)
        if match:
            return int(match.group(1))
    raise RuntimeError(f"the host did not announce its port: {seen.decode(errors='replace')}")


async def play_one(
    index: int,
    engine: str,
    peers: int,
    log_dir: Path,
    *,
    netsim: str | None,
    bot: str,
    options: list[str],
    stall_seconds: float,
) -> GameResult:
    result = GameResult(index, engine, peers)
    started = time.monotonic()
    common = ["--headless", "--bot", bot] + (["--netsim", netsim] if netsim else [])
    with tempfile.TemporaryDirectory(prefix="lantag-selfplay-") as tmp:
        root = Path(tmp)
        logs = [log_dir / f"game{index}-peer{i}.lantag" for i in range(peers)]
        for log in logs:
            log.unlink(missing_ok=True)
        host_args = [
            "host",
            "--game",
            engine,
            "--seats",
            str(peers),
            "--no-advertise",
            "--bind",
            "127.0.0.1",
            "--log",
            str(logs[0]),
            *common,
        ]
        for opt in options:
            host_args += ["--option", opt]
        procs = [await _spawn(host_args, peer_env(root, 0))]
        try:
            port = await _host_port(procs[0], 20.0)
            for i in range(1, peers):
                procs.append(
                    await _spawn(
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
            await _wait_all(procs, stall_seconds, result)
        except RuntimeError as exc:
            result.problems.append(str(exc))
        finally:
            for proc in procs:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
    result.seconds = time.monotonic() - started
    result.logs = [str(p) for p in logs]
    _check_logs(logs, result)
    return result


async def _wait_all(
    procs: list[asyncio.subprocess.Process], stall_seconds: float, result: GameResult
) -> None:
    async def drain(proc: asyncio.subprocess.Process) -> bytes:
        assert proc.stderr is not None
        err = await proc.stderr.read()
        await proc.wait()
        return err

    tasks = [asyncio.create_task(drain(p)) for p in procs]
    done, pending = await asyncio.wait(tasks, timeout=stall_seconds)
    if pending:
        result.problems.append(
            f"stall: {len(pending)} peer(s) still running after {stall_seconds:.0f}s"
        )
        for task in pending:
            task.cancel()
    for i, (proc, task) in enumerate(zip(procs, tasks, strict=True)):
        if task in done and proc.returncode != 0:
            tail = task.result().decode(errors="replace").strip().splitlines()[-1:]
            result.problems.append(f"peer {i} exited {proc.returncode}: {' '.join(tail)}")


def _check_logs(logs: list[Path], result: GameResult) -> None:
    reports: list[VerifyReport] = []
    for i, path in enumerate(logs):
        try:
            report = verify_log(path.read_bytes())
        except (OSError, LogFormatError) as exc:
            result.problems.append(f"peer {i} log unreadable: {exc}")
            continue
        if not report.valid:
            assert report.failure is not None
            result.problems.append(
                f"peer {i} log invalid at entry {report.failure.entry}: {report.failure.reason}"
            )
        elif not report.complete:
            result.problems.append(f"peer {i} log incomplete at step {report.steps}")
        if any(code == "desync" for _, _, code, _ in report.blames):
            result.problems.append(f"peer {i} saw a desync")
        reports.append(report)
    if reports:
        histories = {tuple((a.step, a.state_hash) for a in _final_history(r)) for r in reports}
        if len(histories) > 1:
            result.problems.append("logs disagree on the decided steps")
        result.steps = max(r.steps for r in reports)
        result.winner = (
            " ".join(str(s) for s in reports[0].ranking[0]) if reports[0].ranking else ""
        )


def _final_history(report: VerifyReport) -> list[StepApplied]:
    latest: dict[int, StepApplied] = {}
    for applied in report.applied:  # a rollback re-decides steps: keep the last decision
        latest[applied.step] = applied
    return [latest[k] for k in sorted(latest)]


async def selfplay(
    engine: str,
    peers: int,
    games: int,
    log_dir: Path,
    *,
    netsim: str | None = None,
    bot: str = "heuristic2",
    options: list[str] | None = None,
    stall_seconds: float = 300.0,
    on_result: object = None,
) -> list[GameResult]:
    log_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for k in range(games):
        result = await play_one(
            k,
            engine,
            peers,
            log_dir,
            netsim=netsim,
            bot=bot,
            options=options or [],
            stall_seconds=stall_seconds,
        )
        results.append(result)
        if callable(on_result):
            with contextlib.suppress(Exception):
                on_result(result)
    return results
