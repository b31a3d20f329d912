"""The asyncio pump: real UDP sockets (asyncio-dgram) driving one sans-IO machine.

All protocol logic lives in the machine; this file only moves bytes, reads the
clock and arms one timer.  An optional :class:`~lanTag.net.netsim.NetSim` is
applied to outgoing datagrams (dropped, duplicated, or sent later through
``loop.call_later``), because this kernel offers no netem.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import asyncio_dgram

from lanTag.net.machine import Addr, DatagramMachine, LinkEndpoint
from lanTag.net.netsim import NetSim

__all__ = ["LinkEndpoint", "PumpStats", "UdpPump", "run_machine"]


class PumpStats:
    """Socket-level counters (the machine keeps its own protocol counters)."""

    __slots__ = ("received", "recv_errors", "send_errors", "sent")

    def __init__(self) -> None:
        self.received = self.sent = self.send_errors = self.recv_errors = 0


class UdpPump:
    """Feeds one bound UDP socket to ``machine``.  Create with :meth:`start`."""

    def __init__(
        self,
        machine: DatagramMachine,
        stream: asyncio_dgram.DatagramServer,
        netsim: NetSim | None,
        clock: Callable[[], float],
    ) -> None:
        self.machine = machine
        self.netsim = netsim
        self.clock = clock
        self.stats = PumpStats()
        self._stream = stream
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
        stream = await asyncio_dgram.bind(bind)
        pump = cls(machine, stream, netsim, clock)
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
            self.stats.received += 1
            assert isinstance(addr, tuple)  # AF_INET/AF_INET6 only; IPv6 adds flow info
            try:
                self.machine.receive_datagram(data, (str(addr[0]), int(addr[1])), self.clock())
                self.poke()
            except Exception as exc:
                self._fail(exc)
                return

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
