"""Bounded chatter (protocol 6, SPEC §5.3): what is not a step's input is capped per seat and
step, like VOTEs and NUDGEs.

CHAT, PRIVATE, SYNC, REJOIN, SEAL and LEAVE carry nothing a step waits for, yet each costs
its receivers a signature check (and a screen line, a catch-up answer...).  An honest peer
sends few *distinct* ones per step: a person types some lines; SYNC, REJOIN, SEAL and LEAVE
are signed deterministically (Ed25519), so asking again at the same step and state repeats
the very same bytes, and only a rollback makes a new one.  So per seat, step and type at
most ``CHATTER_LIMITS`` distinct messages are taken (a copy of one taken is a duplicate:
free, and a SYNC or REJOIN copy is still answered); a seat's own peer never signs more
(``say`` refuses the line, a SYNC or REJOIN repeats its last one).  The first distinct CHAT,
PRIVATE, SYNC or REJOIN over the cap is, with the ones taken, a proof: no honest peer signs
it.  It is logged and sent to every peer, the seat is blamed ``flood`` and voted out like a
liar (Agreement._convict_flood's rule), and from then on its chatter is dropped before the
signature check.  A SEAL or LEAVE over the cap is only dropped (the game is over, or the
seat leaves anyway).  CHAT and PRIVATE more than ``REQUEST_AHEAD`` steps from ours are
dropped unchecked (an honest peer that far away chats about another moment).

A verifier replaying a protocol-6 log counts the same way: a log holding a proof blames its
seat ``flood``.  Older protocols take chatter as before (``Features.chatter_cap``).
"""

from __future__ import annotations

from enum import Enum

from lanTag.log.chain import EntryKind
from lanTag.session.core import REQUEST_AHEAD, SessionCore
from lanTag.session.messages import SPECS, MsgType, Signed

CHATTER_LIMITS = {t: s.chatter_limit for t, s in SPECS.items() if s.chatter_limit is not None}
PROVEN = frozenset(t for t, s in SPECS.items() if s.chatter_proof)
WINDOWED = frozenset(t for t, s in SPECS.items() if s.chatter_window)
TOO_CHATTY = (
    f"you said {CHATTER_LIMITS[MsgType.CHAT]} lines since the last move: wait for the next "
    "one (more would look like a flood to the others)"
)


class Gate(Enum):
    """What ``Chatter._chatter_gate`` says of a message before its signature is checked."""

    NOT_CHATTER = "not-chatter"  # not capped here: the usual path
    DROP = "drop"  # dropped unchecked (counted)
    COPY = "copy"  # the very bytes of one taken: no signature check, handled again (or not)
    NEW = "new"  # check the signature, then take it
    OVER = "over"  # check the signature, then it proves a flood


class Chatter(SessionCore):
    """The cap on chatter, as every peer and a verifier apply it."""

    def _chatter_gate(self, msg: Signed) -> Gate:
        if msg.type not in CHATTER_LIMITS or not self.features.chatter_cap:
            return Gate.NOT_CHATTER
        if msg.seat in self._flooders and msg.seat != self.seat:
            self._count("from-flooder")
            return Gate.DROP
        far = msg.step > self.step + REQUEST_AHEAD or (
            msg.type in WINDOWED and msg.step + REQUEST_AHEAD < self.step
        )
        if far:
            self._count("chatter-far")
            return Gate.DROP
        kept = self._chatter_kept.get((msg.seat, msg.step, msg.type), ())
        if msg.raw in kept:
            return Gate.COPY
        if len(kept) < CHATTER_LIMITS[msg.type]:
            return Gate.NEW
        if msg.type in PROVEN and msg.seat != self.seat:
            return Gate.OVER
        self._count("flood")  # a SEAL or LEAVE past its cap: dropped unlogged
        return Gate.DROP

    def _chatter_take(self, msg: Signed, gate: Gate, now: float) -> bool:
        """After the signature check: take a NEW one, convict on an OVER one.  True when
        the message is to be handled (a COPY of a CHAT or PRIVATE is not shown again)."""
        if gate is Gate.NEW:
            self._forget_far_chatter()
            self._chatter_kept.setdefault((msg.seat, msg.step, msg.type), []).append(msg.raw)
            return True
        if gate is Gate.OVER:
            self._convict_chatter(msg, now)
            return False
        if gate is Gate.COPY and msg.type in WINDOWED:
            self._count("duplicate")
            return False
        return True

    def _chatter_room(self, msg: Signed) -> bool:
        """Our own chatter: may we send ``msg`` (a copy of one sent: always)?  Counted as
        the others count it, so we never sign the one over the cap."""
        if not self.features.chatter_cap or msg.type not in CHATTER_LIMITS:
            return True
        kept = self._chatter_kept.setdefault((msg.seat, msg.step, msg.type), [])
        if msg.raw in kept:
            return True
        if len(kept) >= CHATTER_LIMITS[msg.type]:
            return False
        kept.append(msg.raw)
        return True

    def _last_own_chatter(self, kind: MsgType) -> bytes | None:
        """The last ``kind`` message we sent at our current step (to repeat it at the cap)."""
        kept = self._chatter_kept.get((self.seat or 0, self.step, kind))
        return kept[-1] if kept else None

    def _convict_chatter(self, msg: Signed, now: float) -> None:
        """``msg`` is one distinct message more than the cap of its seat, step and type: with
        the ones taken it proves a flood (SPEC §5.3).  Logged, sent to every peer (each
        counts it against the same cap), the seat blamed and voted out at the first step
        that waits for it, as a liar (§5.2)."""
        key = (msg.seat, msg.step, msg.type)
        proof = [*self._chatter_kept.pop(key, []), msg.raw]
        self._flooders.add(msg.seat)
        self._liars_at.setdefault(msg.seat, msg.step)
        for raw in proof:
            self.log.append(msg.step, EntryKind.MSG, raw)
        self._blame(
            msg.seat, "flood", f"over {len(proof) - 1} {msg.type.name}s for step {msg.step}"
        )
        if not self.replay:
            self._broadcast(proof)
        if msg.seat in self.live:
            self._contradicted.add(msg.seat)
        self._pump(now)

    def _forget_far_chatter(self) -> None:
        """CHAT and PRIVATE taken for steps now too far behind to take more: forgotten (what
        a seat says there is dropped unchecked from now on, so its count no longer matters)."""
        if self.step - REQUEST_AHEAD <= self._chatter_pruned:
            return
        self._chatter_pruned = self.step - REQUEST_AHEAD
        pruned = self._chatter_pruned
        for key in [k for k in self._chatter_kept if k[2] in WINDOWED and k[1] < pruned]:
            del self._chatter_kept[key]
