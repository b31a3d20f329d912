"""Strangers at a real host's door (issue #24 A), real UDP sockets on 127.0.0.0/8.

A flood from 300 throwaway source addresses (sockets bound to 127.0.x.y that never
answer their cookies), garbage datagrams, and cookie-answering strangers sending
1 MiB payloads before the start.  Asserts are on structure (who holds a link, what
is buffered, that the joiner's link was never reset), never on time: every wait is
a hang guard.  Long runs and RSS: scripts/bench/doorstep_flood.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanTag.net.endpoint import Addr, LinkEndpoint
from lanTag.net.frame import Frame, FrameType, encode
from lanTag.net.link import LinkLayer
from lanTag.net.udp import UdpPump, run_machine
from lanTag.peer.join_handshake import HostConfig, JoinLobby
from lanTag.peer.runtime import PeerHandle, open_host, open_join
from tests.aio import within
from tests.net.real_table import LOCAL, TIMEOUTS, me, wait_for

SOURCES = [f"127.0.{1 + i // 250}.{1 + i % 250}" for i in range(300)]


@contextlib.contextmanager
def throwaway_sockets(hosts: list[str]) -> Iterator[list[socket.socket]]:
    socks = []
    try:
        for host in hosts:
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.setblocking(False)
            sock.bind((host, 0))
            socks.append(sock)
        yield socks
    finally:
        for sock in socks:
            sock.close()


def _garbage(rng: random.Random) -> bytes:
    good = encode(Frame(FrameType.PING, rng.randrange(1, 1 << 32), 0, 0, 0, 0))
    return rng.choice(
        [
            b"",
            rng.randbytes(rng.randrange(1, 29)),  # short
            b"\xff" + good[1:],  # bad magic
            good[:1] + b"\x1f" + good[2:],  # unknown type
            good + b"payload on a PING",
            rng.randbytes(1200),
        ]
    )


async def _open(tmp: Path, humans: int = 2) -> PeerHandle:
    config = HostConfig("tagem", "door", humans, timeouts=TIMEOUTS)
    return await open_host(config, me("host"), bind=(LOCAL, 0), log_path=tmp / "host.lantag")


async def test_a_joiner_is_seated_while_300_throwaway_sources_ping_and_garble(
    tmp_path: Path,
) -> None:
    host = await _open(tmp_path)
    rng = random.Random(24)
    flood_addrs: set[Addr] = set()
    rounds = 0
    stop = asyncio.Event()
    table_ok = True

    def check_table() -> None:
        nonlocal table_ok
        # the host never holds a link (or a stranger) for an unproven source
        table_ok &= flood_addrs.isdisjoint(host.machine.link.peers())

    async def flood(socks: list[socket.socket]) -> None:
        nonlocal rounds
        while not stop.is_set():
            for sock in socks:
                ping = encode(Frame(FrameType.PING, rng.randrange(1, 1 << 32), 0, 0, 0, 0))
                for data in (ping, _garbage(rng)):
                    with contextlib.suppress(BlockingIOError):
                        sock.sendto(data, host.address)
            rounds += 1
            check_table()
            await asyncio.sleep(0.05)

    joiner: PeerHandle | None = None
    with throwaway_sockets(SOURCES) as socks:
        flood_addrs.update((s.getsockname()[0], s.getsockname()[1]) for s in socks)
        task = asyncio.create_task(flood(socks))
        try:
            await wait_for(lambda: rounds >= 2, "the flood to start")
            joiner = await open_join(host.address, me("friend"), bind=(LOCAL, 0))
            lobby = joiner.machine.lobby
            assert isinstance(lobby, JoinLobby)
            seated_at = 0

            def seated() -> bool:
                nonlocal seated_at
                check_table()
                seated_at = rounds
                return lobby.your_seat is not None

            await wait_for(seated, "the joiner to be seated during the flood")

            def flood_counted() -> bool:
                # The host reads its socket only between flood rounds (one event loop) and
                # the kernel drops what overflows its buffer: how many rounds it takes to
                # count 300 cookies and 600 dropped frames depends on the machine's load.
                stats = host.machine.link.stats
                return stats.cookies_sent >= 300 and stats.dropped_unproven >= 600

            await wait_for(
                lambda: rounds >= seated_at + 2 and flood_counted(),
                "the flood to go on after the seat, until the host counted it",
            )
        finally:
            stop.set()
            await task
    try:
        stats = host.machine.link.stats
        assert table_ok, "an unproven source got a link"
        assert stats.cookies_sent >= 300 and stats.dropped_unproven >= 600
        assert stats.dropped_malformed > 0
        assert sorted(host.machine.link.peers()) == [joiner.address]
        mine = joiner.machine.link.stats
        assert mine.peer_restarts == 0 and mine.links_expired == 0  # never reset or lost
        host.command(host.machine.start_game)  # the flooded host still works
        await wait_for(lambda: joiner.machine.session is not None, "the START")
    finally:
        await asyncio.gather(host.close(), joiner.close(), return_exceptions=True)


async def test_early_megabyte_payloads_stay_within_the_strangers_budget(tmp_path: Path) -> None:
    host = await _open(tmp_path)
    stop = asyncio.Event()
    rng = random.Random(7)
    senders: list[LinkLayer] = []
    tasks = []
    for i in range(12):
        layer = LinkLayer(rng.getrandbits(64))
        senders.append(layer)
        endpoint = LinkEndpoint(layer, lambda _src, _m: None)
        # in stream order: 100 kB fits a stranger's allowance, 1 MiB never does
        payloads = [rng.randbytes(size) for size in (100_000, 100_000, 1 << 20, 1 << 20)]

        def send_all(pump: UdpPump, layer: LinkLayer = layer, todo: list[bytes] = payloads) -> None:
            for payload in todo:
                layer.send(host.address, payload, pump.now())
            pump.poke()

        bind = (f"127.0.{3 + i // 250}.{1 + i % 250}", 0)
        tasks.append(
            asyncio.create_task(run_machine(endpoint, bind, None, stop, on_bound=send_all))
        )
    joiner: PeerHandle | None = None
    cfg = host.machine.link.config
    peak = 0

    def flooded() -> bool:
        nonlocal peak
        stats = host.machine.link.stats
        peak = max(peak, stats.stranger_bytes)
        assert stats.stranger_bytes <= cfg.stranger_budget
        assert all(b <= cfg.max_stranger_bytes_per_host for b in _per_ip(host).values())
        assert host.machine.early_bytes == 0  # the host keeps no early payload at all
        return host.machine.early_dropped >= 12 * 2 and stats.dropped_budget >= 12

    try:
        await wait_for(flooded, "the strangers' payloads")
        joiner = await open_join(host.address, me("friend"), bind=(LOCAL, 0))
        lobby = joiner.machine.lobby
        assert isinstance(lobby, JoinLobby)
        await wait_for(lambda: flooded() and lobby.your_seat is not None, "the joiner's seat")
        assert peak > 0  # the 100 kB payloads really were buffered on the way
        assert all(s.stats.messages_delivered == 0 for s in senders)
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        closing = [host.close()] + ([joiner.close()] if joiner else [])
        await asyncio.gather(*closing, return_exceptions=True)


def _per_ip(handle: PeerHandle) -> dict[str, int]:
    return dict(handle.machine.link._stranger_host_bytes)


@pytest.fixture(autouse=True)
def _loopback_range() -> None:
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.bind(("127.0.2.50", 0))
    except OSError:
        pytest.skip("this system cannot bind 127.0.x.y addresses")
    finally:
        probe.close()


async def test_a_joiner_silent_at_the_start_is_unseated_and_exits_non_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lanTag.cli.headless import play_headless
    from lanTag.net.faults import NetSim
    from lanTag.peer import machine as peer_machine

    monkeypatch.setattr(peer_machine, "SILENT_AT_START", 1.5)  # > the 1 s keepalive
    host = await _open(tmp_path, humans=3)
    friend = await open_join(host.address, me("friend"), bind=(LOCAL, 0))
    # what the sleeper sends from 0.3 s after its first datagram is lost (it still
    # receives: it is told it was unseated)
    sleeper = await open_join(
        host.address, me("sleeper"), bind=(LOCAL, 0), netsim=NetSim.parse("partition=0.3s..60s")
    )
    try:
        host_lobby = host.machine.lobby
        await wait_for(lambda: host_lobby.taken == 3, "both joiners seated")  # type: ignore[union-attr]
        await wait_for(
            lambda: (
                host.machine.link.last_heard(sleeper.address) is not None
                and host.now() - host.machine.link.last_heard(sleeper.address) > 1.6
            ),  # type: ignore[operator]
            "the sleeper to fall silent",
        )
        host.command(host.machine.start_game)
        assert host.machine.session is not None, list(host.machine.events)
        record = host.machine.session.record  # type: ignore[union-attr]
        assert [s.nickname for s in record.seats if s.public_key] == ["host", "friend"]
        await wait_for(lambda: friend.machine.session is not None, "the friend's START")
        code = await within(30, play_headless(sleeper))  # it hears the host again
        assert code == 1
        assert "refused: unseated: you were silent when the game started" in capsys.readouterr().err
    finally:
        await asyncio.gather(host.close(), friend.close(), sleeper.close(), return_exceptions=True)
