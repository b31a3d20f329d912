"""Datagram fuzzer against live peers: garbage must cost nothing but CPU.

Each round starts a host and a joiner: real PeerMachines on real UDP sockets
on 127.0.0.1 (``lanTag.peer.runtime.open_host``/``open_join``, heuristic bots, a
signed log each).  Then:

* lobby phase: the host waits for its joiner while an outsider socket sends it
  random datagrams and mutated real traffic (link frames with fresh epochs that
  carry mutated lobby messages: hello/join garbage from an unknown address);
* game phase: while the two play, the host receives
  - from the outsider socket (real UDP): random and mutated frames (an unknown
    address after the start: dropped unparsed),
  - through its machine, *as if from the joiner's address*: mutated copies of
    the joiner's real frames: the ones that no longer decode, are addressed
    to a stale epoch of the host, or carry a *new* source epoch without naming
    the host's current one (an off-path restart claim: the link drops it and
    challenges, docs/NETWORK.md; it must cost nothing); with ``--on-path``
    also the ones that are valid frames of the live link (forged sequence
    numbers, acks and fragments) or claim a new epoch while naming the host's
    (a restart the link believes): what an attacker who reads the link's
    epochs can do, a known denial of service, docs/SECURITY.md,
  - straight into its session: mutated bundles of this game's real signed
    messages (taken from the host's own log).

After each round: no exception left a peer (the pump would have stopped),
both peers finished the game (no stall), both logs verify and agree, and
unless ``--on-path`` the host's link never took a new epoch of the joiner
(``peer_restarts`` unchanged over the game phase).  Prints the count and the
rate.  Examples::

    python -m scripts.fuzz_datagrams --count 20000
    python -m scripts.fuzz_datagrams --count 1000000 --json fuzz.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field, fields
from pathlib import Path

from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.net.frame import HEADER, Frame, FrameType, MalformedFrame, decode, encode
from lanTag.peer.join_handshake import HostConfig, lobby_message
from lanTag.peer.machine import BotDriver
from lanTag.peer.runtime import LocalIdentity, open_host, open_join, wait_until
from lanTag.session.messages import pack_bundle
from tests.support.table import final_history


@dataclass
class Stats:
    rounds: int = 0
    udp_outsider: int = 0
    as_joiner: int = 0
    bundles: int = 0
    new_epochs: int = 0  # off-path new-epoch frames as the joiner (sent, counted in as_joiner)
    skipped_on_path: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    blames: list[str] = field(default_factory=list)  # e.g. a seat dropped after forged acks
    rejected: dict[str, int] = field(default_factory=dict)
    link: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.udp_outsider + self.as_joiner + self.bundles


def mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randrange(1, 5)):
        if not buf:
            buf.append(rng.getrandbits(8))
            continue
        i = rng.randrange(len(buf))
        op = rng.randrange(6)
        if op == 0:
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            buf[i] = rng.getrandbits(8)
        elif op == 2:
            del buf[i : i + rng.randrange(1, 8)]
        elif op == 3:
            buf[i:i] = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 8)))
        elif op == 4:
            del buf[i:]
        else:
            buf[i:i] = buf[i : i + rng.randrange(1, 32)]
    return bytes(buf)


def random_datagram(rng: random.Random) -> bytes:
    kind = rng.randrange(4)
    if kind == 0:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 1400)))
    if kind == 1:  # header-shaped
        return bytes([0x4C, 0x10 | rng.randrange(1, 4)]) + rng.randbytes(rng.randrange(0, 1300))
    if kind == 2:
        return bytes(rng.randrange(1201, 3000))
    return rng.randbytes(rng.randrange(0, 40))


LOBBY = [
    lobby_message("hello", "fuzz", False),
    lobby_message("hello", "x" * 40, True),
    lobby_message("join", bytes(32), bytes(32), "n", b"", False, bytes(64)),
    lobby_message("leave"),
    lobby_message("welcome", bytes(32), bytes(32), "prototag", "g", 3, False, 1),
    lobby_message("start", b"rec", [], [], bytes(64)),
]


def outsider_frame(rng: random.Random) -> bytes:
    """A valid-looking frame from a fresh epoch, carrying a (mutated) lobby message."""
    payload = rng.choice(LOBBY)
    if rng.random() < 0.7:
        payload = mutate(rng, payload)
    frame = Frame(FrameType.DATA, rng.getrandbits(32) or 1, 0, 0, 0, 0, 0, 1, payload[:1170])
    data = encode(frame)
    return mutate(rng, data) if rng.random() < 0.3 else data


async def one_round(
    k: int,
    rng: random.Random,
    budget: int,
    stats: Stats,
    engine: str,
    lobby_share: float,
    args_batch: int = 1000,
    quiet: bool = False,
    on_path: bool = False,
) -> None:
    tmpdir = tempfile.TemporaryDirectory(prefix="lantag-fuzz-")
    tmp = Path(tmpdir.name)
    me = LocalIdentity(Identity(rng.randbytes(32)), "host")
    other = LocalIdentity(Identity(rng.randbytes(32)), "joiner")
    third = LocalIdentity(Identity(rng.randbytes(32)), "third")
    config = HostConfig(engine, "fuzz", 3)
    host = await open_host(
        config, me, bind=("127.0.0.1", 0), driver=BotDriver("heuristic"), log_path=tmp / "h.lt"
    )
    out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    out.setblocking(False)
    out.bind(("127.0.0.1", 0))
    joiner = None
    extra = None
    t0 = time.perf_counter()
    try:
        # ---- lobby phase: only the outsider socket, the joiner is not there yet
        lobby_n = int(budget * lobby_share)
        for i in range(lobby_n):
            data = outsider_frame(rng) if i % 2 else random_datagram(rng)
            try:
                out.sendto(data, host.address)
            except (BlockingIOError, OSError):
                await asyncio.sleep(0.001)
            stats.udp_outsider += 1
            if i % 200 == 0:
                await asyncio.sleep(0)
        await asyncio.sleep(0.05)
        joiner = await open_join(
            host.address,
            other,
            bind=("127.0.0.1", 0),
            driver=BotDriver("heuristic"),
            log_path=tmp / "j.lt",
        )
        extra = await open_join(
            host.address,
            third,
            bind=("127.0.0.1", 0),
            driver=BotDriver("heuristic"),
            log_path=tmp / "x.lt",
        )
        lobby = host.machine.lobby
        if not await wait_until(lambda: lobby.taken >= 3, 20):  # type: ignore[union-attr]
            stats.problems.append(f"round {k}: the joiner could not sit down after lobby fuzz")
            return
        host.command(host.machine.start_game)
        if not await wait_until(
            lambda: joiner.machine.session is not None and extra.machine.session is not None, 20
        ):
            stats.problems.append(f"round {k}: a joiner never started")
            return
        t1 = time.perf_counter()
        # ---- game phase
        jaddr = joiner.address
        session = host.machine.session
        assert session is not None
        sent = lobby_n
        corpus: list[bytes] = []
        frames: list[bytes] = []
        tap = joiner.pump.machine
        restarts_before = host.machine.link.stats.peer_restarts

        real_output = tap.datagrams_to_send  # capture the joiner's real frames to the host

        def tapped(now: float) -> list[tuple[bytes, tuple[str, int]]]:
            out = real_output(now)
            for data, addr in out:
                if addr == host.address and len(frames) < 4000:
                    frames.append(data)
            return out

        tap.datagrams_to_send = tapped  # type: ignore[method-assign]
        while sent < budget and not (session.state.is_over):
            if host.log is not None and len(corpus) < 50:
                corpus = [
                    e.data
                    for e in parse_log((tmp / "h.lt").read_bytes()).entries
                    if e.kind == EntryKind.MSG
                ][-200:]
            now = host.now()
            for _ in range(args_batch):
                r = rng.random()
                if r < 0.2:
                    with contextlib.suppress(BlockingIOError, OSError):
                        out.sendto(random_datagram(rng), host.address)
                    stats.udp_outsider += 1
                elif r < 0.6 and frames:
                    data = mutate(rng, rng.choice(frames))
                    kind = _classify(data, frames[0])
                    if kind == "new-epoch":
                        stats.new_epochs += 1
                    if kind in ("on-path", "restart") and not on_path:
                        stats.skipped_on_path += 1
                        continue
                    host.machine.receive_datagram(data, jaddr, now)
                    stats.as_joiner += 1
                elif corpus:
                    items = [rng.choice(corpus) for _ in range(rng.randrange(1, 4))]
                    bundle = pack_bundle(items)
                    if rng.random() < 0.8:
                        bundle = mutate(rng, bundle)
                    session.receive_payload(bundle, now)
                    stats.bundles += 1
                else:
                    continue
                sent += 1
            host.machine.poke(now)
            host.pump.poke()
            await asyncio.sleep(0.002)
        # ---- the game must still end for both, logs must verify and agree
        done = await wait_until(
            lambda: all(
                h.machine.session is not None and h.machine.session.state.is_over
                for h in (host, joiner, extra)
            ),
            180,
        )
        t2 = time.perf_counter()
        if not done:
            stats.problems.append(f"round {k}: stall (steps {session.step})")
        restarts = host.machine.link.stats.peer_restarts - restarts_before
        if restarts and not on_path:
            stats.problems.append(f"round {k}: the host's link believed {restarts} new epochs")
        histories = set()
        for name in ("h.lt", "j.lt", "x.lt"):
            report = verify_log((tmp / name).read_bytes())
            if not (report.valid and report.complete):
                stats.problems.append(
                    f"round {k}: {name} {report.failure} complete={report.complete}"
                )
            histories.add(final_history(report))
        if len(histories) != 1:
            stats.problems.append(f"round {k}: logs disagree")
        for e in host.machine.events:
            code = getattr(e, "code", None)
            if type(e).__name__ == "Rejected" and code:
                stats.rejected[code] = stats.rejected.get(code, 0) + 1
            if type(e).__name__ == "Blame":
                stats.blames.append(f"round {k}: {e}")
        link_stats = host.machine.link.stats
        for f in fields(link_stats):
            value = getattr(link_stats, f.name)
            if isinstance(value, int):  # the counters (not links, strangers)
                stats.link[f.name] = stats.link.get(f.name, 0) + value
    finally:
        out.close()
        for h in (host, joiner, extra):
            if h is None:
                continue
            try:
                await h.close()
            except Exception as exc:  # the pump re-raises what stopped it: a crash
                stats.problems.append(f"round {k}: peer crashed: {type(exc).__name__}: {exc}")
        tmpdir.cleanup()
    stats.rounds += 1
    if not quiet:
        print(
            f"  round {k}: lobby {t1 - t0:.1f}s, game {t2 - t1:.1f}s, "
            f"end {time.perf_counter() - t2:.1f}s"
        )


def _classify(data: bytes, reference: bytes) -> str:
    """How the host's link takes ``data`` from the joiner's address (``reference``: a real frame).

    garbage: does not decode (dropped, counted); stale: addressed to another epoch of the
    host (its content is dropped, answered with an ACK); new-epoch: another source epoch,
    not naming the host's current one (dropped as unconfirmed and challenged: the link
    needs return routability for a new epoch, so it must cost nothing); restart: another
    source epoch naming the host's current one (believed: a reset, as a real restart);
    on-path: a valid frame of the live link (forged sequence numbers and acks).  The last
    two need the link's epochs, i.e. an attacker who reads the traffic (``--on-path``).
    """
    try:
        frame = decode(data)
    except MalformedFrame:
        return "garbage"
    _, _, src, dst = HEADER.unpack_from(reference)[:4]
    if frame.src_epoch != src:
        return "restart" if frame.dst_epoch == dst else "new-epoch"
    if frame.dst_epoch not in (0, dst):
        return "stale"
    return "on-path"


async def main_async(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    stats = Stats()
    began = time.perf_counter()
    k = 0
    while stats.total < args.count:
        per_round = min(args.per_game, args.count - stats.total)
        await one_round(
            k,
            rng,
            per_round,
            stats,
            args.engine,
            args.lobby_share,
            quiet=args.quiet,
            on_path=args.on_path,
        )
        k += 1
        if not args.quiet:
            print(
                f"round {k}: {stats.total} datagrams/payloads so far, "
                f"{stats.total / (time.perf_counter() - began):.0f}/s, "
                f"problems {len(stats.problems)}",
                flush=True,
            )
    stats.seconds = time.perf_counter() - began
    print(
        f"{stats.total} inputs in {stats.seconds:.1f}s ({stats.total / stats.seconds:.0f}/s) "
        f"over {stats.rounds} games: {stats.udp_outsider} outsider UDP datagrams, "
        f"{stats.as_joiner} frames as the joiner, {stats.bundles} bundles into the session; "
        f"of them {stats.new_epochs} with a new epoch not naming the host's (off-path); "
        f"skipped: {stats.skipped_on_path} valid frames of the live link or new epochs naming "
        f"the host's (--on-path sends them)"
    )
    print(f"host rejections: {stats.rejected}")
    print(f"blames seen by the host ({len(stats.blames)}):")
    for b in stats.blames:
        print("   ", b)
    print(f"host link counters: {stats.link}")
    for p in stats.problems:
        print("PROBLEM:", p)
    if args.json:
        report = json.dumps({**vars(stats), "total": stats.total}, indent=1)
        Path(args.json).write_text(report, encoding="utf-8")
    return 1 if stats.problems else 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m scripts.fuzz_datagrams",
        description=__doc__,
        formatter_class=argparse.RawTextHelpFormatter,
    )
    p.add_argument("--count", type=int, default=20_000, help="datagrams and payloads in all")
    p.add_argument("--per-game", type=int, default=50_000, help="inputs per game (round)")
    p.add_argument("--lobby-share", type=float, default=0.1, help="share sent in the lobby")
    p.add_argument("--engine", default="prototag")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", metavar="FILE")
    p.add_argument(
        "--on-path",
        action="store_true",
        help="also send valid frames of the joiner's live link (forged seqs/acks)",
    )
    p.add_argument("--quiet", action="store_true")
    return asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
