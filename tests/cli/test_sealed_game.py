"""The table signs the result, with real processes (protocol 3, SPEC §3 SEAL): a `lantag host`
and a `lantag join` bot game on loopback; both logs verify as complete and sealed by both
seats, and both processes say so and exit once the seals are in (a bounded wait)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import (
    HANG_GUARD,
    announced_port,
    lantag,
    lantag_process,
    make_home,
    patient_env,
)


def test_a_host_and_a_joiner_both_log_the_seals_of_both_seats(tmp_path: Path) -> None:
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    host_log, joiner_log = tmp_path / "host.lantag", tmp_path / "joiner.lantag"
    # SEAL_WAIT (3 s after game over) is wall-clock time: a peer starved that long on a
    # loaded machine seals too late.  Both processes take seals for 30 s instead.
    env = patient_env(tmp_path / "patient")
    hosting = ["host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0"]
    host = lantag_process(
        host_home, *hosting, "--seats", "2", "--bot", "random", "--log", str(host_log), env=env
    )
    try:
        port = announced_port(host)
        joined = lantag(
            joiner_home,
            "join",
            f"127.0.0.1:{port}",
            "--headless",
            "--bind",
            "127.0.0.1",
            "--bot",
            "random",
            "--log",
            str(joiner_log),
            env=env,
        )
        assert joined.returncode == 0, joined.stderr
        host_out, host_err = host.communicate(timeout=HANG_GUARD)
    finally:
        host.kill()
    assert host.returncode == 0, host_err
    for out in (joined.stdout, host_out):
        assert "sealed by seats 0 1\n" in out
    for log in (host_log, joiner_log):
        done = lantag(host_home, "verify", "--json", str(log))
        assert done.returncode == 0, done.stdout + done.stderr
        report = json.loads(done.stdout)
        assert report["complete"] and report["sealed_by"] == [0, 1], report
        text = lantag(host_home, "verify", str(log)).stdout
        assert "VALID, complete, sealed by seats 0 1: " in " ".join(text.split())
