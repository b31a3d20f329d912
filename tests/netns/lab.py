"""Helpers for the multi-host tests: `lantag` processes on a namespaced LAN.

The LAN itself comes from scripts/netlab.py.  Every peer is a separate ``python -m
lanTag`` process in its own network namespace with its own XDG config/data directories,
so each has its own identity, like three laptops.  Nothing here asserts on time: every
deadline is a hang guard and fails (never passes) a test.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lanTag.log.verify import VerifyReport, verify_log
from scripts import netlab
from tests.support.table import final_history

ROOT = Path(__file__).resolve().parents[2]
GUARD = 45.0  # hang guard for one game or one command
PORT_LINE = re.compile(r"on port (\d+)")
STEP_LINE = re.compile(r"^step (\d+):", re.MULTILINE)


@functools.cache
def netns_problem() -> str | None:
    """Why the namespaced LAN cannot be built here (probed once per run), or None."""
    return netlab.problem()


needs_netns = pytest.mark.skipif(
    netns_problem() is not None, reason=f"netns tests skipped: {netns_problem()}"
)


def wait_until(predicate: Callable[[], bool], what: str, guard: float = GUARD) -> None:
    deadline = time.monotonic() + guard
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"hang guard ({guard:.0f}s): still waiting for {what}")
        time.sleep(0.05)


class Peer:
    """One laptop's worth of lantag: a namespace, an identity, files for its output."""

    def __init__(self, lan: Lan, name: str, host: str) -> None:
        self.lan = lan
        self.name = name
        self.host = host
        self.dir = lan.tmp / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.log = self.dir / "game.lantag"
        self.proc: subprocess.Popen[bytes] | None = None
        self._runs = 0

    @property
    def addr(self) -> str:
        return self.lan.lab.addr(self.host)  # type: ignore[no-any-return]

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            XDG_CONFIG_HOME=str(self.dir / "config"),
            XDG_DATA_HOME=str(self.dir / "data"),
            USER=self.name,
            PYTHONUNBUFFERED="1",
            NO_COLOR="1",
        )
        env.update(extra)
        return env

    def argv(self, args: list[str]) -> list[str]:
        return self.lan.lab.exec_argv(self.host, [sys.executable, "-m", "lanTag", *args])  # type: ignore[no-any-return]

    def run(self, args: list[str], guard: float = GUARD) -> subprocess.CompletedProcess[str]:
        """Run a lantag command to completion in this peer's namespace."""
        return subprocess.run(
            self.argv(args),
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=guard,
            check=False,
            stdin=subprocess.DEVNULL,
        )

    def fingerprint(self) -> str:
        out = self.run(["id", "--nickname", self.name])
        assert out.returncode == 0, out.stderr
        return out.stdout.split("fingerprint:")[1].split()[0]

    def start(self, args: list[str]) -> subprocess.Popen[bytes]:
        """Start a long-running lantag command; stdout/stderr go to files (see out/err)."""
        self._runs += 1
        with self.out_path.open("ab") as out, self.err_path.open("ab") as err:
            self.proc = subprocess.Popen(
                self.argv(args), env=self.env(), stdin=subprocess.DEVNULL, stdout=out, stderr=err
            )
        self.lan.procs.append(self.proc)
        return self.proc

    def start_python(self, code: str, *args: str) -> subprocess.Popen[bytes]:
        """Like :meth:`start`, for a Python snippet using the library (argv: ``args``)."""
        with self.out_path.open("ab") as out, self.err_path.open("ab") as err:
            argv = self.lan.lab.exec_argv(self.host, [sys.executable, "-c", code, *args])  # type: ignore[attr-defined]
            self.proc = subprocess.Popen(
                argv, env=self.env(), stdin=subprocess.DEVNULL, stdout=out, stderr=err
            )
        self.lan.procs.append(self.proc)
        return self.proc

    @property
    def out_path(self) -> Path:
        return self.dir / "stdout.txt"

    @property
    def err_path(self) -> Path:
        return self.dir / "stderr.txt"

    def out(self) -> str:
        return self.out_path.read_text(errors="replace") if self.out_path.exists() else ""

    def err(self) -> str:
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def port(self) -> int:
        """The UDP port a `lantag host` announced on stderr (waits for it)."""
        found: list[int] = []

        def announced() -> bool:
            match = PORT_LINE.search(self.err())
            if match:
                found.append(int(match.group(1)))
            elif self.proc is not None and self.proc.poll() is not None:
                pytest.fail(f"{self.name} exited {self.proc.returncode}: {self.err()[-500:]}")
            return bool(found)

        wait_until(announced, f"{self.name} to announce its port", 30)
        return found[0]

    def join_by_name_fails(self, name: str, wait: float) -> str:
        """`lantag join NAME` that must fail as a network condition: exit 1, one line."""
        out = self.run(["join", name, "--wait", f"{wait:g}", "--headless"])
        failures = [line for line in out.stderr.splitlines() if line.startswith("lantag:")]
        assert out.returncode == 1 and len(failures) == 1, out.stderr
        return failures[0]

    def steps_seen(self) -> int:
        steps = [int(s) for s in STEP_LINE.findall(self.out())]
        return max(steps, default=-1)

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)  # `ip netns exec` execs: this is lantag itself
        self.proc.wait(timeout=GUARD)

    def wait(self, guard: float = GUARD) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout=guard)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"hang guard ({guard:.0f}s): {self.name} still running; "
                f"stdout tail: {self.out()[-400:]!r}; stderr tail: {self.err()[-400:]!r}"
            )


class Lan:
    """A built lab (scripts/netlab.py) plus the peers started on it."""

    def __init__(self, lab: object, tmp: Path) -> None:
        self.lab = lab
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []

    def peer(self, name: str, host: str) -> Peer:
        return Peer(self, name, host)

    def list_games(self, peer: Peer, wait: float = 3.0) -> list[dict[str, object]]:
        out = peer.run(["list", "--wait", str(wait), "--json"])
        assert out.returncode == 0, out.stderr
        games: list[dict[str, object]] = json.loads(out.stdout)
        return games

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)


_labs = itertools.count(1)


def built_lan(
    tmp: Path, hosts: int, prefix: str, setup: Callable[[object], None] | None = None
) -> Iterator[Lan]:
    """A fixture's lab: ``hosts`` hosts on one bridge, changed by ``setup``, yielded as a
    Lan and always torn down.  Skipped (not failed) where namespaces cannot be built.  The
    name is unique per process and test, so parallel runs do not collide."""
    problem = netns_problem()
    if problem is not None:
        pytest.skip(f"netns tests skipped: {problem}")
    name = f"{prefix}{os.getpid() % 100_000}x{next(_labs)}"
    try:
        lab = netlab.up(hosts, name)
        if setup is not None:
            setup(lab)
    except (netlab.NetlabError, OSError) as exc:
        netlab.down(name)
        pytest.skip(f"cannot build the namespaced LAN: {exc}")
    lan = Lan(lab, tmp)
    try:
        yield lan
    finally:
        lan.stop_all()
        netlab.down(name)
        assert not netlab.lab_namespaces(name), "namespaces left behind"


# --------------------------------------------------------------------------- logs


def verify(path: Path, *, complete: bool = True) -> VerifyReport:
    report = verify_log(path.read_bytes())
    assert report.valid, (str(path), report.failure)
    if complete:
        assert report.complete, (str(path), f"incomplete at step {report.steps}")
    return report


def check_agree(reports: list[VerifyReport]) -> list[tuple[int, bytes]]:
    """All logs of one game: one game id, one decided history.  Returns that history."""
    assert len({r.game_id for r in reports}) == 1, "logs of different games"
    histories = {final_history(r) for r in reports}
    assert len(histories) == 1, "the logs disagree on the decided steps"
    return list(histories.pop())
