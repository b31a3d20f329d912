"""One history whatever order the proofs arrive in (issue "[proofs]", SPEC §5.7): a seat
that signed two different MOVEs for each of two of its turns is convicted at the earlier of
the two steps at every honest peer, however the two proofs reach each.  Simulated table,
virtual time, no sleeps."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, pack_bundle, sign_message
from lanTag.session.steps import ORDERED_PROOFS_PROTOCOL
from lanTag.testing.table import final_history
from tests.session.harness import SimNet, addr_of, make_record, make_sessions

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


def _play(humans: int, orders: tuple[bool, ...], protocol: int | None = None) -> tuple:
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
            for m in sessions[0]._slots.values()
            if m.seat == CHEAT and m.step == k and m.type is MsgType.MOVE
        )
        for k in (early, late)
    }
    proofs = {k: _other_move(sessions[0], k, ids, played[k]) for k in (early, late)}
    honest = [i for i in range(humans) if i != CHEAT]
    for i, early_first in zip(honest, orders, strict=True):
        for k in (early, late) if early_first else (late, early):
            sessions[i].receive_datagram(pack_bundle([proofs[k].raw]), addr_of(CHEAT), net.now)
    net.run(max_time=net.now + 600)
    return sessions, net, honest, early


@pytest.mark.parametrize("humans", [3, 4])
def test_two_proofs_in_every_order_end_in_one_history(humans: int) -> None:
    for orders in itertools.product((True, False), repeat=humans - 1):
        sessions, net, honest, early = _play(humans, orders)
        assert all(sessions[i].state.is_over for i in honest), orders
        assert len({sessions[i].state.state_hash() for i in honest}) == 1, orders
        histories = set()
        for i in honest:
            events = net.events[i]
            blames = {(e.seat, e.code) for e in events if isinstance(e, ev.Blame)}
            assert (CHEAT, "equivocation") in blames and {s for s, _ in blames} == {CHEAT}, (
                orders,
                i,
                blames,
            )
            drops = [e for e in events if isinstance(e, ev.SeatsDropped)]
            assert [(d.step, d.seats) for d in drops][-1] == (early, (CHEAT,)), (orders, i)
            report = verify_log(sessions[i].take_log())
            assert report.valid and report.complete, (orders, i, report.failure)
            assert {b[0] for b in report.blames} == {CHEAT}, (orders, i)
            histories.add(final_history(report))
        assert len(histories) == 1, orders


def test_under_protocol_5_the_first_proof_decided_the_step() -> None:
    # The gate (old logs replay as written): a protocol-5 peer that learnt the later proof
    # first kept the seat's conviction there, so the two orders give two histories.
    sessions, _net, honest, _early = _play(3, (True, False), ORDERED_PROOFS_PROTOCOL - 1)
    assert len({sessions[i].state.state_hash() for i in honest}) == 2
