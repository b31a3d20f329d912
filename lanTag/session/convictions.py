"""Who was proven to have cheated, and where each one is dropped (protocol/SPEC.md §4.4,
§5.2, §5.7).  The proofs themselves are found by the session (equivocations, bad reveals,
conflicting state hashes and acknowledgements, floods, late proofs); this book keeps what
they convict, the same at every peer that holds the same proofs.
"""

from __future__ import annotations

from lanTag.session.features import Features
from lanTag.session.messages import Signed


class Convictions:
    """``banned``: seat -> the step of its conviction (an equivocation, a bad reveal, a split
    round), where every peer drops it; ``proof_banned`` (protocol 6): seat -> the earliest
    step where a proof drops it; ``splits``: (seat, step) of late proofs whose round is split
    (undone if the seat that showed the split is proven a liar), ``banned`` being the
    earlier of those and ``proof_banned``; ``liars_at``: seat -> the step of its desync,
    flood or two-COMMITs proof (an admission of it at or after that step is void);
    ``contradicted``: seats refused like seats we voted silent, voted at once; ``flooders``:
    seats convicted of a flood (what they send over a bound is dropped unlogged); ``proofs``:
    pairs of conflicting signed messages, the evidence of a conviction."""

    def __init__(self, features: Features) -> None:
        self.banned: dict[int, int] = {}
        self.proof_banned: dict[int, int] = {}
        self.splits: set[tuple[int, int]] = set()
        self.liars_at: dict[int, int] = {}
        self.contradicted: set[int] = set()
        self.flooders: set[int] = set()
        self.proofs: list[tuple[Signed, Signed]] = []
        self._earliest = features.collusion

    def since(self, seat: int, step: int) -> bool:
        """``seat`` was convicted of cheating at ``step`` or before (any proof we hold)."""
        for convictions in (self.banned, self.liars_at):
            at = convictions.get(seat)
            if at is not None and at <= step:
                return True
        return False

    def at(self, seat: int, step: int) -> bool:
        """``seat`` was convicted at ``step`` (or before): its input there is not taken."""
        banned = self.banned.get(seat)
        return banned is not None and banned <= step

    def ban(self, seat: int, step: int) -> None:
        """A proof drops ``seat`` where it was signed, at ``step``: protocol 6 keeps the
        earliest of its proofs whatever their order (SPEC §5.7), older ones the first."""
        if self._earliest:
            held = self.proof_banned.get(seat)
            self.proof_banned[seat] = step if held is None else min(held, step)
            self.rebuild(seat)
        else:
            self.banned.setdefault(seat, step)

    def flooded(self, seat: int, step: int, live: frozenset[int]) -> None:
        """A flood by ``seat`` proven at ``step`` (SPEC §5.3): a liar from there on, and voted
        out at the first step that waits for it (§5.2) while it is live."""
        self.flooders.add(seat)
        self.liars_at.setdefault(seat, step)
        if seat in live:
            self.contradicted.add(seat)

    def rebuild(self, seat: int) -> None:
        """``seat``'s conviction step from what we hold (protocol 6): the earliest of its
        proofs that drop it where they were signed and of the late proofs' rounds split
        (a split is undone when the seat that showed it is proven a liar, SPEC §5.7)."""
        steps = [k for s, k in self.splits if s == seat]
        proof = self.proof_banned.get(seat)
        if proof is not None:
            steps.append(proof)
        if steps:
            self.banned[seat] = min(steps)
        else:
            self.banned.pop(seat, None)


class LateProofs:
    """What the late-proof rule judges (protocol 5 and 6, SPEC §5.7; lanTag.session.late_proof):
    ``commits``: (seat, step) -> (the digest of the COMMIT we took there, the other one's
    sealed value and digest), a proof of two COMMITs whose round's acknowledgements decide
    whether it stands (the seat then voted out) or is split (the seat banned at that step);
    ``cheated_at`` (protocol 6): step -> the seats proven to have cheated there (any
    equivocation, a bad reveal, conflicting acknowledgements), whose acknowledgements there
    count for nothing; ``dirty``: the steps whose late proofs to judge again (a proof or an
    acknowledgement came); ``acks_proven`` (protocol 6): (seat, step) convicted of
    conflicting acknowledgements there, voted out from the next step."""

    def __init__(self) -> None:
        self.commits: dict[tuple[int, int], tuple[bytes, bytes, bytes]] = {}
        self.cheated_at: dict[int, set[int]] = {}
        self.dirty: set[int] = set()
        self.acks_proven: set[tuple[int, int]] = set()
