"""Seats that never played (protocol 6, SPEC §5.4, lanTag.session.unplayed): the counting
rule on its own, and a host cut off at the first roll, which plays on alone and then follows
the table's game once it hears the others again."""

from __future__ import annotations

import dataclasses

from lanTag.identity import Identity
from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.messages import MsgType, Signed, sign_message
from lanTag.session.steps import StepBox, leaves_half
from lanTag.session.unplayed import left_out, outvoted
from tests.session.harness import SimNet, make_record, make_sessions

LIVE = frozenset({0, 1, 2})
GID = bytes(range(32))


def _vote(seat: int, silent: list[int], step: int = 0, seq: int = 1) -> Signed:
    signer = Identity(bytes([seat + 1]) * 32).signer()
    return sign_message(signer, MsgType.VOTE, GID, step, seat, bytes(32), (silent, seq))


def _box(*votes: Signed) -> StepBox:
    box = StepBox()
    for vote in votes:
        box.register_request(vote)
    return box


def test_seats_that_never_played_count_for_nothing_only_while_the_host_and_we_stay() -> None:
    box = _box(_vote(0, [1, 2]))
    assert box.unanimous_silent(LIVE) is None  # the ordinary rule: half must remain
    unplayed, stay = left_out(6, True, LIVE, frozenset(), 0)
    assert (unplayed, stay) == (LIVE, frozenset({0}))
    assert box.unanimous_silent(LIVE, unplayed, stay) == frozenset({1, 2})
    # Seats that played count: of four, three silent and only one never played.
    four, three = LIVE | {3}, _box(_vote(0, [1, 2, 3]))
    assert three.unanimous_silent(four, frozenset({0, 1}), stay) is None
    assert three.unanimous_silent(four, frozenset({0, 1, 2}), stay) == frozenset({1, 2, 3})
    # The same vote read by seat 1 (it knows it is here), or a vote that drops the host:
    assert box.unanimous_silent(LIVE, *left_out(6, True, LIVE, frozenset(), 1)) is None
    joiner = _box(_vote(1, [0, 2]))
    assert joiner.unanimous_silent(LIVE, *left_out(6, True, LIVE, frozenset(), 1)) is None
    assert left_out(6, False, LIVE, frozenset(), 0) == (frozenset(), frozenset())  # no roll
    assert left_out(5, True, LIVE, frozenset(), 0) == (frozenset(), frozenset())  # older game
    assert left_out(6, True, LIVE, frozenset(), None)[1] == frozenset({0})  # a spectator


def test_a_drop_the_ordinary_rule_makes_is_found_before_one_that_leaves_seats_out() -> None:
    # The host's vote came first, and alone it would drop both (as the host reads it):
    box = _box(_vote(0, [1, 2]), _vote(1, [0]), _vote(2, [0]))
    assert _box(_vote(0, [1, 2])).unanimous_silent(LIVE, LIVE, frozenset({0})) == {1, 2}
    assert box.unanimous_silent(LIVE, LIVE, frozenset({0})) == frozenset({0})
    assert not leaves_half(frozenset({1, 2}), LIVE)  # taken only by leaving 1 and 2 out
    assert leaves_half(frozenset({0}), LIVE)


def test_the_seats_left_out_outvote_us_only_all_together_and_by_the_ordinary_rule() -> None:
    left, stay = frozenset({1, 2}), frozenset({0})
    both = {3: _box(_vote(1, [0], 3), _vote(2, [0], 3))}
    assert outvoted(both, [3], left, stay, LIVE)
    assert not outvoted(both, [4], left, stay, LIVE)  # another step
    assert not outvoted({3: _box(_vote(1, [0], 3))}, [3], left, stay, LIVE)  # one of them
    split = {3: _box(_vote(1, [0], 3), _vote(2, [0, 1], 3))}
    assert not outvoted(split, [3], left, stay, LIVE)  # not one set
    other = {3: _box(_vote(1, [3], 3), _vote(2, [3], 3))}
    assert not outvoted(other, [3], left, stay, LIVE | {3})  # neither the host nor us
    wide = {3: _box(_vote(1, [0, 3, 4], 3), _vote(2, [0, 3, 4], 3))}
    assert not outvoted(wide, [3], left, stay, frozenset({0, 1, 2, 3, 4}))  # under half


def _drops(net: SimNet, i: int) -> list[tuple[int, tuple[int, ...]]]:
    return [(e.step, e.seats) for e in net.events.get(i, []) if isinstance(e, ev.SeatsDropped)]


def test_a_host_cut_off_at_the_first_roll_plays_alone_then_follows_the_table() -> None:
    """The host hears nobody and nobody hears it from the start: it cannot tell that from a
    squat and drops both joiners at the first roll (half the table would not remain, but
    they never played); they drop it by the ordinary rule.  Two games while the cut lasts.
    Once its next message reaches them, their answer (their votes) shows it was the one cut
    off: it decides again from that roll without leaving anyone out, takes their drop of
    its seat, and follows their game to its end, with the same final state and a log that
    verifies.  Every seat's person thinks (held) so that nobody's game ends meanwhile."""
    record, ids, secrets = make_record("toy", 3, seed="unplayed-cut")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=7)
    net.hold_secret |= {0, 1, 2}
    net.drop_to = {0: {1, 2}, 1: {0}, 2: {0}}
    net.run_until(lambda: sessions[0].step == 1 and sessions[1].step == 1 == sessions[2].step)
    net.collect()
    assert _drops(net, 0) == [(0, (1, 2))]
    assert _drops(net, 1) == _drops(net, 2) == [(0, (0,))]
    net.drop_to = {}
    net.hold_secret.discard(0)  # the host's person chooses: its COMMIT reaches them
    net.run_until(lambda: 0 not in sessions[0].live and 1 in sessions[0].live)
    net.hold_secret.clear()
    net.run()
    finals = {s.state.state_hash() for s in sessions}
    assert len(finals) == 1 and sessions[0].state.is_over
    assert [s.live for s in sessions] == [frozenset({1, 2})] * 3
    net.collect()
    assert _drops(net, 0)[-1] == (0, (0,))
    for s in sessions:
        report = verify_log(s.take_log())
        assert report.valid, report.failure


def test_a_protocol_5_host_cut_off_at_the_first_roll_waits_as_it_always_did() -> None:
    record, ids, secrets = make_record("toy", 3, seed="unplayed-cut")
    record = dataclasses.replace(record, protocol=5)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=7)
    net.hold_secret |= {0, 1, 2}
    net.drop_to = {0: {1, 2}, 1: {0}, 2: {0}}
    net.run_until(lambda: sessions[1].step == 1 == sessions[2].step)
    net.run(max_time=net.now + 60)
    net.collect()
    assert _drops(net, 0) == [] and sessions[0].step == 0

