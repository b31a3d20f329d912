"""lanTag's WSAIoctl call (Windows' UDP reset reports off), with Winsock stood in for:
both codes asked with FALSE, a refusal or a missing ws2_32 logged and tolerated."""

from __future__ import annotations

import ctypes
import logging
import socket
from typing import Any

import pytest

from lanTag.net.winsock import SIO_UDP_CONNRESET, SIO_UDP_NETRESET, disable_udp_resets


class FakeWinsock:
    def __init__(self, refuse: set[int] | None = None) -> None:
        self.refuse = refuse or set()
        self.calls: list[tuple[int, int, int, int]] = []

    def ioctl(self, *args: Any) -> int:
        handle, code, inbuf, insize = args[:4]
        value = ctypes.cast(inbuf, ctypes.POINTER(ctypes.c_uint32)).contents.value
        self.calls.append((handle.value, code.value, value, insize))
        return -1 if code.value in self.refuse else 0

    def __call__(self) -> tuple[Any, Any]:
        return self.ioctl, lambda: 10045  # WSAEOPNOTSUPP


def test_both_reset_reports_are_turned_off_on_the_socket() -> None:
    winsock = FakeWinsock()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        done = disable_udp_resets(sock, winsock)
        fd = sock.fileno()
    assert done == ["SIO_UDP_CONNRESET", "SIO_UDP_NETRESET"]
    assert winsock.calls == [(fd, SIO_UDP_CONNRESET, 0, 4), (fd, SIO_UDP_NETRESET, 0, 4)]
    assert (SIO_UDP_CONNRESET, SIO_UDP_NETRESET) == (0x9800000C, 0x9800000F)  # mstcpip.h


def test_a_refusal_is_logged_and_the_rest_still_asked(caplog: pytest.LogCaptureFixture) -> None:
    winsock = FakeWinsock(refuse={SIO_UDP_CONNRESET})
    with caplog.at_level(logging.INFO), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        assert disable_udp_resets(s, winsock) == ["SIO_UDP_NETRESET"]
    assert "SIO_UDP_CONNRESET refused (WSA error 10045)" in caplog.text


def test_no_winsock_is_tolerated(caplog: pytest.LogCaptureFixture) -> None:
    def missing() -> tuple[Any, Any]:
        raise OSError("ws2_32 not found")

    with caplog.at_level(logging.INFO), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        assert disable_udp_resets(s, missing) == []
        assert disable_udp_resets(s, lambda: None) == []  # not Windows: nothing to do
    assert "cannot load WSAIoctl" in caplog.text
