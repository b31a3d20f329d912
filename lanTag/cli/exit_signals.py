"""Every way out says goodbye: SIGTERM, SIGHUP and a closed Windows console end a
command the way Ctrl-C does.

Closing a terminal window sends SIGHUP (macOS, Linux), ``kill`` sends SIGTERM, and
Windows sends the console's control handler CTRL_CLOSE_EVENT (window closed),
CTRL_LOGOFF_EVENT or CTRL_SHUTDOWN_EVENT.  By default each ends the process at once:
no signed LEAVE to the table, no mDNS goodbye (a browser lists the dead game until
the record's TTL runs out, 2 minutes), an unflushed log.  Here each one cancels the
command's task instead, so its ``finally`` blocks close the peer (LEAVE, log) and the
advert (goodbye) inside the running loop, as the cancellation of Ctrl-C does; then
``lantag`` exits with 128 + the signal's number.

Windows ends the process as soon as the console handler returns from a close event,
and at the latest after about 5 s: the handler waits for the goodbye (at most
``CLOSE_GRACE``) before it returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from lanTag.errors import LanTagError

__all__ = ["CLOSE_GRACE", "ExitSignals", "Terminated"]

_log = logging.getLogger(__name__)

CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT = 2, 5, 6
_CONSOLE_EVENTS = {
    CTRL_CLOSE_EVENT: "console closed",
    CTRL_LOGOFF_EVENT: "logoff",
    CTRL_SHUTDOWN_EVENT: "shutdown",
}
CLOSE_GRACE = 4.5
"""Seconds the console handler waits for the goodbye (Windows allows about 5)."""


class Terminated(LanTagError):
    """The command was ended by a signal (or a console event); ``code`` is its exit status."""

    def __init__(self, reason: str, code: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def _unix_signals() -> list[signal.Signals]:
    wanted = ["SIGTERM", "SIGHUP"]
    if sys.version_info < (3, 11):
        # asyncio.run on 3.10 lets KeyboardInterrupt escape the loop and cancels the
        # tasks afterwards ("Task was destroyed but it is pending"); cancel it in the
        # loop instead, as 3.11's asyncio.run does
        wanted.append("SIGINT")
    return [getattr(signal, name) for name in wanted if hasattr(signal, name)]


ConsoleApi = Callable[[Any, bool], int]
"""``kernel32.SetConsoleCtrlHandler(handler, add)``."""


def _console_api() -> ConsoleApi | None:
    if sys.platform == "win32":
        api: ConsoleApi = ctypes.WinDLL("kernel32", use_last_error=True).SetConsoleCtrlHandler
        return api
    return None


class ExitSignals:
    """While installed, the signals above call ``stop(reason, code)`` once, in the loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        stop: Callable[[str, int], None],
        console: Callable[[], ConsoleApi | None] = _console_api,
    ) -> None:
        self._loop = loop
        self._stop = stop
        self._console = console
        self._added: list[signal.Signals] = []
        self._console_handler: Any = None
        self._console_api: ConsoleApi | None = None
        self.reason: str | None = None
        self.done = threading.Event()  # set once the goodbye is out (the console waits)

    def _fire(self, reason: str, code: int) -> None:
        if self.reason is not None:  # a second signal must not cut the goodbye short
            return
        self.reason = reason
        self._stop(reason, code)

    def install(self) -> list[str]:
        """Install what this platform has; names what was installed (never raises)."""
        names: list[str] = []
        for sig in _unix_signals():
            try:
                self._loop.add_signal_handler(sig, self._fire, sig.name, 128 + sig.value)
            except (NotImplementedError, RuntimeError, ValueError, OSError):
                continue  # Windows' proactor loop has no signal handlers; not main thread
            self._added.append(sig)
            names.append(sig.name)
        if self._install_console():
            names.append("console")
        return names

    def _install_console(self) -> bool:
        try:
            api = self._console()
        except (OSError, AttributeError) as exc:
            _log.info("no console control handler (%s)", exc)
            return False
        if api is None:
            return False

        def on_event(event: int) -> int:  # runs in a thread Windows starts for it
            reason = _CONSOLE_EVENTS.get(event)
            if reason is None:
                return 0  # Ctrl-C, Ctrl-Break: Python's own handling
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                self._loop.call_soon_threadsafe(self._fire, reason, 128 + signal.SIGTERM.value)
            self.done.wait(CLOSE_GRACE)
            return 1

        if sys.platform == "win32":
            handler = ctypes.WINFUNCTYPE(ctypes.c_int, ctypes.c_uint32)(on_event)
        else:  # a stand-in API (tests): the plain function
            handler = on_event
        try:
            ok = api(handler, True)
        except (OSError, ctypes.ArgumentError) as exc:
            _log.info("SetConsoleCtrlHandler failed (%s)", exc)
            return False
        if not ok:
            _log.info("SetConsoleCtrlHandler refused")
            return False
        self._console_handler, self._console_api = handler, api  # kept alive while set
        return True

    def remove(self) -> None:
        self.done.set()
        for sig in self._added:
            with contextlib.suppress(RuntimeError, ValueError):
                self._loop.remove_signal_handler(sig)
        self._added.clear()
        if self._console_api is not None:
            with contextlib.suppress(OSError, ctypes.ArgumentError):
                self._console_api(self._console_handler, False)
            self._console_api = None
