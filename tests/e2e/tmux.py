"""Drive the real ``lantag`` console in tmux: fixed-size panes, keys in, screen text out.

Each :class:`TmuxServer` is a private tmux server (its own ``-L`` socket and a
config with ``remain-on-exit on`` and no status line), so a pane keeps its last
screen and exit status after lantag exits.  Waits poll the screen with a
generous hang guard; nothing asserts how long anything takes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TMUX = shutil.which("tmux")
GUARD = 60.0  # seconds before a wait gives up: a hang guard only
EXIT_MARK = re.compile(r"\[lantag-exit (\d+)\]")
COLOUR_SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def has_colour(escaped: str) -> bool:
    """True if the text holds an SGR sequence that sets a foreground or background colour."""
    for match in COLOUR_SGR.finditer(escaped):
        params = [p for p in re.split(r"[;:]", match.group(1)) if p]
        for p in params:
            n = int(p)
            if 30 <= n <= 37 or 40 <= n <= 47 or 90 <= n <= 97 or 100 <= n <= 107 or n in (38, 48):
                return True
    return False


class Pane:
    def __init__(self, server: TmuxServer, target: str) -> None:
        self.server = server
        self.target = target

    def keys(self, *keys: str) -> None:
        """tmux key names (``Tab``, ``Enter``, ``Right``, ``C-q``) or literal text."""
        self.server.tmux("send-keys", "-t", self.target, *keys)

    def text(self) -> str:
        return self.server.tmux("capture-pane", "-p", "-t", self.target)

    def history(self) -> str:
        """The screen with the lines scrolled off above it (what lantag left behind)."""
        return self.server.tmux("capture-pane", "-p", "-S", "-1000", "-t", self.target)

    def joined_history(self) -> list[str]:
        """The history with lines the pane wrapped joined back (what a copy would get)."""
        text = self.server.tmux("capture-pane", "-p", "-J", "-S", "-1000", "-t", self.target)
        return [line.strip() for line in text.splitlines()]

    def escaped(self) -> str:
        return self.server.tmux("capture-pane", "-e", "-p", "-t", self.target)

    def lines(self) -> list[str]:
        return self.text().split("\n")

    def wait(self, predicate: Callable[[str], bool], what: str, guard: float = GUARD) -> str:
        """Poll the screen until ``predicate(screen)``; fail with the last screen otherwise."""
        deadline = time.monotonic() + guard
        while True:
            screen = self.text()
            if predicate(screen):
                return screen
            if self.dead() is not None:
                raise AssertionError(f"lantag exited while waiting for {what}:\n{self.history()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"never saw {what}; the screen:\n{screen}")
            time.sleep(0.1)

    def wait_for(self, needle: str, guard: float = GUARD) -> str:
        return self.wait(lambda s: needle in s, repr(needle), guard)

    def settled(self, guard: float = GUARD) -> str:
        """A screen that stayed the same for a moment (no redraw half done)."""
        deadline = time.monotonic() + guard
        last = self.text()
        while True:
            time.sleep(0.2)
            now = self.text()
            if now == last or time.monotonic() > deadline:
                return now
            last = now

    def bell_rang(self) -> bool:
        """Whether the terminal bell rang in this pane's window (tmux keeps the flag while
        the window is not looked at: the test's sessions are detached)."""
        flag = self.server.tmux("display-message", "-p", "-t", self.target, "#{window_bell_flag}")
        return flag == "1"

    def dead(self) -> int | None:
        """lantag's exit status once it has exited, else None.

        The pane runs ``sh -c 'lantag ...; echo "[lantag-exit $?]"'`` (see
        :meth:`TmuxServer.start`): tmux's own ``#{pane_dead_status}`` is sometimes left
        empty (tmux 3.3a), the echoed status never is.
        """
        match = EXIT_MARK.search(self.history())
        return int(match.group(1)) if match else None

    def wait_exit(self, guard: float = GUARD) -> int:
        deadline = time.monotonic() + guard
        while (status := self.dead()) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"lantag did not exit; the screen:\n{self.text()}")
            time.sleep(0.1)
        return status


class TmuxServer:
    def __init__(self, workdir: Path, env: dict[str, str]) -> None:
        assert TMUX is not None
        self.socket = f"lantag-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        conf = workdir / "tmux.conf"
        conf.write_text("set -g remain-on-exit on\nset -g status off\nset -g history-limit 1000\n")
        self.base = [TMUX, "-L", self.socket, "-f", str(conf)]
        self.env = env

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            [*self.base, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout.rstrip("\n")

    def start(
        self,
        name: str,
        argv: list[str],
        env: dict[str, str],
        width: int = 100,
        height: int = 30,
    ) -> Pane:
        """Run ``argv`` with the variables ``env`` set in a new width x height session."""
        inner = shlex.join(["env", *(f"{k}={v}" for k, v in env.items()), *argv])
        command = shlex.join(["sh", "-c", inner + '; echo "[lantag-exit $?]"'])
        self.tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), command)
        return Pane(self, f"{name}:0.0")

    def kill(self) -> None:
        subprocess.run(
            [*self.base, "kill-server"], env=self.env, capture_output=True, timeout=30, check=False
        )
