"""Idle is not leaving (issue 34 item 1): a seat the table dropped at the turn limit comes
back when its person asks once (``rejoin.ask_back(once=True)``: the console's one key), through
the same hand-back as a resumed seat (SPEC §5.6, a REJOIN carried by a live seat's next
contribution).  Back in, it asks no more: idle again, it is dropped again and stays out
until asked again, where a resumed seat asks after every drop.  Simulated table, virtual
time, no sleeps."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.log.verify import verify_log
from lanTag.rules.base import Simultaneous, Turn
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.session.lockstep import Session
from tests.session.harness import SimNet, make_record, make_sessions

IDLE = 1  # the seat whose person walked away from the keyboard


def _drops(net: SimNet, seat: int) -> list[ev.SeatsDropped]:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, ev.SeatsDropped)]


def _backs(net: SimNet, seat: int) -> list[ev.SeatsBack]:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, ev.SeatsBack)]


def _asked_of(session: Session, seat: int) -> bool:
    d = session.state.decision()
    return (isinstance(d, Turn) and d.seat == seat) or (
        isinstance(d, Simultaneous) and seat in d.seats
    )


def _idle_table(seed: str) -> tuple[list[Session], SimNet]:
    record, ids, secrets = make_record("prototag", 3, seed=seed)
    record = dataclasses.replace(
        record, timeouts=Timeouts(turn_ms=20_000, step_ms=2_000, lag_ms=1_000)
    )
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    net.run_until(lambda: sessions[0].step >= 3)
    net.hold.add(IDLE)  # from now on its person does nothing when asked
    net.hold_secret.add(IDLE)
    return sessions, net


def _everyone(sessions: list[Session], pred: object) -> bool:
    assert callable(pred)
    return all(pred(s) for s in sessions)


@pytest.mark.parametrize("seed", ["idle-a", "idle-b"])
def test_an_idle_seat_asked_back_once_plays_again_and_is_not_back_by_itself_later(
    seed: str,
) -> None:
    sessions, net = _idle_table(seed)
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE not in s.live), max_steps=400_000)
    (first,) = {(d.step, d.seats) for i in range(3) for d in _drops(net, i)}
    assert first[1] == (IDLE,)
    assert _asked_of_at(sessions[0], IDLE, first[0])  # dropped for idling on its own decision
    me = sessions[IDLE]
    assert me.rejoin.refusal() is None and not me.rejoin.wants_back  # may come back, has not asked
    # The person is back: one key.
    net.hold.clear()
    net.hold_secret.clear()
    me.rejoin.ask_back(net.now, once=True)
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE in s.live), max_steps=400_000)
    backs = {tuple((b.step, b.seats) for b in _backs(net, i)) for i in range(3)}
    assert len(backs) == 1, backs  # every peer lets it in at the same step
    [(back_step, seats)] = next(iter(backs))
    assert seats == (IDLE,) and back_step > first[0]
    assert me.rejoin.wants_back and not me.rejoin.asking_back  # in: asks no more until dropped
    # It plays its own seat again: it is asked, and answers, as a person does.
    net.run_until(lambda: me.step > back_step + 1 and _asked_of(me, IDLE), max_steps=400_000)
    asked_at = me.step
    net.run_until(lambda: me.step > asked_at, max_steps=400_000)
    assert all(IDLE in s.live for s in sessions)
    # Away again: dropped again, and this time it stays out (nobody asked it back).
    net.hold.add(IDLE)
    net.hold_secret.add(IDLE)
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE not in s.live), max_steps=400_000)
    assert not me.rejoin.wants_back  # asked once: that ask is spent
    net.hold.clear()  # (the replicated bot plays the seat; its peer still follows the game)
    net.hold_secret.clear()
    net.run(max_time=net.now + 300.0)
    assert all(IDLE not in s.live for s in sessions)
    assert all(len(_backs(net, i)) == 1 for i in range(3))
    assert len({s.state.state_hash() for s in sessions}) == 1
    reports = [verify_log(s.take_log()) for s in sessions]
    assert all(r.valid for r in reports), [r.failure for r in reports]


def _asked_of_at(session: Session, seat: int, step: int) -> bool:
    state = session.state_at(step)
    assert state is not None
    d = state.decision()
    return (isinstance(d, Turn) and d.seat == seat) or (
        isinstance(d, Simultaneous) and seat in d.seats
    )


def test_a_resumed_seat_still_asks_after_every_drop() -> None:
    # The other way of asking (a resume: once False) is unchanged: admitted, it keeps
    # wanting its seat, so a second drop sends a REJOIN again without being told.
    sessions, net = _idle_table("idle-resumed")
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE not in s.live), max_steps=400_000)
    me = sessions[IDLE]
    net.hold.clear()
    net.hold_secret.clear()
    me.rejoin.ask_back(net.now)
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE in s.live), max_steps=400_000)
    assert me.rejoin.wants_back
    net.hold.add(IDLE)
    net.hold_secret.add(IDLE)
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE not in s.live), max_steps=400_000)
    assert me.rejoin.asking_back  # by itself
    net.hold.clear()
    net.hold_secret.clear()
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE in s.live), max_steps=400_000)
    assert all(len(_backs(net, i)) == 2 for i in range(3))


def test_the_drop_redecided_by_a_rollback_does_not_spend_the_ask() -> None:
    # A rollback to the drop's step decides the drop again (SeatsDropped once more) and
    # forgets the admission until its carrier is decided again: that drop is not "dropped
    # again after coming back", so the seat still asks (it would stay out for good if an
    # admission a rollback undid were not found again).  White-box: one peer redecides
    # from its own messages, as a late proof makes it do.
    sessions, net = _idle_table("idle-rollback")
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE not in s.live), max_steps=400_000)
    (drop_step,) = {d.step for d in _drops(net, IDLE)}
    me = sessions[IDLE]
    net.hold.clear()
    net.hold_secret.clear()
    me.rejoin.ask_back(net.now, once=True)
    net.run_until(lambda: _everyone(sessions, lambda s: IDLE in s.live), max_steps=400_000)
    step = me.step
    me.agreement.rollback(drop_step - 1)  # (the snapshot at the drop step holds the drop already)
    me._pump(net.now)
    net.collect()
    assert len(_drops(net, IDLE)) == 2  # the drop, decided again
    assert me.step == step and IDLE in me.live  # the same history, admission included
    assert me.rejoin.wants_back  # not spent: only a drop after the admission spends it
