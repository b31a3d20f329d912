"""The asyncio pump: real UDP sockets (asyncio-dgram streams) driving one sans-IO machine.

All protocol logic lives in the machine; this file only moves bytes, reads the
clock and arms one timer.  An optional :class:`~lanTag.net.faults.NetSim` is
applied to outgoing datagrams (dropped, duplicated, or sent later through
``loop.call_later``), because this kernel offers no netem.

lanTag makes its sockets (:func:`_bound_socket`: receive buffer enlarged, on Windows
the UDP reset reports turned off, :mod:`lanTag.net.winsock`) and hands each to
``asyncio_dgram.from_socket``; nothing private of asyncio or asyncio-dgram is used.

Received datagrams are handled in batches: one task moves what the stream holds into
the pump's queue (everything already queued, without waiting in between); another
feeds a batch to the machine in order (on selector loops also what the socket already
holds, read directly) and only then collects the machine's output and re-arms its
timer (once per batch, not per datagram).

Per-datagram socket errors never stop the pump.  asyncio-dgram queues them and
re-raises the oldest from the next ``recv()`` or ``send()`` (whose datagram it then
does not send): the pump drains the queue before each send (and, on a proactor loop,
every ``ERROR_CHECK_SECONDS``), and
an error raised while a send is under way is pinned on the address sent to
(:attr:`UdpPump.unreachable`) until a datagram from that address arrives.  The
machine never hears of them: for the session an unreachable peer is a silent one.
On Windows a failed receive may have stopped the proactor transport for good
(gh-127057, before CPython's fix); there the pump closes the stream and opens a fresh
socket on the same port (:meth:`UdpPump._rebuild`); the link layer retransmits what
was lost meanwhile.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import time
from collections.abc import Callable

import asyncio_dgram
from asyncio_dgram.aio import DatagramServer

from lanTag.net.endpoint import Addr, DatagramMachine, LinkEndpoint
from lanTag.net.faults import NetSim
from lanTag.net.winsock import disable_udp_resets

__all__ = ["LinkEndpoint", "PumpStats", "UdpPump", "run_machine"]

_log = logging.getLogger(__name__)

RCVBUF = 4 << 20
"""Requested socket receive buffer (bytes); the kernel may cap it (net.core.rmem_max)."""
MAX_BATCH = 256
"""At most this many datagrams are fed to the machine between two output flushes."""
MAX_BATCH_SECONDS = 0.005
"""...and for at most this long, so acks and replies are not held back (cf. ack_delay)."""
ERROR_CHECK_SECONDS = 0.2
"""On a proactor loop, how often the pump looks for a queued receive error while idle."""
REBUILD_BACKOFF_MAX = 1.0
"""Longest pause before re-opening a stream whose transport closed itself, when that
keeps happening with nothing received in between."""
CLOSE_WAIT_SECONDS = 0.5
"""How long close() waits for its transports to close their sockets (a callback after
their close; on a selector loop, once a send they still hold is written)."""
_MAX_DATAGRAM = 65536


class PumpStats:
    """Socket-level counters (the machine keeps its own protocol counters)."""

    __slots__ = (
        "batches",
        "rcvbuf",
        "rebuilds",
        "received",
        "recv_errors",
        "reopened",
        "send_errors",
        "sent",
    )

    def __init__(self) -> None:
        self.received = self.sent = self.send_errors = self.recv_errors = 0
        self.batches = 0  # output flushes after received datagrams
        self.rcvbuf = 0  # receive buffer the kernel granted (as getsockopt reports it)
        self.rebuilds = 0  # streams re-created on the same port (Windows, after a receive error)
        self.reopened = 0  # sockets a rebuild opened (one the pump's close cut short included)


def error_name(exc: BaseException) -> str:
    """A short stable name for a socket error: ``ECONNREFUSED``, ``EHOSTUNREACH``..."""
    code = exc.errno if isinstance(exc, OSError) else None
    if code is not None and code in errno.errorcode:
        return errno.errorcode[code]
    return type(exc).__name__


def _selector_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """True on selector loops (Linux, macOS): their datagram transport reads on after a
    failed receive, and the pump may read the socket itself to drain a burst.  Any other
    loop (Windows' proactor) owns its reads and may stop after a failed one.  Tests
    replace this to run CPython's proactor transport on this machine."""
    return isinstance(loop, asyncio.SelectorEventLoop)


async def _open_stream(sock: socket.socket) -> DatagramServer:
    stream = await asyncio_dgram.from_socket(sock)
    if not isinstance(stream, DatagramServer):  # our sockets are never connected
        stream.close()
        raise OSError(f"UDP socket {sock.getsockname()} is connected")
    return stream


class UdpPump:
    """Feeds one bound UDP socket to ``machine``.  Create with :meth:`start`."""

    def __init__(
        self,
        machine: DatagramMachine,
        sock: socket.socket,
        stream: DatagramServer,
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
        self._stream = stream
        self._sockname = sock.getsockname()
        self.stats.rcvbuf = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        self._loop = asyncio.get_running_loop()
        self._selector = _selector_loop(self._loop)
        self._inq: asyncio.Queue[tuple[bytes, object]] = asyncio.Queue()
        self._outq: asyncio.Queue[tuple[bytes, Addr]] = asyncio.Queue()
        self._open = asyncio.Event()  # the stream is usable (cleared while it is rebuilt)
        self._open.set()
        self._sending_to: Addr | None = None
        self._quiet_rebuilds = 0  # rebuilds since a datagram last arrived (sets the back-off)
        self._timer: asyncio.TimerHandle | None = None
        self._delayed: set[asyncio.TimerHandle] = set()
        self._failure: BaseException | None = None
        self._closed = asyncio.Event()
        self._closing: list[socket.socket] = []  # sockets of the transports we closed
        self._tasks: list[asyncio.Task[None]] = []
        self._reader: asyncio.Task[None] | None = None
        self._rebuilding: asyncio.Task[None] | None = None

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
            stream = await _open_stream(sock)
        except BaseException:
            sock.close()
            raise
        pump = cls(machine, sock, stream, netsim, clock)
        pump._reader = asyncio.create_task(pump._read_loop(), name="udp-recv")
        pump._tasks = [
            asyncio.create_task(pump._feed_loop(), name="udp-feed"),
            asyncio.create_task(pump._send_loop(), name="udp-send"),
        ]
        if not pump._selector:
            pump._tasks.append(asyncio.create_task(pump._watch_errors(), name="udp-watch"))
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
        name = error_name(exc)
        self.last_error = name
        if self._sending_to is not None:  # raised by the send in progress: its address
            self.stats.send_errors += 1
            self.unreachable[self._sending_to] = name
        else:
            self.stats.recv_errors += 1
            if not self._selector:
                # a proactor transport may have stopped reading after it (gh-127057, before
                # CPython's fix) and nothing public tells whether it did: start afresh
                self._request_rebuild()
        _log.debug("socket error %s (sending to %s)", name, self._sending_to)

    def _drain_errors(self) -> None:
        """Take every error asyncio-dgram has queued (it would raise one from the next
        ``send`` instead of sending, or from the next ``recv``)."""
        while self._open.is_set():
            try:
                _ = self._stream.exception  # raises the oldest queued error; None: none left
            except Exception as exc:  # whatever the transport reported, never fatal here
                self._socket_error(exc)
            else:
                return

    async def _read_loop(self) -> None:
        """Moves datagrams from the stream to ``_inq``: all it holds, without waiting in
        between, and on a selector loop what the socket holds behind them, so the feeder
        finds a whole burst there, in order."""
        stream = self._stream
        while True:
            try:
                item = await stream.recv()
            except asyncio_dgram.TransportClosed:  # the transport is gone (or closed by us)
                if not self._closed.is_set():
                    self._request_rebuild(lost=True)
                return
            except Exception as exc:  # an error queued before the datagram: read on
                self._socket_error(exc)
                continue
            self._inq.put_nowait(item)
            if self._selector:
                # A selector transport reads one datagram per readiness callback and
                # queues it; this task runs in the iteration after, before the next
                # callback: the stream's queue is empty now, the rest is in the socket.
                self._drain_socket()

    def _drain_socket(self) -> None:
        """Read what the socket already holds into ``_inq`` (at most a batch)."""
        for _ in range(MAX_BATCH):
            try:
                self._inq.put_nowait(self._sock.recvfrom(_MAX_DATAGRAM))
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. a queued ICMP error: not fatal for UDP, read on
                self._socket_error(exc)

    async def _watch_errors(self) -> None:
        """A receive error that stopped a proactor transport sits in asyncio-dgram's queue:
        the reader waits for a datagram that will never come, and an idle peer (a host in
        its lobby) sends nothing that would drain it.  Nothing public signals the error,
        so look now and then."""
        while True:
            await asyncio.sleep(ERROR_CHECK_SECONDS)
            self._drain_errors()

    def _request_rebuild(self, *, lost: bool = False) -> None:
        if self._rebuilding is not None or self._closed.is_set():
            return
        self._open.clear()  # the sender waits for the new stream
        self._rebuilding = asyncio.create_task(self._rebuild(lost), name="udp-rebuild")

    async def _rebuild(self, lost: bool) -> None:
        """Close the stream and its socket, and open a fresh socket on the same address
        (``lost``: the transport closed itself, not after a receive error)."""
        if self._reader is not None:
            self._reader.cancel()
        self._stream.close()
        # what the old socket already holds is not lost with it (a failed receive on
        # Windows leaves its datagram queued, too)
        self._drain_socket()
        self._sock.close()  # now, not one callback later: the port must be free to bind
        if lost:
            # a transport that keeps dying must not spin the loop; the pause is short while
            # datagrams still arrive in between.  (Never after a receive error: closed, the
            # port is deaf and mute, and on Windows every datagram to a peer that left
            # brings one: a game with a vanished spectator rebuilds many times a second.)
            if self._quiet_rebuilds:
                await asyncio.sleep(min(REBUILD_BACKOFF_MAX, 0.01 * 2**self._quiet_rebuilds))
            self._quiet_rebuilds += 1
        try:
            sock = await _bound_socket(self.address)
            self.stats.reopened += 1
            try:
                stream = await _open_stream(sock)
            except BaseException:
                sock.close()
                raise
        except OSError as exc:  # the port was taken meanwhile: nobody can reach us any more
            self._fail(OSError(exc.errno, f"cannot re-open UDP {self.address}: {exc}"))
            return
        if self._closed.is_set():
            stream.close()
            self._closing.append(sock)  # close() waits for it too
            return
        self._sock, self._stream = sock, stream
        self.stats.rebuilds += 1
        _log.info("UDP %s re-opened after a receive error", self.address)
        self._reader = asyncio.create_task(self._read_loop(), name="udp-recv")
        self._rebuilding = None
        self._open.set()

    async def _feed_loop(self) -> None:
        while True:
            item = await self._inq.get()
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
        self._quiet_rebuilds = 0
        assert isinstance(addr, tuple)  # AF_INET/AF_INET6 only; IPv6 adds flow info
        source = (str(addr[0]), int(addr[1]))
        if self.unreachable:
            self.unreachable.pop(source, None)
        self.machine.receive_datagram(data, source, self.clock())

    def _read_now(self) -> tuple[bytes, object] | None:
        """The next datagram already received, without waiting; None when there is none."""
        return None if self._inq.empty() else self._inq.get_nowait()

    async def _send_loop(self) -> None:
        while True:
            data, addr = await self._outq.get()
            while not await self._send(data, addr):
                pass  # the stream was closed under the send: again on the new one

    async def _send(self, data: bytes, addr: Addr) -> bool:
        """Send one datagram; False when it has to be sent again on a rebuilt stream."""
        await self._open.wait()
        if self._closed.is_set():
            return True  # closing: nothing goes out any more
        self._drain_errors()  # else asyncio-dgram raises an older error and drops this datagram
        if not self._open.is_set():  # one of them asked for a rebuild
            return False
        stream = self._stream
        self._sending_to = addr  # an error queued by this send names this address
        errors = self.stats.send_errors
        try:
            await stream.send(data, addr)
            self._drain_errors()
        except asyncio_dgram.TransportClosed:
            self._request_rebuild(lost=True)
            return False
        except OSError as exc:
            self._socket_error(exc)
        finally:
            self._sending_to = None
        if self.stats.send_errors == errors:
            self.stats.sent += 1
        return True

    def _shutdown(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        if self._timer is not None:
            self._timer.cancel()
        for handle in self._delayed:
            handle.cancel()
        self._delayed.clear()
        self._stream.close()  # the transport closes the socket
        self._closing.append(self._sock)

    async def close(self) -> None:
        """Stop and release the socket; re-raise a machine exception if one stopped the pump."""
        self._shutdown()
        current = asyncio.current_task()
        tasks = [*self._tasks, self._reader, self._rebuilding]
        running = [t for t in tasks if t is not None and t is not current]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        await self._sockets_closed()
        if self._failure is not None:
            raise self._failure

    async def _sockets_closed(self) -> None:
        """Wait, within ``CLOSE_WAIT_SECONDS``, until the transports we closed have closed
        their sockets: then the port is free when close() returns.

        On a selector loop a socket still open then is left to its transport: closing it
        under a transport that holds a send would leave the loop watching a number the
        next socket may get (that one would never read), and cut the send.  On a proactor
        loop it is closed here: CPython's proactor datagram transport, closed with a send
        in flight, never closes its socket (its write callback returns at once once the
        transport is closing), and no selector watches it."""
        loop = asyncio.get_running_loop()  # the loop's own clock: ``self.clock`` may be a test's
        deadline = loop.time() + CLOSE_WAIT_SECONDS
        while any(s.fileno() != -1 for s in self._closing) and loop.time() < deadline:
            await asyncio.sleep(0.001)
        if not _selector_loop(loop):
            for sock in self._closing:
                sock.close()

    async def wait_closed(self) -> None:
        await self._closed.wait()


def _new_socket(family: int, type_: int, proto: int) -> socket.socket:
    """Tests replace this to make sockets that fail the way Windows ones do."""
    return socket.socket(family, type_, proto)


async def _bound_socket(bind: Addr) -> socket.socket:
    """A non-blocking UDP socket bound to ``bind``, its receive buffer enlarged and, on
    Windows, its reset reports off (:func:`~lanTag.net.winsock.disable_udp_resets`)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(bind[0], bind[1], type=socket.SOCK_DGRAM)
    error: OSError | None = None
    for family, type_, proto, _name, sockaddr in infos:
        sock = _new_socket(family, type_, proto)
        try:
            sock.setblocking(False)
            _grow_rcvbuf(sock)
            off = disable_udp_resets(sock)
            sock.bind(sockaddr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        if off:
            _log.debug("UDP reset reports off: %s", ", ".join(off))
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
