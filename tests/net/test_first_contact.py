"""Stateless first contact (docs/NETWORK.md "Stateless first contact"): cookies, the
stranger caps and byte budgets of LinkLayer.  Pure: layers fed by hand, no clock."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lanTag.net.endpoint import Addr
from lanTag.net.frame import HEADER, MAX_CHUNK, Frame, FrameType, decode, encode
from lanTag.net.link import LinkConfig, LinkLayer, cookie

HOST: Addr = ("10.9.0.1", 4000)
JOINER: Addr = ("10.9.0.2", 5000)


def deliver(src: LinkLayer, src_addr: Addr, dst: LinkLayer, now: float) -> list[bytes]:
    """Everything ``src`` has to send now, into ``dst``; returns what ``dst`` delivered."""
    got: list[bytes] = []
    for data, _ in src.datagrams_to_send(now):
        got += dst.receive_datagram(data, src_addr, now)
    return got


def ping(src_epoch: int, dst_epoch: int = 0) -> bytes:
    return encode(Frame(FrameType.PING, src_epoch, dst_epoch, 0, 0, 0))


def test_a_first_frame_creates_nothing_and_is_answered_with_a_cookie() -> None:
    host = LinkLayer(1)
    trigger = ping(0xABC)
    assert host.receive_datagram(trigger, JOINER, 0.0) == []
    assert host.peers() == [] and host.stats.strangers == frozenset()
    [(answer, to)] = host.datagrams_to_send(0.0)
    frame = decode(answer)
    assert to == JOINER and len(answer) == HEADER.size <= len(trigger)  # no amplifier
    assert (frame.type, frame.dst_epoch, frame.ack, frame.sack) == (FrameType.ACK, 0xABC, 0, 0)
    stats = host.stats
    assert (stats.cookies_sent, stats.dropped_unproven, stats.received) == (1, 1, 0)
    assert host.next_timer() is None  # no timer either: nothing was remembered


def test_the_cookie_round_trip_creates_the_link_with_the_cookie_as_its_epoch() -> None:
    host, joiner = LinkLayer(1), LinkLayer(2)
    joiner.send(HOST, b"hello", 0.0)
    assert deliver(joiner, JOINER, host, 0.0) == []
    assert deliver(host, HOST, joiner, 0.001) == []  # the cookie: joiner resends at once
    assert deliver(joiner, JOINER, host, 0.002) == [b"hello"]
    epoch = joiner.stats.links[HOST].peer_epoch
    assert epoch is not None and host.peers() == [JOINER]
    assert host.stats.strangers == {JOINER}  # proven, but nobody vouched for it yet
    host.handle_timer(0.02)
    deliver(host, HOST, joiner, 0.02)  # the ack comes from the link the cookie named
    assert joiner.stats.links[HOST].in_flight == 0 and joiner.stats.peer_restarts == 0


def test_a_wrong_stale_or_moved_cookie_creates_nothing() -> None:
    cfg = LinkConfig(cookie_lifetime=10.0)
    host = LinkLayer(1, cfg)
    host.receive_datagram(ping(7), JOINER, 0.0)
    [(answer, _)] = host.datagrams_to_send(0.0)
    good = decode(answer).src_epoch
    other_port = (JOINER[0], JOINER[1] + 1)
    for data, addr, now in (
        (ping(7, good ^ 1), JOINER, 0.0),  # a guess
        (ping(8, good), JOINER, 0.0),  # another source epoch
        (ping(7, good), other_port, 0.0),  # another port
        (ping(7, good), JOINER, 20.0),  # two buckets later
    ):
        assert host.receive_datagram(data, addr, now) == []
        assert host.peers() == []
    assert host.stats.cookies_sent == 5
    assert host.receive_datagram(ping(7, good), JOINER, 19.9) == []  # the next bucket: fine
    assert host.peers() == [JOINER]


def test_the_cookie_is_a_keyed_mac() -> None:
    secret = b"k" * 32
    value = cookie(secret, JOINER, 7, 3)
    assert value == cookie(secret, JOINER, 7, 3) != 0
    others = {
        cookie(b"x" * 32, JOINER, 7, 3),
        cookie(secret, ("10.9.0.3", 5000), 7, 3),
        cookie(secret, JOINER, 8, 3),
        cookie(secret, JOINER, 7, 4),
    }
    assert value not in others and len(others) == 4
    assert LinkLayer(1, cookie_secret=secret)._cookie_secret == secret


def test_acks_from_unknown_addresses_are_never_answered() -> None:
    host = LinkLayer(1)
    ack = encode(Frame(FrameType.ACK, 9, 0, 0, 0, 0))
    challenge = encode(Frame(FrameType.ACK, 9, 1234, 0, 0, 0))
    for data in (ack, challenge):
        assert host.receive_datagram(data, JOINER, 0.0) == []
    assert host.datagrams_to_send(0.0) == [] and host.stats.dropped_unproven == 2


def test_both_sides_opening_at_once_see_one_incarnation() -> None:
    # B answers A's first frame with a cookie, then opens its own link to A; A gets
    # B's frame before the cookie.  B's link must use the cookie as its epoch, or A
    # (bound to B's other epoch by then) takes the cookie for a restart and drops "x".
    a, b = LinkLayer(1), LinkLayer(2)
    a.send(JOINER, b"x", 0.0)
    assert deliver(a, HOST, b, 0.0) == []
    b.send(HOST, b"y", 0.001)
    out = b.datagrams_to_send(0.001)
    assert len(out) == 2  # the cookie, then "y"
    got = [m for data, _ in reversed(out) for m in a.receive_datagram(data, JOINER, 0.002)]
    assert got == [b"y"]
    now = 0.002
    for _ in range(20):
        now += 0.05
        a.handle_timer(now)
        b.handle_timer(now)
        got_b = deliver(a, HOST, b, now)
        deliver(b, JOINER, a, now)
        if got_b:
            break
    assert got_b == [b"x"]
    assert a.stats.peer_restarts == b.stats.peer_restarts == 0
    assert a.stats.messages_discarded == 0


def _proven(layer: LinkLayer, addr: Addr, now: float, src_epoch: int = 5) -> None:
    """A stranger at ``addr`` proves its address: ping, cookie, ping to the cookie."""
    layer.receive_datagram(ping(src_epoch), addr, now)
    answers = [d for d, to in layer.datagrams_to_send(now) if to == addr]
    if answers:  # (an address the layer trusts needs no cookie: its link exists now)
        layer.receive_datagram(ping(src_epoch, decode(answers[-1]).src_epoch), addr, now)


def test_strangers_per_source_ip_are_capped_and_a_trusted_address_is_not() -> None:
    host = LinkLayer(1, LinkConfig(max_stranger_links_per_host=2))
    ports = [("10.9.0.7", 6000 + i) for i in range(4)]
    for port in ports[:3]:
        _proven(host, port, 0.0)
    assert sorted(host.peers()) == ports[:2] and host.stats.dropped_host_cap == 1
    _proven(host, ("10.9.0.8", 6000), 0.0)  # another IP has its own allowance
    host.trust(ports[3])
    _proven(host, ports[3], 0.0)
    assert ports[3] in host.peers() and ports[3] not in host.stats.strangers
    host.trust(ports[0])  # vouched for: frees a stranger slot of that IP
    _proven(host, ports[2], 0.0)
    assert ports[2] in host.peers()


def test_a_full_stranger_table_evicts_the_one_heard_from_least_recently() -> None:
    host = LinkLayer(1, LinkConfig(max_stranger_links=3))
    addrs = [(f"10.9.1.{i}", 7000) for i in range(5)]
    for i, addr in enumerate(addrs[:3]):
        _proven(host, addr, float(i))
    host.receive_datagram(ping(5, host_epoch(host, addrs[0])), addrs[0], 3.0)  # heard again
    _proven(host, addrs[3], 4.0)
    assert sorted(host.peers()) == sorted([addrs[0], addrs[2], addrs[3]])
    assert host.stats.links_evicted == 1
    host.trust(addrs[4])
    _proven(host, addrs[4], 5.0)  # trusted: no eviction, no stranger slot used
    assert len(host.peers()) == 4 and host.stats.links_evicted == 1


def host_epoch(layer: LinkLayer, addr: Addr) -> int:
    return layer._links[addr].epoch


def test_a_strangers_big_message_never_exceeds_its_byte_allowance() -> None:
    cfg = LinkConfig(max_stranger_bytes_per_host=20 * MAX_CHUNK, stranger_budget=40 * MAX_CHUNK)
    host, joiner = LinkLayer(1, cfg), LinkLayer(2)
    big = random.Random(1).randbytes(1 << 20)
    joiner.send(HOST, b"small", 0.0)
    joiner.send(HOST, big, 0.0)
    now, delivered, peak = 0.0, [], 0
    for _ in range(60):
        now += 0.3
        joiner.handle_timer(now)
        host.handle_timer(now)
        delivered += deliver(joiner, JOINER, host, now)
        deliver(host, HOST, joiner, now)
        peak = max(peak, host.stats.stranger_bytes)
    assert delivered == [b"small"]  # the 1 MiB message cannot fit: never buffered
    assert peak == 0 and host.stats.dropped_budget > 0
    host.trust(JOINER)  # the table took it: the same message now goes through
    for _ in range(200):
        now += 0.3
        joiner.handle_timer(now)
        host.handle_timer(now)
        delivered += deliver(joiner, JOINER, host, now)
        deliver(host, HOST, joiner, now)
        if len(delivered) == 2:
            break
    assert delivered == [b"small", big]


def test_stranger_bytes_are_capped_per_source_ip_and_all_together() -> None:
    # many strangers each with a message that fits its allowance, none completing
    # (their first fragment is lost): what they buffer stays within both limits
    cfg = LinkConfig(max_stranger_bytes_per_host=8 * MAX_CHUNK, stranger_budget=20 * MAX_CHUNK)
    host = LinkLayer(1, cfg)
    peak, per_ip_peak = 0, 0
    for i in range(10):
        addr = (f"10.9.2.{i}", 7000)
        _proven(host, addr, 0.0, src_epoch=40 + i)
        epoch = host_epoch(host, addr)
        for seq in range(2, 30):  # fragments 1.. of an 8-fragment message, out of order
            frame = Frame(FrameType.DATA, 40 + i, epoch, seq, 0, 0, 1, 8, bytes(MAX_CHUNK))
            host.receive_datagram(encode(frame), addr, 0.0)
            per_ip_peak = max(per_ip_peak, host._stranger_host_bytes.get(addr[0], 0))
            peak = max(peak, host.stats.stranger_bytes)
    assert per_ip_peak <= 8 * MAX_CHUNK and peak <= 20 * MAX_CHUNK
    assert peak > 8 * MAX_CHUNK  # several strangers did buffer something
    assert host.stats.dropped_budget > 0
    assert sum(link.buffered for link in host._links.values()) == host.stats.stranger_bytes


def test_expired_and_evicted_strangers_give_their_bytes_back() -> None:
    cfg = LinkConfig(expire_after=5.0, max_stranger_links=2)
    host = LinkLayer(1, cfg)
    for i in range(3):
        addr = (f"10.9.3.{i}", 7000)
        _proven(host, addr, float(i), src_epoch=60 + i)
        frame = Frame(FrameType.DATA, 60 + i, host_epoch(host, addr), 2, 0, 0, 1, 2, b"z" * 99)
        host.receive_datagram(encode(frame), addr, float(i))  # buffered out of order
    assert host.stats.stranger_bytes == 2 * 99 and host.stats.links_evicted == 1
    host.handle_timer(100.0)
    assert host.peers() == [] and host.stats.stranger_bytes == 0
    assert host._stranger_links == {} and host._stranger_host_bytes == {}


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.binary(min_size=0, max_size=1300), st.integers(0, 299)), max_size=60))
def test_garbage_from_many_sources_never_raises_and_creates_nothing(
    datagrams: list[tuple[bytes, int]],
) -> None:
    host = LinkLayer(1)
    for data, source in datagrams:
        assert (
            host.receive_datagram(data, (f"127.0.{source // 250}.{source % 250 + 1}", 9), 0.0) == []
        )
        host.datagrams_to_send(0.0)
    assert host.peers() == []


def test_cookie_answers_waiting_for_the_driver_are_bounded() -> None:
    host = LinkLayer(1)
    for i in range(1000):  # a burst the driver has not flushed yet
        host.receive_datagram(ping(100 + i), (f"127.1.{i // 250}.{i % 250 + 1}", 9), 0.0)
    out = host.datagrams_to_send(0.0)
    assert len(out) == host.stats.cookies_sent == 256
    assert host.stats.dropped_unproven == 1000
    host.receive_datagram(ping(7), JOINER, 0.0)  # room again once flushed
    assert len(host.datagrams_to_send(0.0)) == 1
