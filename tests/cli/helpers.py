"""Run the real ``lantag`` command in isolated XDG directories, and bend its logs.

Every run gets its own ``XDG_CONFIG_HOME`` / ``XDG_DATA_HOME`` (and ``HOME``), so
no test reads or writes the identity or logs of the person running the suite.
Timeouts here are hang guards only: nothing asserts how fast anything is.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanTag import wire
from lanTag.log.entries import EntryKind, parse_log

LANTAG = [sys.executable, "-m", "lanTag"]
HANG_GUARD = 60.0  # seconds; a run that takes this long is a hang, not a slow machine
# Variables that would change what lantag prints; tests set them explicitly when they want them.
SCRUBBED = ("NO_COLOR", "FORCE_COLOR", "LANTAG_DEBUG", "XDG_CONFIG_HOME", "XDG_DATA_HOME")


@dataclass(frozen=True)
class Home:
    """One user's isolated directories (config: identity; data: logs)."""

    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def identity(self) -> Path:
        return self.config / "lantag" / "identity"

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        env.update(
            XDG_CONFIG_HOME=str(self.config),
            XDG_DATA_HOME=str(self.data),
            HOME=str(self.root),
            USER="tester",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env


def make_home(root: Path) -> Home:
    root.mkdir(parents=True, exist_ok=True)
    return Home(root)


def lantag(
    home: Home,
    *args: str,
    timeout: float = HANG_GUARD,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``lantag ARGS`` (as ``python -m lanTag``), stdin closed, output captured as text."""
    return subprocess.run(
        [*LANTAG, *args],
        env=home.env(**(env or {})),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or home.root,
        check=False,
    )


def lantag_process(
    home: Home, *args: str, stdin: int = subprocess.DEVNULL, env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """``lantag ARGS`` started in the background (a host, say), stdout and stderr piped."""
    return subprocess.Popen(
        [*LANTAG, *args],
        env=home.env(**(env or {})),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=home.root,
    )


# Two wall-clock bounds of a peer that a loaded 2-core machine can overrun with nothing
# wrong: a seat that sends nothing for DEAD_AFTER_LAGS lag warnings (2 x 2 s) is voted out
# as a dead process, and the other seats' seals are taken for SEAL_WAIT (3 s) after game
# over.  Tests that assert nobody was dropped, or every seal, give their processes 10 lag
# warnings and 30 s (neither is waited out when the peers answer).
PATIENT = (
    "import lanTag.session.silence as a, lanTag.session.sealing as s\n"
    "a.DEAD_AFTER_LAGS = 10\n"
    "s.SEAL_WAIT = 30.0\n"
)


def patient_env(where: Path) -> dict[str, str]:
    """Variables that make a lantag process patient as above (a sitecustomize in ``where``)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "sitecustomize.py").write_text(PATIENT, encoding="utf-8")
    return {"PYTHONPATH": pythonpath_with(where)}


def pythonpath_with(where: Path) -> str:
    """``where`` in front of this run's PYTHONPATH (kept: a tree run with PYTHONPATH=$PWD,
    as a worktree is, must run its own lanTag in the processes too, not an installed one)."""
    return os.pathsep.join(p for p in (str(where), os.environ.get("PYTHONPATH", "")) if p)


def host_said(host: subprocess.Popen[str]) -> str:
    """A headless host's next stderr line, past the open-table note its lobby starts with
    (lanTag.peer.doorstep.OPEN_TABLE_NOTE: no --approve, no --password)."""
    assert host.stderr is not None
    line = host.stderr.readline()
    while line.startswith("lobby: open table: "):
        line = host.stderr.readline()
    return line


def announced_port(host: subprocess.Popen[str]) -> str:
    """The port a headless host names on its first line ("hosting GAME on port N; ...")."""
    assert host.stderr is not None
    return host.stderr.readline().split(" on port ")[1].split(";")[0]


def lantag_or_hang(
    home: Home, *args: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str] | None:
    """Like :func:`lantag`, but returns None when the command is still running at the guard."""
    try:
        return lantag(home, *args, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None


def stderr_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.strip()]


def user_error(result: subprocess.CompletedProcess[str]) -> str:
    """Assert the lantag user-error contract and return the message line.

    Exit code 2, nothing on stdout, exactly one line on stderr, starting with
    ``lantag``, and no traceback.
    """
    shown = f"rc={result.returncode}\nstdout={result.stdout!r}\nstderr={result.stderr!r}"
    assert "Traceback" not in result.stderr + result.stdout, shown
    assert result.returncode == 2, shown
    assert result.stdout == "", shown
    lines = stderr_lines(result)
    assert len(lines) == 1, shown
    assert lines[0].startswith("lantag"), shown
    assert "internal error" not in lines[0], shown
    return lines[0]


def make_log(home: Home, path: Path, *extra: str, game: str = "prototag", bots: int = 2) -> Path:
    """Play a whole headless game against bots (about a second) and return its log."""
    result = lantag(
        home, "play", "--headless", "--game", game, "--bots", str(bots), "--log", str(path), *extra
    )
    assert result.returncode == 0, result.stderr
    assert path.exists()
    return path


# ------------------------------------------------------------------ bending logs


def entries_of(data: bytes) -> list[list[Any]]:
    """The log's entries as editable ``[index, step, kind, data]`` lists."""
    return [[e.index, e.step, int(e.kind), e.data] for e in parse_log(data).entries]


def rechain(entries: list[list[Any]]) -> bytes:
    """Re-serialise entries with a fresh, consistent hash chain (what a careful forger does)."""
    out: list[bytes] = []
    prev = bytes(32)
    for index, step, kind, data in entries:
        raw = wire.pack([index, step, prev, kind, data])
        prev = hashlib.sha256(raw).digest()
        out.append(raw)
    return b"".join(out)


def forge_state_hash(data: bytes, nth_step: int = 10) -> tuple[bytes, int, int]:
    """Replace the state hash of the ``nth_step``-th STEP entry and re-chain the log.

    Returns (forged log, index of the forged entry, its step).
    """
    entries = entries_of(data)
    steps = [i for i, e in enumerate(entries) if e[2] == EntryKind.STEP]
    k = steps[nth_step]
    # only the hash: a roll's step also records its draw purpose and kinds (protocol 2)
    entries[k][3] = [entries[k][3][0], bytes(32), *entries[k][3][2:]]
    return rechain(entries), k, entries[k][1]


def forge_signature(data: bytes, nth_msg: int = 20) -> tuple[bytes, int]:
    """Flip a bit of one stored message's signature and re-chain: only the signature is wrong."""
    entries = entries_of(data)
    msgs = [i for i, e in enumerate(entries) if e[2] == EntryKind.MSG]
    k = msgs[nth_msg]
    raw = bytearray(entries[k][3])
    raw[-1] ^= 0x01
    entries[k][3] = bytes(raw)
    return rechain(entries), k
