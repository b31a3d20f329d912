"""One link's state: the peer-epoch state machine and the two sequenced streams.

Internal to :mod:`lanTag.net.link` (which owns the public API and the per-address
table); split out to keep each file readable.  Pure: ``now`` is always passed in.
"""

from __future__ import annotations

import enum
import heapq
from collections import deque
from dataclasses import dataclass, fields

from lanTag.net.endpoint import Addr
from lanTag.net.frame import (
    MAX_CHUNK,
    SACK_BITS,
    SEQ_MOD,
    Frame,
    FrameType,
    encode,
    unwrap,
)

__all__ = ["COUNT_NAMES", "Counters", "Link", "LinkConfig", "LinkCounts"]

_RECV_WINDOW = SACK_BITS + 1  # cumulative ack point + every seq the sack bitmap can name
_MAX_BACKOFF = 6  # 2**6 x RTO, then max_rto caps it anyway
_RETIRED_EPOCHS = 4  # remembered per link to drop late frames of a restarted peer


@dataclass(frozen=True, slots=True)
class LinkConfig:
    window: int = 64
    """Sequenced frames in flight per link; at most 64 so the sack bitmap covers them."""
    max_message: int = 1 << 20
    """Largest application message; must agree between peers."""
    max_queued_bytes: int = 4 << 20
    ack_delay: float = 0.010
    initial_rto: float = 0.25
    min_rto: float = 0.05
    """Above ack_delay plus scheduler noise, so delayed acks do not cause spurious resends."""
    max_rto: float = 2.0
    keepalive_interval: float = 1.0
    expire_after: float | None = 30.0
    """Drop a link whose peer has been silent this long (None: never)."""
    max_links: int = 256
    fast_retransmit_after: int = 3
    """Resend a frame once this many later frames have been acked (0: off)."""
    challenge_interval: float = 0.1
    """At most one challenge (epoch check) per link in this many seconds: no amplifier."""
    cookies: bool = True
    """Answer a first frame from an unknown address statelessly with a cookie and create
    its link only when the cookie comes back (docs/NETWORK.md "Stateless first contact")."""
    cookie_lifetime: float = 20.0
    """A cookie is valid in its time bucket of this many seconds and the next one."""
    max_stranger_links: int = 64
    """Links to strangers (proven addresses nobody vouched for, see ``LinkLayer.trust``);
    a new one beyond this evicts the stranger heard from least recently."""
    max_stranger_links_per_host: int = 4
    """Stranger links per source IP address (any ports)."""
    max_stranger_bytes_per_host: int = 128 << 10
    """Bytes buffered (out-of-order frames, partial messages) by one IP's stranger links."""
    stranger_budget: int = 8 << 20
    """Bytes buffered by all stranger links together."""
    max_shut_out: int = 4096
    """Addresses turned away for good (``LinkLayer.shut_out``) remembered at once."""

    def __post_init__(self) -> None:
        if not 1 <= self.window <= SACK_BITS:
            raise ValueError(f"window must be in 1..{SACK_BITS}, got {self.window}")
        if not 0 < self.min_rto <= self.initial_rto <= self.max_rto:
            raise ValueError("need 0 < min_rto <= initial_rto <= max_rto")
        if not 0 <= self.ack_delay < self.min_rto:
            raise ValueError("need 0 <= ack_delay < min_rto")
        if self.keepalive_interval <= 0 or self.max_message < 0 or self.max_links < 1:
            raise ValueError("keepalive_interval, max_message and max_links must be positive")
        if self.challenge_interval <= 0:
            raise ValueError("challenge_interval must be positive")
        if self.expire_after is not None and self.expire_after <= self.keepalive_interval:
            raise ValueError("expire_after must exceed keepalive_interval")
        if self.cookie_lifetime <= 0:
            raise ValueError("cookie_lifetime must be positive")
        if min(self.max_stranger_links, self.max_stranger_links_per_host) < 1:
            raise ValueError("max_stranger_links and max_stranger_links_per_host must be >= 1")
        if min(self.max_stranger_bytes_per_host, self.stranger_budget) < MAX_CHUNK:
            raise ValueError(f"stranger byte limits must hold one frame ({MAX_CHUNK} bytes)")

    @property
    def max_fragments(self) -> int:
        return max(1, -(-self.max_message // MAX_CHUNK))


@dataclass(frozen=True, slots=True)
class LinkCounts:
    """What a link layer counts: the one list of its counters (``LinkStats`` reports them,
    ``Counters`` tallies them by name)."""

    sent: int = 0
    received: int = 0
    retransmitted: int = 0
    duplicates: int = 0
    dropped_malformed: int = 0
    dropped_oversized: int = 0
    dropped_unknown: int = 0
    dropped_stale: int = 0
    dropped_window: int = 0
    messages_sent: int = 0
    messages_delivered: int = 0
    messages_discarded: int = 0
    dropped_unconfirmed: int = 0
    challenges_sent: int = 0
    peer_restarts: int = 0
    links_expired: int = 0
    links_refused: int = 0
    dropped_outsider: int = 0
    cookies_sent: int = 0
    dropped_unproven: int = 0
    dropped_host_cap: int = 0
    dropped_budget: int = 0
    links_evicted: int = 0


COUNT_NAMES = tuple(f.name for f in fields(LinkCounts))


class Counters(dict[str, int]):
    """The running tally of :class:`LinkCounts`' fields, by name (``counters["sent"] += 1``):
    a name that is no field raises KeyError at its first count."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(dict.fromkeys(COUNT_NAMES, 0))


# --------------------------------------------------------------------------- epoch state machine


class _State(enum.Enum):
    FRESH = "fresh"  # never heard from the peer: its epoch is unknown
    BOUND = "bound"  # peer epoch known


class _Event(enum.Enum):
    FIRST = "first"  # first frame from the peer, addressed to us or to nobody yet
    FIRST_CHALLENGED = "first-challenged"  # a challenge: addressed to us, acks nothing we sent
    FIRST_STALE = "first-stale"  # first frame, but addressed to another incarnation of us
    SAME = "same"
    SAME_STALE = "same-stale"  # peer has not noticed that we restarted
    SAME_STALE_ACK = "same-stale-ack"  # ...or an ACK that is not for us (e.g. a stray challenge)
    NEW = "new"  # new source epoch, dst 0: a restart, or a forgery (unconfirmed)
    NEW_STALE = "new-stale"  # new source epoch, dst another epoch than ours (unconfirmed)
    NEW_CONFIRMED = "new-confirmed"  # new source epoch, dst ours: the sender has heard from us
    RETIRED = "retired"  # late frame from a previous incarnation of the peer


class _Action(enum.Enum):
    ACCEPT = "accept"  # adopt/keep the peer epoch, process acks and content
    RESEND = "resend"  # accept, and resend everything in flight now: the peer dropped it
    RESET = "reset"  # discard both directions, adopt the new epoch, then accept
    ANNOUNCE = "announce"  # keep the (known) src epoch, drop the content, ack at once
    CHALLENGE = "challenge"  # keep all state, drop the content, send our epoch to the src epoch
    DROP = "drop"


# The only place where epoch decisions are made.  A source epoch never seen before is
# believed only once the frame names our current epoch as its destination: a peer
# learns that only from our frames, which go to the peer's address, so an off-path
# forger cannot produce it.  Until then the sender is *challenged*: answered, rate
# limited, with an ACK carrying our epoch addressed to its epoch (docs/NETWORK.md).
_TRANSITIONS: dict[tuple[_State, _Event], tuple[_State, _Action]] = {
    (_State.FRESH, _Event.FIRST): (_State.BOUND, _Action.ACCEPT),
    (_State.FRESH, _Event.FIRST_CHALLENGED): (_State.BOUND, _Action.RESEND),
    (_State.FRESH, _Event.FIRST_STALE): (_State.FRESH, _Action.CHALLENGE),
    (_State.BOUND, _Event.SAME): (_State.BOUND, _Action.ACCEPT),
    (_State.BOUND, _Event.SAME_STALE): (_State.BOUND, _Action.ANNOUNCE),
    (_State.BOUND, _Event.SAME_STALE_ACK): (_State.BOUND, _Action.DROP),
    (_State.BOUND, _Event.NEW): (_State.BOUND, _Action.CHALLENGE),
    (_State.BOUND, _Event.NEW_STALE): (_State.BOUND, _Action.CHALLENGE),
    (_State.BOUND, _Event.NEW_CONFIRMED): (_State.BOUND, _Action.RESET),
    (_State.BOUND, _Event.RETIRED): (_State.BOUND, _Action.DROP),
}


# --------------------------------------------------------------------------- one link


@dataclass(slots=True)
class _Unit:
    """The body of one sequenced frame (a DATA fragment or a PING)."""

    type: FrameType
    frag_index: int = 0
    frag_count: int = 0
    payload: bytes = b""
    message: int = -1  # local message number, to count whole messages; never on the wire


@dataclass(slots=True)
class _InFlight:
    unit: _Unit
    sent_at: float
    deadline: float | None  # None while waiting in the retransmit set
    transmissions: int = 1
    fast_resent: bool = False  # fast retransmit is allowed once per frame
    early: bool = False  # deadline was pulled in by loss detection, not an RTO


class Link:
    def __init__(
        self,
        addr: Addr,
        epoch: int,
        config: LinkConfig,
        counters: Counters,
        now: float,
        trusted: bool = True,
    ) -> None:
        self.addr = addr
        self.trusted = trusted  # False: a stranger, its receive buffers count against budgets
        self.epoch = epoch
        self.cfg = config
        self.n = counters
        self.created = now
        self.state = _State.FRESH
        self.peer_epoch: int | None = None
        self.retired: deque[int] = deque(maxlen=_RETIRED_EPOCHS)
        self.restarts = 0  # resets believed (the peer restarted its link with us)
        self.last_heard: float | None = None
        self.srtt: float | None = None
        self.rttvar: float | None = None
        self.challenge_to: int | None = None  # an unconfirmed epoch we owe a challenge
        self.challenged_at: float | None = None
        self.order = 0  # creation rank in the owning LinkLayer (its iteration order)
        self._reset_streams(now)

    def adopt(self, peer_epoch: int) -> None:
        """Start bound to ``peer_epoch``, which a cookie proved (a stranger we evicted,
        admitted again under a new epoch of ours): our first frame names it, so the peer
        believes our restart and resets its old link to us at once (one trip, not a
        challenge and a second trip)."""
        self.peer_epoch = peer_epoch
        self.state = _State.BOUND

    def _reset_streams(self, now: float) -> None:
        # send side
        self.next_seq = 0
        self.queue: deque[_Unit] = deque()
        self.queued_bytes = 0
        self.in_flight: dict[int, _InFlight] = {}  # insertion order is seq order
        # (deadline, seq) for every in-flight frame with a deadline, plus stale pairs
        # (acked, or deadline changed since), dropped lazily: earliest one in O(log n)
        self.deadlines: list[tuple[float, int]] = []
        self.resend: set[int] = set()
        self.largest_acked = -1
        self.backoff = 0
        self.last_eliciting = now
        # receive side
        self.recv_next = 0
        self.ooo: dict[int, _Unit] = {}
        self.ooo_bytes = 0
        self.partial: list[bytes] = []
        self.partial_bytes = 0
        self.partial_count = 0
        self.ack_now = False
        self.ack_deadline: float | None = None
        self.unacked = 0

    @property
    def buffered(self) -> int:
        """Received payload bytes held here: out-of-order frames and the partial message."""
        return self.ooo_bytes + self.partial_bytes

    def pending_messages(self) -> int:
        """Messages with at least one fragment not yet acked."""
        units = [e.unit for e in self.in_flight.values()] + list(self.queue)
        return len({u.message for u in units if u.type is FrameType.DATA})

    # ---------------------------------------------------------------- timing

    def rto(self) -> float:
        cfg = self.cfg
        base = cfg.initial_rto
        if self.srtt is not None and self.rttvar is not None:
            base = self.srtt + 4 * self.rttvar
        base = min(max(base, cfg.min_rto), cfg.max_rto)
        return min(base * (1 << self.backoff), cfg.max_rto)

    def _sample_rtt(self, sample: float) -> None:
        # RFC 6298 smoothing; the ENet/TCP RTO formula reads these in rto()
        if self.srtt is None or self.rttvar is None:
            self.srtt, self.rttvar = sample, sample / 2
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - sample)
            self.srtt = 0.875 * self.srtt + 0.125 * sample

    def keepalive_due(self) -> float | None:
        if self.in_flight or self.queue:
            return None  # retransmissions already probe the peer
        return self.last_eliciting + self.cfg.keepalive_interval

    def has_output(self) -> bool:
        """Whether :meth:`collect` may emit anything (else it would be a no-op)."""
        return bool(
            self.resend
            or self.queue
            or (self.ack_now and self.peer_epoch is not None)
            or self.challenge_to is not None
        )

    def _set_deadline(self, seq: int, entry: _InFlight, deadline: float | None) -> None:
        entry.deadline = deadline
        if deadline is not None:
            heapq.heappush(self.deadlines, (deadline, seq))
            if len(self.deadlines) > 4 * len(self.in_flight) + 16:
                self.deadlines = [
                    (e.deadline, s) for s, e in self.in_flight.items() if e.deadline is not None
                ]
                heapq.heapify(self.deadlines)

    def _earliest_deadline(self) -> float | None:
        """The earliest retransmission deadline in flight, dropping stale heap entries."""
        heap = self.deadlines
        while heap:
            deadline, seq = heap[0]
            entry = self.in_flight.get(seq)
            if entry is not None and entry.deadline == deadline:
                return deadline
            heapq.heappop(heap)
        return None

    def next_timer(self) -> float | None:
        best = self._earliest_deadline()
        if self.ack_deadline is not None and (best is None or self.ack_deadline < best):
            best = self.ack_deadline
        keepalive = self.keepalive_due()
        if keepalive is not None and (best is None or keepalive < best):
            best = keepalive
        if self.cfg.expire_after is not None:
            expiry = self.last_activity() + self.cfg.expire_after
            if best is None or expiry < best:
                best = expiry
        if self.challenge_to is not None:
            due = self._challenge_due()
            if best is None or due < best:
                best = due
        return best

    def _challenge_due(self) -> float:
        if self.challenged_at is None:
            return self.created  # i.e. now
        return self.challenged_at + self.cfg.challenge_interval

    def last_activity(self) -> float:
        return self.created if self.last_heard is None else self.last_heard

    def on_timer(self, now: float) -> None:
        if self.ack_deadline is not None and self.ack_deadline <= now:
            self.ack_now, self.ack_deadline = True, None
        expired: list[int] = []
        while (deadline := self._earliest_deadline()) is not None and deadline <= now:
            seq = heapq.heappop(self.deadlines)[1]
            if seq not in expired:  # a pair may be in the heap twice
                expired.append(seq)
        if any(not self.in_flight[s].early for s in expired):
            # one back-off step per timeout event, not per frame (ENet doubles per command,
            # which over-penalises a burst lost together)
            self.backoff = min(self.backoff + 1, _MAX_BACKOFF)
        for seq in expired:
            entry = self.in_flight[seq]
            entry.deadline, entry.early = None, False
            self.resend.add(seq)
        due = self.keepalive_due()
        if due is not None and due <= now:
            self.queue_ping()

    # ---------------------------------------------------------------- sending

    def queue_ping(self) -> None:
        self.queue.append(_Unit(FrameType.PING))

    def enqueue(self, payload: bytes, message: int) -> None:
        count = max(1, -(-len(payload) // MAX_CHUNK))
        for i in range(count):
            chunk = payload[i * MAX_CHUNK : (i + 1) * MAX_CHUNK]
            self.queue.append(_Unit(FrameType.DATA, i, count, chunk, message))
        self.queued_bytes += len(payload)

    def _frame(self, ftype: FrameType, seq: int, unit: _Unit | None) -> bytes:
        self.ack_now, self.ack_deadline, self.unacked = False, None, 0  # this frame carries it
        sack = 0
        for s in self.ooo:
            sack |= 1 << (s - self.recv_next - 1)
        body = unit or _Unit(ftype)
        return encode(
            Frame(
                ftype,
                self.epoch,
                self.peer_epoch or 0,
                seq % SEQ_MOD,
                self.recv_next % SEQ_MOD,
                sack,
                body.frag_index,
                body.frag_count,
                body.payload,
            )
        )

    def collect(self, now: float, out: list[tuple[bytes, Addr]]) -> None:
        start = len(out)
        for seq in sorted(self.resend):
            entry = self.in_flight.get(seq)
            if entry is None:
                continue  # acked while waiting
            out.append((self._frame(entry.unit.type, seq, entry.unit), self.addr))
            entry.sent_at = now
            self._set_deadline(seq, entry, now + self.rto())
            entry.transmissions += 1
            self.n["retransmitted"] += 1
        self.resend.clear()
        base = next(iter(self.in_flight), self.next_seq)  # the lowest seq in flight
        while self.queue and self.next_seq < base + self.cfg.window:
            unit = self.queue.popleft()
            if unit.type is FrameType.DATA:
                self.queued_bytes -= len(unit.payload)
            seq, self.next_seq = self.next_seq, self.next_seq + 1
            entry = self.in_flight[seq] = _InFlight(unit, now, None)
            self._set_deadline(seq, entry, now + self.rto())
            out.append((self._frame(unit.type, seq, unit), self.addr))
        if len(out) > start:
            self.last_eliciting = now
        elif self.ack_now and self.peer_epoch is not None:
            out.append((self._frame(FrameType.ACK, 0, None), self.addr))
        self._challenge(now, out)
        self.n["sent"] += len(out) - start

    def _challenge(self, now: float, out: list[tuple[bytes, Addr]]) -> None:
        """Send our epoch to the unconfirmed one, at most once per ``challenge_interval``.

        30 bytes: no larger than any frame that can trigger it.  It acks nothing, so
        the challenged link knows its frames were dropped (FIRST_CHALLENGED).
        """
        if self.challenge_to is None or now < self._challenge_due():
            return
        frame = Frame(FrameType.ACK, self.epoch, self.challenge_to, 0, 0, 0)
        out.append((encode(frame), self.addr))
        self.challenge_to, self.challenged_at = None, now
        self.n["challenges_sent"] += 1

    # ---------------------------------------------------------------- receiving

    def _classify(self, frame: Frame) -> _Event:
        ours = frame.dst_epoch == self.epoch
        stale = not ours and frame.dst_epoch != 0
        if self.state is _State.FRESH:
            if stale:
                return _Event.FIRST_STALE
            if ours and _acks_nothing(frame) and self.in_flight:
                # the peer knows our epoch yet took none of our frames (all sent since
                # this link exists, from seq 0): it dropped them while checking our epoch
                return _Event.FIRST_CHALLENGED
            return _Event.FIRST
        if frame.src_epoch in self.retired:
            return _Event.RETIRED
        if frame.src_epoch == self.peer_epoch:
            if stale:
                return _Event.SAME_STALE_ACK if frame.type is FrameType.ACK else _Event.SAME_STALE
            return _Event.SAME
        if ours:
            return _Event.NEW_CONFIRMED
        return _Event.NEW_STALE if stale else _Event.NEW

    def on_frame(self, frame: Frame, now: float, room: int | None = None) -> list[bytes]:
        """Handle one frame; ``room``: payload bytes this link may still buffer (None: any)."""
        was = self.state
        self.state, action = _TRANSITIONS[(self.state, self._classify(frame))]
        if action is _Action.DROP:
            self.n["dropped_stale"] += 1
            return []
        if action is _Action.CHALLENGE:
            # no state changes, not even last_heard: this may be anyone but the peer
            if was is _State.BOUND:
                self.n["dropped_unconfirmed"] += 1
            else:
                self.n["dropped_stale"] += 1
            self.challenge_to = frame.src_epoch
            return []
        self.last_heard = now
        if action is _Action.RESET:
            assert self.peer_epoch is not None
            self.retired.append(self.peer_epoch)
            self.restarts += 1
            self.n["peer_restarts"] += 1
            self.n["messages_discarded"] += self.pending_messages() + (1 if self.partial else 0)
            self._reset_streams(now)
        self.peer_epoch = frame.src_epoch
        if self.challenge_to == frame.src_epoch:
            self.challenge_to = None  # confirmed meanwhile
        if action is _Action.ANNOUNCE:
            self.n["dropped_stale"] += 1
            self.ack_now = True
            return []
        if action is _Action.RESEND:
            for seq, entry in self.in_flight.items():
                entry.deadline, entry.early = None, False
                self.resend.add(seq)
        if frame.dst_epoch != 0 and not self._on_ack(frame, now):
            self.n["dropped_malformed"] += 1
            return []
        if frame.type is FrameType.ACK:
            return []
        return self._on_sequenced(frame, now, room)

    def _on_ack(self, frame: Frame, now: float) -> bool:
        base = next(iter(self.in_flight), self.next_seq)  # the lowest seq in flight
        cum = unwrap(frame.ack, base)
        if cum > self.next_seq:
            return False  # acks something never sent: not from our peer's stream
        newly: list[int] = []
        for s in self.in_flight:  # in seq order
            if s >= cum:
                break
            newly.append(s)
        bits, i = frame.sack, 0
        while bits:
            if bits & 1 and cum + 1 + i in self.in_flight:
                newly.append(cum + 1 + i)
            bits >>= 1
            i += 1
        if not newly:
            return True
        largest = max(newly)
        entry = self.in_flight[largest]
        if entry.transmissions == 1:
            self._sample_rtt(now - entry.sent_at)
            self.backoff = 0
        # A resent frame's ack is ambiguous: no sample, and the backed-off RTO is kept
        # until a frame sent once is acked (Karn's algorithm, RFC 6298 5.7).  Cleared on
        # any ack, a peer that got slow (a busy process, 16 peers sharing a core) had
        # every later frame resent for good, no clean sample ever coming back.
        for s in newly:
            del self.in_flight[s]
        self.resend.difference_update(newly)
        self.largest_acked = max(self.largest_acked, largest)
        self._detect_losses(now)
        return True

    def _detect_losses(self, now: float) -> None:
        """Fast retransmit: enough later frames acked *and* older than the reorder window.

        The packet threshold alone misfires when jitter reorders a burst, so (like
        RACK) a frame must also have been out for ``srtt + 4*rttvar`` -- the RTO
        before the min clamp and back-off, which is what makes it faster on a LAN.
        If it is not that old yet, its deadline is pulled in instead.
        """
        threshold = self.cfg.fast_retransmit_after
        if not threshold or self.srtt is None or self.rttvar is None:
            return
        window = self.srtt + 4 * self.rttvar
        for s, e in self.in_flight.items():
            if s + threshold > self.largest_acked:
                break  # in_flight is in seq order
            if e.fast_resent or e.deadline is None:
                continue
            e.fast_resent = True
            lost_at = e.sent_at + window
            if lost_at <= now:
                e.deadline = None
                self.resend.add(s)
            elif lost_at < e.deadline:
                self._set_deadline(s, e, lost_at)
                e.early = True

    def _on_sequenced(self, frame: Frame, now: float, room: int | None) -> list[bytes]:
        seq = unwrap(frame.seq, self.recv_next)
        if seq < self.recv_next or seq in self.ooo:
            self.n["duplicates"] += 1
            self.ack_now = True  # our ack was probably lost
            return []
        if seq >= self.recv_next + _RECV_WINDOW:
            self.n["dropped_window"] += 1
            return []
        if frame.type is FrameType.DATA and frame.frag_count > self.cfg.max_fragments:
            self.n["dropped_malformed"] += 1
            return []
        if (
            room is not None
            and frame.type is FrameType.DATA
            and (
                len(frame.payload) > room
                or frame.frag_count * MAX_CHUNK > self.cfg.max_stranger_bytes_per_host
            )
        ):
            # a stranger over its byte allowance, or a message it could never fit in it:
            # not buffered and not acked (an honest sender resends once there is room)
            self.n["dropped_budget"] += 1
            return []
        if seq != self.recv_next or self.ooo:
            self.ack_now = True  # opens or fills a gap: the sender wants to know at once
        self.ooo[seq] = _Unit(frame.type, frame.frag_index, frame.frag_count, frame.payload)
        self.ooo_bytes += len(frame.payload)
        self.unacked += 1
        if self.unacked >= 2:
            self.ack_now = True
        elif self.ack_deadline is None:
            self.ack_deadline = now + self.cfg.ack_delay
        delivered: list[bytes] = []
        while self.recv_next in self.ooo:
            unit = self.ooo.pop(self.recv_next)
            self.ooo_bytes -= len(unit.payload)
            message = self._reassemble(unit)
            self.recv_next += 1
            if message is not None:
                delivered.append(message)
        self.n["messages_delivered"] += len(delivered)
        return delivered

    def _reassemble(self, unit: _Unit) -> bytes | None:
        if unit.type is not FrameType.DATA:
            return None
        if unit.frag_index == 0:
            if self.partial:
                self.n["messages_discarded"] += 1  # peer broke the fragment sequence
            self.partial, self.partial_count, self.partial_bytes = [], unit.frag_count, 0
        elif unit.frag_index != len(self.partial) or unit.frag_count != self.partial_count:
            self.n["messages_discarded"] += bool(self.partial)
            self.partial, self.partial_count, self.partial_bytes = [], 0, 0
            return None
        self.partial.append(unit.payload)
        self.partial_bytes += len(unit.payload)
        if len(self.partial) < self.partial_count:
            return None
        message = b"".join(self.partial)
        self.partial, self.partial_count, self.partial_bytes = [], 0, 0
        return message


def _acks_nothing(frame: Frame) -> bool:
    """The shape of a challenge: an ACK that acknowledges no sequence number at all."""
    return frame.type is FrameType.ACK and frame.ack == 0 and frame.sack == 0
