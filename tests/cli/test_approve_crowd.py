"""Issue #38 item 3 with real processes on loopback: `lantag host --headless --approve`,
1,000 throwaway identities waiting at its door (``python -m tests.support.crowd``: one
process, one socket each on 127.1.0.0/16, all nicknamed "friend"), then the real friend
(`lantag join`).  The host is asked about each in turn and lets in only the friend's key
(the crowd came first: 1,000 noes before the yes).  The friend gets the start and plays
the game out, never blamed; every refused identity hears its refusal (before the yes: a
headless host whose bots play a game out in a second or two quits right after it, and
answers nobody then).  No timing is
asserted; every wait is a hang guard, sized for a loaded 2-core machine (the crowd alone
is 1,000 UDP pumps in one Python process).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import IO

import pytest

from lanTag.log.verify import verify_log
from tests.cli.helpers import announced_port, lantag, lantag_process, make_home
from tests.support.processes import root_env, support_argv

CROWD = 1000
GUARD = 600.0  # seconds for each phase of the crowd's run: a hang, not a slow machine
FINGERPRINT = re.compile(r"fingerprint:\s+([0-9a-f]{16})")


def _read_until(stream: IO[str], end: str) -> str:
    text = ""
    while not text.endswith(end):
        char = stream.read(1)
        assert char, f"stream closed after {text[-300:]!r}"
        text += char
    return text


def _crowd_line(crowd: subprocess.Popen[str], prefix: str) -> str:
    """The crowd's next line starting with ``prefix`` (its progress lines are skipped)."""
    assert crowd.stdout is not None
    while True:
        line = crowd.stdout.readline()
        assert line, f"the crowd exited ({crowd.poll()}) before {prefix!r}"
        if line.startswith(prefix):
            return line.strip()


@pytest.mark.slow  # 1,000 identities and three processes: a few minutes on a busy machine
@pytest.mark.timeout(3 * GUARD)
def test_a_thousand_waiting_identities_cannot_keep_the_approved_friend_out(
    tmp_path: Path,
) -> None:
    host = lantag_process(
        make_home(tmp_path / "host"), "host", "--headless", "--approve", "--no-advertise",
        "--bind", "127.0.0.1", "--port", "0", "--seats", "2", stdin=subprocess.PIPE,
    )  # fmt: skip
    crowd = friend = None
    try:
        assert host.stderr is not None and host.stdin is not None
        port = announced_port(host)
        crowd = subprocess.Popen(
            support_argv("crowd", f"127.0.0.1:{port}", str(CROWD)),
            env=root_env(make_home(tmp_path / "crowd").env()),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert crowd.stdout is not None
        waiting = line = ""
        while not line.startswith("crowd ready"):
            line = crowd.stdout.readline()
            assert line, "the crowd exited before it was ready"
            waiting = line.strip() if line.startswith("waiting") else waiting
        assert waiting == f"waiting {CROWD} of {CROWD}", waiting  # all of them at the door
        friend_home = make_home(tmp_path / "friend")
        made = lantag(friend_home, "id", env={"USER": "friend"})
        key = FINGERPRINT.search(made.stdout)
        assert key is not None, made.stdout
        friend = lantag_process(
            friend_home, "join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1",
            env={"USER": "friend"},
        )  # fmt: skip
        noes = 0
        while True:
            prompt = _read_until(host.stderr, "let them in? [y/n] ").splitlines()[-1]
            assert prompt.startswith("friend (key ") and "asks to sit" in prompt, prompt
            if f"(key {key.group(1)}," in prompt:
                break
            host.stdin.write("n\n")
            host.stdin.flush()
            noes += 1
        assert noes == CROWD  # the friend came last: every thrown-away identity was asked
        # Every refused identity hears it while the host runs (the ones whose link the
        # crowd evicted, too): the friend waits at the door meanwhile.
        refused = 0
        while refused < CROWD:
            refused = int(_crowd_line(crowd, "refused").split()[1])
        host.stdin.write("y\n")
        host.stdin.flush()
        out, err = friend.communicate(timeout=GUARD)
        assert friend.returncode == 0, err[-2000:]
        lines = [line for line in out.splitlines() if not line.startswith("lobby: ")]
        assert lines[0].startswith("started: prototag, you are seat 1 (friend)"), out[:500]
        assert any(line.startswith("game over after") for line in lines), out[-500:]
        [log] = (friend_home.data / "lantag" / "logs").glob("*.lantag")
        report = verify_log(log.read_bytes())
        assert report.valid, report.failure
        assert [b for b in report.blames if b[0] == 1] == []  # not blamed `timeout`
        assert crowd.stdin is not None
        crowd.stdin.close()
        summary = json.loads(_crowd_line(crowd, "{"))
        assert summary["answers"] == {"refused: the host did not let you in": CROWD}
        assert "Traceback" not in err
    finally:
        for proc in (friend, crowd, host):
            if proc is not None:
                proc.kill()
                proc.wait(timeout=60)
