"""Two colluders on the simulated table (issue #33 item 2): seat B holds seat A's key, signs
a second COMMIT for A and sends it, with its own acknowledgement naming it, to one honest
peer only.  A plays honestly; B plays honestly except towards the victim.

The network keeps each link's order (lanTag's links deliver in order, SPEC §8) and shuffles
across links with seeded jitter.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

from lanTag.fair.commit import commitment
from lanTag.identity import Identity
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.rules.base import Simultaneous
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import (
    MsgType,
    Signed,
    pack_bundle,
    parse_unverified,
    reveal_vector,
    sign_message,
    unpack_bundle,
)
from lanTag.session.steps import ROUND_SUBJECT, round_digest
from lanTag.session.transport import Addr, Transport
from lanTag.wire import pack
from tests.session.harness import SimNet, addr_of, make_record, make_sessions
from tests.support.table import final_history

# How B names A's second COMMIT to the victim:
#   "have":   its REVEAL (naming the vector it holds) goes to everyone, and to the victim a
#             round HAVE naming the vector with A's second COMMIT goes first;
#   "reveal": the victim gets a REVEAL of B naming that vector instead of B's own (two
#             REVEALs of B, each peer seeing one);
#   "grow":   B is no seat of the round: its round HAVE to the victim names both vectors
#             (it "grew"), to the others only the one it holds;
#   "swap":   B is no seat of the round: the victim gets a round HAVE naming only the
#             vector with A's second COMMIT, the others one naming the vector B holds.
#   "quick":  as "reveal", and B also names, to the victim alone, the vector without A (a
#             round HAVE): once the victim drops A for the split it holds every
#             acknowledgement it needs and applies the round at once.
VARIANTS = ("have", "reveal", "grow", "swap", "quick")
ROUND_VARIANTS = ("have", "reveal", "quick")
BYSTANDER = {"have": False, "reveal": False, "grow": True, "swap": True, "quick": False}
# When A's second COMMIT goes to the victim: with B's COMMIT (it may beat A's own, and the
# victim takes it) or with B's acknowledgement (after the victim took A's own).
WHEN = ("commit", "ack")


class OrderedNet(SimNet):
    """SimNet whose links keep their order: a datagram from one peer to another is never
    delivered before an earlier one on the same link; jitter still shuffles across links."""

    def flush(self) -> None:
        last: dict[tuple[int, int], float] = getattr(self, "_last", {})
        self._last = last
        for src, s in enumerate(self.sessions):
            if src in self.silent:
                s.datagrams_to_send(self.now)
                continue
            for data, dst_addr in s.datagrams_to_send(self.now):
                dst = self.by_addr[dst_addr]
                if dst in self.drop_to.get(src, ()):
                    continue
                at = self.now + self.delay + self.rng.random() * self.jitter
                at = max(at, last.get((src, dst), 0.0))
                last[(src, dst)] = at
                self._seq += 1
                heapq.heappush(self.queue, (at, self._seq, dst, data, addr_of(src)))


class _Intercept:
    """B's transport: every bundle to the victim goes through ``rewrite`` first."""

    def __init__(self, inner: Transport, victim: Addr, rewrite: Callable[[Signed], list[bytes]]):
        self.inner = inner
        self.victim = victim
        self.rewrite = rewrite

    def send(self, addr: Addr, payload: bytes, now: float) -> None:
        if addr != self.victim:
            self.inner.send(addr, payload, now)
            return
        out: list[bytes] = []
        for raw in unpack_bundle(payload, 1 << 16):
            out.extend(self.rewrite(parse_unverified(raw)))
        self.inner.send(addr, pack_bundle(out), now)

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        return self.inner.receive_datagram(data, addr, now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        return self.inner.datagrams_to_send(now)

    def next_timer(self) -> float | None:
        return self.inner.next_timer()

    def handle_timer(self, now: float) -> None:
        self.inner.handle_timer(now)

    def last_heard(self, addr: Addr) -> float | None:
        return None


@dataclass
class Collusion:
    """B's cheat at the first secret round A takes part in."""

    sessions: list[Session]
    ids: list[Identity]
    a: int
    b: int
    victim: int
    variant: str
    when: str
    step: int | None = None  # the round it cheated at
    second: Signed | None = None  # A's second COMMIT
    sent: list[Signed] = field(default_factory=list)

    def install(self) -> None:
        s = self.sessions[self.b]
        s.transport = _Intercept(s.transport, addr_of(self.victim), self._rewrite)

    def _rewrite(self, msg: Signed) -> list[bytes]:
        s = self.sessions[self.b]
        if msg.seat != self.b or (self.step is not None and msg.step != self.step):
            return [msg.raw]
        if self.step is None:
            state = s.state_at(msg.step)
            decision = None if state is None else state.decision()
            if not isinstance(decision, Simultaneous) or self.a not in decision.seats:
                return [msg.raw]
            if self.when == "commit" and msg.type is not MsgType.COMMIT:
                return [msg.raw]
            if self.when == "ack" and not _is_ack(msg):
                return [msg.raw]
            self.step = msg.step
        out: list[bytes] = []
        if self.second is None and (
            (self.when == "commit" and msg.type is MsgType.COMMIT)
            or (self.when == "ack" and _is_ack(msg))
        ):
            self.second = self._second_commit(msg)
            out.append(self.second.raw)
        if not _is_ack(msg) or self.second is None:
            return [*out, msg.raw]
        swapped = self._swapped_vector(msg.step)
        if self.variant == "have" and msg.type is MsgType.REVEAL:
            have = self._sign(msg, MsgType.HAVE, (ROUND_SUBJECT, [swapped]))
            return [*out, have.raw, msg.raw]
        if self.variant == "reveal" and msg.type is MsgType.REVEAL:
            other = self._sign(msg, MsgType.REVEAL, (*msg.payload[:3], swapped))
            return [*out, other.raw]
        if self.variant == "quick" and msg.type is MsgType.REVEAL:
            other = self._sign(msg, MsgType.REVEAL, (*msg.payload[:3], swapped))
            have = self._sign(msg, MsgType.HAVE, (ROUND_SUBJECT, [self._without_a(msg.step)]))
            return [*out, other.raw, have.raw]
        if self.variant == "grow" and msg.type is MsgType.HAVE:
            grown = self._sign(msg, MsgType.HAVE, (ROUND_SUBJECT, [*msg.payload[1], swapped]))
            return [*out, msg.raw, grown.raw]
        if self.variant == "swap" and msg.type is MsgType.HAVE:
            other = self._sign(msg, MsgType.HAVE, (ROUND_SUBJECT, [swapped]))
            return [*out, other.raw]
        return [*out, msg.raw]

    def _second_commit(self, like: Signed) -> Signed:
        s = self.sessions[self.b]
        guess = 2
        nonce = bytes([0xA2]) * 32
        kind = s.needs().secret_kind
        sealed = commitment(s.game_id, like.step, self.a, kind, nonce, pack(["guess", guess]))
        msg = sign_message(
            self.ids[self.a].signer(),
            MsgType.COMMIT,
            s.game_id,
            like.step,
            self.a,
            like.state_hash,
            (sealed,),
            version=s.record.protocol,
        )
        self.sent.append(msg)
        return msg

    def _swapped_vector(self, step: int) -> bytes:
        s = self.sessions[self.b]
        held = s._box(step).of(MsgType.COMMIT)
        digests = {seat: c.digest for seat, c in held.items()}
        assert self.second is not None
        digests[self.a] = self.second.digest
        return round_digest(digests)

    def _without_a(self, step: int) -> bytes:
        held = self.sessions[self.b]._box(step).of(MsgType.COMMIT)
        return round_digest({seat: c.digest for seat, c in held.items() if seat != self.a})

    def _sign(self, like: Signed, kind: MsgType, payload: tuple[object, ...]) -> Signed:
        s = self.sessions[self.b]
        msg = sign_message(
            self.ids[self.b].signer(),
            kind,
            like.game_id,
            like.step,
            self.b,
            like.state_hash,
            payload,
            version=s.record.protocol,
        )
        self.sent.append(msg)
        return msg


def _is_ack(msg: Signed) -> bool:
    if msg.type is MsgType.REVEAL:
        return reveal_vector(msg) is not None
    return msg.type is MsgType.HAVE and msg.payload[0] == ROUND_SUBJECT


@dataclass
class Outcome:
    sessions: list[Session]
    net: SimNet
    honest: list[int]
    cheat: Collusion
    logs: dict[int, bytes]
    reports: dict[int, VerifyReport]
    last: bool = False  # the round cheated at was the game's last step

    def blames(self, i: int) -> set[tuple[int, str]]:
        return {(e.seat, e.code) for e in self.net.events.get(i, []) if isinstance(e, ev.Blame)}

    def drops(self, i: int) -> list[tuple[int, tuple[int, ...]]]:
        events = self.net.events.get(i, [])
        return [(e.step, e.seats) for e in events if isinstance(e, ev.SeatsDropped)]


def play(
    humans: int,
    variant: str,
    when: str,
    seed: int,
    *,
    victim: int = 1,
    jitter: float = 0.004,
    protocol: int | None = None,
    last: bool = False,
) -> Outcome:
    """A toy game of ``humans`` seats where the last two collude (A = humans-2, B =
    humans-1) against ``victim``; B is a seat of the secret guess or, for the bystander
    variants, not (only the seats before it guess).  ``last``: a game of one roll and one
    guess, so the round they cheat at ends it."""
    import dataclasses

    a, b = humans - 2, humans - 1
    options: tuple[tuple[str, int | bool | str], ...] = (("rounds", 2),)
    if last:  # the guess the colluders cheat at is the game's last step
        options = (("rounds", 1), ("turns", 0))
    if BYSTANDER[variant]:
        options = (*options, ("guessers", humans - 1))
    record, ids, secrets = make_record("toy", humans, options=options, seed=f"collude/{seed}")
    if protocol is not None:
        record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = OrderedNet(sessions, seed=seed, jitter=jitter)
    cheat = Collusion(sessions, ids, a, b, victim, variant, when)
    cheat.install()
    net.run(max_time=600)
    honest = [i for i in range(humans) if i not in (a, b)]
    logs = {i: sessions[i].take_log() for i in honest}
    reports = {i: verify_log(log) for i, log in logs.items()}
    return Outcome(sessions, net, honest, cheat, logs, reports, last)


def same_history(out: Outcome) -> bool:
    return len({final_history(out.reports[i]) for i in out.honest}) == 1


__all__ = ["VARIANTS", "WHEN", "Collusion", "OrderedNet", "Outcome", "play", "same_history"]
