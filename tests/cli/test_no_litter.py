"""No litter (issue 34 item 8): a log and its ``.secret`` appear only when a game starts.

Real processes on loopback: a host whose lobby never starts and a join it refuses leave
no file in either player's log folder; the refusal of a second terminal on the same
laptop (same identity) says how to play two seats from one laptop."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from lanTag.peer.join_handshake import SEAT_HELD
from lanTag.peer.joiner import TWO_ON_ONE_LAPTOP
from tests.cli.helpers import HANG_GUARD, Home, announced_port, lantag, lantag_process, make_home

HOSTING = ["host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0"]


def _files(home: Home) -> list[Path]:
    root = home.data / "lantag"
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


@pytest.mark.slow  # two processes, a few seconds of wall time
def test_a_refused_second_terminal_is_told_how_and_nothing_is_left_on_disk(
    tmp_path: Path,
) -> None:
    laptop = make_home(tmp_path / "laptop")
    host = lantag_process(laptop, *HOSTING, "--game", "prototag", "--seats", "2")
    try:
        port = announced_port(host)
        # The second terminal: the same laptop, so the same identity as the host's.
        joined = lantag(laptop, "join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1")
        assert joined.returncode == 1, joined.stderr
        refusal = [line for line in joined.stderr.splitlines() if line.startswith("refused:")]
        assert refusal == [f"refused: {SEAT_HELD} — {TWO_ON_ONE_LAPTOP}"], joined.stderr
        assert "XDG_CONFIG_HOME=" in refusal[0]
        # The way it names works: a second identity gets the seat.
        other = make_home(tmp_path / "laptop-p2")
        second = lantag_process(
            other, "join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1"
        )
        out, err = second.communicate(timeout=HANG_GUARD)
        assert second.returncode == 0, err
        assert "you are seat 1" in out
    finally:
        host.send_signal(signal.SIGTERM)
        try:
            host.communicate(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            host.kill()
    logs = [p for p in _files(laptop) if p.suffix in (".lantag", ".secret")]
    # The host's game (with the second identity) started: its log and secret; the refused
    # join left nothing of its own.
    assert sorted(p.suffix for p in logs) == [".lantag", ".secret"], logs
    assert all(p.stat().st_size > 0 for p in logs), logs


@pytest.mark.slow
def test_a_lobby_left_before_the_start_leaves_no_log(tmp_path: Path) -> None:
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    host = lantag_process(host_home, *HOSTING, "--game", "prototag", "--seats", "3")
    try:
        port = announced_port(host)
        # A joiner that gives up waiting for the start (the table never fills): SIGTERM.
        joiner = lantag_process(
            joiner_home, "join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1"
        )
        assert joiner.stdout is not None
        assert "seated" in joiner.stdout.readline()  # "lobby: 2/3 seated": it is in
        joiner.send_signal(signal.SIGTERM)
        joiner.communicate(timeout=HANG_GUARD)
    finally:
        host.send_signal(signal.SIGTERM)
        try:
            host.communicate(timeout=HANG_GUARD)
        except subprocess.TimeoutExpired:
            host.kill()
    for home in (host_home, joiner_home):
        litter = [p for p in _files(home) if p.suffix in (".lantag", ".secret")]
        assert litter == [], litter
