"""Agreement on silence: a dead or slow seat is dropped by all or by none."""

from __future__ import annotations

from collections.abc import Callable

from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.transport import Addr, PlainTransport
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
    box = sessions[0].inbox.boxes[3]
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


def _run_until(net: SimNet, done: Callable[[], bool]) -> None:
    for _ in range(200_000):
        if done():
            return
        net.step()  # False when only a bot's own move is left: the next step() plays it
    raise AssertionError("never happened")


def test_seat_cut_off_until_the_others_finish_learns_its_drop_when_the_cut_heals() -> None:
    # Everything sent during the cut is lost (as when links expire): the others' votes
    # never reach seat 2.  Once the network heals, its repeated vote reaches them and
    # they answer with the drop proof; it takes the drop, asks for the rest (SYNC) and
    # follows the game to the end (SPEC §5.5).
    record, ids, secrets = make_record("toy", 3, seed="cut-heal")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=8)
    _run_until_step(net, 4)
    net.drop_to = {0: {2}, 1: {2}, 2: {0, 1}}
    _run_until(net, lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert not sessions[2].state.is_over and 2 in sessions[2].live
    net.drop_to = {}
    net.run(max_time=net.now + 600)
    assert len({s.state.state_hash() for s in sessions}) == 1
    assert sessions[0].counters.get("dropped-answered", 0) >= 1
    for i in range(3):
        assert [d.seats for d in _drops(net, i)] == [(2,)], i
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, (i, report.failure)


def test_two_seats_cut_apart_each_finish_against_a_bot_after_the_cut_heals() -> None:
    # With two people each side of a cut may drop the other (SPEC §5.4).  After the
    # cut heals each hears from a seat it dropped and answers with its drop proof,
    # which the other ignores (it comes from a seat it dropped): both finish.
    record, ids, secrets = make_record("toy", 2, seed="split")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=9)
    _run_until_step(net, 3)
    net.drop_to = {0: {1}, 1: {0}}
    _run_until(net, lambda: all(_drops(net, i) for i in range(2)))
    net.drop_to = {}
    _run_until(net, net.all_over)
    for i in range(2):
        assert sessions[i].state.is_over
        assert [d.seats for d in _drops(net, i)] == [(1 - i,)]
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, (i, report.failure)


class _HearsEveryone(PlainTransport):
    """A transport whose links hear every peer right now (keepalives while a player thinks)."""

    def __init__(self, net: SimNet) -> None:
        super().__init__()
        self.net = net

    def last_heard(self, addr: Addr) -> float | None:
        return self.net.now


def test_a_thinking_player_whose_peer_is_heard_is_not_lagging() -> None:
    """Seat 1 thinks past the lag warning while its links keep speaking: nobody is told it
    lags (the screens show it thinking); the others still nudge, as before."""
    record, ids, secrets = make_record("toy", 3, seed="think")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    for session in sessions:
        session.transport = _HearsEveryone(net)
    net.hold.add(1)
    _run_until_step(net, 3)  # toy: step 3 is seat 1's turn
    lag = record.timeouts.lag_ms / 1000
    until = net.now + 2 * lag
    while net.now < until and net.step():
        pass
    assert net.now >= until and sessions[0].step == 3  # still thinking, past the warning
    assert sessions[0].inbox.boxes[3].lag_reported  # the warning time came and went
    lagging = [e for i in (0, 2) for e in net.events.get(i, []) if isinstance(e, ev.Lagging)]
    assert lagging == []
