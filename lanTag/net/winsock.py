"""Windows-only socket options the standard library cannot set (``socket.ioctl`` accepts
only SIO_RCVALL, SIO_KEEPALIVE_VALS and SIO_LOOPBACK_FAST_PATH).

On Windows an ICMP "port unreachable" (a datagram we sent to a peer that has gone) or
"TTL expired" comes back as WSAECONNRESET / WSAENETRESET on the socket's *next receive*,
and CPython's proactor datagram transport then stops reading (gh-127057, fixed only in
later patch releases).  Turning off ``SIO_UDP_CONNRESET`` and ``SIO_UDP_NETRESET`` makes
Winsock drop those reports instead, so they never reach the transport: the cure every
Windows UDP program uses, applied to the socket before asyncio sees it.  A failure is
logged and tolerated: the UDP pump also survives the reports (it rebuilds its stream).
"""

from __future__ import annotations

import ctypes
import logging
import socket
import sys
from collections.abc import Callable

__all__ = ["SIO_UDP_CONNRESET", "SIO_UDP_NETRESET", "disable_udp_resets"]

_log = logging.getLogger(__name__)

# _WSAIOW(IOC_VENDOR, 12) and _WSAIOW(IOC_VENDOR, 15) from mstcpip.h
SIO_UDP_CONNRESET = 0x9800000C
SIO_UDP_NETRESET = 0x9800000F
_CODES = (("SIO_UDP_CONNRESET", SIO_UDP_CONNRESET), ("SIO_UDP_NETRESET", SIO_UDP_NETRESET))

WsaIoctl = Callable[..., int]
"""``ws2_32.WSAIoctl``: (socket, code, in buffer, in size, out buffer, out size,
bytes returned, overlapped, completion routine) -> 0, or SOCKET_ERROR (-1)."""


def _winsock() -> tuple[WsaIoctl, Callable[[], int]] | None:
    if sys.platform == "win32":
        ws2_32 = ctypes.WinDLL("ws2_32", use_last_error=True)
        return ws2_32.WSAIoctl, ws2_32.WSAGetLastError
    return None


def disable_udp_resets(
    sock: socket.socket,
    winsock: Callable[[], tuple[WsaIoctl, Callable[[], int]] | None] = _winsock,
) -> list[str]:
    """Turn off the reset reports on a Windows UDP socket; the names of the codes that took
    (empty elsewhere, or when Winsock refused: logged, never raised)."""
    try:
        calls = winsock()
    except (OSError, AttributeError) as exc:  # no ws2_32 or no WSAIoctl: nothing to turn off
        _log.info("cannot load WSAIoctl (%s); UDP reset reports stay on", exc)
        return []
    if calls is None:
        return []
    ioctl, last_error = calls
    done: list[str] = []
    for name, code in _CODES:
        off = ctypes.c_uint32(0)  # BOOL FALSE: do not report
        returned = ctypes.c_uint32(0)
        try:
            result = ioctl(
                ctypes.c_size_t(sock.fileno()),
                ctypes.c_uint32(code),
                ctypes.byref(off),
                ctypes.sizeof(off),
                None,
                0,
                ctypes.byref(returned),
                None,
                None,
            )
        except (OSError, ctypes.ArgumentError) as exc:
            _log.info("WSAIoctl %s failed (%s); those reports stay on", name, exc)
            continue
        if result != 0:
            _log.info(
                "WSAIoctl %s refused (WSA error %d); those reports stay on", name, last_error()
            )
            continue
        done.append(name)
    return done
