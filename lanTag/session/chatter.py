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
liar (Session._convict_chatter), and from then on its chatter is dropped before the
signature check.  A SEAL or LEAVE over the cap is only dropped (the game is over, or the
seat leaves anyway).  CHAT and PRIVATE more than ``REQUEST_AHEAD`` steps from ours are
dropped unchecked (an honest peer that far away chats about another moment).

A verifier replaying a protocol-6 log counts the same way: a log holding a proof blames its
seat ``flood``.  Older protocols take chatter as before (``Features.chatter_cap``).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from enum import Enum

from lanTag.session.features import Features
from lanTag.session.journal import Journal
from lanTag.session.messages import SPECS, MsgType, Signed
from lanTag.session.steps import REQUEST_AHEAD

CHATTER_LIMITS = {t: s.chatter_limit for t, s in SPECS.items() if s.chatter_limit is not None}
PROVEN = frozenset(t for t, s in SPECS.items() if s.chatter_proof)
WINDOWED = frozenset(t for t, s in SPECS.items() if s.chatter_window)
TOO_CHATTY = (
    f"you said {CHATTER_LIMITS[MsgType.CHAT]} lines since the last move: wait for the next "
    "one (more would look like a flood to the others)"
)


class Gate(Enum):
    """What ``ChatterCap.gate`` says of a message before its signature is checked."""

    NOT_CHATTER = "not-chatter"  # not capped here: the usual path
    DROP = "drop"  # dropped unchecked (counted)
    COPY = "copy"  # the very bytes of one taken: no signature check, handled again (or not)
    NEW = "new"  # check the signature, then take it
    OVER = "over"  # check the signature, then it proves a flood


class ChatterCap:
    """The cap on chatter, as every peer and a verifier apply it: (seat, step, type) -> the
    distinct CHAT, PRIVATE, SYNC, REJOIN, SEAL or LEAVE bytes taken (``kept``; ours: the ones
    we sent), and the step up to which CHAT and PRIVATE were forgotten (``pruned``)."""

    def __init__(self, features: Features, journal: Journal) -> None:
        self.kept: dict[tuple[int, int, MsgType], list[bytes]] = {}
        self.pruned = -1
        self._on = features.chatter_cap
        self._journal = journal

    def gate(self, msg: Signed, step: int, seat: int | None, flooders: AbstractSet[int]) -> Gate:
        """What to do with ``msg`` before its signature is checked, at our ``step``, for the
        peer of ``seat``, ``flooders`` being the seats convicted of a flood."""
        if msg.type not in CHATTER_LIMITS or not self._on:
            return Gate.NOT_CHATTER
        if msg.seat in flooders and msg.seat != seat:
            self._journal.count("from-flooder")
            return Gate.DROP
        far = msg.step > step + REQUEST_AHEAD or (
            msg.type in WINDOWED and msg.step + REQUEST_AHEAD < step
        )
        if far:
            self._journal.count("chatter-far")
            return Gate.DROP
        kept = self.kept.get((msg.seat, msg.step, msg.type), ())
        if msg.raw in kept:
            return Gate.COPY
        if len(kept) < CHATTER_LIMITS[msg.type]:
            return Gate.NEW
        if msg.type in PROVEN and msg.seat != seat:
            return Gate.OVER
        self._journal.count("flood")  # a SEAL or LEAVE past its cap: dropped unlogged
        return Gate.DROP

    def take(self, msg: Signed, gate: Gate, step: int) -> bool:
        """After the signature check, a message ``gate`` let through: keep a NEW one.  True
        when the message is to be handled (a COPY of a CHAT or PRIVATE is not shown again;
        an OVER one is the caller's proof of a flood, ``proof``)."""
        if gate is Gate.NEW:
            self._forget_far(step)
            self.kept.setdefault((msg.seat, msg.step, msg.type), []).append(msg.raw)
            return True
        if gate is Gate.OVER:
            return False
        if gate is Gate.COPY and msg.type in WINDOWED:
            self._journal.count("duplicate")
            return False
        return True

    def proof(self, msg: Signed) -> list[bytes]:
        """``msg``, one distinct message over the cap, with the ones taken: a flood's proof
        (SPEC §5.3).  Its seat's count is forgotten (its chatter is dropped from now on)."""
        return [*self.kept.pop((msg.seat, msg.step, msg.type), []), msg.raw]

    def room(self, msg: Signed) -> bool:
        """Our own chatter: may we send ``msg`` (a copy of one sent: always)?  Counted as
        the others count it, so we never sign the one over the cap."""
        if not self._on or msg.type not in CHATTER_LIMITS:
            return True
        kept = self.kept.setdefault((msg.seat, msg.step, msg.type), [])
        if msg.raw in kept:
            return True
        if len(kept) >= CHATTER_LIMITS[msg.type]:
            return False
        kept.append(msg.raw)
        return True

    def last_own(self, seat: int | None, step: int, kind: MsgType) -> bytes | None:
        """The last ``kind`` message ``seat`` sent at ``step`` (to repeat it at the cap)."""
        kept = self.kept.get((seat or 0, step, kind))
        return kept[-1] if kept else None

    def _forget_far(self, step: int) -> None:
        """CHAT and PRIVATE taken for steps now too far behind to take more: forgotten (what
        a seat says there is dropped unchecked from now on, so its count no longer matters)."""
        if step - REQUEST_AHEAD <= self.pruned:
            return
        self.pruned = step - REQUEST_AHEAD
        pruned = self.pruned
        for key in [k for k in self.kept if k[2] in WINDOWED and k[1] < pruned]:
            del self.kept[key]
