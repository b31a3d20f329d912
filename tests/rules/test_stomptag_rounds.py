"""Stomptag rounds: orders resolved on constructed positions, one rule sentence at a time.

Cells are (column, row), 0-based, row 0 the north edge.  Unless a test says otherwise the
it stands far away striding in place, so it gains 1 and pays the it tax of 4.
"""

from __future__ import annotations

import pytest

from lanTag.games.stomptag.collide import CROSS, MEET, SWAP
from lanTag.games.stomptag.engine import StomptagState
from lanTag.games.stomptag.rounds import (
    CANCEL,
    EDGE,
    MADE_IT,
    OUT,
    RECOVER,
    TAG,
    TAX,
    TELEPORTED,
    UPGRADE,
)
from lanTag.rules.base import Chance, IllegalAction, Over, Pick
from tests.rules.stomptag_helpers import (
    at,
    cell_index,
    delta,
    events_of,
    orders_joint,
    play,
    position,
    simple,
    typed,
)

FAR = (4, 4)
IT_FAR = 1 - 4  # the far-away it: stride recovery, then the it tax

# --------------------------------------------------------------------------- pairings


def test_two_striders_trading_places_lose_three_each_and_stay() -> None:
    state = position([(0, 0), (1, 0), FAR], it=2)
    after = play(state, {0: "orders stride e", 1: "orders stride w"})
    assert delta(state, after) == [-3, -3, IT_FAR]
    assert (at(after, 0), at(after, 1)) == ((0, 0), (1, 0))
    assert simple(events_of(after, SWAP)) == [(SWAP, 1, (0, 1), (-3, -3))]


def test_two_stompers_meeting_lose_three_each() -> None:
    state = position([(0, 1), (2, 1), FAR], it=2)
    after = play(state, {0: "orders stomp e", 1: "orders stomp w"})
    assert delta(state, after) == [-3, -3, IT_FAR]
    assert (at(after, 0), at(after, 1)) == ((0, 1), (2, 1))


def test_stomper_meets_strider_gains_two_and_takes_the_cell() -> None:
    state = position([(0, 1), (2, 1), FAR], it=2)
    after = play(state, {0: "orders stomp e", 1: "orders stride w"})
    assert delta(state, after) == [2, -6, IT_FAR]  # a strider that ran into someone: no +1
    assert (at(after, 0), at(after, 1)) == ((1, 1), (2, 1))
    (meet,) = events_of(after, MEET)
    assert meet.cell == cell_index(after, (1, 1)) and meet.values == (2, -6)


def test_stomper_crossing_a_strider_goes_through() -> None:
    state = position([(0, 0), (1, 0), FAR], it=2)
    after = play(state, {0: "orders stomp se", 1: "orders stride sw"})
    assert delta(state, after) == [2, -6, IT_FAR]
    assert (at(after, 0), at(after, 1)) == ((1, 1), (1, 0))
    assert simple(events_of(after, CROSS)) == [(CROSS, 1, (0, 1), (2, -6))]


def test_striders_crossing_lose_three_each() -> None:
    state = position([(0, 0), (1, 0), FAR], it=2)
    after = play(state, {0: "orders stride se", 1: "orders stride sw"})
    assert delta(state, after) == [-3, -3, IT_FAR]


def test_three_way_pile_up() -> None:
    # "If three people run into the same space at the same time, all of them are counted
    # as having collided into each other."
    state = position([(0, 1), (2, 1), (1, 0), FAR], it=3)
    after = play(state, {0: "orders stomp e", 1: "orders stride w", 2: "orders stride s"})
    assert delta(state, after) == [4, -9, -9, IT_FAR]
    assert [at(after, s) for s in range(3)] == [(1, 1), (2, 1), (1, 0)]


def test_four_way_pile_up() -> None:
    # "This applies for more people at once."
    state = position([(0, 1), (2, 1), (1, 0), (1, 2), FAR], it=4)
    orders = {0: "orders stomp e", 1: "orders stomp w", 2: "orders stride s", 3: "orders stride n"}
    after = play(state, orders)
    assert delta(state, after) == [1, 1, -15, -15, IT_FAR]
    assert [at(after, s) for s in range(4)] == [(0, 1), (2, 1), (1, 0), (1, 2)]
    assert [e.seats for e in events_of(after, MEET)] == [(0, 1, 2, 3)]


def test_chain_collision_counts_for_points() -> None:
    # 0 and 1 meet and stay; 2, following 0, runs into it: 0 is in two collisions
    state = position([(0, 1), (2, 1), (0, 2), FAR], it=3)
    after = play(state, {0: "orders stride e", 1: "orders stride w", 2: "orders stride n"})
    assert delta(state, after) == [-6, -3, -3, IT_FAR]
    assert [e.seats for e in events_of(after, MEET)] == [(0, 1), (0, 2)]


# --------------------------------------------------------------------------- moves


def test_moves_are_resolved_one_at_a_time() -> None:
    # 0 has two moves; 1 has one: 1 arrives at (2,0) in move 1, 0 runs into it in move 2
    state = position([(0, 0), (2, 1), FAR], it=2, moves=[2, 1, 1])
    after = play(state, {0: "orders stride e e", 1: "orders stride n"})
    assert [at(after, 0), at(after, 1)] == [(1, 0), (2, 0)]
    assert simple(events_of(after, MEET)) == [(MEET, 2, (0, 1), (-3, -3))]


def test_off_the_grid_is_a_move_that_cannot_be_made_and_cancels_the_rest() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2, moves=[2, 1, 1])
    after = play(state, {0: "orders stride n e"})
    assert at(after, 0) == (0, 0)
    assert simple(events_of(after, EDGE)) == [(EDGE, 1, (0,), ())]
    assert simple(events_of(after, CANCEL)) == [(CANCEL, 1, (0,), ())]
    assert delta(state, after)[0] == 1  # no one was run into: the strider still recovers


def test_every_edge_and_corner_holds() -> None:
    state = position([(4, 4), (0, 4), (4, 0), (2, 2)], it=3)
    orders = {0: "orders stride se", 1: "orders stride sw", 2: "orders stride ne"}
    after = play(state, orders)
    assert [at(after, s) for s in range(3)] == [(4, 4), (0, 4), (4, 0)]
    assert [e.seats for e in events_of(after, EDGE)] == [(0,), (1,), (2,)]


def test_a_blocked_move_cancels_the_rest_and_the_player_stands_still() -> None:
    # 0 runs into 1 in move 1, so its second east is cancelled; 2 then runs into 0 in move 2
    state = position([(0, 0), (1, 0), (0, 2), FAR], it=3, moves=[2, 1, 2, 1])
    after = play(state, {0: "orders stride e e", 2: "orders stride n n"})
    assert at(after, 0) == (0, 0) and at(after, 2) == (0, 1)
    # 2 is stopped in its last move: nothing is left to cancel
    assert simple(events_of(after, CANCEL)) == [(CANCEL, 1, (0,), ())]
    assert [(e.step, e.seats) for e in events_of(after, MEET)] == [(1, (0, 1)), (2, (0, 2))]
    assert delta(state, after) == [-6, -3, -3, IT_FAR]


# --------------------------------------------------------------------------- it


def test_the_it_pays_four_each_round() -> None:
    state = position([(0, 0), (2, 2), FAR], it=1)
    after = play(state, {0: "orders stomp nothing", 1: "orders stomp nothing"})
    assert delta(state, after) == [0, -4, 1]  # stompers do not recover
    assert simple(events_of(after, TAX)) == [(TAX, 0, (1,), (-4,))]
    assert simple(events_of(after, RECOVER)) == [(RECOVER, 0, (2,), (1,))]


def test_the_it_tags_by_colliding_while_stomping() -> None:
    state = position([(0, 0), (1, 0), FAR], it=0)  # queue 1 2 0
    after = play(state, {0: "orders stomp e"})
    assert after.table.it == 1
    assert after.table.queue == (2, 0, 1)  # "put in the back of the itness queue"
    assert simple(events_of(after, TAG)) == [(TAG, 1, (0, 1), ())]
    assert delta(state, after) == [2, -6 - 4, 1]  # the new it pays this round's tax
    assert after.table.tag_last_round


def test_no_tag_while_striding_or_when_not_it() -> None:
    state = position([(0, 0), (1, 0), (3, 3), (4, 3)], it=0)
    after = play(state, {0: "orders stride e", 2: "orders stomp e"})
    assert after.table.it == 0 and not after.table.tag_last_round
    assert events_of(after, TAG) == []


def test_a_stomping_it_that_is_run_into_tags_the_runner() -> None:
    state = position([(0, 0), (1, 0), FAR], it=0)
    after = play(state, {0: "orders stomp nothing", 1: "orders stride w"})
    assert after.table.it == 1


def test_tagging_several_at_once_tags_the_one_nearest_the_front_of_the_queue() -> None:
    state = position([(1, 1), (0, 1), (2, 1), FAR], it=0, queue=[2, 3, 1, 0])
    after = play(state, {0: "orders stomp nothing", 1: "orders stride e", 2: "orders stride w"})
    assert after.table.it == 2 and after.table.queue == (3, 1, 0, 2)


def test_friendly_tag_back_within_the_round() -> None:
    # "Friendly tags are allowed": 1, just tagged, stomps straight back into 0 in move 2
    state = position([(0, 0), (1, 0), FAR], it=0, moves=2)
    after = play(state, {0: "orders stomp e nothing", 1: "orders stomp nothing w"})
    assert simple(events_of(after, TAG)) == [(TAG, 1, (0, 1), ()), (TAG, 2, (1, 0), ())]
    assert after.table.it == 0
    assert delta(state, after) == [-3 - 3 - 4, -3 - 3, 1]


# --------------------------------------------------------------------------- teleport


def test_teleport_needs_a_tag_last_round_or_your_own_teleport() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2)
    with pytest.raises(IllegalAction, match="right after someone was tagged"):
        state.check_action(0, typed(state, 0, "orders stride teleport"))
    assert len(state.legal_actions(0)) == 2 * 2 * 9
    opened = position([(0, 0), (2, 2), FAR], it=2, tag_last_round=True)
    opened.check_action(0, typed(opened, 0, "orders stride teleport"))
    assert len(opened.legal_actions(0)) == 2 * 2 * 10
    own = position([(0, 0), (2, 2), FAR], it=2, teleported=[True, False, False])
    own.check_action(0, typed(own, 0, "orders stride teleport"))
    with pytest.raises(IllegalAction, match="teleport"):
        own.check_action(1, typed(own, 1, "orders stride teleport"))


def test_teleport_lands_on_a_drawn_cell_and_costs_five() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2, tag_last_round=True)
    pending = state.apply(orders_joint(state, {0: "orders stride teleport"}))
    assert pending.decision() == Chance((Pick(25, 1),), "teleport landings")
    after = play(state, {0: "orders stride teleport"}, landings=[cell_index(state, (3, 1))])
    assert at(after, 0) == (3, 1)
    assert delta(state, after) == [-5 + 1, 1, IT_FAR]
    assert simple(events_of(after, TELEPORTED)) == [(TELEPORTED, 1, (0,), (-5,))]
    # the teleporter may teleport again next round; the tag window has closed for others
    assert after.table.teleported == (True, False, False) and not after.table.tag_last_round
    after.check_action(0, typed(after, 0, "orders stride teleport"))
    with pytest.raises(IllegalAction, match="right after someone was tagged"):
        after.check_action(1, typed(after, 1, "orders stride teleport"))


def test_teleport_tag_opens_teleports_for_everyone_next_round() -> None:
    state = position([(0, 0), (1, 0), FAR], it=0)
    after = play(state, {0: "orders stomp e"})
    for seat in range(3):
        after.check_action(seat, typed(after, seat, "orders stride teleport"))


def test_teleport_onto_a_standing_player_is_a_collision() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2, tag_last_round=True)
    after = play(
        state,
        {0: "orders stride teleport", 1: "orders stomp nothing"},
        landings=[cell_index(state, (2, 2))],
    )
    assert at(after, 0) == (0, 0)
    assert simple(events_of(after, MEET)) == [(MEET, 1, (0, 1), (-6, 2))]
    assert delta(state, after)[0] == -5 - 6


def test_a_cancelled_teleport_is_not_made_or_paid() -> None:
    state = position([(0, 0), (1, 0), FAR], it=2, moves=[2, 1, 1], tag_last_round=True)
    after = play(state, {0: "orders stride e teleport"}, landings=[0])
    assert events_of(after, TELEPORTED) == [] and at(after, 0) == (0, 0)
    assert delta(state, after)[0] == -3 and after.table.teleported[0] is False


def test_several_teleports_draw_one_landing_each_in_seat_order() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2, moves=[2, 1, 1], tag_last_round=True)
    orders = {0: "orders stride teleport teleport", 1: "orders stride teleport"}
    pending = state.apply(orders_joint(state, orders))
    assert pending.decision() == Chance((Pick(25, 3),), "teleport landings")
    after = play(state, orders, landings=[1, 2, 3])
    assert [at(after, 0), at(after, 1)] == [(2, 0), (3, 0)]
    assert delta(state, after)[:2] == [-10 + 1, -5 + 1]


# --------------------------------------------------------------------------- upgrades


def test_an_upgrade_costs_five_and_adds_a_move_from_the_next_round() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2)
    after = play(state, {0: "orders+up stride e"})
    assert at(after, 0) == (1, 0) and after.table.moves == (2, 1, 1)
    assert simple(events_of(after, UPGRADE)) == [(UPGRADE, 0, (0,), (-5,))]
    assert delta(state, after)[0] == -5 + 1
    with pytest.raises(IllegalAction, match="2 move"):
        after.check_action(0, typed(after, 0, "orders stride e"))
    later = play(after, {0: "orders stride e e"})
    assert at(later, 0) == (3, 0)


def test_upgrades_stop_at_the_move_cap() -> None:
    state = position([(0, 0), (2, 2), FAR], it=2, moves=[3, 1, 1])
    with pytest.raises(IllegalAction, match="no more upgrades"):
        state.check_action(0, typed(state, 0, "orders+up stride n n n"))
    capped = position([(0, 0), (2, 2), FAR], it=2, options={"max_moves": 1})
    assert len(capped.legal_actions(0)) == 2 * 9


def test_an_upgrade_you_cannot_afford_knocks_you_out_before_moving() -> None:
    state = position([(0, 0), (1, 0), FAR], points=[5, 30, 30], it=2)
    after = play(state, {0: "orders+up stomp e"})
    assert after.table.out[0] == 1 and at(after, 0) is None
    assert events_of(after, MEET) == []
    assert simple(events_of(after, OUT)) == [(OUT, 0, (0,), ())]


# --------------------------------------------------------------------------- elimination


def test_at_zero_points_a_player_is_out() -> None:
    state = position([(0, 1), (2, 1), (4, 0), FAR], points=[3, 30, 30, 30], it=3)
    after = play(state, {0: "orders stride e", 1: "orders stride w"})
    assert after.table.points[0] == 0 and after.table.out[0] == 1
    assert at(after, 0) is None and 0 not in after.table.queue
    assert after.decision().seats == (1, 2, 3)  # type: ignore[union-attr]


def test_when_the_it_is_out_the_front_of_the_queue_is_made_it_and_goes_back() -> None:
    state = position(
        [(0, 0), (2, 2), (4, 0), FAR], points=[3, 30, 30, 30], it=0, queue=[2, 1, 3, 0]
    )
    after = play(state, {})  # the it strides in place: 3 + 1 - 4 = 0
    assert after.table.out[0] == 1
    assert after.table.it == 2 and after.table.queue == (1, 3, 2)
    assert simple(events_of(after, MADE_IT)) == [(MADE_IT, 0, (2,), ())]


def test_a_tagged_player_knocked_out_passes_it_to_the_front_of_the_queue() -> None:
    state = position(
        [(0, 0), (1, 0), (4, 0), FAR], points=[30, 5, 30, 30], it=0, queue=[1, 2, 3, 0]
    )
    after = play(state, {0: "orders stomp e"})
    assert simple(events_of(after, TAG)) == [(TAG, 1, (0, 1), ())]
    assert after.table.out[1] == 1 and after.table.it == 2
    assert after.table.queue == (3, 0, 2)


def test_last_player_standing_wins_and_the_round_stops_there() -> None:
    state = position([(0, 0), (1, 0), None], points=[30, 5, 0], it=0, moves=2)
    after = play(state, {0: "orders stomp e e", 1: "orders stride nothing e"})
    decision = after.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0,), (1,), (2,))
    assert decision.outcome.scores == (3, 2, 2)
    assert delta(state, after)[0] == 2  # no second move, no recovery or tax after the win
    assert isinstance(after, StomptagState) and at(after, 0) == (0, 0)


def test_the_last_two_going_out_together_share_first_place() -> None:
    state = position([(0, 1), (2, 1), None], points=[3, 3, 0], it=0)
    after = play(state, {0: "orders stride e", 1: "orders stride w"})
    decision = after.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0, 1), (2,))
    assert decision.outcome.scores == (3, 3, 2)
