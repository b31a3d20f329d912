"""A crowd churning the host's stranger slots (issue #38 item 3), on pure link layers:
which stranger makes room, a re-admitted stranger's link is reset (not silently out of
step), a bare ack makes no link, a refused address is shut out, and guests keep a
stranger link after the accept list closed."""

from __future__ import annotations

from lanTag.net.endpoint import Addr
from lanTag.net.frame import Frame, FrameType, decode, encode
from lanTag.net.link import LinkConfig, LinkLayer
from tests.net.test_first_contact import _proven, deliver, host_epoch, ping

HOST: Addr = ("10.9.0.1", 4000)


def _joiner_link(host: LinkLayer, joiner: LinkLayer, addr: Addr, now: float) -> None:
    """``joiner`` at ``addr`` says hello through the cookie and both links bind."""
    joiner.send(HOST, b"hello", now)
    for _ in range(4):
        deliver(joiner, addr, host, now)
        deliver(host, HOST, joiner, now)


def test_an_idle_stranger_makes_room_before_one_we_still_owe_an_answer() -> None:
    host = LinkLayer(1, LinkConfig(max_stranger_links=2))
    owed, idle, new = ("10.9.1.1", 7000), ("10.9.1.2", 7000), ("10.9.1.3", 7000)
    _proven(host, owed, 0.0, src_epoch=11)
    _proven(host, idle, 1.0, src_epoch=12)  # heard more recently than ``owed``
    host.send(owed, b"refused", 2.0)  # queued, not yet sent
    _proven(host, new, 3.0, src_epoch=13)
    assert sorted(host.peers()) == sorted([owed, new])  # the idle one went
    host.datagrams_to_send(3.0)  # sent: in flight now
    _proven(host, ("10.9.1.4", 7000), 4.0, src_epoch=14)
    assert owed in host.peers() and new not in host.peers()  # idle before in flight
    assert host.stats.links_evicted == 2


def test_an_unsent_answer_outlives_a_stranger_whose_answer_is_in_flight() -> None:
    host = LinkLayer(1, LinkConfig(max_stranger_links=2))
    sent, unsent = ("10.9.1.1", 7000), ("10.9.1.2", 7000)
    _proven(host, sent, 0.0, src_epoch=11)
    host.send(sent, b"a", 0.0)
    host.datagrams_to_send(0.0)
    _proven(host, unsent, 1.0, src_epoch=12)
    host.send(unsent, b"b", 1.0)
    _proven(host, ("10.9.1.3", 7000), 2.0, src_epoch=13)
    assert unsent in host.peers() and sent not in host.peers()


def test_an_evicted_stranger_admitted_again_gets_what_the_host_sends_it_next() -> None:
    """Its link still counts our old sequence numbers: the new link must not reuse the
    cookie epoch (the joiner would take our next messages as duplicates of old ones)."""
    host = LinkLayer(1, LinkConfig(max_stranger_links=1))
    a, b = ("10.9.2.1", 7000), ("10.9.2.2", 7000)
    ann, bob = LinkLayer(2), LinkLayer(3)
    _joiner_link(host, ann, a, 0.0)
    for n in range(3):  # ann holds some of our sequence numbers
        host.send(a, b"old %d" % n, 0.1)
    assert deliver(host, HOST, ann, 0.1) == [b"old 0", b"old 1", b"old 2"]
    deliver(ann, a, host, 0.2)
    _joiner_link(host, bob, b, 1.0)  # ann's link is evicted for bob's
    assert a not in host.peers() and host.stats.links_evicted == 1
    ann.handle_timer(2.5)  # ann's keepalive, to the cookie epoch: admitted again
    deliver(ann, a, host, 2.5)
    assert a in host.peers()
    host.send(a, b"refused", 2.6)
    got: list[bytes] = []
    for step in range(6):
        now = 2.6 + step * 0.3
        host.handle_timer(now)
        ann.handle_timer(now)
        got += deliver(host, HOST, ann, now)
        deliver(ann, a, host, now)
    assert got == [b"refused"]
    assert ann.stats.peer_restarts == 1 and ann.restarts(HOST) == 1


def test_a_bare_ack_to_a_cookie_makes_no_link() -> None:
    host = LinkLayer(1)
    addr = ("10.9.3.1", 7000)
    host.receive_datagram(ping(21), addr, 0.0)
    [(answer, _)] = host.datagrams_to_send(0.0)
    cookie = decode(answer).src_epoch
    ack = encode(Frame(FrameType.ACK, 21, cookie, 0, 0, 0))
    assert host.receive_datagram(ack, addr, 0.0) == []
    assert host.peers() == []
    host.receive_datagram(ping(21, cookie), addr, 0.0)  # a PING to it still proves it
    assert host.peers() == [addr]


def test_a_shut_out_address_loses_its_link_and_is_not_even_parsed() -> None:
    host = LinkLayer(1)
    addr = ("10.9.4.1", 7000)
    _proven(host, addr, 0.0, src_epoch=31)
    epoch = host_epoch(host, addr)
    host.shut_out(addr)
    assert host.peers() == []
    before = host.stats.dropped_unknown
    host.receive_datagram(ping(31, epoch), addr, 1.0)
    host.receive_datagram(ping(31), addr, 1.0)
    assert host.peers() == [] and host.datagrams_to_send(1.0) == []  # no cookie either
    assert host.stats.dropped_unknown == before + 2
    _proven(host, ("10.9.4.1", 7001), 1.0, src_epoch=32)  # another port (a retry) may come
    assert host.peers() == [("10.9.4.1", 7001)]


def test_shut_out_addresses_are_bounded() -> None:
    host = LinkLayer(1, LinkConfig(max_shut_out=3))
    addrs = [(f"10.9.5.{i}", 7000) for i in range(4)]
    for addr in addrs:
        host.shut_out(addr)
    _proven(host, addrs[0], 0.0)  # the oldest was forgotten
    _proven(host, addrs[3], 0.0)
    assert host.peers() == [addrs[0]]


def test_a_guest_keeps_a_stranger_link_after_the_accept_list_closes() -> None:
    host = LinkLayer(1)
    guest, outsider = ("10.9.6.1", 7000), ("10.9.6.2", 7000)
    _proven(host, guest, 0.0, src_epoch=41)
    _proven(host, outsider, 0.0, src_epoch=42)
    host.set_guests({guest}.__contains__)
    host.set_accept(set().__contains__)
    assert host.peers() == [guest] and host.stats.strangers == {guest}  # never trusted
    host.forget(guest)
    _proven(host, guest, 1.0, src_epoch=41)  # and may prove itself again
    _proven(host, outsider, 1.0, src_epoch=42)
    assert host.peers() == [guest]


def test_a_link_the_host_opens_to_an_evicted_stranger_never_takes_its_old_epoch() -> None:
    """The host vouches for a joiner whose stranger link was evicted (the host's yes) and
    sends to it at once; a cookie it answered meanwhile with the old epoch's value must
    not become the new link's epoch (the joiner would drop what follows as old)."""
    host = LinkLayer(1, LinkConfig(max_stranger_links=1))
    a, b = ("10.9.7.1", 7000), ("10.9.7.2", 7000)
    ann, bob = LinkLayer(2), LinkLayer(3)
    _joiner_link(host, ann, a, 0.0)
    host.send(a, b"wait", 0.1)
    assert deliver(host, HOST, ann, 0.1) == [b"wait"]
    deliver(ann, a, host, 0.2)
    _joiner_link(host, bob, b, 1.0)
    assert a not in host.peers()
    ann_epoch = ann._links[HOST].epoch
    host.receive_datagram(ping(ann_epoch), a, 1.5)  # no destination: answered with a cookie
    host.datagrams_to_send(1.5)  # (the same value as the evicted link's epoch)
    host.trust(a)
    host.send(a, b"roster", 1.6)
    got: list[bytes] = []
    for step in range(6):
        now = 1.6 + step * 0.3
        host.handle_timer(now)
        ann.handle_timer(now)
        got += deliver(host, HOST, ann, now)
        deliver(ann, a, host, now)
    assert got == [b"roster"]
