"""How a secret round is acknowledged (protocol/SPEC.md §4.4, §5.8): the vectors of
commitments an acknowledgement may name, what each seat named, and whose acknowledgement a
peer still lacks before it applies the round.  Pure: state hashes are handed in.
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag.rules.base import State
from lanTag.session.convictions import Convictions, LateProofs
from lanTag.session.features import Features
from lanTag.session.messages import MsgType
from lanTag.session.referee import Needs
from lanTag.session.steps import (
    Snapshot,
    StepBox,
    round_digest,
    round_named,
    unacknowledged_commits,
    unacknowledged_round,
)


class RoundAcks:
    """The acknowledgement book of secret rounds.  Its caches live in each step's box
    (``round_vector``, ``round_vectors``, ``round_claims``, ``round_dirty``); it reads the
    convictions' splits and the late proofs' cheaters (protocol 6, SPEC §5.7)."""

    def __init__(
        self,
        features: Features,
        convictions: Convictions,
        late: LateProofs,
        state_hash: Callable[[State], bytes],
    ) -> None:
        """``state_hash``: the session's (cached) hash of a state."""
        self._features = features
        self._collusion = features.collusion
        self._convictions = convictions
        self._late = late
        self._state_hash = state_hash

    def vector(self, box: StepBox, needs: Needs) -> bytes:
        """The digest of the commitments we hold of the round's live seats (protocol 6,
        SPEC §4.4), computed once per set: commitments change only with a drop (new needs)
        or a new one taken (one more)."""
        held = box.of(MsgType.COMMIT)
        cached = box.round_vector
        if cached is not None and cached[0] is needs and cached[1] == len(held):
            return cached[2]
        digest = round_digest({s: held[s].digest for s in needs.humans if s in held})
        box.round_vector = (needs, len(held), digest)
        return digest

    def vectors(self, box: StepBox, needs: Needs, step: int) -> frozenset[bytes]:
        """The vectors an acknowledgement of the round may name (protocol 6, SPEC §4.4):
        ours, and after a drop at the step also the one of ours and the dropped seats'
        COMMITs (a round HAVE signed before the drop); ``step``: ours.  Computed once per
        set."""
        vector = self.vector(box, needs)
        dropped = box.dropped_commits
        if self._convictions.splits and self._collusion:
            # A seat dropped by a split (SPEC §5.7): an acknowledgement still holding its
            # COMMIT was signed before its signer split the round too, and a peer that
            # applied the round never signs another; so a split round is applied only once
            # every other live seat split it as well, never while an honest peer stood.
            split = {seat for seat, at in self._convictions.splits if at == step}
            dropped = {s: c for s, c in dropped.items() if s not in split}
        key = (vector, len(dropped))
        cached = box.round_vectors
        if cached is not None and cached[0] == key:
            return cached[1]
        vectors = {vector}
        if dropped:
            held = box.of(MsgType.COMMIT)
            digests = {s: held[s].digest for s in needs.humans if s in held}
            digests.update((s, c.digest) for s, c in dropped.items())
            vectors.add(round_digest(digests))
        box.round_vectors = (key, frozenset(vectors))
        return box.round_vectors[1]

    def claims(self, box: StepBox, ours: bytes) -> dict[int, frozenset[bytes]]:
        """The vectors each seat named on our state at ``box``'s step (protocol 6), brought
        up to date for the seats whose REVEAL or round HAVE changed since the last call."""
        if box.round_dirty:
            reveals = box.of(MsgType.REVEAL)
            for voter in box.round_dirty:
                box.round_claims[voter] = frozenset(round_named(voter, box.haves, reveals, ours))
            box.round_unchecked |= box.round_dirty
            box.round_dirty.clear()
        return box.round_claims

    def lacking(
        self, box: StepBox, needs: Needs, snap: Snapshot, step: int, seat: int | None
    ) -> frozenset[int]:
        """Live seats whose acknowledgement of some commitment of the secret round at our
        ``step`` (in ``snap``) the peer of ``seat`` lacks (SPEC §4.4).  Protocol 4: every
        other live seat, in the round or not, must have signed a HAVE naming the very
        COMMIT we hold for each other seat of the round.  An
        honest peer names only what it took and never takes two COMMITs of one slot, so
        then every honest peer holds our commitments, whichever way (direct or relayed)
        each acknowledgement reached us: the round is never applied with a version of an
        equivocator's choice another honest peer does not hold.  A HAVE naming another
        commitment is not counted (it is a claim, not a proof): we show its signer ours
        (``Agreement.register_have``) and wait; the second COMMIT comes, a proof, before we apply.
        Protocol 3 counted any HAVE of a seat outside the round on our state, relying on
        link order (a relayed HAVE or REVEAL could beat the COMMIT copy: a rollback).
        Protocol 6: one round HAVE per seat naming the digest of the whole vector we hold
        (the same argument, one message instead of one per commitment)."""
        ours = self._state_hash(snap.state)
        if self._features.round_acks:
            claims = self.claims(box, ours)
            vectors = self.vectors(box, needs, step)
            live = snap.live
            if self._collusion and step in self._late.cheated_at:
                # A seat proven to have cheated here: its acknowledgement proves nothing
                # about what the others hold, so none is waited for (SPEC §5.7).
                live = live - self._late.cheated_at[step]
            return unacknowledged_round(vectors, claims, live, seat)
        if self._features.named_acks:
            # The round's live seats only: a seat dropped here (convicted, perhaps for two
            # COMMITs) plays its forfeit or default, whatever anyone took from it.
            held = box.of(MsgType.COMMIT)
            commits = {s: held[s] for s in needs.humans if s in held}
            return unacknowledged_commits(commits, box.haves, snap.live, seat, ours)
        if len(snap.live) <= len(needs.humans) or not self._features.outsider_acks:
            # Everyone is in the round: their REVEALs are enough.  (A protocol-2 peer
            # applied without waiting: its logs replay as they were written.)
            return frozenset()
        out: set[int] = set()
        for voter in snap.live:
            if voter == seat or voter in needs.humans:
                continue
            for subject in needs.humans:
                have = box.haves.get(subject, {}).get(voter)
                if have is None or have.state_hash != ours:
                    out.add(voter)
                    break
        return frozenset(out)
