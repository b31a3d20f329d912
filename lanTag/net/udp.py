"""The asyncio pump: real UDP sockets (an asyncio datagram transport) driving one sans-IO machine.

All protocol logic lives in the machine; this file only moves bytes, reads the
clock and arms one timer.  An optional :class:`~lanTag.net.netsim.NetSim` is
applied to outgoing datagrams (dropped, duplicated, or sent later through
``loop.call_later``), because this kernel offers no netem.

Received datagrams are handled in batches: after one arrives, every datagram the
socket already holds is read too, fed to the machine in order, and only then is
the machine's output collected and its timer re-armed (once per batch, not per
datagram).  The receive buffer is enlarged (``RCVBUF``, best effort) so bursts
from many peers are not dropped by the kernel.

Per-datagram socket errors never stop the pump.  On Windows a datagram sent to a
peer that has gone comes back as "port unreachable": the next receive fails with
ConnectionResetError, and CPython's proactor datagram transport then stops reading
for good (gh-127057); :func:`_resume_reading` starts it again.  Errors of a send
are pinned on the address sent to (:attr:`UdpPump.unreachable`) until a datagram
from that address arrives; the machine never hears of them, so for the session an
unreachable peer is a silent one (its usual timeouts and votes apply).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import time
from collections.abc import Callable
from typing import cast

from lanTag.net.endpoint import Addr, DatagramMachine, LinkEndpoint
from lanTag.net.netsim import NetSim

__all__ = ["LinkEndpoint", "PumpStats", "UdpPump", "run_machine"]

_log = logging.getLogger(__name__)

RCVBUF = 4 << 20
"""Requested socket receive buffer (bytes); the kernel may cap it (net.core.rmem_max)."""
MAX_BATCH = 256
"""At most this many datagrams are fed to the machine between two output flushes."""
MAX_BATCH_SECONDS = 0.005
"""...and for at most this long, so acks and replies are not held back (cf. ack_delay)."""
_MAX_DATAGRAM = 65536


class PumpStats:
    """Socket-level counters (the machine keeps its own protocol counters)."""

    __slots__ = ("batches", "rcvbuf", "received", "recv_errors", "send_errors", "sent")

    def __init__(self) -> None:
        self.received = self.sent = self.send_errors = self.recv_errors = 0
        self.batches = 0  # output flushes after received datagrams
        self.rcvbuf = 0  # receive buffer the kernel granted (as getsockopt reports it)


def error_name(exc: OSError) -> str:
    """A short stable name for a socket error: ``ECONNREFUSED``, ``EHOSTUNREACH``..."""
    code = exc.errno
    if code is not None and code in errno.errorcode:
        return errno.errorcode[code]
    return type(exc).__name__


class _Protocol(asyncio.DatagramProtocol):
    """The transport's callbacks, handed to the pump (queue, errors, flow control)."""

    def __init__(self, pump: UdpPump) -> None:
        self.pump = pump
        self.transport: asyncio.DatagramTransport | None = None
        self.made: asyncio.Future[None] = pump._loop.create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # CPython's selector datagram transport does not subclass DatagramTransport
        self.transport = cast(asyncio.DatagramTransport, transport)
        if not self.made.done():
            self.made.set_result(None)

    def datagram_received(self, data: bytes, addr: tuple[str | object, int]) -> None:
        self.pump._inq.put_nowait((data, addr))

    def error_received(self, exc: Exception) -> None:
        self.pump._socket_error(exc)
        if self.transport is not None:  # later: the transport is still inside its read
            self.pump._loop.call_soon(_resume_reading, self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self.pump._inq.put_nowait(None)

    def pause_writing(self) -> None:
        self.pump._drained.clear()

    def resume_writing(self) -> None:
        self.pump._drained.set()


def _resume_reading(transport: asyncio.BaseTransport) -> None:
    """Start a proactor datagram transport reading again after a failed receive.

    CPython's ``_ProactorDatagramTransport._loop_reading`` (3.8-3.13) reports a
    failed overlapped receive to ``error_received`` and schedules no new receive,
    so one ICMP port-unreachable ends all reception on Windows.  A transport in that
    state has no read pending (``_read_fut is None``); any other transport (the
    selector one keeps reading by itself) is left alone.
    """
    if transport.is_closing() or getattr(transport, "_conn_lost", False):
        return
    loop_reading = getattr(transport, "_loop_reading", None)
    if loop_reading is None or getattr(transport, "_read_fut", False) is not None:
        return
    _log.debug("restarting reception after a receive error")
    loop_reading()


async def _open_transport(
    loop: asyncio.AbstractEventLoop, sock: socket.socket, protocol: asyncio.DatagramProtocol
) -> bool:
    """Wrap ``sock`` in the loop's datagram transport; True when the pump may also read
    the socket itself to drain a burst (selector loops; a proactor owns its reads).
    Tests replace this to run CPython's proactor (Windows) transport on this machine."""
    await loop.create_datagram_endpoint(lambda: protocol, sock=sock)
    return isinstance(loop, asyncio.SelectorEventLoop)


class UdpPump:
    """Feeds one bound UDP socket to ``machine``.  Create with :meth:`start`."""

    def __init__(
        self,
        machine: DatagramMachine,
        sock: socket.socket,
        netsim: NetSim | None,
        clock: Callable[[], float],
    ) -> None:
        self.machine = machine
        self.netsim = netsim
        self.clock = clock
        self.stats = PumpStats()
        self.unreachable: dict[Addr, str] = {}
        """Addresses whose last send failed (error name), until they are heard from."""
        self.last_error: str | None = None
        """The last socket error of any kind (receive errors name no address)."""
        self._sock = sock
        self._sockname = sock.getsockname()
        self.stats.rcvbuf = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        self._loop = asyncio.get_running_loop()
        self._direct = False  # may read the socket itself (see _open_transport)
        self._inq: asyncio.Queue[tuple[bytes, object] | None] = asyncio.Queue()
        self._outq: asyncio.Queue[tuple[bytes, Addr]] = asyncio.Queue()
        self._drained = asyncio.Event()
        self._drained.set()
        self._sending_to: Addr | None = None
        self.protocol = _Protocol(self)
        self._timer: asyncio.TimerHandle | None = None
        self._delayed: set[asyncio.TimerHandle] = set()
        self._failure: BaseException | None = None
        self._closed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    @classmethod
    async def start(
        cls,
        machine: DatagramMachine,
        bind: Addr,
        netsim: NetSim | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> UdpPump:
        sock = await _bound_socket(bind)
        try:
            pump = cls(machine, sock, netsim, clock)
            pump._direct = await _open_transport(pump._loop, sock, pump.protocol)
            await pump.protocol.made
        except BaseException:
            sock.close()
            raise
        pump._tasks = [
            asyncio.create_task(pump._receive_loop(), name="udp-recv"),
            asyncio.create_task(pump._send_loop(), name="udp-send"),
        ]
        pump.poke()
        return pump

    @property
    def address(self) -> Addr:
        host, port = self._sockname[:2]
        return (str(host), int(port))

    def now(self) -> float:
        return self.clock()

    def poke(self) -> None:
        """Flush output and re-arm the timer; call after feeding the machine from outside."""
        if self._closed.is_set():
            return
        now = self.clock()
        for data, addr in self.machine.datagrams_to_send(now):
            if self.netsim is None:
                self._outq.put_nowait((data, addr))
                continue
            for at, copy in self.netsim.schedule(data, now):
                if at <= now:
                    self._outq.put_nowait((copy, addr))
                else:
                    self._later(at - now, copy, addr)
        self._arm()

    def _later(self, delay: float, data: bytes, addr: Addr) -> None:
        def fire() -> None:
            self._delayed.discard(handle)
            self._outq.put_nowait((data, addr))

        handle = self._loop.call_later(delay, fire)
        self._delayed.add(handle)

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        when = self.machine.next_timer()
        if when is not None:
            self._timer = self._loop.call_later(max(0.0, when - self.clock()), self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        try:
            self.machine.handle_timer(self.clock())
            self.poke()
        except Exception as exc:  # a machine bug: stop pumping, surface it from close()
            self._fail(exc)

    def _fail(self, exc: BaseException) -> None:
        if self._failure is None:
            self._failure = exc
        self._shutdown()

    def _socket_error(self, exc: BaseException) -> None:
        """A per-datagram error (ICMP unreachable, no route...): UDP loss, never fatal."""
        name = error_name(exc) if isinstance(exc, OSError) else type(exc).__name__
        self.last_error = name
        if self._sending_to is not None:  # raised by the send in progress: its address
            self.stats.send_errors += 1
            self.unreachable[self._sending_to] = name
        else:
            self.stats.recv_errors += 1
        _log.debug("socket error %s (sending to %s)", name, self._sending_to)

    async def _receive_loop(self) -> None:
        while True:
            item = await self._inq.get()
            if item is None:  # the transport is gone
                return
            try:
                start = self.clock()
                self._feed(*item)
                for _ in range(MAX_BATCH - 1):  # the rest of the burst, already readable
                    if self.clock() - start >= MAX_BATCH_SECONDS or self._closed.is_set():
                        break
                    more = self._read_now()
                    if more is None:
                        break
                    self._feed(*more)
                self.stats.batches += 1
                self.poke()
            except Exception as exc:
                self._fail(exc)
                return

    def _feed(self, data: bytes, addr: object) -> None:
        self.stats.received += 1
        assert isinstance(addr, tuple)  # AF_INET/AF_INET6 only; IPv6 adds flow info
        source = (str(addr[0]), int(addr[1]))
        if self.unreachable:
            self.unreachable.pop(source, None)
        self.machine.receive_datagram(data, source, self.clock())

    def _read_now(self) -> tuple[bytes, object] | None:
        """The next datagram already received, without waiting; None when there is none."""
        if not self._inq.empty():
            return self._inq.get_nowait()  # older than anything still in the socket
        while self._direct:
            try:
                return self._sock.recvfrom(_MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError as exc:  # e.g. a queued ICMP error: not fatal for UDP, read on
                self._socket_error(exc)
        return None

    async def _send_loop(self) -> None:
        while True:
            data, addr = await self._outq.get()
            transport = self.protocol.transport
            if transport is None or transport.is_closing():
                return
            self._sending_to = addr  # a synchronous send error names this address
            errors = self.stats.send_errors
            try:
                transport.sendto(data, addr)  # errors go to error_received, or raise
                if self.stats.send_errors == errors:
                    self.stats.sent += 1
            except OSError as exc:
                self._socket_error(exc)
            finally:
                self._sending_to = None
            await self._drained.wait()

    def _shutdown(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        if self._timer is not None:
            self._timer.cancel()
        for handle in self._delayed:
            handle.cancel()
        self._delayed.clear()
        if self.protocol.transport is not None:
            self.protocol.transport.close()
        else:
            self._sock.close()

    async def close(self) -> None:
        """Stop and release the socket; re-raise a machine exception if one stopped the pump."""
        self._shutdown()
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        await asyncio.gather(*(t for t in self._tasks if t is not current), return_exceptions=True)
        if self._failure is not None:
            raise self._failure

    async def wait_closed(self) -> None:
        await self._closed.wait()


async def _bound_socket(bind: Addr) -> socket.socket:
    """A non-blocking UDP socket bound to ``bind``, its receive buffer enlarged."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(bind[0], bind[1], type=socket.SOCK_DGRAM)
    error: OSError | None = None
    for family, type_, proto, _name, sockaddr in infos:
        sock = socket.socket(family, type_, proto)
        try:
            sock.setblocking(False)
            _grow_rcvbuf(sock)
            sock.bind(sockaddr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    raise error or OSError(f"cannot bind {bind}")


def _grow_rcvbuf(sock: socket.socket) -> None:
    before = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    except OSError as exc:
        _log.info("SO_RCVBUF %d refused (%s); keeping %d", RCVBUF, exc, before)
        return
    got = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    # Linux reports twice the usable size it granted; a cap shows as less than asked
    level = logging.DEBUG if got >= RCVBUF else logging.INFO
    _log.log(level, "UDP receive buffer: asked %d bytes, kernel reports %d", RCVBUF, got)


async def run_machine(
    machine: DatagramMachine,
    bind: Addr,
    netsim: NetSim | None,
    stop: asyncio.Event,
    clock: Callable[[], float] = time.monotonic,
    on_bound: Callable[[UdpPump], None] | None = None,
) -> None:
    """Pump ``machine`` on a socket bound to ``bind`` until ``stop`` is set.

    ``on_bound`` receives the running pump (its ``.address`` has the real port
    when ``bind`` asked for port 0, and ``.poke()`` flushes after outside calls).
    """
    pump = await UdpPump.start(machine, bind, netsim, clock)
    if on_bound is not None:
        on_bound(pump)
    stopped = asyncio.create_task(stop.wait())
    failed = asyncio.create_task(pump.wait_closed())
    try:
        await asyncio.wait({stopped, failed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        failed.cancel()
        await pump.close()
