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
from lanTag.session.core import NONCE_DOMAIN, SessionCore
from lanTag.session.messages import (
    MsgType,
    Signed,
    sign_message,
)


class Recovery:
    """What a restarted peer needs, and the handlers the message table names for the
    side channels (chat, SYNC, PRIVATE, REJOIN, SEAL): a part of the Session, over the
    ``core`` it shares with the other parts (lanTag.session.core)."""

    def __init__(self, core: SessionCore) -> None:
        self.core = core

    def derived_nonce(self, step: int) -> bytes:
        if self.core._chain_secret is None:
            raise LocalProtocolError("a spectator has no secret to derive nonces from")
        msg = NONCE_DOMAIN + self.core.game_id + step.to_bytes(4, "big")
        return hmac.new(self.core._chain_secret, msg, hashlib.sha256).digest()

    def recover_sealed_choice(self) -> bool:
        """After a restart: find which legal action our logged COMMIT for this step sealed.

        Tries every legal action with the derived nonce.  Returns False when there is no
        commitment of ours to recover or none matches (then we cannot reveal it).
        """
        if self.core.seat is None or self.core.sealed.holds(self.core.step):
            return False
        mine = self.core._box(self.core.step).of(MsgType.COMMIT).get(self.core.seat)
        if mine is None:
            return False
        nonce = self.derived_nonce(self.core.step)
        purpose = self.core.needs().secret_kind
        for action in self.core.state.legal_actions(self.core.seat):
            value = self.core._action_bytes(action)
            if opens(
                mine.payload[0],
                self.core.game_id,
                self.core.step,
                self.core.seat,
                purpose,
                nonce,
                value,
            ):
                self.core.sealed.seal(self.core.step, action, nonce)
                self.core._maybe_reveal(self.core._box(self.core.step), 0.0)
                return True
        return False

    def discard_output(self) -> None:
        """Forget queued datagrams, events and log bytes (used when rebuilding from a log)."""
        self.core.journal.outbox.clear()
        self.core.journal.events.clear()
        self.core.log.take()

    def rebroadcast_own(self, from_step: int) -> None:
        """After a restart: send again what we said from ``from_step`` on (identical bytes;
        a peer that already has them counts duplicates).  We may have died after logging a
        message and before it left the socket."""
        if self.core.seat is None:
            return
        mine: list[bytes] = []
        for step in sorted(k for k in self.core.inbox.boxes if k >= from_step):
            box = self.core.inbox.boxes[step]
            mine += [m.raw for m in box.accepted_of(self.core.seat)]
            mine += [
                m.raw for m in (box.votes.get(self.core.seat), box.nudges.get(self.core.seat)) if m
            ]
            mine += [
                h.raw
                for by_voter in box.haves.values()
                for v, h in by_voter.items()
                if v == self.core.seat
            ]
        self.core._broadcast(mine)

    def request_sync(self, now: float) -> None:
        """After a restart: ask every peer for what it holds from our current step on."""
        if self.core._signer is None or self.core.seat is None:
            raise LocalProtocolError("only a seat's own peer can ask to catch up")
        self.core._send_sync()

    def follow_time(self) -> float | None:
        """When our dropped seat, stuck at its step, asks again to catch up (SPEC §5.5).

        A dropped seat follows the game on what the others send it; if one of them cannot
        reach it (a one-sided cut: its link expired, never acknowledged), that seat's
        messages come only in SYNC answers, which the others relay.  So a follower that
        waited ``lag_ms`` at one step sends SYNC(from its step) again, once per ``lag_ms``
        (the rate an answerer accepts, §5.6)."""
        if (
            self.core.replay
            or self.core._signer is None
            or self.core.seat is None
            or self.core.seat in self.core.live
        ):
            return None
        box = self.core.inbox.boxes.get(self.core.step)
        if box is None or box.started_at is None or self.core.state.is_over:
            return None
        base = box.started_at if box.synced_at is None else box.synced_at
        return base + self.core.record.timeouts.lag_ms / 1000

    def follow(self, now: float) -> None:
        """``handle_timer`` for a dropped seat: ask to catch up once its time came."""
        at = self.follow_time()
        if at is not None and now >= at:
            self.core._box(self.core.step).synced_at = now
            self.core._send_sync()

    def take_chat(self, msg: Signed, now: float) -> None:
        """A CHAT line: shown (never logged unless its sender keeps it)."""
        self.core.journal.events.append(ev.Chat(msg.seat, str(msg.payload[0])))

    def take_sync(self, msg: Signed, now: float) -> None:
        """A restarted seat asks to catch up (SPEC §5.6): answered by CatchUp."""
        if not self.core.replay and self.core.seat is not None:
            congested = getattr(self.core.transport, "congested", None)
            self.core.catch_up.answer_sync(msg, now, congested)

    def open_private(self, msg: Signed, now: float) -> None:
        """A PRIVATE: opened by the private line (the message table's handler)."""
        self.core.private_line.receive(msg)

    def take_rejoin(self, msg: Signed, now: float) -> None:
        """A REJOIN: kept by the hand-back part (the message table's handler)."""
        self.core.rejoin.take(msg)

    # -- the seals of the final state (SPEC §3) -----------------------------------------------

    def take_seal(self, msg: Signed, now: float) -> None:
        """A SEAL (protocol 3): checked by the SealBook against our final state."""
        if self.core.features.seals:
            self.core.seal_book.receive(msg, self.core.step, self.core._state_hash(self.core.state))
        else:
            self.core._reject(
                "unknown-type", f"a SEAL in a protocol-{self.core.record.protocol} game"
            )

    def seal_final_state(self, now: float) -> None:
        """At game over: sign our seal (a live seat) and hand it to the seal book."""
        own = None
        final = self.core._state_hash(self.core.state)
        live = self.core.seat is not None and self.core.seat in self.core.live
        if (
            self.core.features.seals
            and not self.core.replay
            and self.core._signer is not None
            and live
        ):
            assert self.core.seat is not None
            own = sign_message(
                self.core._signer,
                MsgType.SEAL,
                self.core.game_id,
                self.core.step,
                self.core.seat,
                final,
                (),
                version=self.core.record.protocol,
            )
            self.core.chatter.room(own)  # one per final state: counted as the others count it
        self.core.seal_book.ended(now, own, self.core.step, final)
