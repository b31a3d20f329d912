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

from collections.abc import Iterable

from lanTag.log.entries import EntryKind
from lanTag.session import events as ev
from lanTag.session.journal import Journal
from lanTag.session.messages import Signed

SEAL_WAIT = 3.0  # seconds after game over that a peer waits for the other seats' seals


class SealBook:
    """The seals of the final state: when the game ended here (``over_at``), seat -> its
    SEAL of our final state (``seals``, ours included), the SEALs that came before our game
    over, unchecked (``early``), and the SEAL bytes a replay has seen (``raws``: a repeat is a
    duplicate).  Logs, blames and sends through the session's ``Journal``."""

    def __init__(self, journal: Journal, replay: bool) -> None:
        self.over_at: float | None = None
        self.seals: dict[int, Signed] = {}
        self.early: dict[int, Signed] = {}
        self.raws: set[bytes] = set()
        self._journal = journal
        self._replay = replay

    def sealed_by(self) -> tuple[int, ...]:
        """The seats whose seal of our final state we hold (ours included), ascending."""
        return tuple(sorted(self.seals))

    def waiting(self, now: float, humans: Iterable[int]) -> bool:
        """True while it is worth waiting for seals: the game is over here, one of the live
        ``humans`` has not sealed yet, and ``SEAL_WAIT`` has not passed since game over."""
        if self.over_at is None or self._replay:
            return False
        if now >= self.over_at + SEAL_WAIT:
            return False
        return any(s not in self.seals for s in humans)

    def ended(self, now: float, own: Signed | None, step: int, final: bytes) -> None:
        """At game over (at ``step``, in the state of hash ``final``): keep, log and send
        ``own`` seal (None: we seal nothing), and check the seals that came before."""
        self.over_at = now
        if own is not None:
            self.seals[own.seat] = own
            self._journal.log.append(own.step, EntryKind.MSG, own.raw)
            self._journal.broadcast([own.raw])
        early, self.early = self.early, {}
        for msg in early.values():
            self._check(msg, step, final)

    def receive(self, msg: Signed, step: int, final: bytes) -> None:
        """A signed SEAL (its signature already checked); ``step`` and ``final``: our step
        and state hash, the final ones once the game is over here."""
        if self._replay:
            # A verifier checks a log's seals from the log itself (lanTag.log.seals), against
            # the final state its replay reaches; here a seal is only a verified signature.
            if msg.raw in self.raws:
                self._journal.count("duplicate")
            self.raws.add(msg.raw)
            return
        if msg.seat in self.seals or msg.seat in self.early:
            self._journal.count("duplicate")  # the first seal of a seat counts; a relay repeats it
            return
        if self.over_at is None:
            self.early[msg.seat] = msg  # checked once we reach the end ourselves
            return
        self._check(msg, step, final)

    def _check(self, msg: Signed, step: int, final: bytes) -> None:
        if msg.step == step and msg.state_hash == final:
            self.seals[msg.seat] = msg
            self._journal.log.append(msg.step, EntryKind.MSG, msg.raw)
            self._journal.events.append(ev.Sealed(msg.step, msg.seat))
            return
        # Signed evidence against its signer: it sealed a state the table did not end in.
        self._journal.blame(
            msg.seat,
            "bad-seal",
            f"sealed state {msg.state_hash.hex()[:16]} at step {msg.step}, "
            f"the game ended in {final.hex()[:16]} at step {step}",
            msg.step,
        )
