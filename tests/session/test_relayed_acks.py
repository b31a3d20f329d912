"""A relayed acknowledgement never beats the COMMIT copy it implies (protocol 4, SPEC §4.4, §5.8).

The cheater (seat 2) sends commitment A to seat 0 and commitment B to seat 1, then relays
to seat 0 everything seat 1 signs (its COMMIT, its HAVEs, its REVEAL) at once, while seat
1's own link to seat 0, which carries the copy of B, is held back.  Protocol 3 applied the
round at seat 0 with A (every REVEAL in) and rolled it back to the cheater's forfeit when B
arrived; protocol 4 counts seat 1's HAVE only for the commitment it names (B, not the A
seat 0 holds), so seat 0 waits, the two COMMITs meet, and the round is decided once.
"""

from __future__ import annotations

import heapq

from lanTag.fair.commit import commitment
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import FORFEIT
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, sign_message
from lanTag.wire import pack
from tests.session.harness import SimNet, addr_of, make_record, make_sessions, reveal_payload
from tests.session.test_cheats import _events, _inject

VICTIM, WITNESS, CHEAT = 0, 1, 2


class _SlowLink(SimNet):
    """SimNet whose datagrams from ``slow[0]`` to ``slow[1]`` wait in order until released."""

    slow: tuple[int, int] | None = None
    held: list[tuple[bytes, tuple[str, int]]]

    def flush(self) -> None:
        if self.slow is None:
            return super().flush()
        src, dst = self.slow
        session = self.sessions[src]
        real = session.datagrams_to_send

        def keep_slow(now: float) -> list[tuple[bytes, tuple[str, int]]]:
            out = real(now)
            self.held.extend((d, a) for d, a in out if a == addr_of(dst))
            return [(d, a) for d, a in out if a != addr_of(dst)]

        session.datagrams_to_send = keep_slow  # type: ignore[method-assign]
        try:
            super().flush()
        finally:
            del session.datagrams_to_send

    def release(self) -> None:
        """Deliver what the slow link held, in order, then let it run normally."""
        assert self.slow is not None
        src, dst = self.slow
        for data, _addr in self.held:
            self._seq += 1
            heapq.heappush(self.queue, (self.now + self.delay, self._seq, dst, data, addr_of(src)))
        self.held, self.slow = [], None


def _signed_by(session: Session, seat: int, step: int) -> list[Signed]:
    """The messages ``seat`` signed at ``step`` that ``session`` logged, in that order."""
    return [m for m in session.inbox.slots.values() if m.seat == seat and m.step == step]


def test_a_relayed_acknowledgement_ahead_of_its_commit_copy_never_applies_the_round() -> None:
    record, ids, secrets = make_record("toy", 3, seed="relayfirst")
    sessions = make_sessions(record, ids, secrets)
    net = _SlowLink(sessions, seed=11)
    net.held = []
    net.hold_secret.update({VICTIM, WITNESS, CHEAT})
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(CHEAT)
    net.slow = (WITNESS, VICTIM)
    cheat = sessions[CHEAT]
    h = cheat.state.state_hash()
    link = cheat._chain.reveal(cheat.history[-1].chain_used[CHEAT] + 1)  # type: ignore[union-attr]
    for victim, guess in ((VICTIM, 1), (WITNESS, 2)):
        nonce = bytes([guess]) * 32
        sealed = commitment(cheat.game_id, 1, CHEAT, "guess", nonce, pack(["guess", guess]))
        c = sign_message(ids[CHEAT].signer(), MsgType.COMMIT, cheat.game_id, 1, CHEAT, h, (sealed,))
        payload = reveal_payload(sessions, 1, ["guess", guess], nonce, link, {CHEAT: c})
        r = sign_message(ids[CHEAT].signer(), MsgType.REVEAL, cheat.game_id, 1, CHEAT, h, payload)
        for msg in (c, r):
            _inject(sessions[victim], msg.raw, CHEAT, net.now)
    net.hold_secret.clear()
    witness = sessions[WITNESS]
    net.run_until(lambda: WITNESS in witness._box(1).of(MsgType.REVEAL))
    # The cheater relays to the victim what the witness signed, ahead of the slow link.
    relayed = [m for m in _signed_by(witness, WITNESS, 1) if m.type is not MsgType.VOTE]
    # (Its acknowledgement: a HAVE of our COMMIT up to protocol 5, its REVEAL's vector in 6.)
    assert {m.type for m in relayed} >= {MsgType.COMMIT, MsgType.REVEAL}
    for msg in relayed:
        _inject(sessions[VICTIM], msg.raw, CHEAT, net.now)
    net.run_until(lambda: sessions[VICTIM].step > 1 or not net.queue)
    applied_early = [e for e in _events(net, VICTIM, ev.StepApplied) if e.step == 1]
    assert applied_early == []  # the witness's HAVE names B: not an acknowledgement of our A
    net.release()
    net.run_until(lambda: sessions[VICTIM].state.is_over and witness.state.is_over)
    assert sessions[VICTIM].state.state_hash() == witness.state.state_hash()
    for s in (VICTIM, WITNESS):
        applied = [e for e in _events(net, s, ev.StepApplied) if e.step == 1]
        assert len(applied) == 1 and applied[0].input.of(CHEAT) == FORFEIT, (s, applied)
        blames = {(e.seat, e.code) for e in _events(net, s, ev.Blame)}
        assert (CHEAT, "equivocation") in blames and {b for b, _ in blames} == {CHEAT}, blames
        log = sessions[s].take_log()
        notes = [e.data[0] for e in parse_log(log).entries if e.kind == EntryKind.NOTE]
        assert "rollback" not in notes, s
        report = verify_log(log)
        assert report.valid and report.complete, report.failure


def test_a_rollback_to_the_same_state_keeps_our_sealed_choice() -> None:
    # A rollback re-decides steps from the messages we hold, our own COMMIT included; when
    # the new history reaches the same state at a secret step, that COMMIT is ours again
    # and so is its choice.  Forgetting it made the seat seal a second choice there: two
    # COMMITs of one slot, and every peer convicted an honest seat of `equivocation`
    # (seen in the real-process false-hash table, where a drop re-decides a step).
    record, ids, secrets = make_record("toy", 3, seed="resealed")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.update({1, 2})
    me = sessions[0]
    net.run_until(lambda: me.step == 1 and 0 in me._box(1).of(MsgType.COMMIT))
    mine = me._box(1).of(MsgType.COMMIT)[0]
    assert me.my_turn() is None  # sealed
    me.agreement.rollback(0)  # as after a drop or a proof at step 0
    me._pump(net.now)
    assert me.step == 1 and me._box(1).of(MsgType.COMMIT)[0] == mine  # the same state
    assert me.my_turn() is None  # still sealed: no second choice asked for
    net.hold_secret.clear()
    net.run_until(lambda: all(s.state.is_over for s in sessions))
    assert len({s.state.state_hash() for s in sessions}) == 1
    for s in range(3):  # (the rollback here has no cause a log could show: no verify)
        assert not [e for e in _events(net, s, ev.Blame) if e.code == "equivocation"], s
