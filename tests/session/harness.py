"""Drive several Session machines through a simulated network on a virtual clock.

No sockets, no sleeps: datagrams are delivered in virtual time with seeded
delay, jitter, duplication and reordering; bots act for the human seats.
"""

from __future__ import annotations

import hashlib
import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from lanTag.fair.commit import commitment
from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity, Signer
from lanTag.rules.base import Over
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord, SeatRecord, Timeouts
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, sign_message
from lanTag.session.steps import round_digest
from lanTag.session.transport import Addr
from lanTag.wire import pack

CHAIN = 256


def _h(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def make_record(
    engine: str,
    humans: int,
    bots: int = 0,
    *,
    options: tuple[tuple[str, int | bool | str], ...] = (),
    seed: str = "t",
    timeouts: Timeouts | None = None,
) -> tuple[LobbyRecord, list[Identity], list[bytes]]:
    ids = [Identity(_h(f"{seed}/key/{i}")) for i in range(humans)]
    secrets = [_h(f"{seed}/chain/{i}") for i in range(humans)]
    seats = [
        SeatRecord(ids[i].public_key, HashChain(secrets[i], CHAIN).anchor, f"p{i}", "")
        for i in range(humans)
    ] + [SeatRecord(b"", b"", f"bot{i}", "random") for i in range(bots)]
    record = LobbyRecord(
        engine,
        options,
        None,
        tuple(seats),
        CHAIN,
        timeouts or Timeouts(turn_ms=5_000, step_ms=2_000, lag_ms=1_000),
        _h(f"{seed}/nonce"),
    )
    return record, ids, secrets


def addr_of(seat: int) -> Addr:
    return (f"10.0.0.{seat + 1}", 7000)


@dataclass
class SimNet:
    sessions: list[Session]
    seed: int = 0
    delay: float = 0.002
    jitter: float = 0.0
    dup: float = 0.0
    now: float = 0.0
    silent: set[int] = field(default_factory=set)  # seats whose process is "dead"
    hold: set[int] = field(default_factory=set)  # seats whose bot waits before taking a turn
    hold_secret: set[int] = field(default_factory=set)  # ... before making a secret choice
    drop_to: dict[int, set[int]] = field(default_factory=dict)  # src -> dsts cut
    queue: list[tuple[float, int, int, bytes, Addr]] = field(default_factory=list)
    events: dict[int, list[ev.Event]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.bot_rng = [random.Random(f"{self.seed}/bot/{i}") for i in range(len(self.sessions))]
        self._seq = 0
        self.by_addr = {addr_of(i): i for i in range(len(self.sessions))}

    def flush(self) -> None:
        for src, s in enumerate(self.sessions):
            if src in self.silent:
                s.datagrams_to_send(self.now)
                continue
            for data, dst_addr in s.datagrams_to_send(self.now):
                dst = self.by_addr[dst_addr]
                if dst in self.drop_to.get(src, ()):
                    continue
                copies = 2 if self.rng.random() < self.dup else 1
                for _ in range(copies):
                    at = self.now + self.delay + self.rng.random() * self.jitter
                    self._seq += 1
                    heapq.heappush(self.queue, (at, self._seq, dst, data, addr_of(src)))

    def drive_bots(self) -> None:
        for i, s in enumerate(self.sessions):
            if i in self.silent:
                continue
            turn = s.my_turn()
            if (i in self.hold and turn == "turn") or (i in self.hold_secret and turn == "secret"):
                continue
            rng = self.bot_rng[i]
            if turn is not None:
                legal = s.state.legal_actions(i)
                action = legal[rng.randrange(len(legal))]
                if turn == "turn":
                    s.submit(action, self.now)
                else:
                    s.commit(action, rng.randbytes(32), self.now)

    def collect(self) -> None:
        for i, s in enumerate(self.sessions):
            while (e := s.next_event()) is not None:
                self.events.setdefault(i, []).append(e)

    def step(self) -> bool:
        self.drive_bots()
        self.flush()
        self.collect()
        timers = [
            (t, i)
            for i, s in enumerate(self.sessions)
            if i not in self.silent and (t := s.next_timer()) is not None
        ]
        next_delivery = self.queue[0][0] if self.queue else None
        next_timer = min(timers)[0] if timers else None
        if next_delivery is None and next_timer is None:
            return False
        if next_timer is None or (next_delivery is not None and next_delivery <= next_timer):
            at, _, dst, data, src = heapq.heappop(self.queue)
            self.now = max(self.now, at)
            if dst not in self.silent:
                self.sessions[dst].receive_datagram(data, src, self.now)
        else:
            self.now = max(self.now, next_timer)
            for t, i in timers:
                if t <= self.now:
                    self.sessions[i].handle_timer(self.now)
        return True

    def run_until(self, pred: Callable[[], bool], max_steps: int = 100_000) -> None:
        """Deliver and fire timers until ``pred()`` holds; the table stopping first, or
        ``max_steps`` deliveries without it (a hang), fails the test."""
        for _ in range(max_steps):
            if pred():
                return
            assert self.step(), "the table stopped before the condition held"
        raise AssertionError("condition never held")

    def run(self, max_time: float = 600.0, max_steps: int = 200_000) -> None:
        for _ in range(max_steps):
            if (self.all_over() and not self.sealing()) or self.now > max_time:
                break
            if not self.step():
                break
        self.collect()

    def sealing(self) -> bool:
        """A live peer still waits (a bounded time) for seals of the final state."""
        return any(s.sealing(self.now) for i, s in enumerate(self.sessions) if i not in self.silent)

    def all_over(self) -> bool:
        return all(
            isinstance(s.state.decision(), Over)
            for i, s in enumerate(self.sessions)
            if i not in self.silent
        )


def make_sessions(record: LobbyRecord, ids: list[Identity], secrets: list[bytes]) -> list[Session]:
    humans = len(ids)
    peers = {i: addr_of(i) for i in range(humans)}
    return [
        Session(record, seat=i, identity=ids[i], chain_secret=secrets[i], peers=peers)
        for i in range(humans)
    ]


def reveal_payload(
    sessions: list[Session],
    step: int,
    action: list[object],
    nonce: bytes,
    link: bytes,
    commits: dict[int, Signed] | None = None,
) -> tuple[object, ...]:
    """A hand-signed REVEAL's payload for the game's protocol: from protocol 6 on it names
    the vector of commitments (SPEC §4.4) the honest sessions hold at ``step``, with
    ``commits`` (seat -> COMMIT) in place of theirs (a cheater's version, say)."""
    if not sessions[0].features.round_acks:
        return (action, nonce, link)
    digests = {
        s.seat: s._box(step).of(MsgType.COMMIT)[s.seat].digest
        for s in sessions
        if s.seat is not None and s.seat in s._box(step).of(MsgType.COMMIT)
    }
    digests.update({seat: c.digest for seat, c in (commits or {}).items()})
    return (action, nonce, link, round_digest(digests))


def two_versions(
    sessions: list[Session], signer: Signer, cheat: int, step: int, guesses: dict[int, int]
) -> dict[int, tuple[Signed, Signed]]:
    """A cheater's COMMIT and REVEAL of one toy guess per victim (victim -> guess) at the
    secret ``step``, in the game's protocol: each pair opens, each REVEAL names the vector
    its victim holds (from protocol 6 on)."""
    me = sessions[cheat]
    h = me.state.state_hash()
    link = me._chain.reveal(me.history[-1].chain_used[cheat] + 1)  # type: ignore[union-attr]
    out = {}
    for victim, guess in guesses.items():
        nonce = bytes([guess]) * 32
        sealed = commitment(me.game_id, step, cheat, "guess", nonce, pack(["guess", guess]))
        v = me.record.protocol
        c = sign_message(signer, MsgType.COMMIT, me.game_id, step, cheat, h, (sealed,), version=v)
        payload = reveal_payload(sessions, step, ["guess", guess], nonce, link, {cheat: c})
        r = sign_message(signer, MsgType.REVEAL, me.game_id, step, cheat, h, payload, version=v)
        out[victim] = (c, r)
    return out


def toy_game_logs(seed: str, net_seed: int) -> list[bytes]:
    """Every peer's log of one finished toy game: 3 humans and a bot, with jitter and repeats.

    Module-scoped fixtures call it before the function-scoped ``toy_engine`` fixture runs,
    so it registers the engine itself."""
    from lanTag.rules.registry import register_engine

    register_engine("toy", "tests.session.toygame", "Toy")
    record, ids, secrets = make_record("toy", 3, 1, seed=seed)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=net_seed, jitter=0.02, dup=0.05)
    net.run()
    assert net.all_over()
    return [s.take_log() for s in sessions]
