"""Issue #38 item 3 with real processes on loopback: squatters holding all the free seats of
an open table (`lantag host --headless --seats 3`, neither --approve nor a password).  Two
identities made with lanTag's own library (``python -m tests.support.squatters``) sit
down and say nothing once the game starts, not even their link of the first roll.  Half
the table would not remain without them, yet the host drops both at the first roll
(SPEC §5.4, "Seats that never played"), plays the game out against bots in their seats,
and its log verifies with both blamed; a friend who comes after the start cannot sit down
(nobody can during a game) and is told so in one line.  No timing is asserted: every wait
is a hang guard.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lanTag.log.verify import verify_log
from tests.cli.helpers import HANG_GUARD, announced_port, lantag, lantag_process, make_home
from tests.support.processes import root_env, support_argv


def _line(proc: subprocess.Popen[str], prefix: str) -> str:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, f"exited ({proc.poll()}) before a line starting {prefix!r}"
        if line.startswith(prefix):
            return line.strip()


@pytest.mark.timeout(6 * HANG_GUARD)
def test_two_squatters_of_three_seats_cannot_hold_an_open_table(tmp_path: Path) -> None:
    host_home = make_home(tmp_path / "host")
    host = lantag_process(
        host_home, "host", "--headless", "--no-advertise", "--bind", "127.0.0.1",
        "--port", "0", "--seats", "3",
    )  # fmt: skip
    squatters = None
    try:
        port = announced_port(host)
        squatters = subprocess.Popen(
            support_argv("squatters", f"127.0.0.1:{port}", "2"),
            env=root_env(make_home(tmp_path / "squatters").env()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert _line(squatters, "started") == "started 2 of 2"
        friend = lantag(
            make_home(tmp_path / "friend"), "join", f"127.0.0.1:{port}", "--headless",
            "--bind", "127.0.0.1", timeout=HANG_GUARD,
        )  # fmt: skip
        # Nobody sits down during a game (SPEC §6 "Open table"): a started host lets only
        # its table's links in, so the friend is told in one line that nobody answers.
        assert friend.returncode != 0 and "Traceback" not in friend.stderr
        assert friend.stderr.splitlines()[-1].startswith("lantag: no answer from 127.0.0.1:")
        out, err = host.communicate(timeout=5 * HANG_GUARD)
        assert host.returncode == 0, err[-2000:]
        assert "Traceback" not in err
        lines = out.splitlines()
        assert lines[0].startswith("started: prototag, you are seat 0"), out[:500]
        drops = [line for line in lines if line.startswith("note: SeatsDropped(")]
        assert drops == ["note: SeatsDropped(step=0, seats=(1, 2), left=())"], out[:2000]
        assert any(line.startswith("game over after") for line in lines), out[-500:]
        [log] = (host_home.data / "lantag" / "logs").glob("*.lantag")
        report = verify_log(log.read_bytes())
        assert report.valid and report.complete, report.failure
        assert [(s, k, c) for s, k, c, _r in report.blames] == [
            (1, 0, "withheld"),
            (2, 0, "withheld"),
        ]
        assert squatters.stdin is not None
        squatters.stdin.close()
        summary = json.loads(_line(squatters, "{"))
        assert summary["seated"] == summary["started"] == 2
        assert summary["held_back"] > 0  # each had its first roll's link, never sent
    finally:
        for proc in (squatters, host):
            if proc is not None:
                proc.kill()
                proc.wait(timeout=60)
