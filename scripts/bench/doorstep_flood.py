"""Strangers at the door of a real ``lantag host`` process (issue #24 A), on loopback.

Two measures, each against a fresh ``lantag host --headless`` process on 127.0.0.1:

* **join under flood**: SOURCES throwaway sockets bound to 127.0.x.y ping the host
  (a PING from a new random epoch, plus a garbage datagram, per source every
  ``--interval``) and never answer their cookies.  While they do, a real ``lantag
  join --headless`` process is started; the time from its start to the host's
  ``lobby: 2/2 seated`` line is the time to get in.  The same is measured without a
  flood first (the floor: process start-up and the handshake).  Target < 2 s.
* **early payloads**: SOURCES senders each send ``--payloads`` messages of 1 MiB to
  the host before the game starts, as raw DATA fragments (the issue's attack:
  ``--mode raw``, 300 MiB on the wire for 300 sources) or through a real link
  layer that answers its cookie (``--mode link``: the host then holds stranger
  links, capped).  The host's RSS (``/proc/PID/status`` VmRSS) is sampled every
  50 ms; the growth is the peak minus the RSS before the flood.  Target < 50 MB.

    python -m scripts.bench.doorstep_flood                   # both, 300 sources
    python -m scripts.bench.doorstep_flood --quick           # 60 sources, a smoke check
    PYTHONPATH=<other tree> python -m scripts.bench.doorstep_flood   # the host from that tree

Linux only (binds 127.0.x.y, reads /proc).  Prints one line per measure, or JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import socket
import sys
import tempfile
import time
from pathlib import Path

from lanTag.net.endpoint import LinkEndpoint
from lanTag.net.frame import MAX_CHUNK, Frame, FrameType, encode
from lanTag.net.link import LinkError, LinkLayer
from lanTag.net.udp import UdpPump, run_machine
from lanTag.peer.selfplay import peer_env

PORT = re.compile(r"on port (\d+)")
MIB = 1 << 20
SEAT_GUARD = 30.0  # a joiner not seated by then is reported as kept out (inf)


def sources(n: int, third: int = 1) -> list[str]:
    return [f"127.{third}.{1 + i // 250}.{1 + i % 250}" for i in range(n)]


class Proc:
    """A lantag process whose stdout and stderr lines are kept with their arrival time."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.lines: list[tuple[float, str]] = []
        assert proc.stdout is not None and proc.stderr is not None
        self._tasks = [
            asyncio.create_task(self._read(proc.stdout)),
            asyncio.create_task(self._read(proc.stderr)),
        ]

    @classmethod
    async def start(cls, args: list[str], env: dict[str, str]) -> Proc:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "lanTag",
            *args,
            env=env,
            cwd="/",  # so PYTHONPATH, not the current directory, picks the tree
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return cls(proc)

    async def _read(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            self.lines.append((time.monotonic(), line.decode(errors="replace").rstrip()))

    async def wait_line(self, pattern: str, guard: float = 30.0) -> tuple[float, str]:
        deadline = time.monotonic() + guard
        while time.monotonic() < deadline:
            for at, line in self.lines:
                if re.search(pattern, line):
                    return at, line
            if self.proc.returncode is not None:
                break
            await asyncio.sleep(0.01)
        tail = "\n".join(line for _, line in self.lines[-5:])
        raise RuntimeError(f"no line matching {pattern!r} (last lines:\n{tail})")

    def rss_kb(self) -> int:
        text = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="utf-8")
        return int(re.search(r"VmRSS:\s+(\d+)", text).group(1))  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
        await self.proc.wait()
        for task in self._tasks:
            task.cancel()


async def start_host(root: Path) -> tuple[Proc, int]:
    args = ["host", "--headless", "--game", "prototag", "--seats", "2", "--no-advertise"]
    args += ["--bind", "127.0.0.1", "--log", str(root / "host.lantag")]
    host = await Proc.start(args, peer_env(root, 0))
    _, line = await host.wait_line(PORT.pattern)
    match = PORT.search(line)
    assert match is not None
    return host, int(match.group(1))


async def time_to_seat(root: Path, port: int, host: Proc) -> float:
    join = ["join", f"127.0.0.1:{port}", "--headless", "--log", str(root / "join.lantag")]
    started = time.monotonic()
    joiner = await Proc.start(join, peer_env(root, 1))
    try:
        at, _ = await host.wait_line(r"lobby: 2/2 seated", guard=SEAT_GUARD)
        return at - started
    except RuntimeError:
        return float("inf")  # not seated within the guard: kept out
    finally:
        await joiner.stop()


async def ping_flood(port: int, n: int, interval: float, stop: asyncio.Event) -> int:
    rng = random.Random(24)
    socks = []
    sent = 0
    try:
        for host in sources(n):
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.setblocking(False)
            sock.bind((host, 0))
            socks.append(sock)
        while not stop.is_set():
            for sock in socks:
                ping = encode(Frame(FrameType.PING, rng.randrange(1, 1 << 32), 0, 0, 0, 0))
                for data in (ping, rng.randbytes(rng.randrange(1, 100))):
                    with contextlib.suppress(BlockingIOError):
                        sock.sendto(data, ("127.0.0.1", port))
                        sent += 1
            await asyncio.sleep(interval)
    finally:
        for sock in socks:
            sock.close()
    return sent


async def join_under_flood(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="doornet-flood-") as tmp:
        root = Path(tmp)
        host, port = await start_host(root / "quiet")
        try:
            floor = await time_to_seat(root / "quiet", port, host)
        finally:
            await host.stop()
        host, port = await start_host(root / "flood")
        stop = asyncio.Event()
        flood = asyncio.create_task(ping_flood(port, args.sources, args.interval, stop))
        try:
            await asyncio.sleep(1.0)  # the flood is under way before the joiner starts
            seated = await time_to_seat(root / "flood", port, host)
        finally:
            stop.set()
            sent = await flood
            await host.stop()
    return {
        "measure": "join under flood",
        "sources": args.sources,
        "datagrams_sent": sent,
        "seconds_to_seat": round(seated, 3),
        "seconds_to_seat_without_flood": round(floor, 3),
        "target_seconds": 2.0,
        "met": seated < 2.0,
    }


async def raw_payloads(port: int, n: int, payloads: int, size: int) -> int:
    """Each source sends its messages as raw DATA fragments (dst 0, never answering
    a cookie); returns the bytes sent."""
    rng = random.Random(7)
    chunk = rng.randbytes(MAX_CHUNK)
    count = -(-size // MAX_CHUNK)
    sent = 0
    loop = asyncio.get_running_loop()
    for host in sources(n, third=2):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((host, 0))
        sock.setblocking(False)
        epoch = rng.randrange(1, 1 << 32)
        seq = 0
        for _ in range(payloads):
            for index in range(count):
                frame = Frame(FrameType.DATA, epoch, 0, seq, 0, 0, index, count, chunk)
                data = encode(frame)
                while True:
                    try:
                        sock.sendto(data, ("127.0.0.1", port))
                        break
                    except BlockingIOError:
                        await asyncio.sleep(0.001)
                sent += len(data)
                seq += 1
            await asyncio.sleep(0)
        sock.close()
        await loop.run_in_executor(None, lambda: None)  # let the sampler run
    return sent


async def link_payloads(port: int, n: int, payloads: int, size: int, seconds: float) -> int:
    """Each source runs a real link layer (it answers its cookie) and queues its
    messages; they run for ``seconds``; returns the bytes queued."""
    rng = random.Random(8)
    stop = asyncio.Event()
    tasks = []
    blob = rng.randbytes(size)

    for host in sources(n, third=3):
        layer = LinkLayer(rng.getrandbits(128))
        endpoint = LinkEndpoint(layer, lambda _src, _m: None)

        def send_all(pump: UdpPump, layer: LinkLayer = layer) -> None:
            for _ in range(payloads):
                with contextlib.suppress(LinkError):  # over the sender's own queue limit
                    layer.send(("127.0.0.1", port), blob, pump.now())
            pump.poke()

        tasks.append(
            asyncio.create_task(run_machine(endpoint, (host, 0), None, stop, on_bound=send_all))
        )
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return n * payloads * size


async def early_payloads(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="doornet-rss-") as tmp:
        root = Path(tmp)
        host, port = await start_host(root)
        peak = 0
        sampling = True

        async def sample() -> None:
            nonlocal peak
            while sampling:
                peak = max(peak, host.rss_kb())
                await asyncio.sleep(0.05)

        try:
            await asyncio.sleep(1.0)  # settle after start-up
            before = host.rss_kb()
            sampler = asyncio.create_task(sample())
            started = time.monotonic()
            if args.mode == "raw":
                sent = await raw_payloads(port, args.sources, args.payloads, args.size)
            else:
                sent = await link_payloads(
                    port, args.sources, args.payloads, args.size, args.link_seconds
                )
            took = time.monotonic() - started
            await asyncio.sleep(2.0)  # what the host still holds afterwards
            sampling = False
            await sampler
            after = host.rss_kb()
            alive = host.proc.returncode is None
        finally:
            await host.stop()
    growth_mb = (peak - before) / 1024
    return {
        "measure": f"early payloads ({args.mode})",
        "sources": args.sources,
        "payloads_per_source": args.payloads,
        "payload_bytes": args.size,
        "bytes_sent_or_queued": sent,
        "seconds_sending": round(took, 2),
        "rss_before_mb": round(before / 1024, 1),
        "rss_peak_mb": round(peak / 1024, 1),
        "rss_after_mb": round(after / 1024, 1),
        "rss_growth_mb": round(growth_mb, 1),
        "host_alive": alive,
        "target_growth_mb": 50,
        "met": growth_mb < 50 and alive,
    }


async def main_async(args: argparse.Namespace) -> list[dict[str, object]]:
    results = []
    if args.only in (None, "join"):
        results.append(await join_under_flood(args))
    if args.only in (None, "rss"):
        results.append(await early_payloads(args))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.bench.doorstep_flood", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sources", type=int, default=300)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between pings")
    parser.add_argument("--payloads", type=int, default=1, help="messages per source")
    parser.add_argument("--size", type=int, default=MIB, help="bytes per message (1 MiB)")
    parser.add_argument("--mode", choices=("raw", "link"), default="raw")
    parser.add_argument("--link-seconds", type=float, default=5.0)
    parser.add_argument("--only", choices=("join", "rss"))
    parser.add_argument("--quick", action="store_true", help="60 sources")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.sources = 60
    if not Path("/proc/self/status").exists():
        print("doorstep_flood.py needs Linux (/proc)", file=sys.stderr)
        return 2
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    results = asyncio.run(main_async(args))
    for result in results:
        if args.json:
            print(json.dumps(result))
        else:
            print(", ".join(f"{k}={v}" for k, v in result.items()))
    return 0 if all(r["met"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
