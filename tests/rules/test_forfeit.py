"""A convicted seat's forfeit (SPEC §4.4, docs/rules/*.md "Forfeit").

A forfeit must leave the seat no better off than any choice it could have made
honestly, whatever the other seats chose: the cheater who saw the others' reveals
gains nothing by not opening its commitment.
"""

from __future__ import annotations

import pytest

from lanTag.games.prototag.engine import PrototagState
from lanTag.games.prototag.state import RPS_ACTIONS
from lanTag.games.prototag.view import events_text
from lanTag.games.stomptag.engine import Stomptag, StomptagState
from lanTag.games.stomptag.rounds import RECOVER
from lanTag.rules.base import FORFEIT, Action, IllegalAction, Joint, Roll
from lanTag.rules.registry import get_game
from tests.rules.prototag_helpers import moving, step
from tests.rules.stomptag_helpers import events_of, orders_joint, position
from tests.rules.test_prototag import CENTRE


def battle() -> PrototagState:
    state = step(moving([CENTRE, (2, 3), (6, 6)], 5), "n")
    assert state.phase == "rps" and state.tagged == 0 and state.opponent == 1
    return state


def fight(state: PrototagState, tagger: Action, target: Action) -> PrototagState:
    after = state.apply(Joint(((0, tagger), (1, target))))
    assert isinstance(after, PrototagState)
    return after


def test_forfeit_is_never_a_legal_choice_of_a_player() -> None:
    state = battle()
    assert state.forfeit_action(1) == FORFEIT
    assert FORFEIT not in state.legal_actions(1)
    with pytest.raises(IllegalAction):
        state.check_action(1, FORFEIT)


@pytest.mark.parametrize("honest", RPS_ACTIONS)
def test_a_forfeiting_tagger_loses_the_battle_whatever_the_other_chose(honest: Action) -> None:
    after = fight(battle(), FORFEIT, honest)
    assert after.tagged == 0 and after.phase != "rps"  # the target won: the tagger stays it
    # and an honest tagger never does worse than that
    for mine in RPS_ACTIONS:
        honest_after = fight(battle(), mine, honest)
        assert honest_after.phase == "rps" or honest_after.tagged in (0, 1)


@pytest.mark.parametrize("honest", RPS_ACTIONS)
def test_a_forfeiting_target_is_tagged_whatever_the_tagger_chose(honest: Action) -> None:
    after = fight(battle(), honest, FORFEIT)
    assert after.tagged == 1 and after.phase != "rps"
    assert after.events[0][0] == "rps-tags" and after.events[0][4] == "forfeit"
    assert "seat 1 forfeit" in events_text(after)


def test_two_forfeits_draw_and_the_battle_is_fought_again() -> None:
    after = fight(battle(), FORFEIT, FORFEIT)
    assert after.phase == "rps" and after.rps_draws == 1 and after.tagged == 0


def bids_state() -> StomptagState:
    state = Stomptag.new_state(4)
    after = state.apply(Roll(((2, 0, 3, 1),)))  # minimums 3 1 4 2
    assert isinstance(after, StomptagState)
    return after


def test_a_forfeited_bid_pays_the_minimum_and_stands_first_in_the_itness_queue() -> None:
    state = bids_state()
    # seat 1 has the lowest minimum (1): bidding it honestly, seat 3's bid of 2 ranks after
    # it; the forfeit ranks first even against a lower bid of another seat.
    choices = ((0, Action("bid", (5,))), (1, FORFEIT), (2, Action("bid", (5,))))
    after = state.apply(Joint((*choices, (3, Action("bid", (2,))))))
    assert isinstance(after, StomptagState)
    assert after.table.it == 1  # the front of the queue is it
    assert after.bids[1] == 1 and after.table.points[1] == 35 - 1
    assert after.invariants() == []
    # an honest seat 1 could have bid its way out of it; the forfeit cannot
    others = (*choices[:1], *choices[2:], (3, Action("bid", (2,))))
    honest = state.apply(Joint(tuple(sorted((*others, (1, Action("bid", (9,))))))))
    assert isinstance(honest, StomptagState) and honest.table.it == 3


def test_forfeited_orders_stand_still_without_the_stride_point() -> None:
    state = position([(0, 0), (2, 2), (4, 4)], it=2)
    joint = orders_joint(state, {})
    forfeit = Joint(tuple((s, FORFEIT if s == 0 else a) for s, a in joint.choices))
    honest = state.apply(joint)
    after = state.apply(forfeit)
    assert isinstance(honest, StomptagState) and isinstance(after, StomptagState)
    assert after.table.cells[0] == state.table.cells[0]  # stood still
    assert honest.table.points[0] == state.table.points[0] + 1  # an honest stay recovers
    assert after.table.points[0] == state.table.points[0]  # the forfeit does not
    assert all(0 not in e.seats for e in events_of(after, RECOVER))
    assert after.invariants() == []
    # the forfeit is kept in the state's encoding, and decodes back
    game = get_game("stomptag")
    assert game.state_from_obj(after.to_obj()) == after
    assert dict(after.orders)[0].forfeit and not dict(honest.orders)[0].forfeit


def test_forfeited_orders_survive_a_pending_teleport() -> None:
    state = position([(0, 0), (2, 2), (4, 4)], it=2, tag_last_round=True)
    joint = orders_joint(state, {1: "orders stride teleport"})
    forfeit = Joint(tuple((s, FORFEIT if s == 0 else a) for s, a in joint.choices))
    pending = state.apply(forfeit)
    assert isinstance(pending, StomptagState) and pending.phase == "teleports"
    game = get_game("stomptag")
    assert game.state_from_obj(pending.to_obj()) == pending
    after = pending.apply(Roll(((7,),)))
    assert isinstance(after, StomptagState)
    assert after.table.points[0] == state.table.points[0]  # no stride point
