"""The late-proof rule (protocol 5, SPEC §5.7): two COMMITs of one seat for a secret round.

A round every other live seat acknowledged by digest stands; a proof of a second COMMIT
found after that convicts the seat at a later step all peers agree on (it is voted out like
a convicted liar, §5.2), never by a rollback.  A round whose acknowledgements show that two
honest peers took different COMMITs is split: nobody can apply it, and the seat is dropped
at the round's step with its forfeit, as protocol 4 did with every such proof.

Protocol 6 ("Many cheaters", §5.7) judges the round from every proof and acknowledgement
held, whenever each came: a seat that named both versions is a liar, a proven seat counts
for nothing at its round, a split is shown to every peer and undone when its witness is
proven a liar, and applied only once the others split too (``judge_late_proofs``).
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag.fair.commit import opens
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.rules.base import Simultaneous, State
from lanTag.session.convictions import Convictions, LateProofs
from lanTag.session.features import Features
from lanTag.session.inbox import Slots
from lanTag.session.journal import Journal
from lanTag.session.messages import MsgType, Signed, reveal_value
from lanTag.session.referee import NeedKind, Needs, needs_for
from lanTag.session.round_evidence import (
    acknowledgements,
    conflicting_acks,
    families,
    naming,
)
from lanTag.session.steps import (
    ROUND_SUBJECT,
    HistoryView,
    StepBox,
)

_ACK_SLOTS = ((int(MsgType.REVEAL), 0), (int(MsgType.HAVE), ROUND_SUBJECT))




class LateProofJudge:
    """Which late proofs leave their round standing, and what that round then takes.

    A part the Session owns.  It holds nothing of its own beyond what it is given: it
    writes the ``late`` book (LateProofs) and the ``convictions``, blames and sends through
    the ``journal``, and reads the session's agreed ``history`` (each step's snapshot and
    our state hash there), its message ``boxes`` and first message per ``slots``, which the
    session changes in place.  ``needs`` is the session's current
    step's Needs, ``box`` its StepBox of a step (created if missing), ``state_hash`` a
    state's hash (cached)."""

    def __init__(
        self,
        *,
        features: Features,
        game_id: bytes,
        seat: int | None,
        replay: bool,
        human_keys: tuple[bytes | None, ...],
        late: LateProofs,
        convictions: Convictions,
        journal: Journal,
        history: HistoryView,
        boxes: dict[int, StepBox],
        slots: Slots,
        needs: Callable[[], Needs],
        box: Callable[[int], StepBox],
        state_hash: Callable[[State], bytes],
    ) -> None:
        self.features = features
        self.game_id = game_id
        self.seat = seat
        self.replay = replay
        self._human_keys = human_keys
        self.late = late
        self.convictions = convictions
        self._journal = journal
        self._history = history
        self._boxes = boxes
        self._slots = slots
        self.needs = needs
        self._box = box
        self._state_hash = state_hash

    def _blame(self, seat: int, code: str, reason: str, at: int | None = None) -> None:
        self._journal.blame(seat, code, reason, at)

    def _broadcast(self, raws: list[bytes]) -> None:
        self._journal.broadcast(raws)

    def note_cheat(self, seat: int, step: int) -> None:
        """A proof that ``seat`` cheated at ``step`` (any equivocation, a bad reveal,
        conflicting acknowledgements): a late proof's round there no longer stands
        (protocol 6, SPEC §5.7)."""
        if self.features.collusion:
            self.late.cheated_at.setdefault(step, set()).add(seat)
            self.late.dirty.add(step)

    def late_proof(self, first: Signed, second: Signed) -> bool:
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
        if not self.features.late_proof:
            return False
        key = (second.seat, second.step)
        if second.type is MsgType.REVEAL:
            return key in self.late.commits and self._reveals_a_version(second)
        if second.type is not MsgType.COMMIT:
            return False
        self.late.commits[key] = (first.digest, second.payload[0], second.digest)
        self.late.dirty.add(second.step)
        self.convictions.liars_at.setdefault(second.seat, second.step)  # never given back (§5.6)
        if second.step < self._history.step:
            self._contradict(second.seat)  # the round stood: an agreed drop from here
        return True

    def _reveals_a_version(self, reveal: Signed) -> bool:
        """Protocol 6: ``reveal``, a second REVEAL in its slot of a late proof's seat and
        step, chains and opens one of the seat's two COMMITs.  One that does not is a bad
        reveal: the peer that takes it as the seat's REVEAL convicts the seat at the round's
        step (``_check_reveal``), so this peer must too, even if the round stood here
        (protocol 5 called every such REVEAL part of the two COMMITs: the peers split)."""
        if not self.features.ordered_proofs or reveal.step > self._history.step:
            return True  # (a step we have not reached: its REVEALs are judged there)
        late = self.late.commits[(reveal.seat, reveal.step)]
        took = next(m for m in self._slots.values() if m.digest == late[0])  # a slot's first
        decision = self._history[reveal.step].state.decision()
        assert isinstance(decision, Simultaneous)
        nonce, value, link = reveal.payload[1], reveal_value(reveal), reveal.payload[2]
        if not chain_step_ok(self._history[reveal.step].chain_last[reveal.seat], link):
            return False
        return any(
            opens(c, self.game_id, reveal.step, reveal.seat, decision.kind, nonce, value)
            for c in (took.payload[0], late[1])
        )

    def _contradict(self, seat: int) -> None:
        if seat in self._history.live:
            self.convictions.contradicted.add(seat)  # refused like a seat we voted, voted at once

    def round_stood(self, step: int) -> None:
        """Step ``step`` is decided: a seat proven to have signed two COMMITs there whose
        round stood (protocol 5), or conflicting acknowledgements (protocol 6), is convicted
        from now on, like a liar (§5.2)."""
        for seat, at in self.late.commits:
            if at == step:
                self._contradict(seat)
        for seat, at in self.late.acks_proven:
            if at == step:
                self._contradict(seat)

    def contribution_proof(self, first: Signed, second: Signed) -> bool:
        """Protocol 6's ``Agreement.equivocation`` of two contributions: the seat is dropped at the
        earliest step a proof shows (SPEC §5.7), but for two COMMITs of a secret round (the
        late-proof rule decides) and two REVEALs with one opening that name two vectors
        (two acknowledgements, not two choices: the seat is voted out like a liar, §5.2).
        The late-proof rule is asked even when a proof of a later step came first: two
        COMMITs of a round that stood convict the same way whichever proof a peer learnt
        first.  True when the seat's conviction moved to this step (the caller decides
        again from there if a decision since asked the seat)."""
        seat, step = second.seat, second.step
        if second.type is MsgType.REVEAL and first.payload[:3] == second.payload[:3]:
            self._acks_conflict(seat, step)
            return False
        held = self.convictions.proof_banned.get(seat)
        if held is not None and held <= step:
            return False  # dropped there already
        if self.late_proof(first, second):
            return False  # the round's acknowledgements decide, not the proof
        self.convictions.proof_banned[seat] = step
        self.convictions.rebuild(seat)
        return True

    def _acks_conflict(self, seat: int, step: int) -> None:
        """``seat`` signed conflicting acknowledgements at ``step`` (protocol 6): convicted,
        voted out like a liar from the step after it (at once if we decided it already)."""
        self.late.acks_proven.add((seat, step))
        self.convictions.liars_at.setdefault(seat, step)
        self.note_cheat(seat, step)
        if step < self._history.step:
            self._contradict(seat)

    def ban_split_rounds(self) -> None:
        """A late proof's round at our current step is split when another live seat (not
        the equivocator) signed a HAVE, on our state, that does not name the COMMIT we took:
        it took another one, so no honest peer can ever hold every acknowledgement of one
        version and nobody applies the round.  The seat is then convicted at this step
        (forfeit), as protocol 4 convicted every such proof.  (Protocol 6 judges its rounds
        with ``judge_late_proofs``.)"""
        step = self._history.step
        box = self._boxes.get(step)
        if box is None:
            return
        snap = self._history.current
        ours = self._state_hash(snap.state)
        for (seat, at), (held, _sealed, _other) in self.late.commits.items():
            if at != step or seat in self.convictions.banned or seat not in snap.live:
                continue
            split = any(
                voter in snap.live
                and voter not in (seat, self.seat)
                and have.state_hash == ours
                and held not in have.payload[1]
                for voter, have in box.haves.get(seat, {}).items()
            )
            if split:
                self.convictions.banned[seat] = step

    def late_reveal(self, msg: Signed) -> bool:
        """Protocol 5: ``msg``, a REVEAL in a slot that holds another one, is the REVEAL
        that opens the COMMIT we took of a seat whose round waits on a late proof (the first
        one, sent to us alone, opened its other COMMIT): it is taken, not a second proof.
        Only at our current step, while we hold no REVEAL of that seat, and only one that
        opens that COMMIT and chains: there is one such message, so this admits no flood."""
        if msg.type is not MsgType.REVEAL or msg.step != self._history.step:
            return False
        late = self.late.commits.get((msg.seat, msg.step))
        box = self._box(msg.step)
        commit = box.of(MsgType.COMMIT).get(msg.seat)
        if late is None or commit is None or commit.digest != late[0]:
            return False
        if msg.seat in box.of(MsgType.REVEAL):
            return False
        snap = self._history.current
        kind = self.needs().secret_kind
        value = reveal_value(msg)
        nonce, link = msg.payload[1], msg.payload[2]
        sealed = commit.payload[0]
        return chain_step_ok(snap.chain_last[msg.seat], link) and opens(
            sealed, self.game_id, msg.step, msg.seat, kind, nonce, value
        )

    def opens_other_commit(self, msg: Signed, kind: str) -> bool:
        """``msg``, a REVEAL at our step that chains but does not open the COMMIT we took,
        opens the other COMMIT of a late proof (protocol 5): the other half of the same
        equivocation, no conviction by itself.  The round stands with the REVEAL that opens
        ours (relayed by a peer that holds it) or is split (§5.7).  One that opens neither
        is a bad reveal, as in protocol 4."""
        late = self.late.commits.get((msg.seat, self._history.step))
        if late is None:
            return False
        nonce, value = msg.payload[1], reveal_value(msg)
        return opens(late[1], self.game_id, self._history.step, msg.seat, kind, nonce, value)

    # -- many cheaters (protocol 6, SPEC §5.7) ---------------------------------------

    def note_ack(self, msg: Signed) -> bool:
        """``msg`` (just kept) is a REVEAL or round HAVE at a step holding a late proof:
        the judgement of that round may change (protocol 6).  True when it may."""
        if not self.late.commits or not self.features.collusion:
            return False
        if msg.type is MsgType.HAVE and msg.payload[0] != ROUND_SUBJECT:
            return False
        if msg.type not in (MsgType.REVEAL, MsgType.HAVE) or msg.step > self._history.step:
            return False
        if not any(at == msg.step for _seat, at in self.late.commits):
            return False
        self.late.dirty.add(msg.step)
        return True

    def judge_late_proofs(self) -> int | None:
        """Protocol 6: the late proofs' rounds judged again from every proof and
        acknowledgement we hold, whenever they come (SPEC §5.7, "Many cheaters").

        The late-proof rule's argument assumes that every seat acknowledging the round
        other than the equivocator is honest.  A seat proven to have cheated at the round
        breaks it, so its acknowledgements count for nothing there: neither to apply the
        round (``RoundAcks.lacking``) nor to split it.  At a step holding a proof of two
        COMMITs of seat ``a``:

        - a seat other than ``a`` that named both a vector holding the COMMIT we took of
          ``a`` and one holding its other version signed conflicting acknowledgements (an
          honest seat takes one COMMIT per seat): it is convicted (``equivocation``) and
          voted out like a liar (§5.2) from the step after the round;
        - the round is split while a seat live at the step's start (not ``a``, not us) not
          proven to have cheated there named a vector with ``a``'s other version: ``a`` is
          dropped there with its forfeit.  A split shows its evidence to every peer first;
          if that seat is proven later (it named our version to the others), the split is
          undone and the step decided again from its start, where the round stands.  A
          split round is applied only once the others split it too (``RoundAcks.vectors``).

        So a round another honest peer applied stays applied: only a peer that split on a
        liar's word takes back the step it had not decided yet, as soon as the others'
        proof reaches it.  Returns the earliest step to decide again (the caller rolls
        back), if any."""
        current, dirty = self._history.step, self.late.dirty
        steps = sorted({at for _seat, at in self.late.commits if at == current or at in dirty})
        back: int | None = None
        for step in steps:
            self.late.dirty.discard(step)
            if step <= self._history.step and self._judge_round(step):
                back = step if back is None else min(back, step)
        return back

    def _judge_round(self, step: int) -> bool:
        """``judge_late_proofs`` for one step; True when a decision here must be taken
        again (a split of a round we applied, or a split undone)."""
        families = self._round_families(step)
        if families is None:
            return False  # a commitment of a live seat is missing: judged once it is in
        ours, swapped = families
        acks = self._acks_at(step)
        for voter in sorted(acks):
            if voter == self.seat or (voter, step) in self.late.acks_proven:
                continue
            for seat in sorted(swapped):
                mine, other = ours[seat], swapped[seat]
                pair = None if voter == seat else conflicting_acks(acks[voter], mine, other)
                if pair is not None:
                    self._convict_acks(voter, step, seat, pair)
                    break
        live = self._live_at_start(step)
        proven = self.late.cheated_at.get(step, set())  # the equivocators there among them
        again = False
        for seat in sorted(swapped):
            shown = [
                msg
                for voter, named in sorted(acks.items())
                if voter in live and voter != self.seat and voter not in proven
                for msg in naming(named, swapped[seat])
            ]
            key = (seat, step)
            if shown and key not in self.convictions.splits:
                if not self.replay:
                    # What shows the split goes to every peer before anything we decide
                    # after it: a seat that named the other version to us alone must not
                    # split the table.
                    self._broadcast([m.raw for m in shown])
                self.convictions.splits.add(key)
                self.convictions.rebuild(seat)
                again = again or step < self._history.step
            elif not shown and key in self.convictions.splits:
                self.convictions.splits.discard(key)  # the seat that split it was proven a liar
                self.convictions.rebuild(seat)
                again = True  # its drop here is undone: decided again from the step's start
        return again

    def _convict_acks(self, voter: int, step: int, seat: int, pair: tuple[Signed, Signed]) -> None:
        """``voter`` named two versions of ``seat``'s COMMIT at ``step``: blame it, keep and
        send the proof (the two acknowledgements and the COMMITs that resolve them), and
        vote it out from the next step on (an agreed drop, §5.2)."""
        why = f"named two versions of seat {seat}'s COMMIT at step {step}"
        self._blame(voter, "equivocation", why, step)
        self.convictions.proofs.append(pair)
        if not self.replay:
            box = self._boxes[step]
            commits = [*box.dropped_commits.values(), *box.of(MsgType.COMMIT).values()]
            others = [
                m
                for proof in self.convictions.proofs
                for m in proof
                if m.type is MsgType.COMMIT and m.step == step and m.seat == seat
            ]
            raws = [m.raw for m in (*commits, *others, *pair)]
            self._broadcast(list(dict.fromkeys(raws)))
        self._acks_conflict(voter, step)

    def _live_at_start(self, step: int) -> frozenset[int]:
        """The live seats when ``step`` began, before any drop at it (the same at every
        peer: part of the agreed history before the step).  A seat dropped at the step for
        silence still split it if it named the other version first: a peer that applied
        the round without it decides again, as its acknowledgement reached another peer
        before the drop (it can only have been an honest seat that took the other COMMIT,
        then fell silent, or a liar that named our version nowhere)."""
        live = self._history[step].live
        box = self._boxes.get(step)
        return live if box is None else live | box.dropped_now

    def _round_families(
        self, step: int
    ) -> tuple[dict[int, frozenset[bytes]], dict[int, frozenset[bytes]]] | None:
        """For each seat with a late proof at ``step``: the vectors an acknowledgement of
        the COMMITs we hold there may name that hold that seat's COMMIT, and the same with
        its other version (see lanTag.session.round_evidence).  A vector without it says
        nothing about which version its signer took.  None while we lack a live seat's
        commitment."""
        box = self._boxes.get(step)
        if box is None:
            return None
        snap = self._history[step]
        needs = needs_for(snap.state.decision(), self._live_at_start(step))
        if needs.kind is not NeedKind.SECRET:
            return None
        held = {**box.dropped_commits, **box.of(MsgType.COMMIT)}
        live = {s for s in needs.humans if s in snap.live}
        if not all(s in held for s in live):
            return None
        digests = {s: held[s].digest for s in needs.humans if s in held}
        ours: dict[int, frozenset[bytes]] = {}
        swapped: dict[int, frozenset[bytes]] = {}
        for (seat, at), (took, _sealed, other) in self.late.commits.items():
            if at == step and digests.get(seat) == took:
                ours[seat], swapped[seat] = families(digests, live, seat, other)
        return ours, swapped

    def _acks_at(self, step: int) -> dict[int, list[tuple[bytes, Signed]]]:
        """(vector, message) of every acknowledgement each seat signed on our state at
        ``step``: its REVEAL and round HAVE we kept, and the second versions in proofs."""
        ours = self._history.hash_at(step)
        out: dict[int, list[Signed]] = {}
        for seat, key in enumerate(self._human_keys):
            if key is None:
                continue
            for kind, sub in _ACK_SLOTS:
                msg = self._slots.get((seat, (step, kind, sub, ours)))
                if msg is not None:
                    out.setdefault(seat, []).append(msg)
        for proof in self.convictions.proofs:
            for msg in proof:
                if msg.step == step and msg.state_hash == ours:
                    kept = out.setdefault(msg.seat, [])
                    if all(m.raw != msg.raw for m in kept):
                        kept.append(msg)
        return {seat: acknowledgements(msgs) for seat, msgs in out.items()}
