"""LinkLayer's pending-output set and deadline heap against a full scan of every link.

``FullScan`` is the layer as it was before the indexes: every call visits every link
in creation order.  Both layers get the same random operations (sends, lossy and
reordered delivery from several remote peers, restarts, refusals, timers, expiry);
every output, timer and counter must be identical.
"""

from __future__ import annotations

import random

import pytest

from lanTag.net.endpoint import Addr
from lanTag.net.link import LinkConfig, LinkLayer, LinkStats, SendQueueFull
from lanTag.net.linkstate import Link

US: Addr = ("10.8.0.1", 4000)
CONFIG = LinkConfig(window=8, max_queued_bytes=20_000, expire_after=3.0, max_links=6, cookies=False)


class FullScan(LinkLayer):
    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        out: list[tuple[bytes, Addr]] = []
        for link in self._links.values():
            link.collect(now, out)
        return out

    def next_timer(self) -> float | None:
        return min(
            (t for link in self._links.values() if (t := _brute_timer(link)) is not None),
            default=None,
        )

    def handle_timer(self, now: float) -> None:
        self._close_drained()
        assert self.config.expire_after is not None
        for addr, link in list(self._links.items()):
            if link.last_activity() + self.config.expire_after <= now:
                self._untrack(addr)  # an expired stranger frees its place in the table
                del self._links[addr]
                self._closing.discard(addr)
                self._n["links_expired"] += 1
                self._n["messages_discarded"] += link.pending_messages()
                continue
            link.on_timer(now)


def _brute_timer(link: Link) -> float | None:
    """Link.next_timer from scratch: every in-flight deadline, no heap."""
    times = [e.deadline for e in link.in_flight.values() if e.deadline is not None]
    times += [t for t in (link.ack_deadline, link.keepalive_due()) if t is not None]
    times.append(link.last_activity() + 3.0)
    if link.challenge_to is not None:
        times.append(link._challenge_due())
    best = min(times, default=None)
    assert link.next_timer() == best
    return best


def _stats(layer: LinkLayer) -> LinkStats:
    return layer.stats


@pytest.mark.parametrize("seed", range(6))
def test_indexed_layer_matches_a_full_scan(seed: int) -> None:
    rng = random.Random(seed)
    fast, full = LinkLayer(seed, CONFIG), FullScan(seed, CONFIG)
    addrs: list[Addr] = [(f"10.8.1.{i}", 4000) for i in range(5)]
    remotes = {a: LinkLayer(1000 * seed + i, CONFIG) for i, a in enumerate(addrs)}
    wire: list[tuple[float, bytes, Addr, Addr]] = []  # (arrival, data, src, dst)
    now = 0.0
    for _ in range(1500):
        now += rng.choice([0.0, 0.0, 0.001, 0.005, 0.02, 0.1, 0.4])
        op = rng.random()
        if op < 0.25:
            addr, size = rng.choice(addrs), rng.choice([10, 300, 2500])
            payload = rng.randbytes(size)
            results = []
            for layer in (fast, full):
                try:
                    layer.send(addr, payload, now)
                    results.append(True)
                except SendQueueFull:
                    results.append(False)
            assert results[0] == results[1]
        elif op < 0.35:
            addr = rng.choice(addrs)
            remotes[addr].send(US, rng.randbytes(rng.choice([5, 900])), now)
        elif op < 0.37:  # a remote restarts: challenges, resets
            addr = rng.choice(addrs)
            remotes[addr] = LinkLayer(rng.getrandbits(64), CONFIG)
            remotes[addr].open(US, now)
        elif op < 0.38:
            addr = rng.choice(addrs)
            fast.forget(addr)
            full.forget(addr)
        elif op < 0.39:
            banned = rng.choice(addrs)
            accept = None if rng.random() < 0.5 else lambda a, b=banned: a != b
            fast.set_accept(accept)
            full.set_accept(accept)
        elif op < 0.40:
            addr = rng.choice(addrs)
            fast.open(addr, now)
            full.open(addr, now)
        # deliver what arrived, in random order, some of it lost or duplicated
        arrived = [w for w in wire if w[0] <= now]
        wire = [w for w in wire if w[0] > now]
        rng.shuffle(arrived)
        for _at, data, src, dst in arrived:
            if rng.random() < 0.1:
                continue
            if dst == US:
                assert fast.receive_datagram(data, src, now) == full.receive_datagram(
                    data, src, now
                )
            else:
                remotes[dst].receive_datagram(data, US, now)
        # timers, then output, as a pump does
        t = fast.next_timer()
        assert t == full.next_timer()
        if t is not None and t <= now:
            fast.handle_timer(now)
            full.handle_timer(now)
        out = fast.datagrams_to_send(now)
        assert out == full.datagrams_to_send(now)
        assert fast.next_timer() == full.next_timer()
        for data, dst in out:
            wire.append((now + rng.choice([0.0005, 0.002, 0.03]), data, US, dst))
        for addr, remote in remotes.items():
            due = remote.next_timer()
            if due is not None and due <= now:
                remote.handle_timer(now)
            for data, dst in remote.datagrams_to_send(now):
                wire.append((now + rng.choice([0.0005, 0.002, 0.03]), data, addr, dst))
        assert _stats(fast) == _stats(full)
    assert fast.stats.messages_delivered > 50 and fast.stats.retransmitted > 10
    assert fast.stats.challenges_sent + fast.stats.peer_restarts > 0
