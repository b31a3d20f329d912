"""The table signs the result (protocol 3, protocol/SPEC.md §3 SEAL and §9).

When the game ends, each live seat signs a SEAL of the final state: the message body's step
is the final step and its state hash the final state's hash, so the signature covers the
game id, the final step and the final state hash as canonical bytes.  Peers send their seal
to everyone and take the others' for a bounded time after game over (``SEAL_WAIT``; the
runtime asks ``sealing(now)`` and never waits longer).  A seal is logged only once it is
checked against our own final state: a log holds the seals of the very state it ends in, so
a log whose final move was rewritten by its writer holds no other seat's seal of it.  A seal
over another state is evidence against its signer (``bad-seal``), never logged as a seal.
Pure like the rest of the session: ``now`` is passed in.
"""

from __future__ import annotations

from lanTag.log.chain import EntryKind
from lanTag.session import events as ev
from lanTag.session.chatter import Chatter
from lanTag.session.messages import MsgType, Signed, sign_message

SEAL_WAIT = 3.0  # seconds after game over that a peer waits for the other seats' seals


class Sealing(Chatter):
    """Signing, taking and checking the seals of the final state."""

    def sealed_by(self) -> tuple[int, ...]:
        """The seats whose seal of our final state we hold (ours included), ascending."""
        return tuple(sorted(self._seals))

    @property
    def over_at(self) -> float | None:
        """When the game ended here (the ``now`` of the step that ended it), None before."""
        return self._over_at

    def sealing(self, now: float) -> bool:
        """True while it is worth waiting for seals: the game is over here, a live human seat
        has not sealed yet, and ``SEAL_WAIT`` has not passed since game over."""
        if self._over_at is None or self.replay or not self.features.seals:
            return False
        if now >= self._over_at + SEAL_WAIT:
            return False
        return any(s not in self._seals for s in self.live if self._human_keys[s] is not None)

    def _seal_final_state(self, now: float) -> None:
        """At game over: sign our seal (a live seat), send it, and check the seals that came
        before we got here."""
        self._over_at = now
        if not self.features.seals:
            return
        if not self.replay and self._signer is not None and self.seat in self.live:
            assert self.seat is not None
            msg = sign_message(
                self._signer,
                MsgType.SEAL,
                self.game_id,
                self.step,
                self.seat,
                self._state_hash(self.state),
                (),
                version=self.record.protocol,
            )
            self._chatter_room(msg)  # one per final state: counted as the others count it
            self._seals[self.seat] = msg
            self.log.append(msg.step, EntryKind.MSG, msg.raw)
            self._broadcast([msg.raw])
        early, self._early_seals = self._early_seals, {}
        for msg in early.values():
            self._check_seal(msg)

    def _receive_seal(self, msg: Signed) -> None:
        """A signed SEAL (its signature already checked by receive_parsed)."""
        if not self.features.seals:
            self._reject("unknown-type", f"a SEAL in a protocol-{self.record.protocol} game")
            return
        if self.replay:
            # A verifier checks a log's seals from the log itself (lanTag.log.seals), against
            # the final state its replay reaches; here a seal is only a verified signature.
            if msg.raw in self._seal_raws:
                self._count("duplicate")
            self._seal_raws.add(msg.raw)
            return
        if msg.seat in self._seals or msg.seat in self._early_seals:
            self._count("duplicate")  # the first seal of a seat counts; a relay repeats it
            return
        if self._over_at is None:
            self._early_seals[msg.seat] = msg  # checked once we reach the end ourselves
            return
        self._check_seal(msg)

    def _check_seal(self, msg: Signed) -> None:
        final = self._state_hash(self.state)
        if msg.step == self.step and msg.state_hash == final:
            self._seals[msg.seat] = msg
            self.log.append(msg.step, EntryKind.MSG, msg.raw)
            self._events.append(ev.Sealed(msg.step, msg.seat))
            return
        # Signed evidence against its signer: it sealed a state the table did not end in.
        self._blame(
            msg.seat,
            "bad-seal",
            f"sealed state {msg.state_hash.hex()[:16]} at step {msg.step}, "
            f"the game ended in {final.hex()[:16]} at step {self.step}",
            msg.step,
        )
