"""The asyncio pump: real UDP sockets (asyncio-dgram) driving one sans-IO machine.

All protocol logic lives in the machine; this file only moves bytes, reads the
clock and arms one timer.  An optional :class:`~lanTag.net.netsim.NetSim` is
applied to outgoing datagrams (dropped, duplicated, or sent later through
``loop.call_later``), because this kernel offers no netem.

Received datagrams are handled in batches: after one arrives, every datagram the
socket already holds is read too, fed to the machine in order, and only then is
the machine's output collected and its timer re-armed (once per batch, not per
datagram).  The receive buffer is enlarged (``RCVBUF``, best effort) so bursts
from many peers are not dropped by the kernel.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable

import asyncio_dgram
from asyncio_dgram import aio

from lanTag.net.machine import Addr, DatagramMachine, LinkEndpoint
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


class UdpPump:
    """Feeds one bound UDP socket to ``machine``.  Create with :meth:`start`."""

    def __init__(
        self,
        machine: DatagramMachine,
        stream: asyncio_dgram.DatagramServer,
        netsim: NetSim | None,
        clock: Callable[[], float],
        sock: socket.socket | None = None,
    ) -> None:
        self.machine = machine
        self.netsim = netsim
        self.clock = clock
        self.stats = PumpStats()
        self._stream = stream
        self._sock = sock  # the stream's socket, read directly to drain a burst
        if sock is not None:
            self.stats.rcvbuf = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        self._loop = asyncio.get_running_loop()
        self._outq: asyncio.Queue[tuple[bytes, Addr]] = asyncio.Queue()
        self._timer: asyncio.TimerHandle | None = None
        self._delayed: set[asyncio.TimerHandle] = set()
        self._failure: BaseException | None = None
        self._closed = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._receive_loop(), name="udp-recv"),
            asyncio.create_task(self._send_loop(), name="udp-send"),
        ]

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
            stream = await asyncio_dgram.from_socket(sock)
            assert isinstance(stream, aio.DatagramServer)  # bound, not connected
        except BaseException:
            sock.close()
            raise
        pump = cls(machine, stream, netsim, clock, sock)
        pump.poke()
        return pump

    @property
    def address(self) -> Addr:
        host, port = self._stream.sockname[:2]
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

    async def _receive_loop(self) -> None:
        while True:
            try:
                data, addr = await self._stream.recv()
            except asyncio_dgram.TransportClosed:
                return
            except OSError:  # e.g. ICMP errors queued by the transport: not fatal for UDP
                self.stats.recv_errors += 1
                continue
            try:
                start = self.clock()
                self._feed(data, addr)
                for _ in range(MAX_BATCH - 1):  # the rest of the burst, already readable
                    if self.clock() - start >= MAX_BATCH_SECONDS:
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
        self.machine.receive_datagram(data, (str(addr[0]), int(addr[1])), self.clock())

    def _read_now(self) -> tuple[bytes, object] | None:
        """The next datagram the socket holds, without waiting; None when there is none."""
        sock = self._sock
        while sock is not None and not self._closed.is_set():
            try:
                return sock.recvfrom(_MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError:  # e.g. a queued ICMP error: not fatal for UDP, read on
                self.stats.recv_errors += 1
        return None

    async def _send_loop(self) -> None:
        while True:
            data, addr = await self._outq.get()
            try:
                await self._stream.send(data, addr)
                self.stats.sent += 1
            except asyncio_dgram.TransportClosed:
                return
            except OSError:  # unreachable peer, full buffer...: UDP loss, the link recovers
                self.stats.send_errors += 1

    def _shutdown(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        if self._timer is not None:
            self._timer.cancel()
        for handle in self._delayed:
            handle.cancel()
        self._delayed.clear()
        self._stream.close()

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
