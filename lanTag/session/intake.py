"""What a step takes of the messages pending for it: each one accepted, refused (and
blamed) or left waiting, and what taking it sets off (our acknowledgements, our REVEAL once
every commitment is in).  protocol/SPEC.md §4.4, §5.1-5.2, §5.7.  Pure like the rest.
"""

from __future__ import annotations

from lanTag.fair.commit import opens
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.rules.base import IllegalAction
from lanTag.session.agreement import Agreement
from lanTag.session.core import SessionCore
from lanTag.session.messages import SPECS, MsgType, Signed, reveal_value
from lanTag.session.referee import Needs
from lanTag.session.sealed_choices import Choice
from lanTag.session.steps import Snapshot, StepBox, protocol_1_faults

_ACKED = tuple(t for t, s in SPECS.items() if s.acknowledged)  # every other live peer HAVEs
_NO_SEATS: frozenset[int] = frozenset()


class Intake:
    """Which pending message of the current step its box takes: a part of the Session,
    over the ``core`` it shares with the other parts and the ``agreement`` (votes, HAVEs,
    the binding of our votes)."""

    def __init__(self, core: SessionCore, agreement: Agreement) -> None:
        self.core = core
        self.agreement = agreement

    def accept_pending(self, box: StepBox, now: float) -> bool:
        progressed = False
        still: list[Signed] = []
        for msg in box.pending:
            if self._try_accept(msg, box, now):
                progressed = True
            else:
                still.append(msg)
        box.pending = still
        # Old-step votes and haves concern relays only; future ones wait for their step.
        return progressed

    def _try_accept(self, msg: Signed, box: StepBox, now: float) -> bool:
        """True when ``msg`` was consumed (accepted or refused), False to keep waiting."""
        if msg.step != self.core.step:
            return False
        snap = self.core.history.current
        if msg.seat not in snap.live:
            ours = self.core._state_hash(snap.state)
            if not self.core.absence.take_dropped_commit(msg, box, ours):  # (protocol 6, SPEC §5.5)
                self.core._count("from-dropped-seat")
            return True
        if msg.type in (MsgType.VOTE, MsgType.NUDGE):
            self.agreement.register_request(msg, box)
            return True
        if msg.type == MsgType.HAVE:
            if self.core._check_hash(msg, snap) or not self._holds_true_have(msg, box, snap):
                self.agreement.register_have(msg, box)
            return True
        if not self.core._check_hash(msg, snap):
            return True  # before out-of-turn: a message from another history is stale, no more
        if self.core.convictions.at(msg.seat, msg.step):
            self.core._count("from-convicted-seat")  # its contribution here is its forfeit
            return True
        needs = self.core.needs()
        if msg.seat not in needs.humans or not self.core._fits(msg.type, needs.kind):
            self.core._blame(msg.seat, "out-of-turn", f"{msg.type.name} not expected now", msg.step)
            return True
        if msg.type == MsgType.REVEAL and not self.core._commits_complete(box, needs):
            return False  # nobody's reveal is taken before every commitment is in
        bound = (
            self.agreement.bound_at(self.core.step) if self.core.seat in snap.live else _NO_SEATS
        )
        if self.core.convictions.contradicted and self.core.seat in snap.live:
            # a convicted liar: as if we voted it silent
            bound = bound | self.core.convictions.contradicted
        if (
            msg.seat in bound
            and msg.seat != self.core.seat
            and not box.covered(msg, snap.live, self.core.seat, bound)
        ):
            return False  # we voted this seat silent: only a HAVE from another peer frees it
        if msg.type == MsgType.MOVE:
            try:
                action = msg.action
                snap.state.check_action(msg.seat, action)
            except IllegalAction as exc:
                self.core._blame(msg.seat, "illegal-action", str(exc), msg.step)
                return True
            self.core.checked.mark(snap.state, msg.seat, action)
        elif msg.type == MsgType.ENTROPY:
            if not chain_step_ok(snap.chain_last[msg.seat], msg.payload[0]):
                why = "reveal does not hash to the previous link"
                self.core._blame(msg.seat, "bad-chain", why, msg.step)
                return True  # the seat stays silent for this draw; timeouts handle it
        elif msg.type == MsgType.REVEAL and not self._check_reveal(msg, box, needs, snap):
            return True  # convicted: dropped at this step, its share is its forfeit
        box.of(msg.type)[msg.seat] = msg
        if msg.type is MsgType.REVEAL:
            box.round_dirty.add(msg.seat)  # it names a vector of commitments (protocol 6)
        if msg.type == MsgType.MOVE and msg.seat == self.core.seat:
            box.own_move_at = now
        if msg.type == MsgType.COMMIT and msg.seat == self.core.seat:
            self._reseal(msg, needs)
        if (
            msg.type in _ACKED
            and self.core.seat in snap.live
            and self.core.seat != msg.seat
            and (msg.type is MsgType.MOVE or not self.core.features.round_acks)
        ):
            # The ack carries our hash; for a COMMIT it names the commitment we took, so two
            # commitments of one seat meet at a peer holding the other (SPEC §5.2, §5.7).
            # (Protocol 6 acknowledges the whole round once, commits_in.)
            if msg.type == MsgType.COMMIT:
                # ...and the COMMIT itself goes first: on each ordered link every commitment
                # we took precedes our REVEAL, so nobody applies the round holding another
                # one of them than we do (the two meet there: a proof, no rollback, §4.4).
                self.core._broadcast([msg.raw])
            self.agreement.send_have(msg.seat, now, relay=False)
        if msg.type == MsgType.COMMIT and self.core._commits_complete(box, needs):
            self.commits_in(box, needs, now)
        return True

    def commits_in(self, box: StepBox, needs: Needs, now: float) -> None:
        """Every commitment of the round is in: reveal ours, which in protocol 6 names the
        vector of commitments we hold; a seat with nothing to reveal names it in a round
        HAVE (SPEC §4.4)."""
        self.core._maybe_reveal(box, now)
        if self.core.features.round_acks:
            self.agreement.acknowledge_round(box, needs)

    def _holds_true_have(self, have: Signed, box: StepBox, snap: Snapshot) -> bool:
        """Protocol 5: we hold a HAVE of ``have``'s signer and subject on our state, which a
        HAVE with another state hash (a false claim, SPEC §5.2) must not replace: the round
        would wait for that acknowledgement for good (protocol 4 replaced it: the peer the
        false hash was sent to after the true one stalled and was voted out)."""
        if not self.core.features.late_proof:
            return False
        held = box.haves.get(int(have.payload[0]), {}).get(have.seat)
        return held is not None and held.state_hash == self.core._state_hash(snap.state)

    def _reseal(self, mine: Signed, needs: Needs) -> None:
        """Our COMMIT of this step taken again after a rollback (the new history reached the
        same state): the choice it seals is ours again, so we reveal it, never sealing a
        second one (two COMMITs of one slot would convict us of equivocation)."""
        step, sealed, purpose = self.core.step, mine.payload[0], needs.secret_kind

        def seals(choice: Choice) -> bool:
            action, nonce = choice
            value = self.core._action_bytes(action)
            return opens(sealed, self.core.game_id, step, mine.seat, purpose, nonce, value)

        self.core.sealed.take_back(step, seals)

    def _check_reveal(self, msg: Signed, box: StepBox, needs: Needs, snap: Snapshot) -> bool:
        """True for a good reveal; a bad one convicts its seat (SPEC §4.4): its signed COMMIT
        and this signed REVEAL are the proof, sent to every peer."""
        commit = box.of(MsgType.COMMIT)[msg.seat]
        action, nonce = msg.action, msg.payload[1]  # the parser's Action
        value = reveal_value(msg)  # == self.core._action_bytes(action), without a re-pack
        if not self.core.features.forfeit:  # blamed, the default taken, no conviction
            last = snap.chain_last[msg.seat]
            for code, why in protocol_1_faults(last, commit, msg, value, needs, snap.state):
                self.core._blame(msg.seat, code, why, msg.step)
                box.bad_reveals.add(msg.seat)
            return True
        if not chain_step_ok(snap.chain_last[msg.seat], msg.payload[2]):
            code, reason = "bad-chain", "reveal does not hash to the previous link"
        elif not opens(
            commit.payload[0],
            self.core.game_id,
            self.core.step,
            msg.seat,
            needs.secret_kind,
            nonce,
            value,
        ):
            code, reason = "bad-reveal", "reveal does not open its commitment"
            if self.core.late_judge.opens_other_commit(msg, needs.secret_kind):
                self.core._count("late-proof-reveal")  # refused, no conviction (SPEC §5.7)
                return False
        else:
            try:
                snap.state.check_action(msg.seat, action)
            except IllegalAction as exc:
                code, reason = "illegal-action", str(exc)
            else:
                self.core.checked.mark(snap.state, msg.seat, action)
                return True
        self.core._convict(msg.seat, self.core.step, code, reason, (commit, msg))
        return False
