"""Seats go to people the table wants (issue #24 item 2), on the pure host machine: with
``approve`` a joiner waits for the host's yes; a refused or kicked key is not let in
again; a joiner still waiting at the start is told; a yes on a full table is a no."""

from __future__ import annotations

from typing import Any

from lanTag import wire
from lanTag.identity import Identity
from lanTag.peer.join_handshake import (
    HostConfig,
    HostLobby,
    JoinerWaiting,
    JoinLobby,
    Refused,
    Waiting,
)

HOST = ("10.0.0.1", 1)


def _host(humans: int = 2, approve: bool = True) -> HostLobby:
    config = HostConfig("prototag", "g", humans, approve=approve)
    return HostLobby(config, Identity(bytes([1]) * 32), bytes([2]) * 32, "host", bytes)


def _joiner(seed: int, nickname: str = "ann") -> JoinLobby:
    return JoinLobby(HOST, Identity(bytes([seed]) * 32), bytes([4]) * 32, nickname)


def _run(host: HostLobby, joiner: JoinLobby, addr: Any) -> None:
    for _ in range(6):
        for _to, payload in joiner.outbox:
            host.receive(payload, addr, 0.0)
        joiner.outbox.clear()
        for to, payload in list(host.outbox):
            if to == addr:
                joiner.receive(payload, HOST)
        host.outbox[:] = [(to, p) for to, p in host.outbox if to != addr]


def _reasons(joiner: JoinLobby) -> list[str]:
    return [e.reason for e in joiner.events if isinstance(e, Refused)]


def test_a_joiner_waits_for_the_yes_and_is_shown_with_its_key() -> None:
    host, ann = _host(), _joiner(3)
    _run(host, ann, ("10.0.0.2", 2))
    assert ann.your_seat is None and host.taken == 1
    assert [e.reason for e in ann.events if isinstance(e, Waiting)] == [
        "the host was asked to let you in"
    ]
    (waiting,) = [e for e in host.events if isinstance(e, JoinerWaiting)]
    assert waiting == JoinerWaiting(("10.0.0.2", 2), "ann", ann.identity.fingerprint, False)
    assert host.waiting() == [waiting]
    host.approve_joiner(("10.0.0.2", 2))
    _run(host, ann, ("10.0.0.2", 2))
    assert ann.your_seat == 1 and host.taken == 2 and host.waiting() == []


def test_without_approve_a_joiner_sits_at_once() -> None:
    host, ann = _host(approve=False), _joiner(3)
    _run(host, ann, ("10.0.0.2", 2))
    assert ann.your_seat == 1 and host.waiting() == []


def test_a_refused_or_kicked_key_is_not_let_in_again() -> None:
    host = _host(humans=3)
    squat, kicked = _joiner(5, "squat"), _joiner(6, "kicked")
    _run(host, squat, ("10.0.0.5", 5))
    host.refuse_joiner(("10.0.0.5", 5))
    _run(host, squat, ("10.0.0.5", 5))
    assert _reasons(squat) == ["the host did not let you in"]
    _run(host, kicked, ("10.0.0.6", 6))
    host.approve_joiner(("10.0.0.6", 6))
    host.kick(1)
    _run(host, kicked, ("10.0.0.6", 6))
    assert _reasons(kicked) == ["kicked by the host"]
    for old, addr in ((squat, ("10.0.0.7", 7)), (kicked, ("10.0.0.8", 8))):
        again = JoinLobby(HOST, old.identity, bytes([4]) * 32, "again")
        _run(host, again, addr)  # same key, another address: refused, never shown again
        assert _reasons(again) == ["the host did not let you in"]
    assert host.waiting() == [] and host.taken == 1


def test_a_joiner_still_waiting_at_the_start_is_told_and_a_late_yes_on_a_full_table_is_no() -> None:
    host = _host(humans=2)
    ann, bob, cid = _joiner(3, "ann"), _joiner(7, "bob"), _joiner(8, "cid")
    for j, addr in ((ann, ("10.0.0.2", 2)), (bob, ("10.0.0.3", 3)), (cid, ("10.0.0.4", 4))):
        _run(host, j, addr)
    host.approve_joiner(("10.0.0.2", 2))
    host.approve_joiner(("10.0.0.3", 3))  # the table is full now
    _run(host, bob, ("10.0.0.3", 3))
    assert _reasons(bob) == ["the game is full"]
    host.start(bytes(32))
    _run(host, cid, ("10.0.0.4", 4))
    assert _reasons(cid) == ["the game started without you"]
    starts = [wire.unpack(p)[2] for to, p in host.outbox if to == ("10.0.0.2", 2)]
    assert "start" in starts


def test_hellos_that_never_join_are_kept_bounded_and_a_friend_still_joins() -> None:
    from lanTag.peer.join_handshake import MAX_UNPROVEN

    host = _host(approve=False)
    hello = _joiner(9).outbox[0][1]
    for i in range(MAX_UNPROVEN + 50):
        host.receive(hello, (f"10.1.{i // 250}.{i % 250}", 1), 0.0)
    assert len(host._joiners) == MAX_UNPROVEN
    assert ("10.1.0.0", 1) not in host._joiners  # the oldest went first
    host.outbox.clear()
    ann = _joiner(3)
    _run(host, ann, ("10.0.0.2", 2))
    assert ann.your_seat == 1
    for i in range(MAX_UNPROVEN + 50):  # more strangers never push out a seated joiner
        host.receive(hello, (f"10.2.{i // 250}.{i % 250}", 1), 0.0)
    assert host.taken == 2 and host.joined(("10.0.0.2", 2))


def test_an_approved_joiner_leaves_the_stranger_table_at_the_yes() -> None:
    # Issue "[comeback]" item 3: the yes itself vouches for the joiner's address.  Before,
    # its link stayed a stranger's until it next spoke, and a crowd of waiting strangers
    # could evict it (the start never reached the friend the host let in).
    from lanTag.net.link import LinkLayer
    from lanTag.peer.machine import PeerMachine

    host_machine = PeerMachine(LinkLayer(1), _host(), Identity(bytes([1]) * 32), bytes(32), bytes)
    ann = _joiner(3)
    joiner_machine = PeerMachine(LinkLayer(2), ann, ann.identity, bytes(32), bytes)
    ann_addr, now = ("10.0.0.2", 2), 0.0
    machines = {HOST: host_machine, ann_addr: joiner_machine}
    joiner_machine.poke(now)
    for _ in range(20):
        for src, machine in machines.items():
            for data, dst in machine.datagrams_to_send(now):
                machines[dst].receive_datagram(data, src, now)
        now += 0.01
    lobby = host_machine.lobby
    assert isinstance(lobby, HostLobby) and [w.addr for w in lobby.waiting()] == [ann_addr]
    assert ann_addr in host_machine.link.stats.strangers  # nobody vouched for it yet
    lobby.approve_joiner(ann_addr)
    host_machine.poke(now)
    assert ann_addr not in host_machine.link.stats.strangers


def test_a_join_whose_hello_the_host_forgot_is_welcomed_again_and_joins() -> None:
    """A crowd of hellos pushed ann's out (MAX_UNPROVEN) between her hello and her join:
    the host welcomes the join with a new challenge and ann joins again for it."""
    import random

    from lanTag.peer.join_handshake import MAX_UNPROVEN

    config = HostConfig("prototag", "g", 2, approve=True)
    rng = random.Random(5).randbytes
    host = HostLobby(config, Identity(bytes([1]) * 32), bytes([2]) * 32, "host", rng)
    ann = _joiner(3)
    ann_addr = ("10.0.0.2", 2)
    (hello,) = [p for _, p in ann.outbox]
    ann.outbox.clear()
    host.receive(hello, ann_addr, 0.0)
    [(_, welcome)] = host.outbox
    host.outbox.clear()
    crowd = _joiner(9, "crowd")
    for i in range(MAX_UNPROVEN):
        host.receive(crowd.outbox[0][1], (f"10.1.{i // 250}.{i % 250}", 9), 0.0)
    host.outbox.clear()
    ann.receive(welcome, HOST)
    [(_, join)] = ann.outbox
    ann.outbox.clear()
    host.receive(join, ann_addr, 0.0)
    [(to, again)] = host.outbox
    assert to == ann_addr and wire.unpack(again)[2] == "welcome"
    assert wire.unpack(again)[4] != wire.unpack(welcome)[4]  # a new challenge
    assert host.waiting() == []
    host.outbox.clear()
    ann.receive(again, HOST)
    _run(host, ann, ann_addr)
    assert [w.addr for w in host.waiting()] == [ann_addr]
    assert [e.reason for e in ann.events if isinstance(e, Waiting)] == [
        "the host was asked to let you in"
    ]


def test_the_hosts_own_key_or_a_seated_one_is_refused_with_how_to_play_two_on_one_laptop() -> None:
    from lanTag.peer.join_handshake import SEAT_HELD
    from lanTag.peer.joiner import TWO_ON_ONE_LAPTOP

    host = _host(humans=3, approve=False)
    ann, again = _joiner(3), _joiner(3)  # one laptop, two terminals: one identity
    second_terminal = _joiner(1)  # the host's own identity, in a second terminal
    _run(host, ann, ("10.0.0.2", 2))
    _run(host, again, ("10.0.0.2", 3))
    _run(host, second_terminal, ("10.0.0.1", 4))
    for refused in (again, second_terminal):
        assert _reasons(refused) == [f"{SEAT_HELD} — {TWO_ON_ONE_LAPTOP}"]
    assert _reasons(ann) == [] and host.taken == 2
