#!/usr/bin/env python3
"""How long from registering a lanTag game until a browser in *another process* sees it.

Three rows, all measured in the same run, on the same interface:

* ``floor``: one raw UDP multicast datagram, send -> receive in the browser process.
  Nothing mDNS can do beats this; it includes process wake-up and loop latency.
* ``mdns fast``: ``LobbyAdvertiser.start()`` (``cooperating_responders=True``,
  no probing) -> the browser's LobbyTable shows the game with its TXT.
* ``mdns probing``: the same records registered with zeroconf's default conflict
  probing, for comparison (~150-250 ms random wait + 3 probes 500 ms apart).

Timestamps are ``time.monotonic()`` (CLOCK_MONOTONIC is system-wide on Linux, also
across network namespaces), taken in the process where each event happens.

Usage::

    python scripts/bench/bench_discovery.py                    # loopback, 20 + 3 trials
    python scripts/bench/bench_discovery.py --trials 50 --probing-trials 0 --json
    python scripts/bench/bench_discovery.py --netns peer --interface 10.99.0.1 \\
        --browser-interface 10.99.0.2                          # browser in a namespace

Only the given interfaces are used: by default nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncZeroconf

from lanTag.net.discovery import (
    LobbyAdvert,
    LobbyAdvertiser,
    LobbyBrowser,
    service_info,
)
from lanTag.net.lobbies import LobbyTable

FLOOR_GROUP = "239.255.76.84"  # administratively scoped; TTL 1 keeps it on the link anyway


# --------------------------------------------------------------------------- browser process


def _floor_socket(interface: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("0.0.0.0", 0))
    mreq = socket.inet_aton(FLOOR_GROUP) + socket.inet_aton(interface)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
    sock.setblocking(False)
    return sock


def _emit(record: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


async def browser_main(interface: str) -> None:
    reported: set[str] = set()

    def on_change(table: LobbyTable) -> None:
        now = time.monotonic()
        for lobby in table.lobbies():
            if lobby.fingerprint not in reported:
                reported.add(lobby.fingerprint)
                _emit({"kind": "seen", "fp": lobby.fingerprint, "t": now})

    floor = _floor_socket(interface)
    loop = asyncio.get_running_loop()

    def on_floor() -> None:
        data = floor.recv(64)
        _emit({"kind": "floor", "id": data.decode(), "t": time.monotonic()})

    loop.add_reader(floor.fileno(), on_floor)
    async with LobbyBrowser([interface], on_change=on_change):
        _emit({"kind": "ready", "port": floor.getsockname()[1]})
        await loop.run_in_executor(None, sys.stdin.read)  # parent closes stdin to stop us


# --------------------------------------------------------------------------- parent


class Child:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.events: dict[tuple[str, str], float] = {}
        self.ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            rec = json.loads(line)
            if rec["kind"] == "ready":
                self.ready.set_result(int(rec["port"]))
            else:
                key = rec["fp"] if rec["kind"] == "seen" else rec["id"]
                self.events[(rec["kind"], key)] = float(rec["t"])
                self.changed.set()

    async def wait(self, kind: str, key: str, timeout: float) -> float:
        async with asyncio.timeout(timeout):
            while (kind, key) not in self.events:
                self.changed.clear()
                await self.changed.wait()
        return self.events[(kind, key)]


def _advert() -> LobbyAdvert:
    return LobbyAdvert("bench", "boardtag", secrets.token_hex(8), 40000, 1, 4)


async def trial_floor(child: Child, sender: socket.socket, port: int) -> float:
    ident = secrets.token_hex(4)
    start = time.monotonic()
    sender.sendto(ident.encode(), (FLOOR_GROUP, port))
    return await child.wait("floor", ident, 5.0) - start


async def trial_fast(child: Child, interface: str) -> float:
    advert = _advert()
    advertiser = LobbyAdvertiser(advert, [interface])
    start = time.monotonic()
    await advertiser.start()
    try:
        return await child.wait("seen", advert.fingerprint, 10.0) - start
    finally:
        await advertiser.close()


async def trial_probing(child: Child, interface: str) -> float:
    advert = _advert()
    zc = AsyncZeroconf(interfaces=[interface], ip_version=IPVersion.V4Only)
    info = service_info(advert, [interface])
    start = time.monotonic()
    await zc.async_register_service(info)  # default: RFC 6762 probing first
    try:
        return await child.wait("seen", advert.fingerprint, 10.0) - start
    finally:
        await (await zc.async_unregister_service(info))
        await zc.async_close()


def summarise(name: str, samples: list[float]) -> dict[str, object]:
    ms = sorted(s * 1e3 for s in samples)
    if not ms:
        return {"row": name, "n": 0}
    return {
        "row": name,
        "n": len(ms),
        "min_ms": round(ms[0], 2),
        "median_ms": round(statistics.median(ms), 2),
        "p90_ms": round(ms[min(len(ms) - 1, int(0.9 * len(ms)))], 2),
        "max_ms": round(ms[-1], 2),
    }


async def parent_main(args: argparse.Namespace) -> None:
    browser_if = args.browser_interface or args.interface
    cmd = [sys.executable, __file__, "--role", "browser", "--interface", browser_if]
    if args.netns:
        cmd = ["ip", "netns", "exec", args.netns, *cmd]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    child = Child(proc)
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.interface))
    sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    sender.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
    rows = []
    try:
        async with asyncio.timeout(30):
            port = await child.ready
        await asyncio.sleep(0.3)  # let the browser's own startup queries settle
        floor, fast, probing = [], [], []
        for _ in range(args.trials):
            floor.append(await trial_floor(child, sender, port))
            fast.append(await trial_fast(child, args.interface))
        for _ in range(args.probing_trials):
            probing.append(await trial_probing(child, args.interface))
        rows = [
            summarise("floor (raw multicast)", floor),
            summarise("mdns fast (no probe)", fast),
            summarise("mdns probing (default)", probing),
        ]
    finally:
        sender.close()
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
        child.reader.cancel()
    where = f"{args.interface} -> {browser_if}" + (f" (netns {args.netns})" if args.netns else "")
    if args.json:
        print(json.dumps({"interfaces": where, "rows": rows}, indent=2))
        return
    print(f"register -> seen by another process, {where}")
    print(f"{'':24} {'n':>3} {'min ms':>8} {'median':>8} {'p90':>8} {'max':>8}")
    for r in rows:
        if r["n"]:
            print(
                f"{r['row']:24} {r['n']:>3} {r['min_ms']:>8} {r['median_ms']:>8} "
                f"{r['p90_ms']:>8} {r['max_ms']:>8}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role", choices=["parent", "browser"], default="parent")
    parser.add_argument("--interface", default="127.0.0.1", help="advertiser's IPv4 address")
    parser.add_argument("--browser-interface", help="browser's IPv4 (default: --interface)")
    parser.add_argument("--netns", help="run the browser inside this network namespace")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--probing-trials", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.role == "browser":
        asyncio.run(browser_main(args.interface))
    else:
        asyncio.run(parent_main(args))


if __name__ == "__main__":
    main()
