"""Sans-IO reliable, ordered message links over unreliable datagrams.

A :class:`LinkLayer` belongs to one peer and keeps one link per remote address.
It never reads a clock, opens a socket or draws a random number: the caller
passes ``now`` (float seconds, any monotonic origin) and the bytes, and asks
what to send and when to wake it (aioquic/h11 style).

Per link and direction: sequence numbers, cumulative + 64-bit selective acks
(piggy-backed on every frame, delayed when there is nothing to carry them),
retransmission on an RTO of ``srtt + 4*rttvar`` (Karn's rule, exponential
back-off, clamps), packet-threshold fast retransmit, a bounded window,
keepalives when idle, and in-order reassembly of fragmented messages.

Incarnations: each link has an *epoch* (a 32-bit id, unique per link object and
unpredictable from the other epochs of the process).  Every frame names the
sender's epoch and the epoch it believes the receiver has.  A changed source
epoch is believed (the peer restarted or expired our link: both directions are
reset, undelivered messages discarded, counted in ``stats.peer_restarts`` /
``messages_discarded``) only when the frame names our current epoch, which
only a host that receives our frames can know.  Otherwise the frame is dropped
(``dropped_unconfirmed``) and its sender is *challenged*: sent our epoch,
addressed to its own, at most once per ``challenge_interval`` (``challenges_sent``).
One off-path spoofed datagram so costs nothing; a real restart one round trip.
A frame addressed to an old epoch of ours is stale: dropped, and answered so
the peer learns our new epoch.  The session re-handshakes above this.

Stateless first contact: a frame from an address without a link creates nothing.
It is answered with a *cookie*, a challenge whose source epoch is a keyed MAC of
the sender's address, port, epoch and a coarse time bucket; the link is created
(with the cookie as its epoch) only when a frame comes back addressed to it.
Links created so, until the layer above vouches for the address (:meth:`LinkLayer.trust`,
or the ``accept`` hook), are *strangers*: capped per source IP and in number, and
their receive buffers in bytes, per IP and all together (docs/NETWORK.md).
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lanTag.errors import LanTagError
from lanTag.net.endpoint import Addr
from lanTag.net.frame import (
    DATAGRAM_BUDGET,
    SEQ_MOD,
    Frame,
    FrameType,
    MalformedFrame,
    decode,
    encode,
)
from lanTag.net.linkstate import Counters, Link, LinkConfig, LinkCounts

__all__ = [
    "LinkConfig",
    "LinkError",
    "LinkLayer",
    "LinkSnapshot",
    "LinkStats",
    "MessageTooLarge",
    "SendQueueFull",
    "TooManyLinks",
]

_FEISTEL_ROUNDS = 4
_MAX_COOKIES_OUT = 256  # stateless answers waiting for the driver; more are not answered
_MAX_ISSUED = 256  # last cookies sent, so a link we open ourselves takes that epoch
_MAX_EVICTED = 4096  # evicted strangers' epochs remembered (a re-admission resets them)
_COOKIE_DOMAIN = b"lanTag/link-cookie"


class LinkError(LanTagError):
    """Base of the errors :meth:`LinkLayer.send` raises; the link itself is unharmed."""


class MessageTooLarge(LinkError, ValueError):
    """The payload exceeds ``LinkConfig.max_message``."""


class SendQueueFull(LinkError):
    """Queued, not-yet-sent bytes for that address would exceed ``max_queued_bytes``."""


class TooManyLinks(LinkError):
    """``LinkConfig.max_links`` links already exist."""


@dataclass(frozen=True, slots=True)
class LinkSnapshot:
    srtt: float | None
    rttvar: float | None
    rto: float
    in_flight: int
    queued: int
    last_heard: float | None
    peer_epoch: int | None


@dataclass(frozen=True, slots=True)
class LinkStats(LinkCounts):
    """A layer's counters (:class:`LinkCounts`) and its links now."""

    links: Mapping[Addr, LinkSnapshot] = field(default_factory=dict)
    strangers: frozenset[Addr] = frozenset()
    """Addresses whose link nobody vouched for yet (``LinkLayer.trust``)."""
    stranger_bytes: int = 0
    """Payload bytes buffered by the strangers' links (at most ``stranger_budget``)."""


# --------------------------------------------------------------------------- the layer


def _epoch(key: bytes, counter: int) -> int:
    """The ``counter``-th link epoch: a keyed permutation of the 32-bit counter.

    A 4-round Feistel network with a keyed BLAKE2b round function: a bijection,
    so a process never hands out one epoch twice in 2**32 links, and (the key being
    the process's random seed) knowing some epochs of a process tells nothing
    about its others.  The epoch is what proves return routability (NETWORK.md).
    """
    left, right = counter >> 16 & 0xFFFF, counter & 0xFFFF
    for r in range(_FEISTEL_ROUNDS):
        digest = hashlib.blake2b(bytes([r]) + right.to_bytes(2, "big"), key=key, digest_size=2)
        left, right = right, left ^ int.from_bytes(digest.digest(), "big")
    return left << 16 | right


def cookie(secret: bytes, addr: Addr, src_epoch: int, bucket: int) -> int:
    """The epoch we answer a first frame from ``addr`` with (never 0).

    A keyed MAC (BLAKE2b) of the source address, port and epoch and a time bucket:
    only whoever receives at ``addr`` learns it, and checking it needs no state.
    """
    host, port = addr
    message = b"%s|%d|%d|%d" % (host.encode("utf-8", "replace"), port, src_epoch, bucket)
    digest = hashlib.blake2b(message, key=secret, digest_size=4).digest()
    return int.from_bytes(digest, "big") or 1


class LinkLayer:
    """All links of one peer.  Feed it datagrams and timer ticks; it says what to send.

    ``epoch_seed`` makes link epochs distinct across process restarts and
    unguessable: give it a fresh random value per process, 128 bits or more (any
    non-negative int; the pure core draws no randomness).  ``accept`` is consulted
    before a link is created for an unknown address (and see :meth:`set_accept`).
    ``cookie_secret`` keys the first-contact cookies (default: derived from the seed).
    """

    def __init__(
        self,
        epoch_seed: int,
        config: LinkConfig | None = None,
        accept: Callable[[Addr], bool] | None = None,
        cookie_secret: bytes | None = None,
    ) -> None:
        self.config = config or LinkConfig()
        self._accept = accept
        self._guests: Callable[[Addr], bool] | None = None
        self._key = (epoch_seed % (1 << 512)).to_bytes(64, "big")
        if cookie_secret is None:
            cookie_secret = hashlib.blake2b(_COOKIE_DOMAIN, key=self._key).digest()
        self._cookie_secret = cookie_secret[:64]
        self._cookies_out: list[tuple[bytes, Addr]] = []
        # addr -> (cookie, bucket) of the last cookies sent.  Fixed size, never needed for
        # safety: if we open a link to an address we just sent a cookie to (both sides
        # opening at once), the link takes that cookie as its epoch, so the peer, which
        # may bind to either first, sees one incarnation of us and not two.
        self._issued: dict[Addr, tuple[int, int]] = {}
        self._trusted: set[Addr] = set()  # vouched for by the layer above
        self._shut: dict[Addr, None] = {}  # turned away by the layer above (oldest first)
        # addr -> epoch of its stranger link we evicted (the last _MAX_EVICTED): a frame
        # that still names it gets a link with a new epoch, so both sides reset
        self._evicted: dict[Addr, int] = {}
        self._strangers: dict[Addr, Link] = {}
        self._stranger_links: dict[str, int] = {}  # source IP -> stranger links
        self._stranger_host_bytes: dict[str, int] = {}  # source IP -> buffered bytes
        self._stranger_bytes = 0
        self._counter = 0
        self._links: dict[Addr, Link] = {}
        self._closing: set[Addr] = set()  # refused by ``accept``, closed once drained
        self._n = Counters()
        # Work per datagram is O(log links), not O(links): ``_pending`` holds the links
        # whose ``collect`` may emit something (``Link.has_output``), ``_touched`` those
        # changed since their deadline was last cached in ``_deadline``, and ``_timers``
        # is a heap of (deadline, tie, link) with stale entries dropped lazily.
        self._pending: set[Link] = set()
        self._touched: set[Link] = set()
        self._deadline: dict[Link, float | None] = {}
        self._timers: list[tuple[float, int, Link]] = []
        self._tie = itertools.count()
        self._made = 0  # links created, for ``Link.order``

    # ---------------------------------------------------------------- links

    def _new_link(self, addr: Addr, now: float, epoch: int = 0, trusted: bool = True) -> Link:
        """A link to ``addr``; ``epoch`` 0 draws the next one (else: a proven cookie)."""
        if len(self._links) >= self.config.max_links:
            raise TooManyLinks(f"{len(self._links)} links open, limit {self.config.max_links}")
        issued = self._issued.pop(addr, None)
        evicted = self._evicted.pop(addr, None)  # never that epoch again (see _admit)
        if epoch == 0 and issued is not None and issued[1] >= self._bucket(now) - 1:
            epoch = 0 if issued[0] == evicted else issued[0]
        while epoch == 0:  # 0 means "unknown" on the wire
            self._counter = (self._counter + 1) % SEQ_MOD
            epoch = _epoch(self._key, self._counter)
        link = self._links[addr] = Link(addr, epoch, self.config, self._n, now, trusted)
        if not trusted:
            self._strangers[addr] = link
            ip = addr[0]
            self._stranger_links[ip] = self._stranger_links.get(ip, 0) + 1
        self._made += 1
        link.order = self._made
        self._touched.add(link)
        return link

    def _changed(self, link: Link) -> None:
        """Note that ``link``'s state changed: refresh its output flag, re-cache its timer."""
        self._touched.add(link)
        if link.has_output():
            self._pending.add(link)
        else:
            self._pending.discard(link)

    def _untrack(self, addr: Addr) -> None:
        """Stop counting ``addr``'s link as a stranger (trusted now, or dropped)."""
        link = self._strangers.pop(addr, None)
        if link is None:
            return
        link.trusted = True
        ip = addr[0]
        self._stranger_links[ip] -= 1
        if not self._stranger_links[ip]:
            del self._stranger_links[ip]
        self._account(link, link.buffered, 0)

    def _account(self, link: Link, before: int, after: int) -> None:
        """A stranger's buffered bytes went from ``before`` to ``after``."""
        if before == after:
            return
        ip = link.addr[0]
        self._stranger_bytes += after - before
        left = self._stranger_host_bytes.get(ip, 0) + after - before
        if left:
            self._stranger_host_bytes[ip] = left
        else:
            self._stranger_host_bytes.pop(ip, None)

    def _room(self, link: Link) -> int | None:
        """Payload bytes a stranger's link may still buffer (None: trusted, no limit)."""
        if link.trusted:
            return None
        cfg = self.config
        host = cfg.max_stranger_bytes_per_host - self._stranger_host_bytes.get(link.addr[0], 0)
        return max(0, min(host, cfg.stranger_budget - self._stranger_bytes))

    def trust(self, addr: Addr) -> None:
        """The layer above vouches for ``addr`` (e.g. it took a seat): no stranger limits."""
        self._trusted.add(addr)
        self._untrack(addr)

    def shut_out(self, addr: Addr) -> None:
        """The layer above turned ``addr`` away for good (the host refused it and the
        refusal arrived): its link goes, and its datagrams are dropped unparsed, so a
        refused stranger that stays cannot churn the stranger slots.  The last
        ``max_shut_out`` addresses are kept (an honest retry comes from a new port)."""
        self._trusted.discard(addr)
        self.forget(addr)
        self._shut.pop(addr, None)
        self._shut[addr] = None
        if len(self._shut) > self.config.max_shut_out:
            del self._shut[next(iter(self._shut))]

    def _trusts(self, addr: Addr) -> bool:
        return addr in self._trusted or (self._accept is not None and self._accept(addr))

    def _drop(self, addr: Addr) -> Link | None:
        self._untrack(addr)
        link = self._links.pop(addr, None)
        if link is not None:
            self._pending.discard(link)
            self._touched.discard(link)
            self._deadline.pop(link, None)  # its heap entries are now stale
        return link

    def set_accept(self, accept: Callable[[Addr], bool] | None) -> None:
        """Change which addresses may hold a link (e.g. the roster, once a game starts).

        Unknown addresses it refuses open no link.  Open links to addresses it
        refuses are closed (``links_refused``): at once when nothing is queued or
        in flight on them, otherwise as soon as that is acked (or the link expires);
        until then what they deliver is dropped (``dropped_outsider``).
        """
        self._accept = accept
        self._closing = {addr for addr in self._links if self._refused(addr)}
        for addr in [a for a in self._strangers if self._trusts(a)]:
            self._untrack(addr)
        self._close_drained()

    def set_guests(self, guests: Callable[[Addr], bool] | None) -> None:
        """Addresses ``accept`` refuses that may still hold a *stranger* link (never a
        trusted one): e.g. the strangers a host still owes a lobby answer once its game
        started (lanTag.peer.doorstep).  Takes effect at the next ``set_accept``."""
        self._guests = guests

    def _refused(self, addr: Addr) -> bool:
        if self._accept is None or self._accept(addr):
            return False
        return self._guests is None or not self._guests(addr)

    def _close_drained(self) -> None:
        for addr in list(self._closing):
            link = self._links.get(addr)
            if link is None or not (link.in_flight or link.queue):
                self._closing.discard(addr)
                if self._drop(addr) is not None:
                    self._n["links_refused"] += 1

    def open(self, addr: Addr, now: float) -> None:
        """Start a link without a message: a PING goes out so liveness is tracked both ways."""
        if addr not in self._links:
            link = self._new_link(addr, now)
            link.queue_ping()
            self._changed(link)

    def forget(self, addr: Addr) -> None:
        """Drop a link and everything queued on it (e.g. the peer left the roster)."""
        self._drop(addr)
        self._closing.discard(addr)

    def peers(self) -> list[Addr]:
        return list(self._links)

    def last_heard(self, addr: Addr) -> float | None:
        link = self._links.get(addr)
        return None if link is None else link.last_heard

    def has_link(self, addr: Addr) -> bool:
        return addr in self._links

    def incarnation(self, addr: Addr) -> tuple[int, int] | None:
        """Which link ``addr`` has, and how often it was reset (never the same pair twice
        in this layer; None: no link): a caller that queued messages on it can tell when
        they may be lost (the link was evicted or expired, or reset, with them)."""
        link = self._links.get(addr)
        return None if link is None else (link.order, link.restarts)

    def restarts(self, addr: Addr) -> int:
        """How often the peer at ``addr`` restarted its link with us (each time, what was
        undelivered either way was discarded: the layer above may say it again)."""
        link = self._links.get(addr)
        return 0 if link is None else link.restarts

    def unacked(self, addr: Addr) -> int:
        """Messages queued or in flight to ``addr`` (0 without a link)."""
        link = self._links.get(addr)
        return 0 if link is None else link.pending_messages()

    @property
    def stats(self) -> LinkStats:
        links = {
            addr: LinkSnapshot(
                link.srtt,
                link.rttvar,
                link.rto(),
                len(link.in_flight),
                link.pending_messages(),
                link.last_heard,
                link.peer_epoch,
            )
            for addr, link in self._links.items()
        }
        return LinkStats(
            **dict[str, Any](self._n),
            links=links,
            strangers=frozenset(self._strangers),
            stranger_bytes=self._stranger_bytes,
        )

    # ---------------------------------------------------------------- machine interface

    def send(self, addr: Addr, payload: bytes, now: float) -> None:
        """Queue ``payload`` for reliable in-order delivery; raises a :class:`LinkError`."""
        if len(payload) > self.config.max_message:
            raise MessageTooLarge(f"{len(payload)} bytes > max_message {self.config.max_message}")
        link = self._links.get(addr) or self._new_link(addr, now)
        if link.queued_bytes + len(payload) > self.config.max_queued_bytes:
            raise SendQueueFull(
                f"{addr}: {link.queued_bytes} bytes queued, limit {self.config.max_queued_bytes}"
            )
        link.enqueue(payload, self._n["messages_sent"])
        self._n["messages_sent"] += 1
        self._changed(link)

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        """Handle one datagram; return the messages that became deliverable, in order.

        Never raises on bad input: garbage is dropped and counted in :attr:`stats`.
        """
        if len(data) > DATAGRAM_BUDGET:
            self._n["dropped_oversized"] += 1
            return []
        link = self._links.get(addr)
        if link is None and (self._refused(addr) or addr in self._shut):
            self._n["dropped_unknown"] += 1  # not even parsed: outsiders get no state and no CPU
            return []
        try:
            frame = decode(data)
        except MalformedFrame:
            self._n["dropped_malformed"] += 1
            return []
        if link is None:
            link = self._admit(frame, addr, now)
            if link is None:
                return []
        self._n["received"] += 1
        before = link.buffered
        messages = link.on_frame(frame, now, self._room(link))
        if not link.trusted:
            self._account(link, before, link.buffered)
        self._changed(link)
        if addr in self._closing:  # acks still count (to drain the link), content does not
            self._n["dropped_outsider"] += len(messages)
            self._n["messages_delivered"] -= len(messages)
            self._close_drained()
            return []
        return messages

    # ---------------------------------------------------------------- first contact

    def _admit(self, frame: Frame, addr: Addr, now: float) -> Link | None:
        """The link for a frame from an address without one, or None (nothing kept).

        A frame addressed to the cookie of its address, port and epoch (this time
        bucket or the previous one) proves the address: the link is created with the
        cookie as its epoch.  Any other frame from a stranger is answered with the
        cookie, statelessly (ACKs are not: two layers without links never ping-pong
        cookies).  An address the layer above vouched for needs no proof.
        """
        cfg = self.config
        trusted = self._trusts(addr)
        epoch = 0
        if cfg.cookies and frame.dst_epoch and self._cookie_ok(frame, addr, now):
            epoch = frame.dst_epoch
        elif cfg.cookies and not trusted:
            self._n["dropped_unproven"] += 1
            if frame.type is not FrameType.ACK:
                self._send_cookie(frame.src_epoch, addr, now)
            return None
        if not trusted and frame.type is FrameType.ACK:
            # A bare ack to a cookie makes no link: the stranger's link here was evicted
            # or expired, and acks of what it held mean nothing now (its next PING or
            # DATA proves it again).  Else each ack would evict another stranger.
            self._n["dropped_unproven"] += 1
            return None
        if not trusted and not self._stranger_room(addr):
            return None
        if len(self._links) >= cfg.max_links:
            self._n["dropped_unknown"] += 1
            return None
        if epoch and self._evicted.get(addr) == epoch:
            # The cookie was the epoch of a link we evicted: the peer still holds that
            # link's sequence numbers and would take our new ones as duplicates.  A new
            # epoch, bound to the peer's (the cookie proved it), makes it reset at once.
            link = self._new_link(addr, now, 0, trusted)
            link.adopt(frame.src_epoch)
            return link
        return self._new_link(addr, now, epoch, trusted)

    def _bucket(self, now: float) -> int:
        return int(now // self.config.cookie_lifetime)

    def _cookie_ok(self, frame: Frame, addr: Addr, now: float) -> bool:
        bucket = self._bucket(now)
        return any(
            frame.dst_epoch == cookie(self._cookie_secret, addr, frame.src_epoch, b)
            for b in (bucket, bucket - 1)
        )

    def _send_cookie(self, src_epoch: int, addr: Addr, now: float) -> None:
        """A challenge-shaped ACK (src = cookie, dst = its epoch, acks nothing): 30 bytes,
        never more than the frame that asked for it, and nothing remembered."""
        if len(self._cookies_out) >= _MAX_COOKIES_OUT:
            return
        bucket = self._bucket(now)
        value = cookie(self._cookie_secret, addr, src_epoch, bucket)
        self._cookies_out.append((encode(Frame(FrameType.ACK, value, src_epoch, 0, 0, 0)), addr))
        self._n["cookies_sent"] += 1
        self._issued.pop(addr, None)  # newest last: the oldest is forgotten first
        if len(self._issued) >= _MAX_ISSUED:
            del self._issued[next(iter(self._issued))]
        self._issued[addr] = (value, bucket)

    def _stranger_room(self, addr: Addr) -> bool:
        """Whether a proven stranger at ``addr`` may have a link (evicting one if need be)."""
        cfg = self.config
        if self._stranger_links.get(addr[0], 0) >= cfg.max_stranger_links_per_host:
            self._n["dropped_host_cap"] += 1
            return False
        if len(self._strangers) >= cfg.max_stranger_links:
            # the stranger heard from least recently makes room: a table full of idle
            # proven strangers must not keep the next real joiner out until they expire.
            # One we still owe messages to goes last (_eviction_order).
            oldest = min(self._strangers.values(), key=_eviction_order)
            self._n["links_evicted"] += 1
            self._evicted.pop(oldest.addr, None)
            self._evicted[oldest.addr] = oldest.epoch
            if len(self._evicted) > _MAX_EVICTED:
                del self._evicted[next(iter(self._evicted))]
            self._n["messages_discarded"] += oldest.pending_messages()
            self._drop(oldest.addr)
            self._closing.discard(oldest.addr)
        return True

    # ---------------------------------------------------------------- output

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        """What every link has to send now, link by link in creation order, after the
        stateless cookie answers.

        Only links with possible output are visited; ``collect`` on any other link
        would append nothing and change nothing.
        """
        out, self._cookies_out = self._cookies_out, []
        if not self._pending:
            return out
        links = sorted(self._pending, key=_order) if len(self._pending) > 1 else list(self._pending)
        for link in links:
            link.collect(now, out)
            self._changed(link)
        return out

    def _refresh_timers(self) -> None:
        """Re-cache the deadline of every link changed since the last call."""
        heap = self._timers
        for link in self._touched:
            t = self._deadline[link] = link.next_timer()
            if t is not None:
                heapq.heappush(heap, (t, next(self._tie), link))
        self._touched.clear()
        if len(heap) > 4 * len(self._links) + 64:  # too many stale entries: rebuild
            self._timers = [
                (t, next(self._tie), link) for link, t in self._deadline.items() if t is not None
            ]
            heapq.heapify(self._timers)

    def _valid_top(self) -> tuple[float, int, Link] | None:
        heap = self._timers
        while heap:
            top = heap[0]
            if self._deadline.get(top[2], -1.0) == top[0]:
                return top
            heapq.heappop(heap)  # the link changed or is gone since this was pushed
        return None

    def next_timer(self) -> float | None:
        self._refresh_timers()
        top = self._valid_top()
        return None if top is None else top[0]

    def handle_timer(self, now: float) -> None:
        """Run the links whose earliest deadline is due; any other link's would be a no-op."""
        self._close_drained()
        self._refresh_timers()
        due: dict[Link, None] = {}
        while (top := self._valid_top()) is not None and top[0] <= now:
            heapq.heappop(self._timers)
            due[top[2]] = None
        expire_after = self.config.expire_after
        for link in sorted(due, key=_order):
            addr = link.addr
            if expire_after is not None and link.last_activity() + expire_after <= now:
                self._drop(addr)
                self._closing.discard(addr)
                self._n["links_expired"] += 1
                self._n["messages_discarded"] += link.pending_messages()
                continue
            link.on_timer(now)
            self._changed(link)


def _order(link: Link) -> int:
    return link.order


def _eviction_order(link: Link) -> tuple[bool, bool, float]:
    """Which stranger makes room first: an idle one, then one whose messages are all sent
    (in flight), then one holding messages not yet sent at all; within each, the one heard
    from least recently.  A crowd churning the slots (hundreds of re-admissions between two
    flushes of the socket) must not discard every answer before it even leaves."""
    return (bool(link.queue), bool(link.in_flight), link.last_activity())
