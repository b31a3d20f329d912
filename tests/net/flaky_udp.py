"""Socket- and transport-level error injection for the UDP pump (tests/net/test_udp_errors.py).

``FlakySocket`` fails receives and sends the way Windows does after an ICMP port
unreachable (and the way any OS does without a route), on the selector loop this
machine runs.  ``use_proactor`` runs CPython's own proactor (Windows) datagram
transport code here, with or without CPython's gh-127057 fix: a stand-in for IOCP
serves its overlapped receives and sends from the real socket, and can fail them.
``emulate_ioctl`` stands for lanTag's WSAIoctl(SIO_UDP_CONNRESET/NETRESET, FALSE): on a
socket it took on, Winsock reports no reset, so no receive fails.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import socket
from asyncio import proactor_events
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lanTag.net import udp
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


class Faults:
    """What a test's sockets do; shared by every socket made from it (a socket the pump
    re-opens on the same port goes on failing like the one before)."""

    def __init__(
        self, recv_every: int = 0, send_every: int = 0, dead: set[Addr] | None = None
    ) -> None:
        self.recv = Injector(recv_every, offset=1)
        self.send = Injector(send_every)
        self.dead: set[Addr] = dead if dead is not None else set()  # sends fail: no route
        self.gone: set[Addr] = set()  # sends go out; Windows then fails the next receive
        self.resets = 0  # receives failed because of a send to a gone address
        self.suppressed = 0  # reset reports the emulated ioctl kept from the socket


class FlakySocket(socket.socket):
    """A UDP socket whose receives and sends fail now and then (the datagram stays queued
    on a failed receive, as after Windows' WSAECONNRESET; a failed send is lost).
    ``shutdown`` is a no-op: CPython's proactor transport calls it on close, and Linux
    refuses it on an unconnected UDP socket."""

    faults = Faults()
    resets_off = False  # what lanTag's WSAIoctl does on Windows (see emulate_ioctl)
    reset_pending = False
    wake: Callable[[], None] | None = None  # the stand-in IOCP's pending receive

    def recvfrom(self, bufsize: int, flags: int = 0) -> tuple[bytes, Any]:
        if self.reset_pending:
            self.reset_pending = False
            self.faults.resets += 1
            raise ConnectionResetError(errno.ECONNRESET, "port unreachable")
        error = self.faults.recv.next_error()
        if error is not None:
            if not self.resets_off:
                raise error
            self.faults.suppressed += 1
        return super().recvfrom(bufsize, flags)

    def sendto(self, data: Any, *args: Any) -> int:
        addr = args[-1]
        target = (str(addr[0]), int(addr[1]))
        if target in self.faults.dead:
            raise OSError(errno.EHOSTUNREACH, "No route to host")
        error = self.faults.send.next_error()
        if error is not None:
            raise error
        sent = super().sendto(data, *args)
        if target in self.faults.gone:  # the ICMP port unreachable comes back
            if self.resets_off:
                self.faults.suppressed += 1
            else:
                self.reset_pending = True
                if self.wake is not None:
                    self.wake()
        return sent

    def shutdown(self, how: int) -> None:
        pass


class SocketMaker:
    """Stands in for udp._new_socket: FlakySockets sharing ``faults``, in order made."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self.made: list[FlakySocket] = []

    def __call__(self, family: int, type_: int, proto: int) -> socket.socket:
        sock = FlakySocket(family, type_, proto)
        sock.faults = self.faults
        self.made.append(sock)
        return sock


def use_sockets(monkeypatch: pytest.MonkeyPatch, faults: Faults) -> SocketMaker:
    """Every pump started from now on gets FlakySockets (lanTag still binds and prepares
    them), each one's reset reports left on unless ``emulate_ioctl`` says otherwise."""
    maker = SocketMaker(faults)
    monkeypatch.setattr(udp, "_new_socket", maker)
    monkeypatch.setattr(udp, "disable_udp_resets", lambda sock: [])  # as on Linux
    return maker


def emulate_ioctl(monkeypatch: pytest.MonkeyPatch) -> list[socket.socket]:
    """lanTag's WSAIoctl takes: a socket it was called on reports no reset.  Returns the
    sockets it was called on."""
    called: list[socket.socket] = []

    def disable(sock: socket.socket) -> list[str]:
        called.append(sock)
        if isinstance(sock, FlakySocket):
            sock.resets_off = True
        return ["SIO_UDP_CONNRESET", "SIO_UDP_NETRESET"]

    monkeypatch.setattr(udp, "disable_udp_resets", disable)
    return called


def flaky_socket(recv_every: int, send_every: int, dead: set[Addr] | None = None) -> FlakySocket:
    """One bound FlakySocket (for a test that replaces udp._bound_socket itself)."""
    sock = FlakySocket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.faults = Faults(recv_every, send_every, dead)
    sock.setblocking(False)
    sock.bind(("127.0.0.1", 0))
    return sock


class FakeProactor:
    """The two IOCP calls ``_ProactorDatagramTransport`` makes, served by the selector loop
    from a real non-blocking socket.  A receive error is delivered through the future, as
    IOCP does (``recvfrom``'s result raises); a send that fails at once raises, as
    ``WSASendTo`` does."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.recv_calls = 0

    def recvfrom(self, sock: socket.socket, nbytes: int, flags: int = 0) -> asyncio.Future[Any]:
        self.recv_calls += 1
        fut: asyncio.Future[Any] = self.loop.create_future()
        fd = sock.fileno()  # the pump may close the socket before the future is done

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

        self.loop.add_reader(fd, ready)
        if isinstance(sock, FlakySocket):  # a reset completes the pending receive
            sock.wake = lambda: self.loop.call_soon(ready)
        fut.add_done_callback(lambda _: self.loop.remove_reader(fd))
        return fut

    def sendto(
        self, sock: socket.socket, data: bytes, flags: int = 0, addr: Any = None
    ) -> asyncio.Future[Any]:
        fut: asyncio.Future[Any] = self.loop.create_future()
        fut.set_result(sock.sendto(data, addr))
        return fut


class ProactorLoop:
    """The running loop, seen by the transport as a proactor loop (``_proactor``)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._proactor = FakeProactor(loop)

    def __getattr__(self, name: str) -> Any:
        if name == "_loop":  # being torn down (a transport's __repr__ at exit): no recursion
            raise AttributeError(name)
        return getattr(self._loop, name)


class ProactorDatagramTransport(proactor_events._ProactorDatagramTransport):
    """CPython's proactor datagram transport, as it is.  Only its ``__repr__`` is plain:
    a transport left unclosed (CPython's close() never calls connection_lost while a
    write is pending, gh-156920) is repr'd by its ``__del__`` when collected at exit,
    and with the stand-in loop that segfaulted the interpreter here (CPython 3.11.7,
    after all tests had passed; not diagnosed further)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class FixedProactorDatagramTransport(ProactorDatagramTransport):
    """The transport with CPython's gh-127057 fix (main, 3.13-3.15 backports of 2026-09):
    after a failed receive is reported to ``error_received``, the next receive is armed
    (``call_soon(self._loop_reading)``)."""

    def _loop_reading(self, fut: Any = None) -> None:
        super()._loop_reading(fut)
        # only a failed receive leaves an open transport with no receive pending
        if self._read_fut is None and not self._closing and not self._conn_lost:  # type: ignore[attr-defined]
            self._loop.call_soon(self._loop_reading)  # type: ignore[attr-defined]


def use_proactor(monkeypatch: pytest.MonkeyPatch, *, fixed: bool) -> FakeProactor:
    """Every datagram endpoint made on the running loop from now on (asyncio-dgram's
    ``from_socket`` included) is CPython's proactor datagram transport, and the pump
    treats the loop as a proactor one."""
    loop = asyncio.get_running_loop()
    proactor_loop = ProactorLoop(loop)
    make = FixedProactorDatagramTransport if fixed else ProactorDatagramTransport

    async def endpoint(
        factory: Callable[[], asyncio.DatagramProtocol], *args: Any, sock: Any = None, **kw: Any
    ) -> tuple[asyncio.BaseTransport, asyncio.DatagramProtocol]:
        protocol = factory()
        waiter = loop.create_future()
        transport = make(proactor_loop, sock, protocol, waiter=waiter)  # type: ignore[arg-type]
        try:
            await waiter
        except BaseException:  # as CPython's create_datagram_endpoint (a cancelled rebuild)
            transport.close()
            raise
        return transport, protocol

    monkeypatch.setattr(loop, "create_datagram_endpoint", endpoint)
    monkeypatch.setattr(udp, "_selector_loop", lambda loop: False)
    return proactor_loop._proactor
