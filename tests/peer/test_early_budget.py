"""Payloads that arrive before a peer's own START are kept within a byte budget
(PeerMachine: EARLY_BUDGET, EARLY_PER_SOURCE), and never at the host."""

from __future__ import annotations

import random

from lanTag.net.endpoint import Addr, LinkEndpoint
from lanTag.net.link import LinkLayer
from lanTag.peer.machine import EARLY_BUDGET, EARLY_OVERHEAD, EARLY_PER_SOURCE
from tests.support.table import Table, addr

PAYLOAD = 100_000  # fits a stranger link's allowance (128 KiB per source IP)


def _flood(table: Table, target: Addr, sources: int, each: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(sources):
        sender = LinkEndpoint(LinkLayer(rng.getrandbits(64)), lambda _src, _m: None)
        table.net.add((f"10.66.{seed}.{i + 1}", 7000), sender)
        for _ in range(each):
            sender.send(target, b"\x93junk" + rng.randbytes(PAYLOAD), table.net.now)


def test_early_payloads_before_the_start_stay_within_the_byte_budget() -> None:
    table = Table("tagem", 3, seed=5)
    table.net.run_until(table.seated, max_time=60)
    joiner, host = table.peers[1], table.peers[0]
    _flood(table, addr(1), sources=12, each=2, seed=1)  # 2.4 MB to a joiner
    _flood(table, addr(2), sources=1, each=5, seed=2)  # 500 kB from one source
    _flood(table, addr(0), sources=4, each=2, seed=3)  # the host keeps nothing early
    peak = 0

    def flooded() -> bool:
        nonlocal peak
        peak = max(peak, joiner.early_bytes)
        assert joiner.early_bytes == sum(len(p) + EARLY_OVERHEAD for p, _ in joiner._early)
        assert all(cost <= EARLY_PER_SOURCE for cost in joiner._early_from.values())
        assert host.early_bytes == 0 and not host._early
        other = table.peers[2]
        assert all(cost <= EARLY_PER_SOURCE for cost in other._early_from.values())
        return joiner.early_dropped >= 12 and host.early_dropped >= 8 and other.early_dropped >= 2

    table.net.run_until(flooded, max_time=table.net.now + 120)
    assert EARLY_BUDGET - PAYLOAD - EARLY_OVERHEAD < peak <= EARLY_BUDGET
    from_one = table.peers[2]._early_from.get(("10.66.2.1", 7000), 0)
    assert EARLY_PER_SOURCE - PAYLOAD - EARLY_OVERHEAD < from_one <= EARLY_PER_SOURCE
    table.start()  # the junk is handed to the session (rejected there) and the game goes on
    assert joiner.early_bytes == 0 and joiner._early_from == {}
    table.net.run_until(
        lambda: all(p.session is not None and p.session.step >= 3 for p in table.peers),
        max_time=table.net.now + 600,
    )


def test_the_host_vouches_for_those_it_seats() -> None:
    table = Table("tagem", 3, spectators=1, seed=6)
    table.net.run_until(table.seated, max_time=60)
    host = table.peers[0].link
    assert sorted(host.peers()) == sorted(addr(i) for i in range(1, 4))
    assert host.stats.strangers == frozenset()  # seated and spectating: no stranger limits
