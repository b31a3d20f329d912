"""The late-proof rule (protocol 5, SPEC §5.7): two COMMITs of one seat for a secret round.

A round every other live seat acknowledged by digest stands; a proof of a second COMMIT
found after that convicts the seat at a later step all peers agree on (it is voted out like
a convicted liar, §5.2), never by a rollback.  A round whose acknowledgements show that two
honest peers took different COMMITs is split: nobody can apply it, and the seat is dropped
at the round's step with its forfeit, as protocol 4 did with every such proof.
"""

from __future__ import annotations

from lanTag.fair.chain import chain_step_ok
from lanTag.fair.commit import opens
from lanTag.rules.base import Simultaneous
from lanTag.session.core import SessionCore
from lanTag.session.messages import MsgType, Signed, reveal_value
from lanTag.session.steps import (
    LATE_PROOF_PROTOCOL,
    ORDERED_PROOFS_PROTOCOL,
    ROUND_ACKS_PROTOCOL,
    StepBox,
    round_digest,
)


class LateProof(SessionCore):
    """Which late proofs leave their round standing, and what that round then takes."""

    def _late_proof(self, first: Signed, second: Signed) -> bool:
        """Protocol 5: two COMMITs of one seat for a secret round do not by themselves
        convict it at the round's step (SPEC §5.7).  Whether the round stands is a fact of
        signed acknowledgements: every honest peer names only the COMMIT it took first, so

        - if the round is already decided here, every other live seat named the COMMIT we
          took (we applied it only then): no honest peer names another, so none can ever
          find the round split.  It stands; the seat is convicted now and voted out at the
          first step that waits for it, an agreed drop (§5.2), never by a rollback;
        - if not, it is decided at its step: it stands (applied as usual, with the REVEAL
          that opens the COMMIT we took, relayed if need be) unless a live seat's HAVE names
          another of the seat's COMMITs, which no peer that applied it can hold: split, the
          seat is dropped at the round's step with its forfeit, as in protocol 4.

        A second REVEAL of such a seat at that step is part of the same equivocation: no
        conviction either (protocol 6: only one that chains and opens one of the two COMMITs;
        one that does not is a bad reveal, ``_reveals_a_version``).  True when the rule
        applies (the caller then bans nothing)."""
        if self.record.protocol < LATE_PROOF_PROTOCOL:
            return False
        key = (second.seat, second.step)
        if second.type is MsgType.REVEAL:
            return key in self._late_commits and self._reveals_a_version(second)
        if second.type is not MsgType.COMMIT:
            return False
        self._late_commits[key] = (first.digest, second.payload[0], second.digest)
        self._liars_at.setdefault(second.seat, second.step)  # never given back (§5.6)
        if second.step < self.step:
            self._contradict(second.seat)  # the round stood: an agreed drop from here
        return True

    def _reveals_a_version(self, reveal: Signed) -> bool:
        """Protocol 6: ``reveal``, a second REVEAL in its slot of a late proof's seat and
        step, chains and opens one of the seat's two COMMITs.  One that does not is a bad
        reveal: the peer that takes it as the seat's REVEAL convicts the seat at the round's
        step (``_check_reveal``), so this peer must too, even if the round stood here
        (protocol 5 called every such REVEAL part of the two COMMITs: the peers split)."""
        if self.record.protocol < ORDERED_PROOFS_PROTOCOL or reveal.step > self.step:
            return True  # (a step we have not reached: its REVEALs are judged there)
        late = self._late_commits[(reveal.seat, reveal.step)]
        took = next(m for m in self._slots.values() if m.digest == late[0])  # a slot's first
        decision = self._snapshots[reveal.step].state.decision()
        assert isinstance(decision, Simultaneous)
        nonce, value, link = reveal.payload[1], reveal_value(reveal), reveal.payload[2]
        if not chain_step_ok(self._snapshots[reveal.step].chain_last[reveal.seat], link):
            return False
        return any(
            opens(c, self.game_id, reveal.step, reveal.seat, decision.kind, nonce, value)
            for c in (took.payload[0], late[1])
        )

    def _contradict(self, seat: int) -> None:
        if seat in self.live:
            self._contradicted.add(seat)  # refused like a seat we voted, voted at once

    def _round_stood(self, step: int) -> None:
        """Step ``step`` is decided: a seat proven to have signed two COMMITs there whose
        round stood (protocol 5) is convicted from now on, like a liar (§5.2)."""
        for seat, at in self._late_commits:
            if at == step:
                self._contradict(seat)

    def _ban_split_rounds(self) -> None:
        """A late proof's round at our current step is split when another live seat (not
        the equivocator) signed a HAVE, on our state, that does not name the COMMIT we took:
        it took another one, so no honest peer can ever hold every acknowledgement of one
        version and nobody applies the round.  The seat is then convicted at this step
        (forfeit), as protocol 4 convicted every such proof."""
        step = self.step
        box = self._boxes.get(step)
        if box is None:
            return
        snap = self._snapshots[-1]
        ours = self._state_hash(snap.state)
        ordered = self.record.protocol >= ORDERED_PROOFS_PROTOCOL
        for (seat, at), (held, _other, other) in self._late_commits.items():
            # Protocol 6: a ban proven for a later step (a proof that came first) does not
            # spare a split round here: the earliest proven step is the conviction's.
            banned = self._convicted_at(seat, step) if ordered else seat in self._banned
            if at != step or banned or seat not in snap.live:
                continue
            if self.record.protocol >= ROUND_ACKS_PROTOCOL:
                split = self._round_split(box, seat, {held, other})
            else:
                split = any(
                    voter in snap.live
                    and voter not in (seat, self.seat)
                    and have.state_hash == ours
                    and held not in have.payload[1]
                    for voter, have in box.haves.get(seat, {}).items()
                )
            if split:
                self._banned[seat] = step

    def _round_split(self, box: StepBox, seat: int, versions: set[bytes]) -> bool:
        """Protocol 6: another live seat (not ``seat``, not us) named, on our state (its
        REVEAL or round HAVE), the vector we hold with ``seat``'s COMMIT swapped for its other one
        (``versions``: the digests of both): it took that one.  Exact, not "a vector other
        than ours": a HAVE signed before a drop names a larger vector and proves nothing."""
        snap = self._snapshots[-1]
        held = box.of(MsgType.COMMIT)
        humans = self.needs().humans
        mine = held.get(seat)
        if mine is None or not all(s in held for s in humans):
            return False  # we cannot name the vectors yet: decided once our commits are in
        digests = {s: held[s].digest for s in humans}
        swapped = {round_digest({**digests, seat: d}) for d in versions if d != digests[seat]}
        claims = self._round_claims(box, self._state_hash(snap.state))
        return any(
            not swapped.isdisjoint(claims.get(voter, ())) for voter in snap.live - {seat, self.seat}
        )

    def _late_reveal(self, msg: Signed) -> bool:
        """Protocol 5: ``msg``, a REVEAL in a slot that holds another one, is the REVEAL
        that opens the COMMIT we took of a seat whose round waits on a late proof (the first
        one, sent to us alone, opened its other COMMIT): it is taken, not a second proof.
        Only at our current step, while we hold no REVEAL of that seat, and only one that
        opens that COMMIT and chains: there is one such message, so this admits no flood."""
        if msg.type is not MsgType.REVEAL or msg.step != self.step:
            return False
        late = self._late_commits.get((msg.seat, msg.step))
        box = self._box(msg.step)
        commit = box.of(MsgType.COMMIT).get(msg.seat)
        if late is None or commit is None or commit.digest != late[0]:
            return False
        if msg.seat in box.of(MsgType.REVEAL):
            return False
        snap = self._snapshots[-1]
        kind = self.needs().secret_kind
        value = reveal_value(msg)
        nonce, link = msg.payload[1], msg.payload[2]
        sealed = commit.payload[0]
        return chain_step_ok(snap.chain_last[msg.seat], link) and opens(
            sealed, self.game_id, msg.step, msg.seat, kind, nonce, value
        )

    def _opens_other_commit(self, msg: Signed, kind: str) -> bool:
        """``msg``, a REVEAL at our step that chains but does not open the COMMIT we took,
        opens the other COMMIT of a late proof (protocol 5): the other half of the same
        equivocation, no conviction by itself.  The round stands with the REVEAL that opens
        ours (relayed by a peer that holds it) or is split (§5.7).  One that opens neither
        is a bad reveal, as in protocol 4."""
        late = self._late_commits.get((msg.seat, self.step))
        if late is None:
            return False
        nonce, value = msg.payload[1], reveal_value(msg)
        return opens(late[1], self.game_id, self.step, msg.seat, kind, nonce, value)
