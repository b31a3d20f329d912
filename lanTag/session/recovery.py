"""Recovery and side channels: resume from a log, catch-up (SYNC, answered by the CatchUp
part), the hand-back of a dropped seat (REJOIN and admissions, protocol 5: the Handback
book), private chat, and the seals of the final state (the SealBook).

protocol/SPEC.md §5.6 (resume, hand-back), §3 (PRIVATE, SEAL).
"""

from __future__ import annotations

import hashlib
import hmac

from lanTag.errors import LocalProtocolError
from lanTag.fair.commit import opens
from lanTag.session import events as ev
from lanTag.session.agreement import Agreement
from lanTag.session.chatter import TOO_CHATTY
from lanTag.session.core import NONCE_DOMAIN
from lanTag.session.messages import (
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
    verify_signature,
)
from lanTag.session.referee import NeedKind
from lanTag.session.steps import StepBox


class Recovery(Agreement):
    """What a restarted peer needs, and chat meant for one seat only."""

    def _derived_nonce(self, step: int) -> bytes:
        if self._chain_secret is None:
            raise LocalProtocolError("a spectator has no secret to derive nonces from")
        msg = NONCE_DOMAIN + self.game_id + step.to_bytes(4, "big")
        return hmac.new(self._chain_secret, msg, hashlib.sha256).digest()

    def recover_sealed_choice(self) -> bool:
        """After a restart: find which legal action our logged COMMIT for this step sealed.

        Tries every legal action with the derived nonce.  Returns False when there is no
        commitment of ours to recover or none matches (then we cannot reveal it).
        """
        if self.seat is None or self.step in self._secret:
            return False
        mine = self._box(self.step).of(MsgType.COMMIT).get(self.seat)
        if mine is None:
            return False
        nonce = self._derived_nonce(self.step)
        purpose = self.needs().secret_kind
        for action in self.state.legal_actions(self.seat):
            value = self._action_bytes(action)
            if opens(mine.payload[0], self.game_id, self.step, self.seat, purpose, nonce, value):
                self._secret[self.step] = (action, nonce)
                self._maybe_reveal(self._box(self.step), 0.0)
                return True
        return False

    def discard_output(self) -> None:
        """Forget queued datagrams, events and log bytes (used when rebuilding from a log)."""
        self._outbox.clear()
        self._events.clear()
        self.log.take()

    def rebroadcast_own(self, from_step: int) -> None:
        """After a restart: send again what we said from ``from_step`` on (identical bytes;
        a peer that already has them counts duplicates).  We may have died after logging a
        message and before it left the socket."""
        if self.seat is None:
            return
        mine: list[bytes] = []
        for step in sorted(k for k in self._boxes if k >= from_step):
            box = self._boxes[step]
            mine += [m.raw for m in box.accepted_of(self.seat)]
            mine += [m.raw for m in (box.votes.get(self.seat), box.nudges.get(self.seat)) if m]
            mine += [
                h.raw
                for by_voter in box.haves.values()
                for v, h in by_voter.items()
                if v == self.seat
            ]
        self._broadcast(mine)

    def request_sync(self, now: float) -> None:
        """After a restart: ask every peer for what it holds from our current step on."""
        if self._signer is None or self.seat is None:
            raise LocalProtocolError("only a seat's own peer can ask to catch up")
        self._send_sync()

    def _follow_time(self) -> float | None:
        """When our dropped seat, stuck at its step, asks again to catch up (SPEC §5.5).

        A dropped seat follows the game on what the others send it; if one of them cannot
        reach it (a one-sided cut: its link expired, never acknowledged), that seat's
        messages come only in SYNC answers, which the others relay.  So a follower that
        waited ``lag_ms`` at one step sends SYNC(from its step) again, once per ``lag_ms``
        (the rate an answerer accepts, §5.6)."""
        if self.replay or self._signer is None or self.seat is None or self.seat in self.live:
            return None
        box = self._boxes.get(self.step)
        if box is None or box.started_at is None or self.state.is_over:
            return None
        base = box.started_at if box.synced_at is None else box.synced_at
        return base + self.record.timeouts.lag_ms / 1000

    def _follow(self, now: float) -> None:
        """``handle_timer`` for a dropped seat: ask to catch up once its time came."""
        at = self._follow_time()
        if at is not None and now >= at:
            self._box(self.step).synced_at = now
            self._send_sync()

    def _take_chat(self, msg: Signed, now: float) -> None:
        """A CHAT line: shown (never logged unless its sender keeps it)."""
        self._events.append(ev.Chat(msg.seat, str(msg.payload[0])))

    def _take_sync(self, msg: Signed, now: float) -> None:
        """A restarted seat asks to catch up (SPEC §5.6): answered by CatchUp."""
        if not self.replay and self.seat is not None:
            congested = getattr(self.transport, "congested", None)
            self.catch_up.answer_sync(msg, now, congested)

    def private_aad(self, sender: int, to: int) -> bytes:
        """What a private message's encryption is bound to: this game, its sender, its reader."""
        return self.game_id + sender.to_bytes(2, "big") + to.to_bytes(2, "big")

    def send_private(self, to: int, sealed: tuple[bytes, bytes, bytes], now: float) -> None:
        """Send chat sealed with lanTag.private_chat.seal to seat ``to`` only (never logged)."""
        if self._signer is None or self.seat is None:
            raise LocalProtocolError("spectators cannot chat")
        addr = self.peers.get(to)
        if addr is None or to == self.seat:
            raise LocalProtocolError(f"seat {to} is not another person at this table")
        msg = sign_message(
            self._signer,
            MsgType.PRIVATE,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            (to, *sealed),
            version=self.record.protocol,
        )
        if not self.chatter.room(msg):
            raise LocalProtocolError(TOO_CHATTY)
        self._outbox.setdefault(addr, []).append(msg.raw)

    def _open_private(self, msg: Signed, now: float) -> None:
        """A PRIVATE: shown when it is for our seat and opens."""
        from lanTag.private_chat import PrivateChatError, open_sealed

        to, ephemeral, nonce, ciphertext = msg.payload
        if to != self.seat or self._identity is None:
            self._count("private-not-for-us")
            return
        try:
            text = open_sealed(
                self._identity.seed, ephemeral, nonce, ciphertext, self.private_aad(msg.seat, to)
            )
        except PrivateChatError:
            self._count("private-undecryptable")
            return
        self._events.append(ev.Chat(msg.seat, text, private=True))

    # -- the hand-back of a dropped seat (protocol 5, SPEC §5.6) ------------------------
    # The seat signs a REJOIN; a live seat carries those very bytes in its next MOVE,
    # ENTROPY or COMMIT (an *admission*).  Every peer holds that contribution before it
    # decides its step (spectators and a verifier replaying a log too), so every peer finds
    # the same admission there and makes the seat live from the next step on: no step is
    # decided with the seat by some and without it by others.  An admission is void (the
    # contribution still counts) unless its REJOIN is signed by its seat's key, that seat
    # was dropped at or before the REJOIN's step and is not live, and it was never convicted
    # of cheating up to the admission's step.  A conviction learnt later for a step at or
    # before an admission rolls the admission back (Agreement._void_admissions).

    def handbacks_left(self, seat: int) -> int | None:
        """How many more times ``seat`` may be given back this game (None: no limit, a game
        older than protocol 6)."""
        return self.handback.left(seat)

    def ask_back(self, now: float, *, once: bool = False) -> None:
        """Our seat wants to play again: while the others hold it dropped we send a signed
        REJOIN, again every step timeout, until a live seat admits us.

        A resumed peer asks whenever its seat is dropped (``once`` False).  A person whose
        seat a bot took while they were away (the console's one key) asks this time only
        (``once``): until the seat is let in, also again if a rollback undoes the admission,
        but once in and dropped again for idleness it stays out until they ask again, so a
        player who walked off does not come back by itself to make the table wait out the
        turn limit each time."""
        if self.replay or self._signer is None or not self.features.handback:
            return
        self.handback.ask(once=once)
        self._send_rejoin(now)

    @property
    def wants_back(self) -> bool:
        """Our seat asks to be given back whenever it is dropped (a resumed peer)."""
        return self.handback.want_back

    @property
    def asking_back(self) -> bool:
        """Our seat is dropped and asks to be given back (it may still be refused)."""
        return self.handback.want_back and self.seat is not None and self.seat not in self.live

    def rejoin_refusal(self) -> str | None:
        """Why our dropped seat cannot be given back, as a fact code, or None (it may be):
        ``protocol`` (a game older than protocol 5), ``convicted`` (we hold a proof that it
        cheated), ``limit`` (protocol 6: it was given back HANDBACK_LIMIT times already),
        ``nobody`` (every other live person has left: nobody will admit it), ``over``."""
        if self.seat is None or self.seat in self.live:
            return None
        if not self.features.handback:
            return "protocol"
        if self.state.is_over:
            return "over"
        if self.convictions.since(self.seat, self.step):
            return "convicted"
        if self.handback.left(self.seat) == 0:
            return "limit"
        if all(s in self._left for s in self.live - {self.seat}):
            return "nobody"  # every live person said it leaves: nobody will carry a REJOIN
        return None

    def _send_rejoin(self, now: float) -> None:
        if not self.asking_back or self.state.is_over or self._signer is None:
            return
        assert self.seat is not None
        msg = sign_message(
            self._signer,
            MsgType.REJOIN,
            self.game_id,
            self.step,
            self.seat,
            self._state_hash(self.state),
            (),
            version=self.record.protocol,
        )
        last = self.chatter.last_own(self.seat, self.step, MsgType.REJOIN)
        raw = msg.raw if self.chatter.room(msg) else last
        self.handback.sent_at = now
        if raw is not None:
            self._broadcast([raw])

    def _rejoin_time(self) -> float | None:
        """When our dropped seat asks back again (every step timeout: a peer that lost the
        REJOIN, or was not live then, hears it again)."""
        sent_at = self.handback.sent_at
        if sent_at is None or not self.asking_back or self.state.is_over:
            return None
        return sent_at + self.record.timeouts.step_ms / 1000

    def _take_rejoin(self, msg: Signed, now: float) -> None:
        """A seat asks back (signature checked on receipt): keep its latest request; our next
        contribution may carry it.  Not logged: only a carried REJOIN counts, and it is in
        the contribution's bytes."""
        if not self.features.handback:
            self._reject("unknown-type", f"a REJOIN in a protocol-{self.record.protocol} game")
            return
        self.handback.keep(msg)

    def _admissions(self, box: StepBox) -> frozenset[int]:
        """Seats the current step's decisive contributions admit (protocol 5): the mover's
        MOVE, every live seat's ENTROPY, or the round's COMMITs, as every peer holds them."""
        needs = self.needs()
        if needs.kind is NeedKind.TURN:
            carriers = [box.of(MsgType.MOVE)[needs.humans[0]]]
        elif needs.kind is NeedKind.ENTROPY:
            got = box.of(MsgType.ENTROPY)
            carriers = [got[s] for s in needs.humans]
        elif needs.kind is NeedKind.SECRET:
            got = box.of(MsgType.COMMIT)
            carriers = [got[s] for s in needs.humans if s in got]
        else:
            return frozenset()
        admitted: set[int] = set()
        for carrier in carriers:
            blob = carrier.admission
            if blob is None:
                continue
            request = parse_unverified(blob)  # its shape was checked with the carrier's
            key = self._human_keys[request.seat] if request.seat < len(self._human_keys) else None
            if key is None or not verify_signature(request, key, self._verifier):
                self._count("bad-admission")  # void: nobody may pose as the seat
                continue
            if self._admissible(request, self.step, carrier.seat):
                admitted.add(request.seat)
        return frozenset(admitted)

    # -- the seals of the final state (SPEC §3) -----------------------------------------------

    def _take_seal(self, msg: Signed, now: float) -> None:
        """A SEAL (protocol 3): checked by the SealBook against our final state."""
        if self.features.seals:
            self.seal_book.receive(msg, self.step, self._state_hash(self.state))
        else:
            self._reject("unknown-type", f"a SEAL in a protocol-{self.record.protocol} game")

    def sealed_by(self) -> tuple[int, ...]:
        """The seats whose seal of our final state we hold (ours included), ascending."""
        return self.seal_book.sealed_by()

    @property
    def over_at(self) -> float | None:
        """When the game ended here (the ``now`` of the step that ended it), None before."""
        return self.seal_book.over_at

    def sealing(self, now: float) -> bool:
        """True while it is worth waiting for the seals of the live human seats (SPEC §3)."""
        humans = (s for s in self.live if self._human_keys[s] is not None)
        return self.features.seals and self.seal_book.waiting(now, humans)

    def _seal_final_state(self, now: float) -> None:
        """At game over: sign our seal (a live seat) and hand it to the seal book."""
        own = None
        final = self._state_hash(self.state)
        live = self.seat is not None and self.seat in self.live
        if self.features.seals and not self.replay and self._signer is not None and live:
            assert self.seat is not None
            own = sign_message(
                self._signer,
                MsgType.SEAL,
                self.game_id,
                self.step,
                self.seat,
                final,
                (),
                version=self.record.protocol,
            )
            self.chatter.room(own)  # one per final state: counted as the others count it
        self.seal_book.ended(now, own, self.step, final)
