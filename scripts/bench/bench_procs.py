"""Multi-process real-socket runners of the lanTag benchmarks.

* :func:`run_real`: peers (``lanTag.peer.runtime.open_host`` / ``open_join`` with a
  ``BotDriver``, each on its own loopback UDP socket) spread over several OS processes;
* :func:`run_floor`: the raw unsigned (or signed) all-to-all UDP floor of the same pattern.

Child processes run ``python -m scripts.bench.benchlib peers|floor`` with a JSON config on
the command line; :func:`main` (called by benchlib.py) dispatches to the child roles defined here.
Timestamps across processes are ``time.monotonic()`` (CLOCK_MONOTONIC, system-wide).
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import select
import selectors
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanTag.identity import Identity
from lanTag.peer.join_handshake import HostConfig, HostLobby
from lanTag.peer.machine import BotDriver
from scripts.bench import benchgames
from scripts.bench.bench_direct import BENCH_TIMEOUTS, Addr, StampedEvents
from tests.support.processes import root_env

# --------------------------------------------------------------------------- real sockets: children


def _emit(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


async def _peers_child(cfg: dict[str, Any]) -> None:
    from lanTag.peer.runtime import LocalIdentity, open_host, open_join, wait_until

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
        target = tuple(cfg["join"])
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
        assert isinstance(lobby, HostLobby)
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
    except asyncio.TimeoutError:  # not the builtin one before Python 3.11
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
    datagram carries an Ed25519 signature that every receiver verifies, as lanTag does
    (``cryptography`` signs, libsodium verifies): the same exchange plus exactly the crypto
    a signed protocol cannot avoid."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from nacl.bindings import crypto_sign_open

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
    pubs = [bytes.fromhex(h) for h in plan.get("pubs", [])]
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
                sock = socks[key.data]  # the socket registered with index key.data
                while True:
                    try:
                        data = sock.recv(2048)
                    except BlockingIOError:
                        break
                    if signed:
                        sender = int.from_bytes(data[4:8], "big")
                        crypto_sign_open(data[body_len:] + data[:body_len], pubs[sender])
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
            for ln in Path("/proc/net/snmp").read_text(encoding="utf-8").splitlines()
            if ln.startswith("Udp:")
        ]
        return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:], strict=True)}
    except (OSError, IndexError, ValueError):
        return {}


def split(n: int, procs: int) -> list[int]:
    procs = max(1, min(procs, n))
    return [n // procs + (1 if i < n % procs else 0) for i in range(procs)]


# The child program is the facade, benchlib (``python -m scripts.bench.benchlib peers|floor``).
_CHILD = "scripts.bench.benchlib"


def _spawn(role: str, cfg: dict[str, Any]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", _CHILD, role, json.dumps(cfg)],
        env=root_env(),
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
                record: dict[str, Any] = json.loads(line)
                return record
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
        return float(sum(p["cpu"] for p in self.procs))


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


def main() -> None:
    role, cfg = sys.argv[1], json.loads(sys.argv[2])
    if role == "peers":
        asyncio.run(_peers_child(cfg))
    elif role == "floor":
        _floor_child(cfg)
    else:
        raise SystemExit(f"unknown role {role}")
