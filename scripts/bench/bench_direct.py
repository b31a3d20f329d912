"""In-process benchmark driver and log counting of the lanTag benchmarks.

* :class:`DirectNet`: an in-process, zero-latency driver for whole peers (links + lobby +
  session + bot).  Like :class:`lanTag.net.udp.UdpPump` it asks a machine for its output and
  its next timer only after touching *that* machine, so its CPU cost per event is the
  product's own (``lanTag.net.sim_network.SimNetwork`` polls every machine on every event,
  which is right for tests but adds O(peers) per event);
* :class:`DirectTable`: ``humans`` whole peers with bots on a :class:`DirectNet`;
* :class:`LinkFaults`: seeded faults per directed link for a :class:`DirectNet` (the
  project's :class:`~lanTag.net.faults.NetSim` plus bursts of loss, which it lacks);
* :class:`StampedEvents`: timestamps applied steps and game over (also used by the
  real-socket children in ``bench_procs``);
* signed-message counting of a log (:func:`count_log`).

Re-exported by ``benchlib`` (the benchmarks' facade); import that rather than this.
"""

from __future__ import annotations

import builtins
import hashlib
import heapq
import random
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.net.faults import NetSim, NetSimConfig
from lanTag.net.link import LinkLayer
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby
from lanTag.peer.machine import BotDriver, PeerMachine
from lanTag.rules.base import Joint, Move, Roll
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.session.messages import parse_unverified
from scripts.bench import benchgames

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

Addr = tuple[str, int]
# Long enough that no benchmark ever votes a slow-but-alive seat out.
BENCH_TIMEOUTS = Timeouts(turn_ms=600_000, step_ms=300_000, lag_ms=300_000)

# --------------------------------------------------------------------------- the log


def input_kind(inp: object) -> str:
    if isinstance(inp, Roll):
        return "chance"
    if isinstance(inp, Joint):
        return "secret"
    if isinstance(inp, Move):
        return "turn"
    return "?"


_ENCODED_KIND = {0: "turn", 1: "secret", 2: "chance"}


@dataclass
class LogCounts:
    """Signed messages in one log, by step, type and seat; and each step's kind."""

    msgs: dict[int, Counter[tuple[str, int]]] = field(default_factory=dict)
    kinds: dict[int, str] = field(default_factory=dict)
    msg_bytes: Counter[str] = field(default_factory=Counter)
    msg_count: Counter[str] = field(default_factory=Counter)
    entries: int = 0
    log_bytes: int = 0

    def per_seat(self, kind: str, msg_type: str, seats: int) -> float:
        """Mean messages of ``msg_type`` per seat over steps of ``kind``."""
        steps = [k for k, v in self.kinds.items() if v == kind]
        if not steps or not seats:
            return float("nan")
        total = sum(self.msgs.get(k, Counter())[(msg_type, s)] for k in steps for s in range(seats))
        return total / (len(steps) * seats)

    def others_at(self, kind: str, exclude: set[str]) -> float:
        """Mean messages per step of ``kind`` whose type is not in ``exclude``."""
        steps = [k for k, v in self.kinds.items() if v == kind]
        if not steps:
            return float("nan")
        n = sum(
            c
            for k in steps
            for (t, _), c in self.msgs.get(k, Counter()).items()
            if t not in exclude
        )
        return n / len(steps)


def count_log(data: bytes) -> LogCounts:
    parsed = parse_log(data)
    out = LogCounts(entries=len(parsed.entries), log_bytes=len(data))
    for e in parsed.entries:
        if e.kind == EntryKind.MSG:
            m = parse_unverified(e.data)
            name = m.type.name
            out.msgs.setdefault(m.step, Counter())[(name, m.seat)] += 1
            out.msg_bytes[name] += len(e.data)
            out.msg_count[name] += 1
        elif e.kind == EntryKind.STEP:
            out.kinds[e.step] = _ENCODED_KIND.get(e.data[0][0], "?")
    return out


# --------------------------------------------------------------------------- in-process driver


FRAME_TYPES = {1: "DATA", 2: "PING", 3: "ACK"}


@dataclass
class WireCounts:
    datagrams: int = 0
    bytes: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    bytes_by_type: Counter[str] = field(default_factory=Counter)

    def add(self, data: builtins.bytes) -> None:  # the field ``bytes`` hides the type
        kind = FRAME_TYPES.get(data[1] & 0x0F, "?") if len(data) > 1 else "?"
        self.datagrams += 1
        self.bytes += len(data)
        self.by_type[kind] += 1
        self.bytes_by_type[kind] += len(data)

    def snapshot(self) -> WireCounts:
        return WireCounts(
            self.datagrams, self.bytes, Counter(self.by_type), Counter(self.bytes_by_type)
        )

    def minus(self, other: WireCounts) -> WireCounts:
        return WireCounts(
            self.datagrams - other.datagrams,
            self.bytes - other.bytes,
            self.by_type - other.by_type,
            self.bytes_by_type - other.bytes_by_type,
        )


def _link_seed(seed: int, salt: str) -> int:
    """A seed per link, stable across processes (blake2b, as NetSim.fork)."""
    return int.from_bytes(hashlib.blake2b(f"{seed}/{salt}".encode(), digest_size=8).digest(), "big")


@dataclass
class LinkFaults:
    """Faults on every directed link of a :class:`DirectNet`, seeded, one state per link.

    Each datagram first meets the burst model, then the link's own
    :class:`~lanTag.net.faults.NetSim` (forked from ``config`` per directed link: delay,
    jitter, independent loss, duplication, reordering).  NetSimConfig has no bursts, so
    they are modelled here: a datagram starts a burst with probability ``burst``, and it
    and the next ``burst_len - 1`` datagrams on that link are lost (the burst's own
    random stream, seeded per link, so ``burst`` does not shift NetSim's stream).
    """

    config: NetSimConfig
    burst: float = 0.0
    burst_len: int = 5
    lost_in_bursts: int = 0
    _sims: dict[tuple[Addr, Addr], NetSim] = field(default_factory=dict, repr=False)
    _bursts: dict[tuple[Addr, Addr], tuple[random.Random, list[int]]] = field(
        default_factory=dict, repr=False
    )

    def schedule(self, src: Addr, dst: Addr, data: bytes, now: float) -> list[tuple[float, bytes]]:
        key = (src, dst)
        sim = self._sims.get(key)
        if sim is None:
            sim = self._sims[key] = NetSim(self.config).fork(f"{src}>{dst}")
            salt = f"burst/{src}>{dst}"
            self._bursts[key] = (random.Random(_link_seed(self.config.seed, salt)), [0])
        rng, left = self._bursts[key]
        if not left[0] and rng.random() < self.burst:
            left[0] = self.burst_len
        if left[0]:
            left[0] -= 1
            self.lost_in_bursts += 1
            return []
        return sim.schedule(data, now)

    def lost(self) -> int:
        """Datagrams lost so far: NetSim's independent losses and the bursts."""
        return self.lost_in_bursts + sum(s.stats.lost for s in self._sims.values())


class DirectNet:
    """Machines on a virtual clock with a fixed one-way latency (0: instant, FIFO), or
    with :class:`LinkFaults` (set ``faults``: its delays then replace ``latency``)."""

    def __init__(self, latency: float = 0.0, faults: LinkFaults | None = None) -> None:
        self.now = 0.0
        self.latency = latency
        self.faults = faults
        self.machines: dict[Addr, Any] = {}
        self._queue: list[tuple[float, int, Addr, Addr, bytes]] = []
        self._timers: list[tuple[float, int, Addr]] = []
        self._deadline: dict[Addr, float | None] = {}
        self._seq = 0
        self.wire = WireCounts()
        self.events = 0

    def add(self, addr: Addr, machine: Any) -> None:
        self.machines[addr] = machine
        self._deadline[addr] = None

    def poke(self, addr: Addr) -> None:
        """Collect ``addr``'s output and re-arm its timer (what UdpPump.poke does)."""
        m = self.machines[addr]
        for data, dst in m.datagrams_to_send(self.now):
            self.wire.add(data)
            if self.faults is not None:
                for at, copy in self.faults.schedule(addr, dst, data, self.now):
                    self._seq += 1
                    heapq.heappush(self._queue, (at, self._seq, addr, dst, copy))
                continue
            self._seq += 1
            heapq.heappush(self._queue, (self.now + self.latency, self._seq, addr, dst, data))
        t = m.next_timer()
        if t != self._deadline[addr]:
            self._deadline[addr] = t
            if t is not None:
                self._seq += 1
                heapq.heappush(self._timers, (t, self._seq, addr))

    def poke_all(self) -> None:
        for addr in self.machines:
            self.poke(addr)

    def step(self) -> bool:
        while self._timers and self._deadline.get(self._timers[0][2]) != self._timers[0][0]:
            heapq.heappop(self._timers)  # stale
        q = self._queue[0][0] if self._queue else None
        t = self._timers[0][0] if self._timers else None
        if q is None and t is None:
            return False
        self.events += 1
        if q is not None and (t is None or q <= t):
            at, _, src, dst, data = heapq.heappop(self._queue)
            self.now = max(self.now, at)
            m = self.machines.get(dst)
            if m is not None:
                m.receive_datagram(data, src, self.now)
                self.poke(dst)
            return True
        at, _, addr = heapq.heappop(self._timers)
        self.now = max(self.now, at)
        self._deadline[addr] = None
        self.machines[addr].handle_timer(self.now)
        self.poke(addr)
        return True

    def run_until(
        self, predicate: Callable[[], bool], max_time: float = 3600.0, every: int = 1
    ) -> bool:
        """Step until ``predicate()``, evaluated every ``every`` events (pass more than 1
        for an O(peers) predicate so that it does not dominate a profile)."""
        while not predicate():
            for _ in range(every):
                if self.now > max_time or not self.step():
                    return predicate()
        return True


def _h(text: str) -> bytes:
    import hashlib

    return hashlib.sha256(text.encode()).digest()


class StampedEvents(deque):  # type: ignore[type-arg]
    """PeerMachine.events replacement: timestamps StepApplied / GameOver as they happen."""

    def __init__(
        self, on_over: Callable[[], None], clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.steps: list[list[Any]] = []
        self.over_at: float | None = None
        self._on_over = on_over
        self._clock = clock

    def append(self, x: Any) -> None:
        if isinstance(x, ev.StepApplied):
            nseats = len(x.input.choices) if isinstance(x.input, Joint) else 0
            self.steps.append([x.step, self._clock(), input_kind(x.input), nseats])
        elif isinstance(x, ev.GameOver):
            self.over_at = self._clock()
            self._on_over()
        elif isinstance(x, ev.SeatsDropped | ev.Desync | ev.Blame):
            self.steps.append([-1, self._clock(), f"note:{type(x).__name__}", 0])
        super().append(x)
        if len(self) > 256:  # nobody reads them in a benchmark
            self.popleft()


@dataclass
class DirectTable:
    """``humans`` whole peers on a :class:`DirectNet` (host = seat 0), each with a bot."""

    engine: str
    humans: int
    options: tuple[tuple[str, int | bool | str], ...] = ()
    bots: tuple[str, ...] = ()
    bot: str = "random"
    seed: int = 0
    chain_length: int = 1024
    latency: float = 0.0
    net: DirectNet = field(init=False)
    peers: list[PeerMachine] = field(init=False)
    logs: list[bytearray] = field(init=False)
    stamped: list[StampedEvents] = field(init=False)
    _over: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        benchgames.register()
        rng = random.Random(self.seed)
        self.net = DirectNet(self.latency)
        self.peers, self.logs, self.stamped = [], [], []
        config = HostConfig(
            self.engine,
            "bench",
            self.humans,
            options=self.options,
            bots=self.bots,
            timeouts=BENCH_TIMEOUTS,
            chain_length=self.chain_length,
        )
        for i in range(self.humans):
            ident = Identity(_h(f"{self.seed}/id/{i}"))
            secret = _h(f"{self.seed}/chain/{i}")
            anchor = HashChain(secret, self.chain_length).anchor
            lobby: HostLobby | JoinLobby
            if i == 0:
                lobby = HostLobby(config, ident, anchor, "host", rng.randbytes)
            else:
                lobby = JoinLobby(self.addr(0), ident, anchor, f"p{i}")
            log = bytearray()
            peer = PeerMachine(
                LinkLayer(rng.getrandbits(32)),
                lobby,
                ident,
                secret,
                rng.randbytes,
                driver=BotDriver(self.bot),
                write_log=log.extend,
            )
            stamped = StampedEvents(self._one_over, clock=lambda: self.net.now)
            peer.events = stamped
            self.peers.append(peer)
            self.logs.append(log)
            self.stamped.append(stamped)
            self.net.add(self.addr(i), peer)

    def _one_over(self) -> None:
        self._over += 1

    @staticmethod
    def addr(i: int) -> Addr:
        return (f"10.{i // 250}.{i % 250}.1", 5000)

    def start(self) -> None:
        host = self.peers[0].lobby
        assert isinstance(host, HostLobby)
        self.net.poke_all()
        ok = self.net.run_until(lambda: host.taken == self.humans, 600)
        if not ok:
            raise RuntimeError("lobby did not fill")
        self.peers[0].start_game(self.net.now)
        self.net.poke(self.addr(0))
        self.net.run_until(lambda: all(p.session is not None for p in self.peers), 600)

    def min_step(self) -> int:
        return min(p.session.step if p.session else -1 for p in self.peers)

    def over(self) -> bool:
        """Every peer has seen GameOver (O(1): counted as the events happen)."""
        return self._over >= len(self.peers)

    def over_at(self) -> float:
        """Virtual time of the last peer's GameOver."""
        return max(s.over_at for s in self.stamped if s.over_at is not None)

    def run_steps(self, n: int) -> bool:
        target = self.min_step() + n
        return self.net.run_until(
            lambda: self.over() or self.min_step() >= target, every=len(self.peers)
        )
