"""A crowd at a host's door with --approve (issue #38 item 3), whole peers on the
simulated network with 4 stranger slots for 16 throwaway identities: every one waits,
every one refused hears it (and is then shut out), the host never opens a link of its own
to a stranger, and the friend it lets in gets the start.  The real-process run with 1,000
identities: tests/cli/test_approve_crowd.py."""

from __future__ import annotations

import random

from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.net.endpoint import Addr
from lanTag.net.faults import NetSimConfig
from lanTag.net.link import LinkConfig, LinkLayer
from lanTag.net.sim_network import SimNetwork
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby, Refused, Started
from lanTag.peer.machine import PeerMachine
from lanTag.session import events as ev

HOST: Addr = ("10.8.0.1", 4000)
CROWD = 16
STRANGER_SLOTS = 4


def _addr(i: int) -> Addr:
    return (f"10.8.1.{1 + i}", 5000)  # one IP each: the per-IP cap plays no part here


def _secret(seed: int) -> bytes:
    return bytes([seed % 256]) * 32


def _anchor(seed: int) -> bytes:
    return HashChain(_secret(seed), 16).anchor


def _peer(lobby: HostLobby | JoinLobby, ident: Identity, seed: int, cfg: LinkConfig) -> PeerMachine:
    rng = random.Random(seed)
    link = LinkLayer(rng.getrandbits(64), cfg)
    return PeerMachine(link, lobby, ident, _secret(seed), rng.randbytes)


def _joiner(i: int, nickname: str) -> PeerMachine:
    ident = Identity(bytes([i + 1]) * 32)
    rng = random.Random(i)
    lobby = JoinLobby(HOST, ident, _anchor(100 + i), nickname, random_bytes=rng.randbytes)
    return _peer(lobby, ident, 100 + i, LinkConfig())


def _refusals(peer: PeerMachine) -> list[str]:
    return [e.reason for e in peer.events if isinstance(e, Refused)]


def test_a_crowd_churning_the_stranger_slots_is_answered_and_the_friend_gets_the_start() -> None:
    net = SimNetwork()
    ident = Identity(bytes([99]) * 32)
    lobby = HostLobby(
        HostConfig("prototag", "door", 2, chain_length=16, approve=True),
        ident, _anchor(1), "host", random.Random(1).randbytes,
    )  # fmt: skip
    cfg = LinkConfig(max_stranger_links=STRANGER_SLOTS, max_links=STRANGER_SLOTS + 4)
    host = _peer(lobby, ident, 1, cfg)
    net.add(HOST, host)
    crowd = [_joiner(i, "friend") for i in range(CROWD)]
    for i, peer in enumerate(crowd):
        net.add(_addr(i), peer)
    most_links = 0

    def run_until(done, limit: float) -> None:  # type: ignore[no-untyped-def]
        def check() -> bool:
            nonlocal most_links
            most_links = max(most_links, len(host.link.peers()))
            return bool(done())

        net.run_until(check, net.now + limit)

    run_until(lambda: len(lobby.waiting()) == CROWD, 120)
    assert host.link.stats.links_evicted > 0  # the slots did churn
    friend = _joiner(CROWD, "friend")
    net.add(_addr(CROWD), friend)
    run_until(lambda: len(lobby.waiting()) == CROWD + 1, 120)
    for waiting in lobby.waiting():
        if waiting.addr == _addr(CROWD):
            lobby.approve_joiner(waiting.addr)
        else:
            lobby.refuse_joiner(waiting.addr)
    host.poke(net.now)
    run_until(lambda: all(_refusals(p) for p in crowd) and lobby.taken == 2, 300)
    host.start_game(net.now)
    run_until(lambda: friend.session is not None, 120)
    net.run_for(30.0)
    # (A refusal whose ack was lost with an evicted link may arrive twice: same words.)
    assert all(set(_refusals(p)) == {"the host did not let you in"} for p in crowd)
    assert not _refusals(friend)
    started = [e for e in friend.events if isinstance(e, Started)]
    assert [s.seat for s in started] == [1]
    assert host.door.shut == CROWD, host.door.shut  # each refused address shut out once it knew
    assert all(host.link.has_link(_addr(i)) is False for i in range(CROWD))
    # Never more links than the stranger slots and the friend's: no answer opened one.
    assert most_links <= STRANGER_SLOTS + 1
    assert host.send_dropped == {}


def _host_peer(humans: int = 2) -> tuple[PeerMachine, HostLobby]:
    ident = Identity(bytes([99]) * 32)
    lobby = HostLobby(
        HostConfig("prototag", "door", humans, chain_length=16, approve=True),
        ident, _anchor(1), "host", random.Random(1).randbytes,
    )  # fmt: skip
    return _peer(lobby, ident, 1, LinkConfig()), lobby


def test_a_friend_let_in_just_now_is_not_unseated_as_silent_by_the_start() -> None:
    """It waited while a crowd churned its stranger link away (here: cut off longer than
    SILENT_AT_START); the host's yes counts as hearing it, so the start that follows at
    once (a full table starts by itself) seats it."""
    from lanTag.peer.machine import SILENT_AT_START

    net = SimNetwork(NetSimConfig.parse("delay=20ms,seed=3"))  # replies take a moment
    host, lobby = _host_peer()
    friend = _joiner(7, "friend")
    net.add(HOST, host)
    net.add(_addr(7), friend)
    net.run_until(lambda: len(lobby.waiting()) == 1, 30)
    net.cut([HOST], [_addr(7)])
    net.run_for(SILENT_AT_START + 2)  # (longer than a dead process's silence, too)
    net.heal()
    lobby.approve_joiner(_addr(7))
    host.poke(net.now)
    host.start_game(net.now)
    record = host.session.record  # type: ignore[union-attr]
    assert [s.nickname for s in record.seats if s.public_key] == ["host", "friend"]
    net.run_until(lambda: friend.session is not None, net.now + 60)
    assert friend.session is not None and friend.session.seat == 1
    # ...and its old silence does not get it voted out as a dead process at step 0 either
    net.run_until(lambda: host.session.step >= 1, net.now + 60)  # type: ignore[union-attr]
    for peer in (host, friend):
        assert not [e for e in peer.events if isinstance(e, ev.SeatsDropped | ev.Blame)]


def test_a_start_lost_with_a_reset_link_is_sent_again() -> None:
    """The friend's side restarts its link to the host (here: it forgets it) while the
    host's start is still queued: the reset discards the start at the host, which sends it
    again on the new link (the friend starts, nobody waits for a seat that never began)."""
    net = SimNetwork()
    host, lobby = _host_peer()
    friend = _joiner(7, "friend")
    net.add(HOST, host)
    net.add(_addr(7), friend)
    net.run_until(lambda: len(lobby.waiting()) == 1, 30)
    lobby.approve_joiner(_addr(7))
    host.poke(net.now)
    net.run_until(lambda: lobby.taken == 2 and friend.link.unacked(HOST) == 0, net.now + 30)
    net.cut([HOST], [_addr(7)])
    host.start_game(net.now)
    net.run_for(1.0)
    friend.link.forget(HOST)
    net.heal()
    net.run_until(lambda: friend.session is not None, net.now + 60)
    assert friend.session is not None and friend.session.seat == 1
    assert host.link.restarts(_addr(7)) == 1


def test_a_refusal_lost_with_a_reset_stranger_link_is_sent_again() -> None:
    net = SimNetwork()
    host, lobby = _host_peer()
    ann = _joiner(8, "ann")
    net.add(HOST, host)
    net.add(_addr(8), ann)
    net.run_until(lambda: len(lobby.waiting()) == 1, 30)
    net.cut([HOST], [_addr(8)])
    lobby.refuse_joiner(_addr(8))
    host.poke(net.now)
    net.run_for(1.0)
    ann.link.forget(HOST)  # its side restarts the link: the queued refusal is discarded
    net.heal()
    net.run_until(lambda: bool(_refusals(ann)), net.now + 60)
    assert set(_refusals(ann)) == {"the host did not let you in"}
    assert host.link.restarts(_addr(8)) == 1
    net.run_until(lambda: host.door.shut == 1, net.now + 60)
