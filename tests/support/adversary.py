"""A cheating peer for tests: a real PeerMachine that is honest except for one cheat.

:class:`Adversary` wraps a whole :class:`~lanTag.peer.machine.PeerMachine` (links,
lobby, session) and is itself a datagram machine, so it drops into a
simulated table (``tests.support.table.Table(wrap=...)``) in place of an
honest peer.  It plays with a bot like everyone else, and:

* every signed message its session sends passes through :meth:`rewrite`, which
  may drop it, replace it (re-signed with the seat's real key) or send another
  version to some peers (equivocation);
* after every input it may inject its own traffic: signed messages that break
  a rule, forged or replayed ones, garbage link payloads and raw datagrams.

The cheats (``Cheat``) and what honest peers must do about them are listed in
``docs/SECURITY.md``; ``tests/chaos/test_adversary.py`` checks each.  Test
code only: nothing in the product imports this module.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.fair.commit import commitment
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.net.endpoint import Addr
from lanTag.net.frame import Frame, FrameType, encode
from lanTag.peer.machine import BotDriver, PeerMachine
from lanTag.rules.base import Action, Simultaneous, Turn
from lanTag.session.core import bundles
from lanTag.session.lockstep import Session
from lanTag.session.messages import (
    MsgType,
    Signed,
    pack_bundle,
    parse_unverified,
    sign_message,
)
from lanTag.session.steps import ROUND_SUBJECT, round_digest
from tests.support.choices import beats, illegal_for
from tests.support.garbage import garbage_datagrams, garbage_payloads
from tests.support.rewriting import Rewriting
from tests.support.withholder import Withholder, own_pips

__all__ = ["Adversary", "Cheat", "garbage_datagrams", "garbage_payloads", "resign"]

BUNDLE_BUDGET = 1100
SYNC_BURST = 40  # SYNC_FLOOD: SYNC messages per input
SYNC_ROUNDS = 30  # SYNC_FLOOD: inputs it floods on
FLOOD_BURST = 60  # REQUEST_FLOOD: NUDGEs and VOTEs per input
FLOOD_ROUNDS = 20  # REQUEST_FLOOD: inputs it floods on
CHAT_BURST = 200  # CHAT_FLOOD: distinct CHAT lines per input (the cap is 32 a step)


class Cheat(enum.Enum):
    BAD_REVEAL = "bad-reveal"  # a reveal that does not open its commitment
    PEEK_REVEAL = "peek-reveal"  # holds its reveal, then reveals what beats the other's
    WITHHOLD_REVEAL = "withhold-reveal"  # commit, then never reveal
    EQUIVOCATE = "equivocate"  # two different MOVEs, one to each half of the table
    FORGE_SIGNATURE = "forge-signature"  # another seat's message signed with our key; bad sigs
    REPLAY = "replay"  # messages from another game and from old steps of this one
    OUT_OF_TURN = "out-of-turn"  # a MOVE when the step asks for something else
    ILLEGAL_MOVE = "illegal-move"  # a well-formed MOVE the rules forbid, on our own turn
    GARBAGE = "garbage"  # oversized/malformed datagrams and link payloads
    SPOOF = "spoof"  # datagrams with another peer's source address
    SYNC_FLOOD = "sync-flood"  # SYNC from step 0, in bursts, on every input (a DoS)
    TWO_COMMITS = "two-commits"  # COMMIT+REVEAL pair A to some peers, pair B to the others
    FALSE_HASH = "false-hash"  # one HAVE with a made-up state hash, to one peer only
    REQUEST_FLOOD = "request-flood"  # NUDGEs and VOTEs with distinct seqs, future steps too
    CHAT_FLOOD = "chat-flood"  # validly signed CHAT junk, distinct lines, at its step
    # Issue #38: withhold our link of our own roll when the roll without it has more pips, be
    # dropped, ask back (tests.support.withholder); -careful: only while a hand-back is
    # left; -leave: withhold with a LEAVE; -aware: it knows protocol 6's withheld roll (a
    # roll withheld by its owner is its forfeit) and withholds only when that pays.
    WITHHOLD_ROLL = "withhold-roll"
    WITHHOLD_ROLL_AWARE = "withhold-roll-aware"
    WITHHOLD_ROLL_CAREFUL = "withhold-roll-careful"
    WITHHOLD_ROLL_LEAVE = "withhold-roll-leave"
    # Two colluders (issue #33): HONEST plays honestly but lends its key (``--identity-seed``);
    # COLLUDE holds that key (``partner``) and, at the first secret round its partner takes
    # part in, signs a second COMMIT for the partner and sends it to the victims only, with
    # its own acknowledgement naming it in place of the one naming what it holds.
    HONEST = "honest"
    COLLUDE = "collude"


def resign(session_signer: Any, msg: Signed, payload: tuple[Any, ...]) -> Signed:
    """The same slot (type, step, seat, state hash) with another payload, validly signed."""
    return sign_message(
        session_signer, msg.type, msg.game_id, msg.step, msg.seat, msg.state_hash, payload
    )


@dataclass
class CheatLog:
    """What the adversary did, for the test's assertions."""

    step: int | None = None  # the step of the (first) cheat
    sent: list[Signed] = field(default_factory=list)  # the cheating messages
    datagrams: int = 0  # raw datagrams injected
    payloads: int = 0  # garbage link payloads sent over its own links
    notes: list[str] = field(default_factory=list)


class Adversary:
    """A datagram machine: ``inner`` plays honestly with ``bot`` except for ``cheat``.

    ``at_step``: the cheat happens at the first suitable step at or after it.
    ``victims``: for EQUIVOCATE, the seats that get the second version (default:
    the upper half of the other human seats).  ``replay_pool``: signed messages
    captured elsewhere (e.g. another game) for REPLAY.  ``spoof``: for SPOOF and
    GARBAGE, a callable that puts ``(data, src, dst)`` on the network with any
    source address (the test's network provides it); ``spoof_as``: the source
    address SPOOF claims (default: another seat's).
    """

    def __init__(
        self,
        inner: PeerMachine,
        cheat: Cheat,
        *,
        at_step: int = 0,
        bot: str = "random",
        victims: Iterable[int] | None = None,
        replay_pool: Iterable[bytes] = (),
        spoof: Callable[[bytes, Addr, Addr], None] | None = None,
        spoof_as: Addr | None = None,
        seed: int = 0,
        partner: Identity | None = None,
    ) -> None:
        self.inner = inner
        self.cheat = cheat
        self.at_step = at_step
        self.bot = BotDriver(bot)
        self.victims = None if victims is None else frozenset(victims)
        self.replay_pool = list(replay_pool)
        self.spoof = spoof
        self.spoof_as = spoof_as
        self.partner = partner
        self.rng = random.Random(seed)
        self.did = CheatLog()
        self.withholder: Withholder | None = None
        self.done = False
        self._replace: dict[bytes, dict[Addr | None, list[bytes]]] = {}  # raw -> dst -> raws
        self._drop_types: set[tuple[int, MsgType]] = set()  # (step, type) of ours never sent
        self._peek: tuple[int, Action] | None = None  # PEEK_REVEAL: (step, committed choice)
        self._installed: Session | None = None
        self._rules: list[
            tuple[
                int,
                MsgType,
                Callable[[Signed], tuple[Any, ...]],
                set[Addr] | None,
                Callable[[Signed], list[bytes]] | None,
            ]
        ] = []
        self._log = bytearray()
        write = inner.write_log

        def tee(data: bytes) -> None:
            self._log.extend(data)
            if write is not None:
                write(data)

        inner.write_log = tee
        inner.driver = None  # we drive the seat ourselves (honestly, but for the cheat)

    # ------------------------------------------------------------------ machine interface

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        self.inner.receive_datagram(data, addr, now)
        self._after(now)

    def handle_timer(self, now: float) -> None:
        self.inner.handle_timer(now)
        self._after(now)

    def next_timer(self) -> float | None:
        return self.inner.next_timer()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        self._install()
        return self.inner.datagrams_to_send(now)

    def start_game(self, now: float) -> None:
        self.inner.start_game(now)
        self._after(now)

    def poke(self, now: float) -> None:
        self.inner.poke(now)
        self._after(now)

    @property
    def session(self) -> Session | None:
        return self.inner.session

    # ------------------------------------------------------------------ plumbing

    def _install(self) -> None:
        s = self.inner.session
        if s is not None and self._installed is not s:
            s.transport = Rewriting(s.transport, self.rewrite)
            self._installed = s

    @property
    def seat(self) -> int:
        s = self.inner.session
        assert s is not None and s.seat is not None
        return s.seat

    def _signer(self) -> Any:
        return self.inner.identity.signer()

    def _others(self, s: Session) -> dict[int, Addr]:
        return {k: a for k, a in s.peers.items() if k != s.seat}

    def _send_signed(self, s: Session, raws: list[bytes], now: float) -> None:
        for a in [*self._others(s).values(), *s.watchers]:
            for bundle in bundles(raws):
                self.inner.link.send(a, bundle, now)

    def _after(self, now: float) -> None:
        self._install()
        s = self.inner.session
        if s is None:
            return
        for _ in range(64):
            before = s.step
            self._act(s, now)
            if s.my_turn() is None or s.step == before:
                break
        self.inner.poke(now)  # write the log, move events, flush the lobby

    # ------------------------------------------------------------------ outgoing rewrite

    def rewrite(self, raw: bytes, dst: Addr) -> list[bytes]:
        """What actually goes to ``dst`` instead of our session's message ``raw``."""
        self._apply_rules(raw)
        try:
            msg = parse_unverified(raw)
        except RemoteProtocolError:
            return [raw]
        if (msg.step, msg.type) in self._drop_types and msg.seat == self.inner_seat():
            return []
        table = self._replace.get(raw)
        if table is None:
            return [raw]
        if dst in table:
            return table[dst]
        return table.get(None, [raw])

    def inner_seat(self) -> int | None:
        s = self.inner.session
        return None if s is None else s.seat

    # ------------------------------------------------------------------ acting

    def _act(self, s: Session, now: float) -> None:
        if s.seat is None or s.replay or s.seat not in s.live or s.state.is_over:
            return
        if not self.done and s.step >= self.at_step:
            handler = _HANDLERS[self.cheat]
            if handler(self, s, now):
                self.done = True
                self.did.step = s.step if self.did.step is None else self.did.step
                return
        self.bot.act(s, self.inner.random_bytes, now)

    def _alternative(self, s: Session, avoid: Action) -> Action | None:
        legal = [a for a in s.state.legal_actions(self.seat) if a != avoid]
        return legal[self.rng.randrange(len(legal))] if legal else None

    def _bot_choice(self, s: Session) -> Action:
        legal = s.state.legal_actions(self.seat)
        return legal[self.rng.randrange(len(legal))]

    def _two_choices(self, s: Session, turn: str) -> tuple[Action, Action] | None:
        """The prelude of the cheats that play one choice and show another: on our
        ``turn`` ("turn" or "secret"), a bot's honest choice and a different legal one."""
        if s.my_turn() != turn:
            return None
        honest = self._bot_choice(s)
        other = self._alternative(s, honest)
        return None if other is None else (honest, other)

    def _sign_now(
        self, s: Session, kind: MsgType, payload: tuple[Any, ...], step: int | None = None
    ) -> Signed:
        """A message of our seat at ``step`` (default: ours), with our state hash."""
        return sign_message(
            self._signer(),
            kind,
            s.game_id,
            s.step if step is None else step,
            self.seat,
            s.state.state_hash(),
            payload,
        )

    # -- one method per cheat: True once the cheat is done -------------------------

    def _bad_reveal(self, s: Session, now: float) -> bool:
        choices = self._two_choices(s, "secret")
        if choices is None:
            return False
        honest, other = choices
        step = s.step
        s.commit(honest, self.inner.random_bytes(32), now)
        self._replace_own(s, step, MsgType.REVEAL, lambda m: (other.to_msgpack(), *m.payload[1:]))
        self.did.notes.append(f"committed to {honest}, reveals {other} at step {step}")
        return True

    def _peek_reveal(self, s: Session, now: float) -> bool:
        # Commit honestly and hold our REVEAL back; once another seat's REVEAL of the round
        # is in, reveal the choice that beats it (rock-paper-scissors; else any other),
        # which does not open our commitment.  When the honest one already wins, send it.
        if self._peek is None:
            if s.my_turn() != "secret":
                return False
            honest = self._bot_choice(s)
            self._peek = (s.step, honest)
            self._drop_types.add((s.step, MsgType.REVEAL))
            s.commit(honest, self.inner.random_bytes(32), now)
            return False
        step, honest = self._peek
        box = s.inbox.boxes.get(step)
        reveals = {} if box is None else box.of(MsgType.REVEAL)
        mine = reveals.get(self.seat)
        theirs = [m.action for seat, m in sorted(reveals.items()) if seat != self.seat]
        if mine is None or not theirs:
            return False
        self._peek = None
        answer = beats(theirs[0]) or self._alternative(s, honest)
        if answer is None or answer == honest:
            self._send_signed(s, [mine.raw], now)  # honest play wins anyway: no cheat here
            return False
        fake = resign(self._signer(), mine, (answer.to_msgpack(), *mine.payload[1:]))
        self.did.sent.append(fake)
        self.did.step = step
        self._send_signed(s, [fake.raw], now)
        self.did.notes.append(f"committed {honest}, saw {theirs[0]}, revealed {answer}")
        return True

    def _withhold_reveal(self, s: Session, now: float) -> bool:
        if s.my_turn() != "secret":
            return False
        self._drop_types.add((s.step, MsgType.REVEAL))
        s.commit(self._bot_choice(s), self.inner.random_bytes(32), now)
        return True

    def _equivocate(self, s: Session, now: float) -> bool:
        choices = self._two_choices(s, "turn")
        if choices is None:
            return False
        honest, other = choices
        victims = self._victims(s)
        self._replace_own(s, s.step, MsgType.MOVE, lambda m: (other.to_msgpack(),), only=victims)
        s.submit(honest, now)
        self.did.notes.append(f"MOVE {honest} to all but {sorted(victims)}: {other}")
        return True

    def _illegal_move(self, s: Session, now: float) -> bool:
        if s.my_turn() != "turn":
            return False
        honest = self._bot_choice(s)
        illegal = illegal_for(s, self.seat)
        if illegal is None:
            return False
        self._replace_own(s, s.step, MsgType.MOVE, lambda m: (illegal.to_msgpack(),))
        s.submit(honest, now)
        self.did.notes.append(f"sent illegal {illegal} instead of {honest}")
        return True

    def _out_of_turn(self, s: Session, now: float) -> bool:
        # A MOVE at a step that asks us for a COMMIT: it travels before the commitment
        # the step waits for, on the same ordered link, so every peer is still at this
        # step when it arrives (no race with the step's decision).  (At a chance step
        # our ENTROPY leaves at the step's start, before we get to act.)
        if not isinstance(s.state.decision(), Simultaneous) or s.my_turn() != "secret":
            return False
        cheat = self._sign_now(s, MsgType.MOVE, (Action("pass").to_msgpack(),))
        self.did.sent.append(cheat)
        self._send_signed(s, [cheat.raw], now)
        self.bot.act(s, self.inner.random_bytes, now)  # then commit as usual
        return True

    def _forge(self, s: Session, now: float) -> bool:
        decision = s.state.decision()
        if not isinstance(decision, Turn) or decision.seat == self.seat:
            return False
        victim = decision.seat
        if victim not in s.live:
            return False
        h = s.state.state_hash()
        legal = s.state.legal_actions(victim)
        if not legal:
            return False
        # 1. the victim's move, "signed" with our key
        forged = sign_message(
            self._signer(), MsgType.MOVE, s.game_id, s.step, victim, h, (legal[0].to_msgpack(),)
        )
        # 2. our own seat's chat with a corrupted signature
        chat = sign_message(self._signer(), MsgType.CHAT, s.game_id, s.step, self.seat, h, ("hi",))
        bad_sig = bytes([chat.signature[0] ^ 1]) + chat.signature[1:]
        broken = wire.pack([chat.body, bad_sig])
        # 3. a valid signature over another body (signature transplanted)
        transplant = wire.pack([forged.body, chat.signature])
        self.did.sent.append(forged)
        self._send_signed(s, [forged.raw, broken, transplant], now)
        self.did.notes.append(f"forged a MOVE of seat {victim} at step {s.step}")
        return True

    def _replay(self, s: Session, now: float) -> bool:
        if s.step < 4:
            return False
        old = [
            e.data
            for e in parse_log(bytes(self._log)).entries
            if e.kind == EntryKind.MSG and e.step < s.step - 1
        ]
        self._send_signed(s, [*self.replay_pool, *old], now)
        self.did.notes.append(f"replayed {len(self.replay_pool)} foreign and {len(old)} old")
        return True

    def _garbage(self, s: Session, now: float) -> bool:
        targets = list(self._others(s).values())
        for a in targets:
            for payload in garbage_payloads(self.rng, s):
                self.inner.link.send(a, payload, now)
                self.did.payloads += 1
        if self.spoof is not None:
            me = self.inner_addr(s)
            for a in targets:
                for data in garbage_datagrams(self.rng):
                    self.spoof(data, me, a)
                    self.did.datagrams += 1
        return True

    def _spoof(self, s: Session, now: float) -> bool:
        # A signed cheat (an out-of-turn MOVE) in a datagram whose source address is
        # not ours: the signature, not the address, says who sent it, so the blame
        # must name us.  ``spoof_as`` None: the seat's address of the lowest other
        # seat (its links are unharmed: the new epoch is dropped and challenged).
        if self.spoof is None or s.my_turn() != "secret":
            return False
        others = self._others(s)
        if not others:
            return False
        source = self.spoof_as or others[min(others)]
        cheat = self._sign_now(s, MsgType.MOVE, (Action("pass").to_msgpack(),))
        self.did.sent.append(cheat)
        # one unreliable datagram: a fresh link epoch, sequence 0, one fragment
        frame = Frame(FrameType.DATA, 0x5EED, 0, 0, 0, 0, 0, 1, pack_bundle([cheat.raw]))
        for a in others.values():
            if a != source:
                self.spoof(encode(frame), source, a)
                self.did.datagrams += 1
        self.bot.act(s, self.inner.random_bytes, now)
        self.did.notes.append(f"spoofed {source} at step {s.step}")
        return True

    def _sync_flood(self, s: Session, now: float) -> bool:
        # An in-roster seat asks everyone for the whole game again and again: each
        # SYNC(0) used to be answered with every message held (SPEC §5.6).
        sync = self._sign_now(s, MsgType.SYNC, (0,))
        if not self.did.sent:
            self.did.step = s.step
        self.did.sent.append(sync)
        self._send_signed(s, [sync.raw] * SYNC_BURST, now)
        return len(self.did.sent) >= SYNC_ROUNDS

    def _victims(self, s: Session) -> set[Addr]:
        others = sorted(k for k in s.peers if k != s.seat)
        victims = self.victims
        if victims is None:
            victims = frozenset(others[len(others) // 2 :])
        return {s.peers[k] for k in victims if k in s.peers}

    def _two_commits(self, s: Session, now: float) -> bool:
        # Pair A (the session's own commit and reveal) to some peers, pair B (another
        # choice under another nonce, opening correctly too) to the victims.
        choices = self._two_choices(s, "secret")
        if choices is None:
            return False
        honest, other = choices
        step, nonce_b = s.step, self.inner.random_bytes(32)
        purpose = s.needs().secret_kind
        sealed_b = commitment(
            s.game_id, step, self.seat, purpose, nonce_b, wire.pack(other.to_msgpack())
        )
        victims = self._victims(s)
        self._replace_own(s, step, MsgType.COMMIT, lambda m: (sealed_b,), only=victims)
        self._replace_own(
            s,
            step,
            MsgType.REVEAL,
            lambda m: (other.to_msgpack(), nonce_b, *m.payload[2:]),
            only=victims,
        )
        s.commit(honest, self.inner.random_bytes(32), now)
        self.did.notes.append(f"committed {honest} to all but {sorted(victims)}: {other}")
        return True

    def _honest(self, s: Session, now: float) -> bool:
        return False  # never cheats: the bot plays every input

    def _collude(self, s: Session, now: float) -> bool:
        # At the first secret round our partner takes part in: once we hold every COMMIT
        # of it, the victims get, in place of our acknowledgement (our REVEAL, or our round
        # HAVE when we are no seat of the round), a second COMMIT of the partner signed
        # with its key, then our acknowledgement naming the vector with that one.  The
        # other peers get our honest one.
        decision = s.state.decision()
        partner = self._partner_seat(s)
        if partner is None or not isinstance(decision, Simultaneous):
            return False
        if partner not in decision.seats or partner not in s.live:
            return False
        step = s.step
        others = sorted(k for k in s.peers if k not in (s.seat, partner))
        victims = self._victims(s) if self.victims is not None else {s.peers[others[-1]]}
        second: list[Signed] = []

        def acknowledges(msg: Signed) -> bool:
            return msg.type is MsgType.REVEAL or msg.payload[0] == ROUND_SUBJECT

        def commit_b(msg: Signed) -> list[bytes]:
            if not acknowledges(msg):
                return []  # a relay's HAVE of one seat's messages: sent as it is
            if not second:
                assert self.partner is not None
                mine = s.inbox.boxes[step].of(MsgType.COMMIT)[partner]
                second.append(
                    sign_message(
                        self.partner.signer(),
                        MsgType.COMMIT,
                        s.game_id,
                        step,
                        partner,
                        mine.state_hash,
                        (self.inner.random_bytes(32),),
                        version=s.record.protocol,
                    )
                )
                self.did.sent.append(second[0])
            return [second[0].raw]

        def swapped() -> bytes:
            assert second
            held = s.inbox.boxes[step].of(MsgType.COMMIT)
            digests = {seat: c.digest for seat, c in held.items()}
            digests[partner] = second[0].digest
            return round_digest(digests)

        self._replace_own(
            s,
            step,
            MsgType.REVEAL,
            lambda m: (*m.payload[:3], swapped()),
            only=victims,
            before=commit_b,
        )
        self._replace_own(
            s,
            step,
            MsgType.HAVE,
            lambda m: (m.payload[0], [swapped()]) if acknowledges(m) else m.payload,
            only=victims,
            before=commit_b,
        )
        if s.my_turn() == "secret":
            self.bot.act(s, self.inner.random_bytes, now)
        self.did.notes.append(f"second COMMIT of seat {partner} to {sorted(victims)}")
        return True

    def _partner_seat(self, s: Session) -> int | None:
        if self.partner is None:
            return None
        key = self.partner.public_key
        return next((i for i, seat in enumerate(s.record.seats) if seat.public_key == key), None)

    def _false_hash(self, s: Session, now: float) -> bool:
        # One validly signed HAVE, the copy of one we sent at this step (or the one before:
        # a turn is applied as soon as its MOVE is acknowledged, and protocol 6's secret
        # rounds leave a seat of the round no HAVE to copy) with a made-up state hash, to
        # one peer only.
        mine = [
            h
            for step in (s.step, s.step - 1)
            if step in s.inbox.boxes
            for by_voter in s.inbox.boxes[step].haves.values()
            for v, h in by_voter.items()
            if v == self.seat
        ]
        if not mine:
            return False
        have = mine[0]
        false = sign_message(
            self._signer(), MsgType.HAVE, s.game_id, have.step, self.seat, bytes(32), have.payload
        )
        victim = sorted(self._victims(s))[0]
        self.did.sent.append(false)
        self.inner.link.send(victim, pack_bundle([false.raw]), now)
        self.did.notes.append(f"false state hash at step {have.step} to {victim}")
        self.bot.act(s, self.inner.random_bytes, now)
        return True

    def _request_flood(self, s: Session, now: float) -> bool:
        # NUDGEs and VOTEs (naming nobody: a vote for no seat drops nobody) with distinct
        # sequence numbers, for this step and steps far ahead.
        raws = []
        base = 1000 * (len(self.did.sent) + 1)
        for i in range(FLOOD_BURST):
            kind = MsgType.NUDGE if i % 2 else MsgType.VOTE
            step = s.step + (i % 3) * 50
            raws.append(self._sign_now(s, kind, ([], base + i), step).raw)
        if not self.did.sent:
            self.did.step = s.step
        self.did.sent.append(parse_unverified(raws[0]))
        self._send_signed(s, raws, now)
        self.bot.act(s, self.inner.random_bytes, now)
        return len(self.did.sent) >= FLOOD_ROUNDS

    def _chat_flood(self, s: Session, now: float) -> bool:
        # Junk chat, validly signed, each line distinct, all at its current step (issue #38:
        # ~3,000 datagrams a second made a game 4x slower and nobody was blamed).
        base = CHAT_BURST * len(self.did.sent)
        lines = [(f"junk {base + i}",) for i in range(CHAT_BURST)]
        raws = [self._sign_now(s, MsgType.CHAT, line).raw for line in lines]
        if not self.did.sent:
            self.did.step = s.step
        self.did.sent.append(parse_unverified(raws[0]))
        self._send_signed(s, raws, now)
        self.bot.act(s, self.inner.random_bytes, now)
        return len(self.did.sent) >= FLOOD_ROUNDS

    def _withhold_roll(self, s: Session, now: float) -> bool:
        # Installed once: from then on the Withholder chooses at every roll of ours.
        cheat = self.cheat
        careful, leave = cheat is Cheat.WITHHOLD_ROLL_CAREFUL, cheat is Cheat.WITHHOLD_ROLL_LEAVE
        aware = cheat is Cheat.WITHHOLD_ROLL_AWARE
        self.withholder = Withholder(s, gain=own_pips, careful=careful, leave=leave, aware=aware)
        self.bot.act(s, self.inner.random_bytes, now)
        return True

    def inner_addr(self, s: Session) -> Addr:
        return s.peers.get(self.seat, ("0.0.0.0", 0))

    # ------------------------------------------------------------------ helpers

    def _replace_own(
        self,
        s: Session,
        step: int,
        kind: MsgType,
        payload: Callable[[Signed], tuple[Any, ...]],
        only: set[Addr] | None = None,
        before: Callable[[Signed], list[bytes]] | None = None,
    ) -> None:
        """When our session sends its ``kind`` of ``step``, send a re-signed version instead
        (after the messages ``before`` returns for it, if any)."""
        self._rules.append((step, kind, payload, only, before))

    def _apply_rules(self, raw: bytes) -> None:
        if raw in self._replace:
            return
        try:
            msg = parse_unverified(raw)
        except RemoteProtocolError:
            return
        if msg.seat != self.inner_seat():
            return
        for step, kind, payload, only, before in self._rules:
            if msg.step == step and msg.type == kind:
                extra = before(msg) if before is not None else []
                fake = resign(self._signer(), msg, payload(msg))
                self.did.sent.append(fake)
                out = [*extra, fake.raw]
                if only is None:
                    self._replace[raw] = {None: out}
                else:
                    self._replace[raw] = {a: out for a in only}


_HANDLERS: dict[Cheat, Callable[[Adversary, Session, float], bool]] = {
    Cheat.BAD_REVEAL: Adversary._bad_reveal,
    Cheat.PEEK_REVEAL: Adversary._peek_reveal,
    Cheat.WITHHOLD_REVEAL: Adversary._withhold_reveal,
    Cheat.EQUIVOCATE: Adversary._equivocate,
    Cheat.FORGE_SIGNATURE: Adversary._forge,
    Cheat.REPLAY: Adversary._replay,
    Cheat.OUT_OF_TURN: Adversary._out_of_turn,
    Cheat.ILLEGAL_MOVE: Adversary._illegal_move,
    Cheat.GARBAGE: Adversary._garbage,
    Cheat.SPOOF: Adversary._spoof,
    Cheat.SYNC_FLOOD: Adversary._sync_flood,
    Cheat.TWO_COMMITS: Adversary._two_commits,
    Cheat.FALSE_HASH: Adversary._false_hash,
    Cheat.REQUEST_FLOOD: Adversary._request_flood,
    Cheat.CHAT_FLOOD: Adversary._chat_flood,
    Cheat.WITHHOLD_ROLL: Adversary._withhold_roll,
    Cheat.WITHHOLD_ROLL_CAREFUL: Adversary._withhold_roll,
    Cheat.WITHHOLD_ROLL_LEAVE: Adversary._withhold_roll,
    Cheat.WITHHOLD_ROLL_AWARE: Adversary._withhold_roll,
    Cheat.HONEST: Adversary._honest,
    Cheat.COLLUDE: Adversary._collude,
}


if __name__ == "__main__":  # the adversary as a process, for tests: see cheat_process
    from tests.support.cheat_process import main

    raise SystemExit(main())
