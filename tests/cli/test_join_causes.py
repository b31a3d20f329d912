"""Why a join got no answer, in one line (issue #23): what the socket saw, and each OS's
usual suspects (firewall, macOS Local Network permission, wrong address)."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

import pytest

from lanTag.cli.join_help import likely_causes, no_answer_line
from lanTag.cli.play_commands import host_answered
from lanTag.net import udp
from lanTag.peer.runtime import open_join
from tests.net.flaky_udp import flaky_socket
from tests.net.real_table import LOCAL, me

A, B = ("10.100.0.6", 4242), ("10.77.0.1", 4242)


def test_no_route_names_the_address_or_macos_local_network() -> None:
    linux = likely_causes([A, B], {A: "ENETUNREACH"}, "ENETUNREACH", "linux")
    assert linux == ["10.100.0.6 is unreachable from this laptop (no route): wrong address?"]
    mac = likely_causes([A], {A: "EHOSTUNREACH"}, "EHOSTUNREACH", "darwin")
    assert len(mac) == 1 and "Local Network" in mac[0] and "Privacy & Security" in mac[0]


def test_a_refused_send_is_the_local_firewall_a_closed_port_is_named() -> None:
    assert likely_causes([A], {A: "EPERM"}, "EPERM", "linux") == [
        "this laptop's firewall refused to send (permission denied)?"
    ]
    closed = likely_causes([A], {}, "ECONNRESET", "win32")  # Windows: port unreachable
    assert closed[0] == "the host's laptop says that port is closed: wrong port, or game over?"


def test_silence_gives_each_os_its_firewall_question() -> None:
    assert likely_causes([A], {}, None, "linux") == []  # the generic line says firewall
    [windows] = likely_causes([A], {}, None, "win32")
    assert "Windows Firewall" in windows and "Private" in windows
    [mac] = likely_causes([A], {}, None, "darwin")
    assert "Local Network" in mac
    assert likely_causes([A], {B: "EHOSTUNREACH"}, None, "linux") == []  # B was not tried


async def test_the_join_path_sees_unreachable_sends_within_the_timeout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Every send to the host fails with EHOSTUNREACH (injected at the socket): after the
    join timeout the pump has marked the address, and the line says why."""
    dead = (LOCAL, 9)
    sock = flaky_socket(0, 0, dead={dead})

    async def bound(bind: object) -> socket.socket:
        return sock

    monkeypatch.setattr(udp, "_bound_socket", bound)
    handle = await open_join(dead, me("j"), bind=(LOCAL, 0))
    try:
        assert not await host_answered(handle, 1.0)
        assert handle.pump.unreachable == {dead: errno.errorcode[errno.EHOSTUNREACH]}
        causes = likely_causes([dead], handle.pump.unreachable, handle.pump.last_error, "linux")
        line = no_answer_line(dead, 1.0, causes)
        assert "127.0.0.1 is unreachable from this laptop (no route): wrong address?" in line
    finally:
        await handle.close()
