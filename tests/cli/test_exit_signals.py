"""Every way out says goodbye (issue #35): SIGTERM and SIGHUP end `lantag host` the way
Ctrl-C does (the mDNS goodbye, the LEAVE, a started game's log closed and named), and the console
control handler (Windows' window close) is wired the same way."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from lanTag.cli.exit_signals import CTRL_CLOSE_EVENT, ExitSignals
from lanTag.net.discovery import LobbyBrowser
from lanTag.net.lobby_adverts import LobbyTable
from tests.cli.helpers import HANG_GUARD, announced_port, lantag_process, make_home

GOODBYE_SECONDS = 5.0  # a browser drops a closed game this fast (its TTL is 120 s)


def _multicast_problem() -> str | None:
    from tests.net.test_discovery import _multicast_loopback_problem

    return _multicast_loopback_problem()


@pytest.mark.slow  # a whole process and a real browser on loopback multicast
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
async def test_a_signalled_host_says_goodbye_and_exits_cleanly(tmp_path: Path, sig: str) -> None:
    problem = _multicast_problem()
    if problem:
        pytest.skip(problem)
    name = f"Goodbye {secrets.token_hex(3)}"
    home = make_home(tmp_path / "home")
    log = tmp_path / "host.lantag"
    host = lantag_process(
        home, "host", "--headless", "--bind", "127.0.0.1", "--port", "0",
        "--seats", "2", "--name", name, "--log", str(log),
    )  # fmt: skip
    try:
        port = int(await asyncio.to_thread(announced_port, host))

        def listed(table: LobbyTable) -> bool:
            return any(lob.name == name and lob.port == port for lob in table.lobbies())

        async with LobbyBrowser(["127.0.0.1"]) as browser:
            await browser.wait_for(listed, HANG_GUARD)
            host.send_signal(getattr(signal, sig))
            code = await asyncio.to_thread(host.wait, HANG_GUARD)
            # without the goodbye the advert stays listed for its TTL (120 s)
            await browser.wait_for(lambda table: not listed(table), GOODBYE_SECONDS)
        _, err = host.communicate(timeout=HANG_GUARD)
    finally:
        host.kill()
    assert code == 128 + getattr(signal, sig).value, err
    assert f"lantag: terminated ({sig})" in err
    # Signalled in its lobby: no game started, so no log was made to name (issue 34: no
    # empty logs); a started game's log is named as lantag exits (Ctrl-Q: tests/e2e/test_tmux.py).
    assert not log.exists() and str(log.resolve()) not in err
    assert "Task was destroyed" not in err and "Traceback" not in err, err


async def test_a_signal_stops_once_and_a_second_one_is_ignored() -> None:
    """The second signal must not cut the first one's goodbye short."""
    loop = asyncio.get_running_loop()
    stops: list[tuple[str, int]] = []
    fired = asyncio.Event()

    def stop(reason: str, code: int) -> None:
        stops.append((reason, code))
        fired.set()

    signals = ExitSignals(loop, stop, console=lambda: None)
    installed = signals.install()
    try:
        assert {"SIGTERM", "SIGHUP"} <= set(installed)
        os.kill(os.getpid(), signal.SIGTERM)  # handled by the loop, not the default action
        await asyncio.wait_for(fired.wait(), HANG_GUARD)
        os.kill(os.getpid(), signal.SIGHUP)
        for _ in range(20):
            await asyncio.sleep(0)
    finally:
        signals.remove()
    assert stops == [("SIGTERM", 128 + signal.SIGTERM.value)]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # given back


class FakeConsole:
    def __init__(self) -> None:
        self.handlers: list[tuple[Any, bool]] = []

    def __call__(self, handler: Any, add: bool) -> int:
        self.handlers.append((handler, add))
        return 1


async def test_a_closed_console_stops_the_command_and_waits_for_the_goodbye() -> None:
    loop = asyncio.get_running_loop()
    stops: list[str] = []
    console = FakeConsole()
    signals = ExitSignals(loop, lambda reason, code: stops.append(reason), console=lambda: console)
    assert "console" in signals.install()
    [(handler, added)] = console.handlers
    assert added
    assert handler(0) == 0  # Ctrl-C is left to Python
    answer: list[int] = []
    closing = threading.Thread(target=lambda: answer.append(handler(CTRL_CLOSE_EVENT)))
    closing.start()
    await asyncio.wait_for(_until(lambda: stops == ["console closed"]), HANG_GUARD)
    assert answer == []  # the handler still waits: Windows would end the process now
    signals.remove()  # the goodbye is out
    await asyncio.to_thread(closing.join, HANG_GUARD)
    assert answer == [1]
    assert console.handlers[-1] == (handler, False)


async def test_no_console_api_is_tolerated() -> None:
    def missing() -> Any:
        raise OSError("no kernel32")

    signals = ExitSignals(asyncio.get_running_loop(), lambda r, c: None, console=missing)
    assert "console" not in signals.install()
    signals.remove()


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.01)
