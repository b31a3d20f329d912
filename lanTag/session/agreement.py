"""Agreement on silence and on cheating: nudges, binding votes, drops, rollback, equivocation.

protocol/SPEC.md §5.3-5.7.  A vote is binding: after it, a silent seat's message
for that step is taken only with a HAVE from another live seat; a drop needs
every live seat outside the dropped set to vote exactly that set.
"""

from __future__ import annotations

from lanTag.log.entries import EntryKind
from lanTag.session import events as ev
from lanTag.session.core import CONTRIBUTIONS, SessionCore
from lanTag.session.messages import (
    CLAIMS,
    MsgType,
    Signed,
    contradiction,
    reveal_vector,
    sign_message,
)
from lanTag.session.referee import NeedKind, Needs, needs_for
from lanTag.session.steps import (
    ROUND_SUBJECT,
    Snapshot,
    StepBox,
    leaves_half,
    may_be_decided,
)
from lanTag.session.unplayed import left_out, outvoted

# A round HAVE names at most 8 vectors (a HAVE's digest list): one per drop during the round.
MAX_ROUND_VECTORS = 8
_NONE: frozenset[int] = frozenset()


class Agreement:
    """Votes, nudges, HAVE relays, drops, rollbacks and equivocation proofs: a part of the
    Session, over the ``core`` it shares with the other parts (the session's history,
    inbox and books, and the helpers that sign and send; lanTag.session.core)."""

    # (snapshot, box, version key, missing seats) of the last ``missing`` computation.
    _missing_cache: tuple[Snapshot, StepBox, tuple[MsgType, int], frozenset[int]] | None = None

    def __init__(self, core: SessionCore) -> None:
        self.core = core

    def register_late(self, msg: Signed, box: StepBox) -> None:
        """A vote, nudge or HAVE about a step we already decided: for relays and rollback."""
        if msg.type in (MsgType.VOTE, MsgType.NUDGE):
            self.register_request(msg, box)
        else:
            self.register_have(msg, box)

    def register_request(self, msg: Signed, box: StepBox) -> None:
        box.register_request(msg)
        self.core.vote_book.request_steps.add(msg.step)
        if msg.type == MsgType.VOTE and msg.seat == self.core.seat:
            # Our own vote binds us, whichever history it was sent on (the others count
            # it), and the verifier replaying our log learns the binding from it.
            self.core.vote_book.bound.setdefault(msg.step, set()).add(frozenset(msg.payload[0]))

    def bound_at(self, step: int) -> frozenset[int]:
        """The seats our votes at ``step`` bind us to (SPEC §5.4): we take their messages
        there only with another live seat's HAVE.  From protocol 6 on, a vote no drop could
        ever be decided from (it would leave less than half of the table) binds nothing:
        each of our votes there counts, the superseded ones too (a peer may decide from
        one it holds before our latest), and the live seats are the step's current ones
        (a drop or a ban there only takes seats away, so such a vote stays undecidable)."""
        votes = self.core.vote_book.bound.get(step)
        if not votes:
            return _NONE
        if not self.core.features.unpassable_vote:
            return frozenset().union(*votes)
        snap = self.core.history[step]
        unplayed, stay = self.unplayed_at(step)
        return frozenset().union(
            *(v for v in votes if may_be_decided(v, snap.live, unplayed, stay))
        )

    def register_have(self, have: Signed, box: StepBox) -> None:
        subject = int(have.payload[0])
        box.haves.setdefault(subject, {})[have.seat] = have
        if subject == ROUND_SUBJECT:
            box.round_dirty.add(have.seat)
        if self.core.replay:
            # A replay relays nothing.  The HAVE itself only matters to the step it is for:
            # it frees a bound seat's message (``StepBox.covered``) or makes our own move
            # final (``_own_final``), both read for the current step only; so a replay does
            # not even register a HAVE for an older step (Session.receive_parsed).
            return
        mine = box.accepted_of(subject)
        if mine and any(m.digest not in have.payload[1] for m in mine):
            # They took a different message from the same seat: show them ours (the proof).
            self.core._broadcast([m.raw for m in mine])

    def missing(self) -> frozenset[int]:
        """Seats whose message the current step waits for (acks of our own move included).

        Called for every datagram (``next_timer``), so the set is cached.  It depends only
        on the current snapshot (needs, live seats), the current step's box, and which
        seats that box holds for one table: the MOVE / HAVE acks of our move, ENTROPY,
        COMMIT or REVEAL.  Under one snapshot those tables only gain seats (a drop, which
        removes some, installs a new snapshot; a rollback a new box), so the table's size
        is its version.  The snapshot and box themselves are kept in the key, compared by
        identity.
        """
        snap = self.core.history.current
        needs = self.core.needs()
        box = self.core._box(self.core.step)
        if needs.kind in (NeedKind.OVER, NeedKind.BOT_TURN):
            return _NONE
        if needs.kind is NeedKind.TURN:
            move = box.of(MsgType.MOVE).get(needs.humans[0])
            if move is not None and move.seat == self.core.seat:
                key = (MsgType.HAVE, len(box.haves.get(move.seat, ())))
            else:
                key = (MsgType.MOVE, move is None)
        else:
            if needs.kind is NeedKind.ENTROPY:
                kind = MsgType.ENTROPY
            else:
                kind = MsgType.REVEAL if self.core._commits_complete(box, needs) else MsgType.COMMIT
            got = box.of(kind)
            key = (kind, len(got))
            if kind is MsgType.REVEAL and len(got) >= len(needs.humans):
                return frozenset(self._missing_fresh())  # the acks change with HAVEs
        cached = self._missing_cache
        if cached is not None and cached[0] is snap and cached[1] is box and cached[2] == key:
            return cached[3]
        missing = frozenset(self._missing_fresh())
        self._missing_cache = (snap, box, key, missing)
        return missing

    def _missing_fresh(self) -> set[int]:
        """``missing`` computed from scratch (the definition; tests compare the two)."""
        needs = self.core.needs()
        box = self.core._box(self.core.step)
        if needs.kind in (NeedKind.OVER, NeedKind.BOT_TURN):
            return set()
        if needs.kind is NeedKind.TURN:
            move = box.of(MsgType.MOVE).get(needs.humans[0])
            if move is not None and move.seat == self.core.seat:
                acked = set(box.haves.get(move.seat, {}))
                return {s for s in self.core.live if s != self.core.seat and s not in acked}
            return {s for s in needs.humans if move is None and s != self.core.seat}
        if needs.kind is NeedKind.ENTROPY:
            kind = MsgType.ENTROPY
        else:
            kind = MsgType.REVEAL if self.core._commits_complete(box, needs) else MsgType.COMMIT
        got = box.of(kind)
        missing = {s for s in needs.humans if s not in got and s != self.core.seat}
        if kind is MsgType.REVEAL and not missing:
            # Every reveal is in; the round waits for the others' acknowledgements (§4.4),
            # and (protocol 6) for what explains a REVEAL signed before a drop (§5.5).
            snap = self.core.history.current
            missing = set(
                self.core.round_acks.lacking(box, needs, snap, self.core.step, self.core.seat)
            )
            dropped = self.dropped_at_this_step(needs)
            if dropped:
                unexplained = self.core.absence.withheld_reveals(
                    box, needs, dropped, self.core.step
                )[1]
                missing |= {s for s in unexplained if s != self.core.seat}
        return missing

    def vote(self, silent: frozenset[int], now: float) -> None:
        box = self.core._box(self.core.step)
        mine = box.votes.get(self.core.seat) if self.core.seat is not None else None
        if mine is not None and frozenset(mine.payload[0]) == silent:
            self.core.vote_book.seq[self.core.step] = (
                self.core.vote_book.seq.get(self.core.step, 0) + 1
            )
            # The same bytes again: a peer cut off longer than its links live lost them,
            # and a peer that dropped us meanwhile answers them with the proof (SPEC §5.4).
            self.core._broadcast([mine.raw])
            return
        if not self.core._request_room(MsgType.VOTE):
            return  # a 33rd vote at one step would convict us of a flood: keep the last one
        seq = self.core.vote_book.seq.get(self.core.step, 0) + 1
        self.core.vote_book.seq[self.core.step] = seq
        self.core.vote_book.bound.setdefault(self.core.step, set()).add(silent)
        self.core._emit(MsgType.VOTE, (sorted(silent), seq), now)

    def answer_votes(self, now: float) -> None:
        """Relay what a voter lacks: HAVE + the subject's messages and acknowledgements, once
        per new vote, and again when what we hold of them grew since (a relay sent before
        the subject's last HAVE reached us lacked it, and a requester repeating its vote
        sends the same bytes: it would wait for it forever)."""
        if self.core.replay or self.core.seat is None or self.core.seat not in self.core.live:
            return
        for step in self._recent_request_steps():
            box = self.core.inbox.boxes.get(step)
            if box is None or not (box.votes or box.nudges):
                continue
            requests = sum(m.payload[1] for m in [*box.votes.values(), *box.nudges.values()])
            for subject in box.requested():
                if subject in self.bound_at(step):
                    continue
                answered, relayed = box.haves_sent.get(subject, (0, 0))
                held = len(box.accepted_of(subject)) + len(_acks_of(box, subject))
                if held and (answered < requests or relayed < held):
                    box.haves_sent[subject] = (requests, held)
                    self.send_have(subject, now, step, relay=True)

    def _recent_request_steps(self) -> list[int]:
        """Steps (the current one and up to 64 back) where someone voted or nudged."""
        low = self.core.step - 64
        return sorted(k for k in self.core.vote_book.request_steps if low <= k <= self.core.step)

    def send_have(self, subject: int, now: float, step: int | None = None, *, relay: bool) -> None:
        if self.core._signer is None or self.core.seat is None:
            return  # a replay or a spectator signs nothing
        step = self.core.step if step is None else step
        box = self.core._box(step)
        held = box.accepted_of(subject)
        # A relay also carries the subject's own acknowledgements at that step, before its
        # messages as on its own link: a secret round waits for them (SPEC §4.4).
        acks = _acks_of(box, subject) if relay else []
        if not held:
            if acks:
                self.core._broadcast(acks)
            return
        digests = [m.digest for m in held][:8]
        state = self.core.history[step].state if step < len(self.core.history) else self.core.state
        have = sign_message(
            self.core._signer,
            MsgType.HAVE,
            self.core.game_id,
            step,
            self.core.seat,
            state.state_hash(),
            (subject, digests),
            version=self.core.record.protocol,
        )
        self.core._record_own(have)
        box.haves.setdefault(subject, {})[self.core.seat] = have
        if not relay:
            self.core._broadcast([have.raw])
            return
        # Protocol 6: the COMMITs of seats dropped at that step go too: a REVEAL signed before
        # their drop names them, and a peer that lacks one cannot tell whether they withheld.
        dropped = [c.raw for c in box.dropped_commits.values()]
        if not self.core.features.withheld:
            dropped = []
        self.core._broadcast([have.raw, *acks, *(m.raw for m in held), *dropped])

    def apply_drops(self, now: float) -> bool:
        """Apply a unanimous drop for the current step, or roll back to an older one first."""
        if self.core.late.commits:
            if self.core.features.collusion:
                back = self.core.late_judge.judge_late_proofs()
                if back is not None:
                    self.rollback(back)  # a round applied here is split after all
                    return True
            else:
                self.core.late_judge.ban_split_rounds()
        if self.core.handback.admitted and self._void_admissions():
            return True
        if self.core.vote_book.left_out and self._outvoted_back():
            return True
        if not self.core.convictions.banned and not self.core.vote_book.request_steps:
            return False  # no proven equivocation, no vote: the loops below find nothing
        held = self.core.convictions.banned
        banned = frozenset(
            s for s, k in held.items() if k <= self.core.step and s in self.core.live
        )
        if banned:
            self.drop(banned, self.core._box(self.core.step), code="equivocation")
            return True
        for step in self._recent_request_steps():
            box = self.core.inbox.boxes.get(step)
            if box is None or not box.votes:
                continue
            live = self.core.history[step].live
            unplayed, stay = self.unplayed_at(step)
            silent = box.unanimous_silent(live, unplayed, stay)
            if silent is None:
                continue
            if step < self.core.step:
                if self._drop_late(silent, box, step):
                    return True  # protocol 5: nothing decided since depended on them
                # A seat that was itself voted silent (or a voter that still counted the
                # seat's acknowledgements) is past that step: it must take the drop at the
                # agreed step, so it redecides from there.
                self.rollback(step)  # the requeued votes then decide the drop at `step`
                return True
            if not leaves_half(silent, live):  # seats that never played left out (SPEC §5.4)
                self.core.vote_book.left_out[step] = (silent, stay, live)
            self.drop(silent, box)
            return True
        return False

    def unplayed_at(self, step: int) -> tuple[frozenset[int], frozenset[int]]:
        """(the seats a drop at ``step`` may leave out of the half-the-table count, the seats
        that must stay for that): lanTag.session.unplayed, off at a step where the seats
        left out there were found playing on without us."""
        snap = self.core.history[step]
        if step in self.core.vote_book.rule_off:
            return _NONE, _NONE
        at_roll = needs_for(snap.state.decision(), snap.live).kind is NeedKind.ENTROPY
        return left_out(self.core.record.protocol, at_roll, snap.live, snap.played, self.core.seat)

    def _outvoted_back(self) -> bool:
        """A drop that left seats out of the count, whose seats have since voted us (or the
        host) out by the ordinary rule: we were the ones cut off.  The rule is off at that
        step from now on, and we decide again from there (their votes then drop us, as they
        would have without the rule).  True when it rolled back."""
        for step, (silent, stay, live) in sorted(self.core.vote_book.left_out.items()):
            later = [k for k in self.core.vote_book.request_steps if k >= step]
            if outvoted(self.core.inbox.boxes, later, silent, stay, live):
                self.core.vote_book.rule_off.add(step)
                self.rollback(step)
                # Decided again from the step's start: the seats left out live again there.
                self.core.history.set_live(step, live)
                return True
        return False

    def drop(
        self, silent: frozenset[int], box: StepBox, code: str = "timeout", at: int | None = None
    ) -> None:
        """Drop ``silent`` now; ``at``: the step of the votes that decided it (its blame's
        step, SPEC §7), our step by default.  What that step asked of the seats (before
        the drop) names the drop: timeout, left or (protocol 6) withheld, SPEC §5.5."""
        snap = self.core.history.current
        needs = self.core.needs()  # what the step asked of the seats before the drop
        if at is not None and at < self.core.step:  # a drop taken after its step (§5.4)
            agreed = self.core.history[at]
            needs = needs_for(agreed.state.decision(), agreed.live)
        self.core.history.set_live(self.core.step, snap.live - silent)
        box.dropped_now = box.dropped_now | silent
        box.drop_batches.append(silent)
        if self.core.seat is not None and self.core.seat in silent:
            self.core.handback.dropped_again(
                self.core.seat
            )  # asked back once and let in: it stays out
        left = tuple(s for s in sorted(silent) if s in self.core.handback.leaves)
        for s in sorted(silent):
            if code == "timeout":
                self.core.absence.blame_absence(s, needs, self.core.step, self.core.state, at)
        self.core.journal.events.append(
            ev.SeatsDropped(self.core.step, tuple(sorted(silent)), left)
        )
        if not self.core.replay and self.core.seat in snap.live - silent:
            # The proof goes to everyone, the dropped seats included, so nobody waits forever.
            self.core._broadcast([v.raw for v in box.votes.values()])
        _forget(box, silent)
        box.drop_proof.extend(box.votes.values())  # kept for peers that catch up later
        box.votes.clear()
        if not self.core.replay and self.core._signer is not None and self.core.seat in silent:
            # We learn our own drop (maybe long after it, SPEC §5.5): ask for the rest.
            self.core._send_sync()

    def _void_admissions(self) -> bool:
        """A conviction we learnt covers a step at or before an admission we applied
        (protocol 5, SPEC §5.6): decide again from that admission's step, where it is now
        void; every peer does the same once the proof reaches it.  True when it rolled back."""
        for step, seat in self.core.handback.admissions():
            if step < self.core.step and self.core.convictions.since(seat, step):
                self.rollback(step)
                return True
        return False

    def _drop_late(self, silent: frozenset[int], box: StepBox, step: int) -> bool:
        """Protocol 5 (SPEC §5.4): a drop agreed at ``step``, which we already decided, of
        seats that had no part in any step we decided since (not among the seats any of
        those decisions asked: a bystander of a secret round whose acknowledgement we
        counted, typically a convicted liar we had voted silent) is taken at our current
        step, without a rollback.  Every step from ``step`` on is decided as it would have
        been with the drop there (the same inputs; the live seats only decide who must
        acknowledge, and a bot plays the seats from here on at every peer), so the states
        stay the same everywhere; the log's votes show where it was taken."""
        if not self.core.features.late_proof:
            return False
        if self._asked_since(silent, step):
            return False  # a decision they took part in would change: redecide it
        still = silent & self.core.live
        if not still:  # taken already: the votes are only a proof now
            box.drop_proof.extend(box.votes.values())
            box.votes.clear()
            return True
        self.drop(still, box, at=step)  # (they had no part at that step: never withheld)
        current = self.core._box(self.core.step)
        _forget(current, still)  # from here on a bot plays them, as elsewhere
        return True

    def _asked_since(self, seats: frozenset[int], step: int) -> bool:
        """A step from ``step`` on that we decided asked one of ``seats`` for its input:
        dropping them there instead of now would change that decision."""
        for k in range(step, self.core.step):
            snap = self.core.history[k]
            if seats & set(needs_for(snap.state.decision(), snap.live).humans):
                return True
        return False

    def dropped_at_this_step(self, needs: Needs) -> set[int]:
        return set(self.core._box(self.core.step).dropped_now) & set(needs.bots)

    def rollback(self, step: int) -> None:
        """Forget steps from ``step`` on and decide them again from the messages we hold.

        Happens when the others agreed we were silent at a step we had already decided
        with our own contribution, or when a seat proved to have equivocated there.
        Every message of those steps we ever logged is looked at again, each in its own
        step's box and in arrival order: the ones we refused on the abandoned history
        (a state hash of the new history, a move that was out of turn there) may be
        exactly what the new history needs, and their relays are duplicates.
        """
        self.core.history.forget_after(step)
        dropped = (
            self.core.inbox.boxes[step].dropped_now if step in self.core.inbox.boxes else _NONE
        )
        if (
            dropped
            and self.core.features.collusion
            and any(at == step for _seat, at in self.core.late.commits)
        ):
            # A late proof's round decided again (protocol 6: a split undone, §5.7) is
            # decided from the step's start: its drops too (the votes and proofs that made
            # them are looked at again), else a seat dropped there with its default or
            # forfeit would be played by the bot.  (Other rollbacks keep protocol 5's way.)
            self.core.history.set_live(step, self.core.history[step].live | dropped)
        self.core.inbox.reopen_from(step)
        self.core.claims.forget_desyncs()
        self.core.vote_book.forget_from(step)  # my votes and the seats left out: decided again
        self.core.handback.forget_from(step)  # decided again from the messages, like the rest
        self.core.sealed.reopen_after(step)  # ours again where our COMMIT is taken again
        self.core.log.append(step, EntryKind.NOTE, ["rollback", [], "redecide from here"])

    def weigh_state_hash(self, msg: Signed, step: int) -> None:
        """A state hash is a signed claim (SPEC §5.8).  One that differs from ours for a step
        we decided is forwarded, so every peer checks it against its own state; two of one
        seat for one step that no rollback explains convict the seat (``desync``)."""
        if msg.type not in CLAIMS:
            return
        first = self.core.claims.first(msg)
        if contradiction(first, msg) != "desync":
            ours = self.core.history.hash_at(msg.step) if msg.step < step else None
            if ours is not None and ours != msg.state_hash and not self.core.replay:
                self.core._broadcast([msg.raw])  # evidence: the others hold its other claims
            return
        if msg.seat in self.core.convictions.contradicted or msg.seat not in self.core.live:
            return
        if any(k < msg.step for k in self.core.convictions.banned.values()):
            return  # a rollback after a proven equivocation changes later hashes
        self.core.convictions.contradicted.add(msg.seat)
        self.core.convictions.liars_at.setdefault(msg.seat, msg.step)
        self.core._blame(
            msg.seat, "desync", f"signed two state hashes for step {msg.step}", msg.step
        )
        self.core.convictions.proofs.append((first, msg))
        if not self.core.replay:
            self.core._broadcast([first.raw, msg.raw])

    def acknowledge_round(self, box: StepBox, needs: Needs) -> None:
        """Protocol 6: every commitment of the round is in (our REVEAL, if we have one to
        send, went out first and names the vector we hold).  Without a REVEAL naming it, sign
        a round HAVE naming the vector (it grows, never changes, when a drop changes the
        vector), and show our commitments to each seat that named another vector on our
        state: if a seat signed two COMMITs, its two versions meet there as a proof before
        any honest peer applies the round (nobody applies it without every live seat naming
        its own vector).  Extra traffic is spent only when something is wrong."""
        if self.core.replay or self.core._signer is None or self.core.seat is None:
            return
        snap = self.core.history.current
        if self.core.seat not in snap.live:
            return
        vector = self.core.round_acks.vector(box, needs)
        ours = self.core._state_hash(snap.state)
        slots = self.core.inbox.slots
        mine = slots.get((self.core.seat, (self.core.step, int(MsgType.REVEAL), 0, ours)))
        have = slots.get((self.core.seat, (self.core.step, int(MsgType.HAVE), ROUND_SUBJECT, ours)))
        named = list(have.payload[1]) if have is not None else []  # maybe before a rollback
        if (
            vector not in named
            and (mine is None or reveal_vector(mine) != vector)
            and len(named) < MAX_ROUND_VECTORS
        ):
            have = sign_message(
                self.core._signer,
                MsgType.HAVE,
                self.core.game_id,
                self.core.step,
                self.core.seat,
                ours,
                (ROUND_SUBJECT, [*named, vector]),
                version=self.core.record.protocol,
            )
            self.core._record_own(have)
            box.haves.setdefault(ROUND_SUBJECT, {})[self.core.seat] = have
            self.core._broadcast([have.raw])
        claims = self.core.round_acks.claims(box, ours)
        if box.round_checked != vector:  # a new vector of ours: every claim is news
            box.round_checked = vector
            box.round_unchecked.update(claims)
        for voter in box.round_unchecked - {self.core.seat}:
            claim = claims.get(voter, frozenset())
            if claim and vector not in claim and (voter, claim) not in box.round_shown:
                box.round_shown.add((voter, claim))
                held = box.of(MsgType.COMMIT)
                self.core._broadcast([held[s].raw for s in needs.humans if s in held])
        box.round_unchecked.clear()

    def convict_flood(self, msg: Signed) -> None:
        """``msg`` is one VOTE or NUDGE more than the bound for its seat and step (SPEC §5.3):
        with the ones we kept it proves a flood.  Blame the seat (`flood`), send the proof
        to every peer (each counts it against the same bound) and vote the seat out at the
        first step that waits for it, like a convicted liar (§5.2)."""
        self.core.convictions.flooded(msg.seat, msg.step, self.core.live)
        kept = [
            m
            for (seat, _slot), m in self.core.inbox.slots.items()
            if seat == msg.seat and m.step == msg.step and m.type == msg.type
        ]
        why = f"over {len(kept)} {msg.type.name}s for step {msg.step}"
        self.core._blame(msg.seat, "flood", why, msg.step)
        if not self.core.replay:
            self.core._broadcast([*(m.raw for m in kept), msg.raw])

    def vote_contradicted(self, now: float) -> None:
        """A convicted liar whose input this step needs is voted silent at once: the drop
        is the ordinary agreement of §5.4, decided where every live peer holds the proof."""
        if not self.core.convictions.contradicted or self.core.replay or self.core.seat is None:
            return  # (the usual case first: this runs on every pump)
        if self.core.seat not in self.core.live:
            return
        box = self.core._box(self.core.step)
        if box.started_at is None or self.core.seat in box.votes:
            return
        liars = self.missing() & self.core.convictions.contradicted & self.core.live
        if liars:
            self.vote(frozenset(liars), now)

    def equivocation(self, first: Signed, second: Signed) -> None:
        """Keep the proof, tell everyone, and take the seat out from that step on."""
        self.core.convictions.proofs.append((first, second))
        self.core.late_judge.note_cheat(second.seat, second.step)
        self.core.log.append(second.step, EntryKind.MSG, second.raw)
        why = f"two different {second.type.name} for step {second.step}"
        self.core._blame(second.seat, "equivocation", why, second.step)
        if not self.core.replay:
            self.core._broadcast([first.raw, second.raw])
        if second.type not in CONTRIBUTIONS:
            return
        if self.core.features.ordered_proofs:
            # Protocol 6: the conviction's step is the earliest proven, whatever the order
            # the proofs came in (SPEC §5.7): a proof of an earlier step moves it back.
            moved = self.core.late_judge.contribution_proof(first, second)
            if moved and second.step < self.core.step and self._redecide(second.seat, second.step):
                self.rollback(second.step)
            return
        if second.seat in self.core.convictions.banned:
            return  # convicted already (protocol 5 and older: whichever proof came first)
        if self.core.late_judge.late_proof(first, second):
            return  # protocol 5: the round's acknowledgements decide, not the proof
        self.core.convictions.banned[second.seat] = second.step
        if second.step < self.core.step and self._redecide(second.seat, second.step):
            self.rollback(second.step)

    def _redecide(self, seat: int, step: int) -> bool:
        """Whether a ban at ``step``, an older step than ours, changes a decision we took.
        Protocol 5: only one that took the seat's input at that very step (else it was
        dropped where the peer stood when it learnt the proof: two peers that learnt it at
        two steps dropped it at two).  Protocol 6: any decision since that asked the seat,
        so every peer drops it at ``step``, or where nothing it could give changed."""
        if not self.core.features.ordered_proofs:
            return bool(self.core.inbox.boxes[step].accepted_of(seat))
        return self._asked_since(frozenset({seat}), step)


def _forget(box: StepBox, seats: frozenset[int]) -> None:
    """Take dropped seats' contributions out of ``box``; their COMMITs stay known as dropped
    ones (a round HAVE signed before the drop names them, SPEC §4.4)."""
    box.round_dirty |= seats  # their REVEALs no longer name anything here
    for kind in CONTRIBUTIONS:
        for s in seats:
            msg = box.of(kind).pop(s, None)
            if msg is not None and kind is MsgType.COMMIT:
                box.dropped_commits[s] = msg


def _acks_of(box: StepBox, seat: int) -> list[bytes]:
    """The HAVEs ``seat`` signed in ``box`` (its acknowledgements at that step)."""
    return [h.raw for by_voter in box.haves.values() for v, h in by_voter.items() if v == seat]
