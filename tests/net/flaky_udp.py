"""Socket- and transport-level error injection for the UDP pump (tests/net/test_udp_errors.py).

``FlakySocket`` fails receives and sends the way Windows does after an ICMP port
unreachable (and the way any OS does without a route), on the selector loop this
machine runs.  ``proactor_transport`` runs CPython's own proactor (Windows) datagram
transport code here: a stand-in for IOCP serves its overlapped receives and sends
from the real socket, and can fail them.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import socket
from asyncio import proactor_events
from collections.abc import Iterator
from typing import Any

from lanTag.net.endpoint import Addr

# What a per-datagram receive or send can raise: Windows' WSAECONNRESET after a port
# unreachable, a vanished route, a refused port.
ERRORS: tuple[OSError, ...] = (
    ConnectionResetError(errno.ECONNRESET, "port unreachable"),
    OSError(errno.EHOSTUNREACH, "No route to host"),
    OSError(errno.ENETUNREACH, "Network is unreachable"),
    ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
)


class Injector:
    """Fails every ``every``-th call, cycling through ERRORS; counts what it raised."""

    def __init__(self, every: int, offset: int = 0) -> None:
        self.every = every
        self.calls = offset
        self.raised = 0
        self._errors: Iterator[OSError] = itertools.cycle(ERRORS)

    def next_error(self) -> OSError | None:
        self.calls += 1
        if self.every and self.calls % self.every == 0:
            self.raised += 1
            return next(self._errors)
        return None


class FlakySocket(socket.socket):
    """A UDP socket whose receives and sends fail now and then (the datagram stays queued
    on a failed receive, as after Windows' WSAECONNRESET; a failed send is lost).
    ``shutdown`` is a no-op: CPython's proactor transport calls it on close, and Linux
    refuses it on an unconnected UDP socket."""

    recv_faults = Injector(0)
    send_faults = Injector(0)
    dead: set[Addr] = set()  # sends to these always fail with EHOSTUNREACH  # noqa: RUF012

    def recvfrom(self, bufsize: int, flags: int = 0) -> tuple[bytes, Any]:
        error = self.recv_faults.next_error()
        if error is not None:
            raise error
        return super().recvfrom(bufsize, flags)

    def sendto(self, data: Any, *args: Any) -> int:
        addr = args[-1]
        if (str(addr[0]), int(addr[1])) in self.dead:
            raise OSError(errno.EHOSTUNREACH, "No route to host")
        error = self.send_faults.next_error()
        if error is not None:
            raise error
        return super().sendto(data, *args)

    def shutdown(self, how: int) -> None:
        pass


def flaky_socket(recv_every: int, send_every: int, dead: set[Addr] | None = None) -> FlakySocket:
    sock = FlakySocket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.recv_faults = Injector(recv_every, offset=1)
    sock.send_faults = Injector(send_every)
    sock.dead = dead if dead is not None else set()
    sock.setblocking(False)
    sock.bind(("127.0.0.1", 0))
    return sock


class FakeProactor:
    """The two IOCP calls ``_ProactorDatagramTransport`` makes, served by the selector loop
    from a real non-blocking socket.  A receive error is delivered through the future, as
    IOCP does (``recvfrom``'s result raises)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.recv_calls = 0

    def recvfrom(self, sock: socket.socket, nbytes: int, flags: int = 0) -> asyncio.Future[Any]:
        self.recv_calls += 1
        fut: asyncio.Future[Any] = self.loop.create_future()

        def ready() -> None:
            if fut.done():
                return
            try:
                result = sock.recvfrom(nbytes)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                fut.set_exception(exc)
            else:
                fut.set_result(result)
            self.loop.remove_reader(sock.fileno())

        self.loop.add_reader(sock.fileno(), ready)
        fut.add_done_callback(lambda _: self.loop.remove_reader(sock.fileno()))
        return fut

    def sendto(
        self, sock: socket.socket, data: bytes, flags: int = 0, addr: Any = None
    ) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = self.loop.create_future()
        try:
            fut.set_result(sock.sendto(data, addr))
        except OSError as exc:
            fut.set_exception(exc)
        return fut


class ProactorLoop:
    """The running loop, seen by the transport as a proactor loop (``_proactor``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._proactor = FakeProactor(loop)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loop, name)


async def open_proactor_transport(
    loop: asyncio.AbstractEventLoop, sock: socket.socket, protocol: asyncio.DatagramProtocol
) -> bool:
    """Stand-in for udp._open_transport: CPython's proactor datagram transport."""
    proactor_events._ProactorDatagramTransport(ProactorLoop(loop), sock, protocol)  # type: ignore[arg-type]
    return False  # a proactor owns its reads: the pump must not read the socket itself
