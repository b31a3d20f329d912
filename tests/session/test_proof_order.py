"""One history whatever order the proofs arrive in (issue "[proofs]", SPEC §5.7): a seat
that signed two different MOVEs for each of two of its turns is convicted at the earlier of
the two steps at every honest peer, however the two proofs reach each.  Simulated table,
virtual time, no sleeps."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import FORFEIT
from lanTag.session import events as ev
from lanTag.session.features import FIRST_PROTOCOL, Features
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, pack_bundle, sign_message
from tests.session.harness import SimNet, addr_of, make_record, make_sessions, two_versions
from tests.support.table import final_history

CHEAT = 1


def _turns_of(humans: int) -> tuple[int, int]:
    """The toy game's steps at which seat CHEAT moves in rounds 1 and 2 (each round: a
    roll, a guess, then one turn per seat)."""
    per_round = 2 + humans
    first = 2 + CHEAT
    return first, first + per_round


def _other_move(session: Session, step: int, ids: list, honest: Signed) -> Signed:
    """A second MOVE of seat CHEAT at ``step``, legal there, other than the one it played."""
    state = session.state_at(step)
    assert state is not None
    other = next(a for a in state.legal_actions(CHEAT) if a != honest.action)
    return sign_message(
        ids[CHEAT].signer(),
        MsgType.MOVE,
        session.game_id,
        step,
        CHEAT,
        state.state_hash(),
        (other.to_msgpack(),),
        version=session.record.protocol,
    )


def _play(humans: int, orders: tuple[bool | None, ...], protocol: int | None = None) -> tuple:
    """The cheater's two proofs delivered to each honest peer (``orders``, one per honest
    seat: the earlier proof first, the later first, or None: not at all)."""
    record, ids, secrets = make_record("toy", humans, seed=f"proof-order/{humans}")
    if protocol is not None:
        record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    early, late = _turns_of(humans)
    net.run_until(lambda: all(s.step > late for s in sessions))
    net.silent.add(CHEAT)  # the cheater says nothing more itself
    played = {
        k: next(
            m
            for m in sessions[0].inbox.slots.values()
            if m.seat == CHEAT and m.step == k and m.type is MsgType.MOVE
        )
        for k in (early, late)
    }
    proofs = {k: _other_move(sessions[0], k, ids, played[k]) for k in (early, late)}
    honest = [i for i in range(humans) if i != CHEAT]
    for i, early_first in zip(honest, orders, strict=True):
        if early_first is None:
            continue  # it learns the proofs from the others
        for k in (early, late) if early_first else (late, early):
            sessions[i].receive_datagram(pack_bundle([proofs[k].raw]), addr_of(CHEAT), net.now)
    net.run(max_time=net.now + 600)
    return sessions, net, honest, early


@pytest.mark.parametrize("humans", [3, 4])
def test_two_proofs_in_every_order_end_in_one_history(humans: int) -> None:
    # Every order at every honest peer (each learns the earlier or the later proof first):
    # one history, only the cheater blamed and dropped, every honest seat still live.
    for orders in itertools.product((True, False), repeat=humans - 1):
        sessions, net, honest, early = _play(humans, orders)
        hashes, histories = _outcome(sessions, net, honest)
        assert len(hashes) == 1 and len(histories) == 1, orders
        for i in honest:
            drops = [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)]
            assert drops[-1] == (early, (CHEAT,)), (orders, i, drops)  # the earlier step


def test_under_protocol_5_the_first_proof_decided_the_step() -> None:
    # The gate (old logs replay as written): a protocol-5 peer that learnt the later proof
    # first kept the seat's conviction there, so the two orders give two histories.
    sessions, _net, honest, _early = _play(3, (True, False), FIRST_PROTOCOL["ordered_proofs"] - 1)
    assert len({sessions[i].state.state_hash() for i in honest}) == 2


def _outcome(
    sessions: list[Session],
    net: SimNet,
    honest: list[int],
    logs: dict[int, bytes] | None = None,
    codes: set[str] | None = None,
) -> tuple[set[bytes], set[tuple[tuple[int, bytes], ...]]]:
    """Check what every honest peer ends with: the game over, only CHEAT blamed (`codes`,
    `equivocation` by default) and dropped, every other seat live, a valid complete log
    blaming only CHEAT.  Returns the final state hashes and the verified histories, for
    the caller (and each peer's log in ``logs``, if given)."""
    hashes, histories = set(), set()
    for i in honest:
        s = sessions[i]
        assert s.state.is_over, i
        events = net.events[i]
        blames = {(e.seat, e.code) for e in events if isinstance(e, ev.Blame)}
        assert blames == {(CHEAT, code) for code in codes or {"equivocation"}}, (i, blames)
        dropped = {seat for e in events if isinstance(e, ev.SeatsDropped) for seat in e.seats}
        assert dropped == {CHEAT}, (i, dropped)
        assert s.live == frozenset(honest), (i, s.live)
        log = s.take_log()
        if logs is not None:
            logs[i] = log
        report = verify_log(log)
        assert report.valid and report.complete, (i, report.failure)
        assert {b[0] for b in report.blames} == {CHEAT}, (i, report.blames)
        hashes.add(s.state.state_hash())
        histories.add(final_history(report))
    return hashes, histories


def _second_commit(session: Session, step: int, ids: list) -> Signed:
    """A second COMMIT of seat CHEAT for the secret round at ``step``, which stood."""
    state = session.state_at(step)
    assert state is not None
    return sign_message(
        ids[CHEAT].signer(),
        MsgType.COMMIT,
        session.game_id,
        step,
        CHEAT,
        state.state_hash(),
        (bytes(32),),
        version=session.record.protocol,
    )


@pytest.mark.parametrize("humans", [3, 4])
@pytest.mark.parametrize("move_round", [0, 1])
def test_a_late_commit_proof_and_a_move_proof_in_every_order_end_in_one_history(
    humans: int, move_round: int
) -> None:
    # Two COMMITs of a secret round that every seat acknowledged (the late-proof rule of
    # protocol 5: the round stands, the seat is voted out later) and two MOVEs of a turn
    # after it (a ban there).  Whatever order each honest peer learns them in, the round
    # stands with the choice everyone took and the seat is dropped at the MOVE's step.
    # (Until the fix, a peer that learnt the MOVE proof first rolled back to the round and
    # gave it the forfeit: two histories, honest seats voted out and blamed.)
    record, ids, secrets = make_record("toy", humans, seed=f"commit-and-move/{humans}")
    secret_step, move_step = 1, _turns_of(humans)[move_round]
    honest = [i for i in range(humans) if i != CHEAT]
    for orders in itertools.product((True, False), repeat=humans - 1):
        sessions = make_sessions(record, ids, secrets)
        net = SimNet(sessions, seed=3)
        net.run_until(lambda: all(s.step > move_step for s in sessions))  # noqa: B023
        net.silent.add(CHEAT)
        s0 = sessions[0]
        played = next(
            m
            for m in s0.inbox.slots.values()
            if m.seat == CHEAT and m.step == move_step and m.type is MsgType.MOVE
        )
        proofs = (_second_commit(s0, secret_step, ids), _other_move(s0, move_step, ids, played))
        guess = s0._box(secret_step).of(MsgType.REVEAL)[CHEAT].action
        for i, commit_first in zip(honest, orders, strict=True):
            for proof in proofs if commit_first else proofs[::-1]:
                sessions[i].receive_datagram(pack_bundle([proof.raw]), addr_of(CHEAT), net.now)
        net.run(max_time=net.now + 600)
        hashes, histories = _outcome(sessions, net, honest)
        assert len(hashes) == 1 and len(histories) == 1, orders
        for i in honest:
            applied = [
                e for e in net.events[i] if isinstance(e, ev.StepApplied) and e.step == secret_step
            ]
            assert applied[-1].input.of(CHEAT) == guess, (orders, i)  # the round stood
            drops = [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)]
            assert drops == [(move_step, (CHEAT,))], (orders, i, drops)


def test_a_split_round_is_banned_at_its_step_when_a_later_ban_came_first() -> None:
    # The seat is first proven to have signed two MOVEs for a step ahead (a ban there), then
    # it splits the secret round at the current step (each honest peer took another of its
    # COMMITs).  The conviction's step is the earliest proven: the round's, with its forfeit,
    # at both honest peers; neither waits for the other's acknowledgement for good.
    humans, secret_step = 3, 1
    record, ids, secrets = make_record("toy", humans, seed="split-after-ban")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.add(CHEAT)
    net.run_until(lambda: all(s.step == secret_step for s in sessions))
    net.silent.add(CHEAT)
    ahead = _turns_of(humans)[0]  # CHEAT's turn in this round, after the guess
    signer = ids[CHEAT].signer()
    moves = [
        sign_message(signer, MsgType.MOVE, record.game_id, ahead, CHEAT, bytes(32), (["add", n],))
        for n in (1, 2)
    ]
    honest = [i for i in range(humans) if i != CHEAT]
    for i in honest:
        for move in moves:
            sessions[i].receive_datagram(pack_bundle([move.raw]), addr_of(CHEAT), net.now)
        assert sessions[i].convictions.banned == {CHEAT: ahead}
    versions = two_versions(sessions, signer, CHEAT, secret_step, {0: 1, 2: 2})
    for victim, (commit, reveal) in versions.items():
        for msg in (commit, reveal):
            sessions[victim].receive_datagram(pack_bundle([msg.raw]), addr_of(CHEAT), net.now)
    net.run(max_time=net.now + 600)
    hashes, histories = _outcome(sessions, net, honest)
    assert len(hashes) == 1 and len(histories) == 1
    for i in honest:
        applied = [
            e for e in net.events[i] if isinstance(e, ev.StepApplied) and e.step == secret_step
        ]
        assert [a.input.of(CHEAT) for a in applied] == [FORFEIT], i
        drops = [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)]
        assert drops == [(secret_step, (CHEAT,))], (i, drops)


@pytest.mark.parametrize(
    "protocol", [FIRST_PROTOCOL["ordered_proofs"] - 1, FIRST_PROTOCOL["ordered_proofs"]]
)
def test_a_split_round_shown_after_a_later_ban_ends_in_one_history(protocol: int) -> None:
    # Honest peer 0 holds both of the seat's COMMITs of the secret round (the late proof)
    # before it learns the seat's two MOVEs for a step ahead (a ban there); honest peer 2
    # took the other COMMIT, and its acknowledgement that splits the round comes last.
    # Protocol 6 drops the seat at the round with its forfeit (the earliest step proven);
    # protocol 5 leaves a seat banned already as it is (whichever proof came first): the
    # round waits for the seat's REVEAL, the seat is voted out there for silence and its
    # default taken, at both peers.  (Banning it at the round too, peer 0 alone forfeited
    # it: two histories, honest seat 2 voted out.)
    humans, secret_step = 3, 1
    record, ids, secrets = make_record("toy", humans, seed="split-after-ban")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.add(CHEAT)
    net.run_until(lambda: all(s.step == secret_step for s in sessions))
    net.silent.add(CHEAT)
    ahead = _turns_of(humans)[0]
    signer = ids[CHEAT].signer()
    moves = [
        sign_message(
            signer, MsgType.MOVE, record.game_id, ahead, CHEAT, bytes(32), (["add", n],), protocol
        )
        for n in (1, 2)
    ]
    versions = two_versions(sessions, signer, CHEAT, secret_step, {0: 1, 2: 2})
    (commit_a, _reveal_a), (commit_b, _reveal_b) = versions[0], versions[2]
    for victim, msgs in ((0, [commit_a, commit_b, *moves]), (2, [commit_b, *moves])):
        for msg in msgs:
            sessions[victim].receive_datagram(pack_bundle([msg.raw]), addr_of(CHEAT), net.now)
    assert list(sessions[0].late.commits) == [(CHEAT, secret_step)]
    assert sessions[0].convictions.banned == {CHEAT: ahead}
    net.run(max_time=net.now + 600)
    honest = [i for i in range(humans) if i != CHEAT]
    late = not Features.of(protocol).ordered_proofs
    codes = {"equivocation", "timeout"} if late else {"equivocation"}
    hashes, histories = _outcome(sessions, net, honest, codes=codes)
    assert len(hashes) == 1 and len(histories) == 1
    state = sessions[0].state_at(secret_step)
    assert state is not None
    choice = state.default_action(CHEAT) if late else FORFEIT
    for i in honest:
        applied = [
            e for e in net.events[i] if isinstance(e, ev.StepApplied) and e.step == secret_step
        ]
        assert [a.input.of(CHEAT) for a in applied] == [choice], i
        drops = [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)]
        assert drops == [(secret_step, (CHEAT,))], (i, drops)


@pytest.mark.parametrize("humans", [3, 4])
def test_a_proof_of_a_step_the_seat_took_no_part_in_drops_it_at_one_step_everywhere(
    humans: int,
) -> None:
    # Two MOVEs of the cheater for another seat's turn (step 2: nothing of it was taken
    # there).  One honest peer learns them while the cheater's next turn waits; the link
    # carrying that peer's copies to another honest peer is slow, so the other takes the
    # cheater's move first and learns the proof a step later.  The conviction's step must
    # not depend on when a peer learnt it.  (Until the fix each peer dropped the seat at
    # the step it was at: two histories, one honest peer voted out, the other stuck.)
    record, ids, secrets = make_record("toy", humans, seed=f"nothing-taken/{humans}")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    turn = _turns_of(humans)[1]  # the cheater's turn in round 2
    net.run_until(lambda: all(s.step >= turn - 1 for s in sessions))
    net.hold.add(CHEAT)  # it thinks: its move of that turn comes later
    net.run_until(lambda: all(s.step == turn for s in sessions))
    state = sessions[0].state_at(2)
    assert state is not None and state.decision().seat != CHEAT  # type: ignore[attr-defined]
    moves = [
        sign_message(
            ids[CHEAT].signer(),
            MsgType.MOVE,
            record.game_id,
            2,
            CHEAT,
            state.state_hash(),
            (["add", n],),
            version=record.protocol,
        )
        for n in (1, 2)
    ]
    late = humans - 1  # the honest peer that learns it late
    net.drop_to[0] = {late}
    for move in moves:
        sessions[0].receive_datagram(pack_bundle([move.raw]), addr_of(CHEAT), net.now)
    net.hold.discard(CHEAT)
    net.run_until(lambda: sessions[late].step > turn)  # it took the cheater's move
    net.drop_to.clear()
    net.run(max_time=net.now + 600)
    honest = [i for i in range(humans) if i != CHEAT]
    hashes, histories = _outcome(sessions, net, honest)
    assert len(hashes) == 1 and len(histories) == 1


@pytest.mark.parametrize("humans", [3, 4])
def test_proofs_one_honest_peer_holds_reach_every_other(humans: int) -> None:
    # Only honest peer 0 receives the cheater's second MOVEs; it sends each proof on, so
    # every honest peer convicts the seat at the earlier step and all end in one history.
    sessions, net, honest, early = _play(humans, (True,) + (None,) * (humans - 2))
    hashes, histories = _outcome(sessions, net, honest)
    assert len(hashes) == 1 and len(histories) == 1
    for i in honest:
        drops = [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)]
        assert drops[-1] == (early, (CHEAT,)), (i, drops)


@pytest.mark.parametrize(
    "protocol", [FIRST_PROTOCOL["ordered_proofs"] - 1, FIRST_PROTOCOL["ordered_proofs"]]
)
def test_a_proof_no_decision_since_depends_on_drops_the_seat_where_the_peers_are(
    protocol: int,
) -> None:
    # Two MOVEs of the cheater for the turn just decided, another seat's: no decision since
    # asked it for anything, so a drop there or here decides everything alike (SPEC §5.7,
    # as §5.4's late drop): no peer rolls back, each drops it at the step it waits on.
    # (Protocol 5 asks only whether that step took the seat's input: it took none either.)
    humans = 3
    record, ids, secrets = make_record("toy", humans, seed="no-rollback")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    turn = _turns_of(humans)[0]  # the cheater's first turn; the one before is seat 0's
    net.run_until(lambda: all(s.step >= turn - 1 for s in sessions))
    net.hold.add(CHEAT)
    net.run_until(lambda: all(s.step == turn for s in sessions))
    state = sessions[0].state_at(turn - 1)
    assert state is not None and state.decision().seat != CHEAT  # type: ignore[attr-defined]
    for n in (1, 2):
        move = sign_message(
            ids[CHEAT].signer(),
            MsgType.MOVE,
            record.game_id,
            turn - 1,
            CHEAT,
            state.state_hash(),
            (["add", n],),
            version=record.protocol,
        )
        for s in sessions:
            if s.seat != CHEAT:
                s.receive_datagram(pack_bundle([move.raw]), addr_of(CHEAT), net.now)
    net.run(max_time=net.now + 600)
    honest = [i for i in range(humans) if i != CHEAT]
    logs: dict[int, bytes] = {}
    hashes, histories = _outcome(sessions, net, honest, logs)
    assert len(hashes) == 1 and len(histories) == 1
    for i in honest:
        drops = [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)]
        assert drops == [(turn, (CHEAT,))], (i, drops)
        notes = [e.data[0] for e in parse_log(logs[i]).entries if e.kind == EntryKind.NOTE]
        assert "rollback" not in notes, i
