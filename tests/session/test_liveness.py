"""Agreement on silence: a dead or slow seat is dropped by all or by none."""

from __future__ import annotations

from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from tests.session.harness import SimNet, make_record, make_sessions


def _drops(net: SimNet, seat: int) -> list[ev.SeatsDropped]:
    return [e for e in net.events.get(seat, []) if isinstance(e, ev.SeatsDropped)]


def _run_until_step(net: SimNet, step: int) -> None:
    for _ in range(100_000):
        if min(s.step for s in net.sessions) >= step:
            return
        assert net.step()
    raise AssertionError("did not reach the step")


def test_peer_dying_mid_game_is_dropped_at_the_same_step_by_all_others() -> None:
    record, ids, secrets = make_record("toy", 4, seed="dead")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3, jitter=0.01)
    _run_until_step(net, 7)
    net.silent.add(2)
    net.run()
    alive = [0, 1, 3]
    assert all(sessions[i].state.is_over for i in alive)
    assert len({sessions[i].state.state_hash() for i in alive}) == 1
    drops = {tuple((d.step, d.seats) for d in _drops(net, i)) for i in alive}
    assert len(drops) == 1 and drops.pop()[0][1] == (2,)
    for i in alive:
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_late_move_reaching_one_peer_in_time_is_relayed_not_dropped() -> None:
    """Seat 1's move reaches seat 0 only; seats 2 and 3 time out and vote.

    At the lag warning they send a non-binding NUDGE; seat 0, which took the move,
    answers with its HAVE and the move itself, so everybody applies it and nobody
    ever has to cast a (binding) vote.
    """
    record, ids, secrets = make_record("toy", 4, seed="relay")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=4)
    net.hold.add(1)
    _run_until_step(net, 3)  # toy: step 3 is seat 1's turn; everyone waits for it
    assert all(s.step == 3 for s in sessions) and sessions[1].my_turn() == "turn"
    net.drop_to[1] = {2, 3}
    net.hold.clear()
    for _ in range(100_000):
        if sessions[2].step > 3 and sessions[3].step > 3:
            break
        assert net.step()
    net.drop_to.clear()
    net.run(max_time=300)
    assert all(s.state.is_over for s in sessions)
    assert len({s.state.state_hash() for s in sessions}) == 1
    for i in range(4):
        assert _drops(net, i) == []
    lagging = [e for i in (2, 3) for e in net.events[i] if isinstance(e, ev.Lagging)]
    assert {(e.seat, e.step) for e in lagging} == {(1, 3)}
    box = sessions[0]._boxes[3]
    assert sorted(box.nudges) == [2, 3]  # they asked, non-bindingly, at the lag warning
    assert box.votes == {}  # and the relay came before anyone had to vote


def test_partitioned_minority_is_dropped_and_majority_finishes() -> None:
    record, ids, secrets = make_record("toy", 3, seed="cut")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=6)
    _run_until_step(net, 4)
    net.drop_to = {0: {2}, 1: {2}, 2: {0, 1}}  # seat 2 is cut off both ways
    net.run(max_time=400)
    assert sessions[0].state.is_over and sessions[1].state.is_over
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    assert [d.seats for d in _drops(net, 0)] == [(2,)]
