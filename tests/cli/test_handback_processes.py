"""Resume means playing again, with real processes (protocol 5, SPEC §5.6): a `lantag host`
and a `lantag join` bot game on loopback; the joiner is killed (SIGKILL), its seat dropped,
and `lantag join --resume LOG` takes the seat back from the bot through an admission in the
host's next MOVE.  Both processes say so, the resumed seat plays moves of its own again, and
both logs verify.  Every wait is for a condition (a line printed, a process ending), with a
hang guard; nothing is timed."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from lanTag.log.entries import EntryKind, parse_log
from lanTag.session.messages import MsgType, parse_unverified
from tests.cli.helpers import (
    HANG_GUARD,
    announced_port,
    lantag,
    lantag_process,
    make_home,
    pythonpath_with,
)

# The host's side, through a sitecustomize: it votes a dead peer after one lag warning (2 s,
# not 4: the joiner is SIGKILLed, so nothing is lost but wall time), and once a seat is
# dropped its bot does not move until it holds that seat's REJOIN (a person who waits for
# the friend whose laptop crashed): the game cannot end before the resume, and the host's
# next MOVE is what carries the admission.  Nothing about the protocol is changed.
HOST_SIDE = """
import lanTag.peer.machine as m
import lanTag.session.silence as a

a.DEAD_AFTER_LAGS = 1
_act = m.BotDriver.act


def act(self, session, random_bytes, now):
    humans = {i for i, s in enumerate(session.record.seats) if not s.is_bot}
    if humans - session.live and not session.handback.rejoins:
        return  # a seat is dropped: wait for its person to ask back
    _act(self, session, random_bytes, now)


m.BotDriver.act = act
"""

# The joiner's side before its crash: its bot stops playing from step 3 on (a person who
# thinks), so the game waits for it while the test kills it; the resumed process plays.
JOINER_SIDE = """
import lanTag.peer.machine as m

_act = m.BotDriver.act


def act(self, session, random_bytes, now):
    if session.step < 3:
        _act(self, session, random_bytes, now)


m.BotDriver.act = act
"""


def _side(where: Path, source: str) -> dict[str, str]:
    where.mkdir(parents=True)
    (where / "sitecustomize.py").write_text(source, encoding="utf-8")
    return {"PYTHONPATH": pythonpath_with(where)}


class Lines:
    """A process's stdout, read line by line in a thread (a wait never blocks on a read)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        assert proc.stdout is not None
        stream = proc.stdout

        def pump() -> None:
            for line in stream:
                self._queue.put(line.rstrip("\n"))
            self._queue.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def wait_for(self, predicate: object, guard: float = HANG_GUARD) -> str:
        """The first line (already seen or to come) for which ``predicate`` holds."""
        assert callable(predicate)
        for line in self.seen:
            if predicate(line):
                return line
        deadline = time.monotonic() + guard
        while True:
            try:
                line = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                seen = self.seen[-5:]
                raise AssertionError(f"no such line within the hang guard: {seen}") from None
            if line is None:
                raise AssertionError(f"the process ended first: {self.seen[-12:]}")
            self.seen.append(line)
            if predicate(line):
                return line

    def rest(self) -> list[str]:
        while (line := self._queue.get(timeout=HANG_GUARD)) is not None:
            self.seen.append(line)
        return self.seen


@pytest.mark.slow  # whole processes, a few seconds of wall time
def test_a_killed_joiner_resumes_and_plays_its_seat_again(tmp_path: Path) -> None:
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    host_log, joiner_log = tmp_path / "host.lantag", tmp_path / "joiner.lantag"
    hosting = ["host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0"]
    host = lantag_process(
        host_home,
        *hosting,
        "--seats",
        "2",
        "--bot",
        "random",
        "--log",
        str(host_log),
        env=_side(tmp_path / "host-side", HOST_SIDE),
    )
    procs = [host]
    try:
        port = announced_port(host)
        joining = ["--headless", "--bind", "127.0.0.1", "--bot", "random"]
        joiner = lantag_process(
            joiner_home,
            "join",
            f"127.0.0.1:{port}",
            *joining,
            "--log",
            str(joiner_log),
            env=_side(tmp_path / "joiner-side", JOINER_SIDE),
        )
        procs.append(joiner)
        joined = Lines(joiner)
        host_lines = Lines(host)
        joined.wait_for(lambda line: line.startswith("step 2:"))  # it thinks at step 3
        joiner.send_signal(signal.SIGKILL)
        joiner.wait(timeout=HANG_GUARD)
        host_lines.wait_for(lambda line: line.startswith("note: SeatsDropped"))
        resumed = lantag_process(
            joiner_home, "join", "--resume", str(joiner_log), "--headless", "--bot", "random"
        )
        procs.append(resumed)
        again = Lines(resumed)
        again.wait_for(lambda line: line.startswith("waiting for the table to let you back in"))
        back = again.wait_for(lambda line: line.startswith("you are back in seat 1 from step "))
        back_step = int(back.rsplit(" ", 1)[1])
        host_lines.wait_for(lambda line: line.endswith("is back in seat 1"))
        assert resumed.wait(timeout=HANG_GUARD) == 0, again.rest()
        assert host.wait(timeout=HANG_GUARD) == 0, host_lines.rest()
    finally:
        for proc in procs:
            proc.kill()
    mine = [
        msg
        for entry in parse_log(joiner_log.read_bytes()).entries
        if entry.kind == EntryKind.MSG
        and (msg := parse_unverified(entry.data)).seat == 1
        and msg.type is MsgType.MOVE
        and msg.step >= back_step
    ]
    assert mine, "the resumed seat played no move of its own"
    for log in (host_log, joiner_log):
        done = lantag(host_home, "verify", "--json", str(log))
        assert done.returncode == 0, done.stdout + done.stderr
        report = json.loads(done.stdout)
        assert report["valid"] and report["complete"], report
