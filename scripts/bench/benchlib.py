#!/usr/bin/env python3
"""Shared pieces of the lanTag benchmarks (scripts/bench/bench_*.py).

* machine facts and the load average, printed with every table (the machine is shared);
* :class:`Table`: the plain-text / JSON table every script prints;
* :class:`DirectNet`: an in-process, zero-latency driver for whole peers (links + lobby +
  session + bot).  Like :class:`lanTag.net.udp.UdpPump` it asks a machine for its output and
  its next timer only after touching *that* machine, so its CPU cost per event is the
  product's own (``lanTag.net.simnet.SimNetwork`` polls every machine on every event,
  which is right for tests but adds O(peers) per event);
* the real-socket runner: peers (``lanTag.runtime.open_host`` / ``open_join`` with a
  ``BotDriver``, each on its own loopback UDP socket) spread over several OS processes,
  and the raw unsigned all-to-all UDP floor of the same pattern.  Child processes run
  this file: ``python benchlib.py peers|floor`` with a JSON config on the command line.

Timestamps across processes are ``time.monotonic()`` (CLOCK_MONOTONIC, system-wide).
"""

from __future__ import annotations

import asyncio
import cProfile
import heapq
import json
import math
import os
import platform
import random
import select
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
for _p in (str(REPO), str(HERE)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import benchgames  # noqa: E402

from lanTag.fair.chain import HashChain  # noqa: E402
from lanTag.identity import Identity  # noqa: E402
from lanTag.lobby import HostConfig, HostLobby, JoinLobby  # noqa: E402
from lanTag.log.chain import EntryKind, parse_log  # noqa: E402
from lanTag.net.link import LinkLayer  # noqa: E402
from lanTag.peer import BotDriver, PeerMachine  # noqa: E402
from lanTag.rules.base import Joint, Move, Roll  # noqa: E402
from lanTag.session import events as ev  # noqa: E402
from lanTag.session.lobby import Timeouts  # noqa: E402
from lanTag.session.messages import parse_unverified  # noqa: E402

Addr = tuple[str, int]
# Long enough that no benchmark ever votes a slow-but-alive seat out.
BENCH_TIMEOUTS = Timeouts(turn_ms=600_000, step_ms=300_000, lag_ms=300_000)

# --------------------------------------------------------------------------- machine + tables


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_text() -> str:
    a, b, c = os.getloadavg()
    return f"{a:.2f} {b:.2f} {c:.2f}"


def machine_info() -> dict[str, Any]:
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "loadavg": load_text(),
    }


@dataclass
class Table:
    """Rows of dicts; ``columns`` is a list of (key, header, format) where format is a
    str.format spec applied to numbers (``""`` for str())."""

    title: str
    columns: list[tuple[str, str, str]]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    load_before: str = field(default_factory=load_text)
    load_after: str = ""

    def add(self, **row: Any) -> None:
        self.rows.append(row)

    def close(self) -> Table:
        self.load_after = load_text()
        return self

    def _cell(self, row: dict[str, Any], key: str, fmt: str) -> str:
        v = row.get(key)
        if v is None:
            return "-"
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return "-"
        if fmt and isinstance(v, int | float) and not isinstance(v, bool):
            return format(v, fmt)
        return str(v)

    def render(self) -> str:
        if not self.load_after:
            self.close()
        cells = [[h for _, h, _ in self.columns]]
        for row in self.rows:
            cells.append([self._cell(row, k, f) for k, _, f in self.columns])
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = [f"{self.title}   [load {self.load_before} -> {self.load_after}]"]
        for j, r in enumerate(cells):
            parts = [r[0].ljust(widths[0])] + [
                c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
            ]
            lines.append("  ".join(parts).rstrip())
            if j == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines += [f"  {n}" for n in self.notes]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        if not self.load_after:
            self.close()
        return {
            "title": self.title,
            "loadavg_before": self.load_before,
            "loadavg_after": self.load_after,
            "rows": self.rows,
            "notes": self.notes,
        }


def output(
    name: str,
    tables: Sequence[Table],
    targets: Sequence[dict[str, Any]],
    as_json: bool,
    extra: dict[str, Any] | None = None,
) -> None:
    """Print tables and target verdicts (``{"target", "measured", "met"}``), or JSON."""
    if as_json:
        doc = {
            "benchmark": name,
            "machine": machine_info(),
            "tables": [t.to_json() for t in tables],
            "targets": list(targets),
            **(extra or {}),
        }
        print(json.dumps(doc, indent=2, default=str))
        return
    info = machine_info()
    print(f"# {name}: {info['date']}, {info['nproc']} cpu ({info['cpu']}), Python {info['python']}")
    for t in tables:
        print()
        print(t.render())
    if targets:
        print()
        for t in targets:
            verdict = {True: "MET", False: "MISSED", None: "n/a"}[t.get("met")]
            print(f"target: {t['target']}: {t['measured']} -> {verdict}")
    sys.stdout.flush()


def stats_ms(samples: Iterable[float]) -> dict[str, float | int | None]:
    ms = sorted(s * 1e3 for s in samples)
    if not ms:
        return {"n": 0, "median_ms": None, "p90_ms": None, "mean_ms": None, "min_ms": None}
    return {
        "n": len(ms),
        "min_ms": ms[0],
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "p90_ms": ms[min(len(ms) - 1, int(0.9 * len(ms)))],
    }


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("nan")


def timed_loop(fn: Callable[[], Any], min_time: float) -> tuple[int, float]:
    """Call fn repeatedly for at least min_time seconds; (calls, seconds)."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return n, dt


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

    def add(self, data: bytes) -> None:
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


class DirectNet:
    """Machines on a virtual clock with a fixed one-way latency (0: instant, FIFO)."""

    def __init__(self, latency: float = 0.0) -> None:
        self.now = 0.0
        self.latency = latency
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


# --------------------------------------------------------------------------- real sockets: children


def _emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


async def _peers_child(cfg: dict[str, Any]) -> None:
    from lanTag.runtime import LocalIdentity, open_host, open_join, wait_until

    benchgames.register()
    handles = []
    logdir = Path(cfg["logdir"]) if cfg.get("logdir") else None
    loop = asyncio.get_running_loop()
    all_over = asyncio.Event()
    stamped: list[StampedEvents] = []

    def check_over() -> None:
        if len(stamped) == cfg["local"] and all(s.over_at is not None for s in stamped):
            all_over.set()

    def kwargs(i: int) -> dict[str, Any]:
        kw: dict[str, Any] = {"bind": ("127.0.0.1", 0), "driver": BotDriver(cfg["bot"])}
        if logdir is not None:
            kw["log_path"] = logdir / f"p{cfg['proc']}-{i}.lantag"
        return kw

    def me(i: int) -> LocalIdentity:
        return LocalIdentity(Identity(os.urandom(32)), f"p{cfg['proc']}-{i}")

    if cfg["host"]:
        config = HostConfig(
            cfg["engine"],
            "bench",
            cfg["humans"],
            tuple((k, v) for k, v in cfg["options"]),
            bots=tuple(cfg.get("bots", ())),
            timeouts=BENCH_TIMEOUTS,
            chain_length=cfg["chain_length"],
        )
        host = await open_host(config, me(0), **kwargs(0))
        handles.append(host)
        target: Addr = host.address
        _emit({"kind": "ready", "addr": list(target)})
    else:
        target = tuple(cfg["join"])  # type: ignore[assignment]
    for i in range(len(handles), cfg["local"]):
        handles.append(
            await open_join(target, me(i), chain_length=cfg["chain_length"], **kwargs(i))
        )
    for h in handles:
        s = StampedEvents(check_over)
        stamped.append(s)
        h.machine.events = s
        if h.log is not None and not cfg.get("fsync", True):
            h.log._interval = None  # bench option: flush only, never fsync
    prof = cProfile.Profile() if cfg.get("profile") else None
    if cfg["host"]:
        lobby = handles[0].machine.lobby
        ok = await wait_until(lambda: lobby.taken == cfg["humans"], 120.0)
        if not ok:
            _emit({"kind": "error", "error": f"lobby stuck at {lobby.taken}/{cfg['humans']}"})
        cpu0, t0 = time.process_time(), time.monotonic()
        if prof:
            prof.enable()
        handles[0].command(handles[0].machine.start_game)
    else:
        await wait_until(lambda: all(h.machine.session is not None for h in handles), 300.0, 0.002)
        cpu0, t0 = time.process_time(), time.monotonic()
        if prof:
            prof.enable()
    try:
        await asyncio.wait_for(all_over.wait(), cfg["timeout"])
        timed_out = False
    except TimeoutError:
        timed_out = True
    if prof:
        prof.disable()
        prof.dump_stats(cfg["profile"])
    cpu = time.process_time() - cpu0
    peers = []
    for h, s in zip(handles, stamped, strict=True):
        sess = h.machine.session
        st = h.machine.link.stats
        peers.append(
            {
                "seat": None if sess is None else sess.seat,
                "steps": s.steps,
                "over_at": s.over_at,
                "final_step": None if sess is None else sess.step,
                "link": {
                    "sent": st.sent,
                    "received": st.received,
                    "retransmitted": st.retransmitted,
                    "duplicates": st.duplicates,
                    "messages_sent": st.messages_sent,
                },
                "pump": {"sent": h.pump.stats.sent, "received": h.pump.stats.received},
                "counters": {} if sess is None else dict(sess.counters),
                "log": None if h.log_path is None else str(h.log_path),
            }
        )
    _emit(
        {
            "kind": "done",
            "proc": cfg["proc"],
            "timed_out": timed_out,
            "t0": t0,
            "cpu": cpu,
            "peers": peers,
        }
    )
    await loop.run_in_executor(None, sys.stdin.read)  # linger: others may still need our acks
    for h in handles:
        try:
            await h.close()
        except Exception as exc:
            print(f"close: {exc!r}", file=sys.stderr)


def _floor_child(cfg: dict[str, Any]) -> None:
    """Raw all-to-all UDP rounds: each local socket sends one datagram to every other
    socket, then waits for one from every other; ``rounds`` times.  With ``signed``, each
    datagram carries an Ed25519 signature (cryptography) that every receiver verifies:
    the same exchange plus exactly the crypto a signed protocol cannot avoid."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    k, rounds, size, signed = cfg["local"], cfg["rounds"], cfg["size"], cfg.get("signed", False)
    socks = []
    keys = [Ed25519PrivateKey.generate() for _ in range(k)] if signed else []
    for _ in range(k):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        socks.append(s)
    pubs_hex = [key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex() for key in keys]
    _emit({"kind": "ready", "ports": [s.getsockname()[1] for s in socks], "pubs": pubs_hex})
    plan = json.loads(sys.stdin.readline())
    addrs = [tuple(a) for a in plan["addrs"]]
    pubs = [Ed25519PublicKey.from_public_bytes(bytes.fromhex(h)) for h in plan.get("pubs", [])]
    mine = plan["ids"]
    n = len(addrs)
    sel = selectors.DefaultSelector()
    for i, s in enumerate(socks):
        sel.register(s, selectors.EVENT_READ, i)
    got: Counter[tuple[int, int]] = Counter()
    done_at: list[float] = []
    body_len = max(8, size - 64) if signed else max(8, size)
    pad = b"\0" * (body_len - 8)
    lost = False
    for r in range(rounds):
        for i, s in enumerate(socks):
            body = r.to_bytes(4, "big") + mine[i].to_bytes(4, "big") + pad
            payload = body + keys[i].sign(body) if signed else body
            for j, a in enumerate(addrs):
                if j != mine[i]:
                    s.sendto(payload, a)
        deadline = time.monotonic() + 10.0
        while any(got[(i, r)] < n - 1 for i in range(k)):
            if time.monotonic() > deadline:
                lost = True
                break
            for key, _ in sel.select(1.0):
                s = key.fileobj
                while True:
                    try:
                        data = s.recv(2048)  # type: ignore[union-attr]
                    except BlockingIOError:
                        break
                    if signed:
                        sender = int.from_bytes(data[4:8], "big")
                        pubs[sender].verify(data[body_len:], data[:body_len])
                    got[(key.data, int.from_bytes(data[:4], "big"))] += 1
        if lost:
            break
        done_at.append(time.monotonic())
    _emit({"kind": "done", "done_at": done_at, "lost": lost})
    sys.stdin.read()


def udp_counters() -> dict[str, int]:
    """The kernel's UDP counters (/proc/net/snmp, this network namespace, all processes)."""
    try:
        lines = [
            ln.split()
            for ln in Path("/proc/net/snmp").read_text().splitlines()
            if ln.startswith("Udp:")
        ]
        return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:], strict=True)}
    except (OSError, IndexError, ValueError):
        return {}


def split(n: int, procs: int) -> list[int]:
    procs = max(1, min(procs, n))
    return [n // procs + (1 if i < n % procs else 0) for i in range(procs)]


def _spawn(role: str, cfg: dict[str, Any]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), role, json.dumps(cfg)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )


_BUFFERS: dict[int, bytes] = {}


def _read_json(proc: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    """The child's next JSON record (a line starting with "{"); other lines are skipped.
    Reads the pipe's fd directly, so lines already buffered are never waited for."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + timeout
    while True:
        buf = _BUFFERS.get(proc.pid, b"")
        if b"\n" in buf:
            line, rest = buf.split(b"\n", 1)
            _BUFFERS[proc.pid] = rest
            if line.startswith(b"{"):
                return json.loads(line)
            continue
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError(f"child {proc.pid} said nothing for {timeout:g}s")
        chunk = os.read(fd, 65536)
        if not chunk:
            raise RuntimeError(f"child {proc.pid} exited (code {proc.wait()})")
        _BUFFERS[proc.pid] = buf + chunk


def _finish(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        try:
            if p.stdin:
                p.stdin.close()
        except OSError:
            pass
    for p in procs:
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@dataclass
class RealRun:
    """What the processes reported: per peer, the (step, time, kind, nseats) it applied."""

    humans: int
    procs: list[dict[str, Any]]
    wall: float
    logdir: str | None
    udp: dict[str, int] = field(default_factory=dict)  # kernel counter deltas during the run

    @property
    def kernel_drops(self) -> int:
        """Datagrams the kernel dropped for full receive buffers (whole namespace)."""
        return self.udp.get("RcvbufErrors", 0)

    @property
    def peers(self) -> list[dict[str, Any]]:
        return [p for proc in self.procs for p in proc["peers"]]

    @property
    def timed_out(self) -> bool:
        return any(p["timed_out"] for p in self.procs)

    def all_applied(self) -> dict[int, tuple[float, str, int]]:
        """step -> (time the LAST peer applied it, kind, seats in a joint choice)."""
        out: dict[int, tuple[float, str, int]] = {}
        counts: Counter[int] = Counter()
        for p in self.peers:
            for step, t, kind, nseats in p["steps"]:
                if step < 0:
                    continue
                counts[step] += 1
                prev = out.get(step)
                if prev is None or t > prev[0]:
                    out[step] = (t, kind, nseats)
        return {k: v for k, v in out.items() if counts[k] == len(self.peers)}

    def intervals(self, warmup: int = 2) -> list[tuple[int, float, str, int]]:
        """(step, time from the last peer applying step-1 to the last applying step, kind, n)."""
        applied = self.all_applied()
        out = []
        for k in sorted(applied):
            if k - 1 in applied and k >= warmup:
                out.append((k, applied[k][0] - applied[k - 1][0], applied[k][1], applied[k][2]))
        return out

    def notes(self) -> list[str]:
        return [kind for p in self.peers for step, _, kind, _ in p["steps"] if step < 0]

    def link_total(self, key: str) -> int:
        return sum(p["link"][key] for p in self.peers)

    def pump_total(self, key: str) -> int:
        return sum(p["pump"][key] for p in self.peers)

    def cpu_total(self) -> float:
        """CPU seconds of all processes from game start to their last local game over."""
        return sum(p["cpu"] for p in self.procs)


def run_real(
    engine: str,
    humans: int,
    procs: int,
    *,
    options: Sequence[tuple[str, int | bool | str]] = (),
    bot: str = "random",
    timeout: float = 120.0,
    chain_length: int = 1024,
    logs: bool = True,
    fsync: bool = True,
    profile_proc: int | None = None,
    profile_path: str | None = None,
    logdir: str | None = None,
) -> RealRun:
    """Play one game with ``humans`` peers on loopback UDP spread over ``procs`` processes."""
    layout = split(humans, procs)
    if logs and logdir is None:
        logdir = tempfile.mkdtemp(prefix="lantag-bench-")
    base = {
        "engine": engine,
        "humans": humans,
        "options": [list(o) for o in options],
        "bot": bot,
        "timeout": timeout,
        "chain_length": chain_length,
        "logdir": logdir if logs else None,
        "fsync": fsync,
    }
    children: list[subprocess.Popen[str]] = []
    t_start = time.monotonic()
    udp0 = udp_counters()
    try:

        def cfg(i: int, **kw: Any) -> dict[str, Any]:
            c = {**base, "proc": i, "local": layout[i], **kw}
            if profile_proc == i and profile_path:
                c["profile"] = profile_path
            return c

        children.append(_spawn("peers", cfg(0, host=True)))
        ready = _read_json(children[0], 60)
        if ready.get("kind") != "ready":
            raise RuntimeError(f"host child: {ready}")
        for i in range(1, len(layout)):
            children.append(_spawn("peers", cfg(i, host=False, join=ready["addr"])))
        results = []
        for c in children:
            rec = _read_json(c, timeout + 120)
            if rec.get("kind") != "done":
                raise RuntimeError(f"peer child: {rec}")
            results.append(rec)
    finally:
        _finish(children)
    udp1 = udp_counters()
    delta = {k: udp1[k] - udp0.get(k, 0) for k in udp1}
    return RealRun(humans, results, time.monotonic() - t_start, logdir, delta)


def run_floor(n: int, procs: int, rounds: int, size: int, signed: bool = False) -> list[float]:
    """Per-round times of the raw all-to-all exchange: the LAST socket done with round r
    minus the last done with round r-1 (the same statistic as RealRun.intervals).
    ``signed``: every datagram is Ed25519-signed and every receiver verifies it."""
    layout = split(n, procs)
    cfg = {"rounds": rounds, "size": size, "signed": signed}
    children = [_spawn("floor", {**cfg, "local": k}) for k in layout]
    try:
        ports, pubs = [], []
        for c in children:
            rec = _read_json(c, 60)
            ports.append(rec["ports"])
            pubs += rec["pubs"]
        addrs = [["127.0.0.1", p] for ps in ports for p in ps]
        nxt = 0
        for c, ps in zip(children, ports, strict=True):
            ids = list(range(nxt, nxt + len(ps)))
            nxt += len(ps)
            assert c.stdin is not None
            c.stdin.write(json.dumps({"addrs": addrs, "ids": ids, "pubs": pubs}) + "\n")
            c.stdin.flush()
        done = [_read_json(c, 600) for c in children]
    finally:
        _finish(children)
    if any(d["lost"] for d in done):
        raise RuntimeError("the floor exchange lost datagrams (socket buffers?)")
    last = [max(d["done_at"][r] for d in done) for r in range(rounds)]
    return [last[r] - last[r - 1] for r in range(1, rounds)]


def ed25519_rates(min_time: float = 0.5) -> tuple[float, float]:
    """Raw signs/s and verifies/s of `cryptography` on a 150-byte message."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    pub = key.public_key()
    msg = os.urandom(150)
    sig = key.sign(msg)
    n, dt = timed_loop(lambda: key.sign(msg), min_time)
    signs = n / dt
    n, dt = timed_loop(lambda: pub.verify(sig, msg), min_time)
    return signs, n / dt


def top_profile(path: str, limit: int = 15, sort: str = "tottime") -> str:
    import io
    import pstats

    buf = io.StringIO()
    st = pstats.Stats(path, stream=buf)
    st.strip_dirs().sort_stats(sort).print_stats(limit)
    return buf.getvalue()


_CATEGORIES = (
    ("/lanTag/net/", "links (lanTag.net)"),
    ("/lanTag/session/", "session (lanTag.session)"),
    ("/lanTag/rules/", "rules engine"),
    ("benchgames.py", "rules engine"),
    ("/lanTag/wire.py", "canonical msgpack (lanTag.wire)"),
    ("/msgpack/", "canonical msgpack (lanTag.wire)"),
    ("/lanTag/log/", "log hash chain + writer"),
    ("/lanTag/fair/", "fairness (chains, commitments, draws)"),
    ("/lanTag/identity.py", "Ed25519 (cryptography)"),
    ("/cryptography/", "Ed25519 (cryptography)"),
    ("/lanTag/peer.py", "peer + bot driver"),
    ("/lanTag/lobby.py", "peer + bot driver"),
    ("/lanTag/bots/", "peer + bot driver"),
    ("/lanTag/runtime.py", "peer + bot driver"),
    ("/asyncio_dgram/", "asyncio + sockets"),
    ("/asyncio/", "asyncio + sockets"),
    ("selectors.py", "asyncio + sockets"),
    ("/scripts/bench/", "bench harness"),
)
_BUILTIN_CATEGORIES = (
    ("Ed25519", "Ed25519 (cryptography)"),
    ("_socket.socket", "asyncio + sockets"),
    ("select.epoll", "idle: waiting in epoll"),
    ("posix.fsync", "fsync of the log (I/O wait)"),
    ("msgpack", "canonical msgpack (lanTag.wire)"),
)


def _category(func: tuple[str, int, str]) -> str | None:
    filename, _, name = func
    if filename == "~":
        for needle, cat in _BUILTIN_CATEGORIES:
            if needle in name:
                return cat
        return None  # a generic builtin: charged to its callers
    for needle, cat in _CATEGORIES:
        if needle in filename.replace("\\", "/"):
            return cat
    return "other (stdlib, ...)"


def profile_categories(stats: Any) -> list[tuple[str, float, float]]:
    """Own time (tottime) of a pstats.Stats by area of the code, generic builtins
    (min, len, sorted, ...) charged to the area that called them.  [(area, s, %)]"""
    totals: Counter[str] = Counter()
    for func, (_cc, _nc, tt, _ct, callers) in stats.stats.items():
        cat = _category(func)
        if cat is not None:
            totals[cat] += tt
            continue
        edge_tt = sum(v[2] for v in callers.values()) or 1.0
        for caller, v in callers.items():
            totals[_category(caller) or "other (stdlib, ...)"] += tt * v[2] / edge_tt
        if not callers:
            totals["other (stdlib, ...)"] += tt
    whole = sum(totals.values()) or 1.0
    return [(k, v, 100 * v / whole) for k, v in totals.most_common()]


def category_table(title: str, stats: Any) -> Table:
    t = Table(title, [("area", "area", ""), ("s", "own s", ".2f"), ("pct", "%", ".1f")])
    for area, sec, pct in profile_categories(stats):
        t.add(area=area, s=sec, pct=pct)
    return t.close()


def profile_call(fn: Callable[[], Any]) -> Any:
    """cProfile (CPU clock) of ``fn()``; returns a pstats.Stats."""
    import pstats

    prof = cProfile.Profile(time.process_time)
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    return pstats.Stats(prof)


def stats_text(stats: Any, limit: int = 20) -> str:
    import io

    buf = io.StringIO()
    stats.stream = buf
    stats.strip_dirs().sort_stats("tottime").print_stats(limit)
    return "\n".join(ln for ln in buf.getvalue().splitlines() if ln.strip())


def profile_report(label: str, stats: Any, limit: int = 20) -> tuple[Table, str]:
    """(table of own time by area, top functions by own time) for a profile."""
    return category_table(f"profile: {label}, own time by area", stats), stats_text(stats, limit)


def profile_real_peer(
    engine: str, n: int, procs: int, options: Sequence[tuple[str, Any]], timeout: float = 300
) -> Any:
    """Play one real game and cProfile one joiner process (process 1) from start to end."""
    import pstats

    path = tempfile.mktemp(prefix="lantag-prof-", suffix=".prof")
    run_real(
        engine,
        n,
        procs,
        options=options,
        timeout=timeout,
        logs=True,
        fsync=True,
        profile_proc=1,
        profile_path=path,
    )
    st = pstats.Stats(path)
    os.unlink(path)
    return st


def main() -> None:
    role, cfg = sys.argv[1], json.loads(sys.argv[2])
    if role == "peers":
        asyncio.run(_peers_child(cfg))
    elif role == "floor":
        _floor_child(cfg)
    else:
        raise SystemExit(f"unknown role {role}")


if __name__ == "__main__":
    main()
