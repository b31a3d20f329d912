"""Issue #12: a full link queue never raises out of a peer, and SYNC answers are rate limited.

The full-stack flood (an in-roster seat sending SYNC from step 0 in bursts) is in
tests/chaos/test_adversary.py; these are the two mechanisms on their own.
"""

from __future__ import annotations

from lanTag.net.link import LinkConfig, LinkLayer
from lanTag.peer.machine import SYNC_BACKLOG, LinkSender
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, pack_bundle, sign_message
from lanTag.session.transport import Addr, PlainTransport
from tests.session.harness import addr_of, make_record

PEER: Addr = ("10.9.0.2", 5000)


def test_link_sender_drops_and_counts_what_a_full_queue_refuses() -> None:
    link = LinkLayer(1, LinkConfig(max_queued_bytes=4000))
    sender = LinkSender(link)
    for _ in range(10):
        sender.send(PEER, bytes(1000), 0.0)  # LinkLayer.send raises SendQueueFull on 5..10
    assert sender.dropped == {"SendQueueFull": 6}
    assert sender.backlog(PEER) == 4
    assert not sender.congested(PEER)
    assert sender.backlog(("10.9.0.3", 5000)) == 0


def test_link_sender_is_congested_once_the_backlog_reaches_the_limit() -> None:
    sender = LinkSender(LinkLayer(2))
    for _ in range(SYNC_BACKLOG):
        sender.send(PEER, b"x" * 100, 0.0)
    assert sender.congested(PEER)
    assert sender.dropped == {}


class CongestedTransport(PlainTransport):
    def __init__(self) -> None:
        super().__init__()
        self.busy = False

    def congested(self, addr: Addr) -> bool:
        return self.busy


def test_sync_answers_are_limited_per_seat_range_and_lag_period() -> None:
    record, ids, secrets = make_record("toy", 2)  # lag_ms=1000
    peers = {0: addr_of(0), 1: addr_of(1)}
    transport = CongestedTransport()
    answerer = Session(
        record, seat=0, identity=ids[0], chain_secret=secrets[0], peers=peers, transport=transport
    )

    def sync(from_step: int, at: float) -> list[bytes]:
        msg = sign_message(
            ids[1].signer(),
            MsgType.SYNC,
            record.game_id,
            from_step,
            1,
            answerer.state.state_hash(),
            (from_step,),
        )
        answerer.receive_payload(pack_bundle([msg.raw]), at)
        return [d for d, a in answerer.datagrams_to_send(at) if a == addr_of(1)]

    def counts() -> tuple[int, int, int]:
        c = answerer.counters
        return c.get("sync-answered", 0), c.get("sync-limited", 0), c.get("sync-backlog", 0)

    sync(0, 0.0)
    assert counts() == (1, 0, 0)
    assert sync(0, 0.5) == [] and sync(3, 0.9) == []  # that range was answered < lag ago
    assert counts() == (1, 2, 0)
    transport.busy = True
    sync(0, 1.5)  # a lag later, but the link still holds a backlog to that seat
    assert counts() == (1, 2, 1)
    transport.busy = False
    sync(2, 1.6)
    assert counts() == (2, 2, 1)
    sync(0, 1.7)  # steps before the last answer's: only those (none held here) go
    assert counts() == (3, 2, 1)
    sync(1, 1.8)
    assert counts() == (3, 3, 1)
