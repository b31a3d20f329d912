"""Recovery and side channels: resume from a log, catch-up (SYNC, answered by the CatchUp
part), the handlers of the hand-back (the Rejoin part) and of private chat (the
PrivateLine), and the seals of the final state (the SealBook).

protocol/SPEC.md §5.6 (resume, hand-back), §3 (PRIVATE, SEAL).
"""

from __future__ import annotations

import hashlib
import hmac

from lanTag.errors import LocalProtocolError
from lanTag.fair.commit import opens
from lanTag.session import events as ev
from lanTag.session.agreement import Agreement
from lanTag.session.core import NONCE_DOMAIN
from lanTag.session.messages import (
    MsgType,
    Signed,
    sign_message,
)


class Recovery(Agreement):
    """What a restarted peer needs, and the handlers the message table names for the
    side channels (chat, SYNC, PRIVATE, REJOIN, SEAL)."""

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
        if self.seat is None or self.sealed.holds(self.step):
            return False
        mine = self._box(self.step).of(MsgType.COMMIT).get(self.seat)
        if mine is None:
            return False
        nonce = self._derived_nonce(self.step)
        purpose = self.needs().secret_kind
        for action in self.state.legal_actions(self.seat):
            value = self._action_bytes(action)
            if opens(mine.payload[0], self.game_id, self.step, self.seat, purpose, nonce, value):
                self.sealed.seal(self.step, action, nonce)
                self._maybe_reveal(self._box(self.step), 0.0)
                return True
        return False

    def discard_output(self) -> None:
        """Forget queued datagrams, events and log bytes (used when rebuilding from a log)."""
        self.journal.outbox.clear()
        self.journal.events.clear()
        self.log.take()

    def rebroadcast_own(self, from_step: int) -> None:
        """After a restart: send again what we said from ``from_step`` on (identical bytes;
        a peer that already has them counts duplicates).  We may have died after logging a
        message and before it left the socket."""
        if self.seat is None:
            return
        mine: list[bytes] = []
        for step in sorted(k for k in self.inbox.boxes if k >= from_step):
            box = self.inbox.boxes[step]
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
        box = self.inbox.boxes.get(self.step)
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
        self.journal.events.append(ev.Chat(msg.seat, str(msg.payload[0])))

    def _take_sync(self, msg: Signed, now: float) -> None:
        """A restarted seat asks to catch up (SPEC §5.6): answered by CatchUp."""
        if not self.replay and self.seat is not None:
            congested = getattr(self.transport, "congested", None)
            self.catch_up.answer_sync(msg, now, congested)

    def _open_private(self, msg: Signed, now: float) -> None:
        """A PRIVATE: opened by the private line (the message table's handler)."""
        self.private_line.receive(msg)

    def _take_rejoin(self, msg: Signed, now: float) -> None:
        """A REJOIN: kept by the hand-back part (the message table's handler)."""
        self.rejoin.take(msg)

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
