"""A vote that can never drop anyone binds nobody (protocol 6, SPEC §5.4).

Two people of a three-seat table think past the turn limit at a secret round: the host
votes both silent, a drop that would leave one seat of three (less than half), so it can
never be decided.  Before protocol 6 that vote still bound the host: it refused their
commitments when they came (only another live seat's HAVE frees a seat we voted, and the
only other live seats were the two it voted), and the table waited for good.
"""

from __future__ import annotations

from dataclasses import replace

from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.features import FIRST_PROTOCOL
from lanTag.session.messages import MsgType, pack_bundle
from lanTag.session.steps import may_be_decided
from tests.session.harness import SimNet, addr_of, make_record, make_sessions


def _voted(net: SimNet, voter: int, seats: set[int]) -> bool:
    s = net.sessions[voter]
    mine = s.inbox.boxes.get(s.step)
    vote = None if mine is None else mine.votes.get(voter)
    return vote is not None and set(vote.payload[0]) == seats


def _table(protocol: int | None, wait: float = 0.0) -> SimNet:
    record, ids, secrets = make_record("toy", 3, seed="unpassable")
    if protocol is not None:
        record = replace(record, protocol=protocol)
    net = SimNet(make_sessions(record, ids, secrets), seed=5, jitter=0.003)
    net.hold_secret |= {1, 2}  # two people think at the first secret round
    net.run_until(lambda: _voted(net, 0, {1, 2}))
    until = net.now + wait  # they think on: the host votes again at each later deadline
    net.run_until(lambda: net.now >= until)
    assert all(s.my_turn() == "secret" for s in net.sessions[1:])
    net.hold_secret.clear()  # ... and choose, after the host voted them silent
    return net


def test_two_slow_thinkers_of_three_play_on_after_the_host_voted_them() -> None:
    net = _table(None, wait=10.0)
    assert net.sessions[0].vote_book.seq[1] > 1  # voted again, the same seats
    net.collect()
    # The host says once that the table cannot go on without them (SPEC §5.8); the two
    # thinkers each voted only the other, a drop that could be decided: they do not.
    stuck = {
        i: [e for e in net.events.get(i, []) if isinstance(e, ev.CannotGoOn)] for i in range(3)
    }
    assert stuck == {0: [ev.CannotGoOn(1, (1, 2))], 1: [], 2: []}
    net.run()
    sessions = net.sessions
    assert all(s.state.is_over for s in sessions)
    assert len({s.state.state_hash() for s in sessions}) == 1
    for i, s in enumerate(sessions):
        assert not [e for e in net.events.get(i, []) if isinstance(e, ev.SeatsDropped)]
        assert s.live == frozenset({0, 1, 2})
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure
        assert not report.blames


def test_before_protocol_6_the_host_stays_bound_by_its_vote() -> None:
    """The old rule, kept for old logs: the host refuses their commitments for good."""
    net = _table(FIRST_PROTOCOL["unpassable_vote"] - 1)
    for _ in range(20_000):
        if not net.step() or net.now > 120:
            break
    host = net.sessions[0]
    assert host.step == net.sessions[1].step  # nobody got past the round
    assert not host.state.is_over
    assert set(host._box(host.step).of(MsgType.COMMIT)) == {0}  # theirs refused


def test_may_be_decided_counts_as_the_drop_rule_does() -> None:
    live = frozenset({0, 1, 2})
    assert may_be_decided(frozenset({1}), live)
    assert not may_be_decided(frozenset({1, 2}), live)  # one seat of three would remain
    assert not may_be_decided(frozenset(), live) and not may_be_decided(frozenset({3}), live)
    # At a first roll, seats that never played count for nothing while the host stays:
    assert may_be_decided(frozenset({1, 2}), live, live, frozenset({0}))
    assert not may_be_decided(frozenset({0, 1}), live, live, frozenset({0}))


def test_a_vote_decidable_only_without_the_squatters_still_binds_the_host() -> None:
    """Five seats, three silent from the start (never played): the host and seat 1 vote
    them out at the first roll, a drop only the count of "seats that never played" allows.
    Seat 1 holds both votes and drops them; the host has not heard seat 1's vote yet when
    the three links arrive, to it alone.  Bound by its vote it refuses them, takes the drop
    when seat 1's vote comes, and both end in one history (unbound, it would have taken
    the roll with all five links while seat 1 dropped three seats there)."""
    record, ids, secrets = make_record("toy", 5, seed="squatbound")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=7)
    squat = {2, 3, 4}
    net.silent |= squat
    host, joiner = sessions[0], sessions[1]
    net.run_until(lambda: 1 in host._box(0).of(MsgType.ENTROPY))
    net.drop_to[1] = {0}  # seat 1's vote will not reach the host
    net.run_until(lambda: _voted(net, 0, squat) and _voted(net, 1, squat))
    vote = joiner._box(0).votes[1]  # kept: the host will get it late
    net.run_until(lambda: joiner.step > 0)
    assert host.step == 0
    net.silent -= squat  # the squatters' links come, to the host alone
    for seat in squat:
        net.drop_to[seat] = {1}
    until = net.now + 1.0  # long enough for every link to arrive, short of any timeout
    net.run_until(lambda: net.now > until or host.step > 0)
    assert host.step == 0  # it refused them
    assert set(host._box(0).of(MsgType.ENTROPY)) == {0, 1}
    net.drop_to.clear()
    net.silent |= squat  # gone again, for good
    # The simulated network loses what it cut (no link layer here): seat 1's vote arrives
    # now, as its link's retransmission would.
    host.receive_datagram(pack_bundle([vote.raw]), addr_of(1), net.now)
    net.run()
    assert host.state.is_over and joiner.state.is_over
    assert host.state.state_hash() == joiner.state.state_hash()
    for i in (0, 1):
        assert [(e.step, e.seats) for e in net.events[i] if isinstance(e, ev.SeatsDropped)] == [
            (0, (2, 3, 4))
        ]
