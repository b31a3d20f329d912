"""Prototag scenario tests, one group per sentence of the rule text (v0.2).

Positions are constructed directly; tiles are (row, col) with row 0 the north edge.
Seat 0 is tagged unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from lanTag.games.prototag.engine import Prototag
from lanTag.games.prototag.state import MOVE, ROLL, RPS, Rules
from lanTag.rules.base import (
    Action,
    Chance,
    Die,
    IllegalAction,
    Move,
    Over,
    Roll,
    Simultaneous,
    Turn,
)
from lanTag.views.registry import game_view
from tests.rules.prototag_helpers import moving, position, roll, rps, step, steps_names

VIEW = game_view("prototag")

CENTRE = (3, 3)
D6 = Die((1, 2, 3, 4, 5, 6))
D4 = Die((1, 2, 3, 4))


# --------------------------------------------------------------------------- "7 x 7 tiles"


def test_the_board_is_seven_by_seven() -> None:
    state = Prototag.new_state(3)
    assert state.rules.board_size == 7
    grid_rows = [line for line in VIEW.render(state).splitlines() if line[:2].strip().isdigit()]
    assert len(grid_rows) == 7
    # seat 0 stands on the north-west corner: the edges stop it on both sides
    walker = moving([(0, 0), (6, 6), (3, 3)], 2, tagged=2)
    assert steps_names(walker) == ["step e", "step s"]
    with pytest.raises(IllegalAction, match="off the board"):
        walker.apply(Move(0, Action("step", ("n",))))


def test_board_size_option_changes_the_board() -> None:
    state = Prototag.new_state(4, {"board_size": 5})
    assert state.positions == ((0, 0), (0, 4), (4, 4), (4, 0))
    east_edge = moving([(2, 4), (0, 0)], 3, rules=Rules(board_size=5))
    assert "step e" not in steps_names(east_edge)


# ----------------------------------- "When accumulated steps by tagged players reach 40 ..."


def test_game_ends_the_moment_tagged_steps_reach_40_even_mid_turn() -> None:
    state = moving([CENTRE, (0, 0), (6, 6)], 5, tagged_steps=38)
    state = step(state, "n")
    assert state.tagged_steps == 39 and state.phase == MOVE
    state = step(state, "n")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert state.tagged_steps == 40
    assert decision.outcome.ranking == ((1, 2), (0,))  # "the one who's tagged ... is the loser"


def test_steps_of_untagged_players_do_not_count() -> None:
    state = moving([CENTRE, (0, 0), (6, 6)], 4, mover=1, tagged=0, tagged_steps=39)
    state = step(state, "e", "e", "e", "s")
    assert state.tagged_steps == 39
    assert state.decision() == Chance((D4,), "roll/2/d4")


def test_steps_accumulate_across_different_tagged_players() -> None:
    state = moving([CENTRE, (3, 5), (6, 6)], 3, tagged_steps=10)
    state = step(state, "e", "e")  # reaches seat 1 on the 2nd step
    state = rps(state, "paper", "rock")  # seat 1 is tagged now
    assert state.tagged == 1 and state.tagged_steps == 12
    state = roll(state, 4)  # seat 1 moves next, with the D6
    state = step(state, "n", "n")
    assert state.tagged_steps == 14


def test_the_player_tagged_after_a_battle_on_the_last_step_loses() -> None:
    state = moving([CENTRE, (3, 4), (6, 6)], 3, tagged_steps=39)
    state = step(state, "e")
    assert state.tagged_steps == 40
    assert state.decision() == Simultaneous((0, 1), "rps")  # the battle is still fought
    state = rps(state, "scissors", "paper")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0, 2), (1,))
    assert "seat 1 loses" in decision.outcome.summary


# ----------------------------------------------------------------- "Decide who starts"


def test_every_player_throws_a_d6_and_the_highest_starts() -> None:
    state = Prototag.new_state(3)
    decision = state.decision()
    assert isinstance(decision, Chance)
    assert decision.draws == (D6,) * 3
    state = roll(state, 2, 5, 3)
    assert state.mover == 1 and state.phase == ROLL
    assert state.tagged == 1  # decision: the starter is the first tagged player
    assert state.decision() == Chance((D6,), "roll/1/d6")


def test_tied_highest_throw_again_among_themselves_until_one_wins() -> None:
    state = roll(Prototag.new_state(4), 6, 2, 6, 6)
    assert state.contenders == (0, 2, 3) and state.mover == -1
    decision = state.decision()
    assert isinstance(decision, Chance) and len(decision.draws) == 3  # only the tied throw
    state = roll(state, 4, 4, 1)
    assert state.contenders == (0, 2)
    state = roll(state, 3, 5)
    assert state.mover == 2 and state.tagged == 2 and state.contenders == ()


def test_first_tagged_random_option_draws_the_tagged_seat() -> None:
    state = roll(Prototag.new_state(3, {"first_tagged": "random"}), 1, 1, 4)
    assert state.mover == 2 and state.tagged == -1
    assert isinstance(state.decision(), Chance)
    state = roll(state, 0)  # a Pick among the seats
    assert state.tagged == 0 and state.mover == 2
    assert state.decision() == Chance((D4,), "roll/2/d4")


# ----------------------------------------- "You can move only in straight and right angles."


def test_moves_are_single_orthogonal_steps() -> None:
    state = moving([CENTRE, (0, 0), (6, 6)], 3)
    assert steps_names(state) == ["step n", "step e", "step s", "step w"]
    for bad in ("ne", "up"):
        with pytest.raises(IllegalAction, match="step n"):
            state.apply(Move(0, Action("step", (bad,))))
    state = step(state, "n", "e")  # a right angle
    assert state.positions[0] == (2, 4) and state.path == (CENTRE, (2, 3), (2, 4))


# ------------------------------------- "You must move as many tiles as the dice indicate."


def test_the_turn_lasts_exactly_the_rolled_number_of_steps() -> None:
    state = moving([CENTRE, (0, 0), (6, 6)], 3)
    state = step(state, "n", "n")
    assert state.decision() == Turn(0) and state.steps_left == 1
    with pytest.raises(IllegalAction):  # no way to stop early
        state.apply(Move(0, Action("end")))
    state = step(state, "e")
    assert state.positions[0] == (1, 4)
    assert state.phase == ROLL and state.mover == 1


# ------------- "The tiles you visit ..., including the one you started at, ... only once"


def test_no_tile_of_this_turn_is_visited_twice_so_no_back_and_forth() -> None:
    state = step(moving([CENTRE, (0, 0), (6, 6)], 4), "n", "e")
    with pytest.raises(IllegalAction, match="already visited"):
        state.apply(Move(0, Action("step", ("w",))))
    assert steps_names(state) == ["step n", "step e", "step s"]


def test_you_cannot_end_up_at_the_tile_you_started() -> None:
    state = step(moving([CENTRE, (0, 0), (6, 6)], 4), "n", "e", "s")
    with pytest.raises(IllegalAction, match="started from"):
        state.apply(Move(0, Action("step", ("w",))))
    assert "step w" not in steps_names(state)


def test_tiles_of_an_earlier_turn_may_be_visited_again() -> None:
    state = position([(3, 4), (0, 0), (6, 6)], mover=0, phase=ROLL)
    state = roll(step(roll(state, 1), "w"), 2)  # seat 1's turn: two steps
    state = step(state, "e", "e")
    state = roll(state, 3)  # seat 2 moves
    state = step(state, "n", "n", "n")
    state = roll(state, 1)  # seat 0 again
    assert "step e" in steps_names(state)  # back to the tile it left last turn
    assert step(state, "e").positions[0] == (3, 4)


# ------------------ "You can lock yourself in ... This will end your turn, no matter ..."


def test_moving_into_a_dead_end_locks_you_in_and_ends_the_turn() -> None:
    # seat 1 (not tagged) at (1,0); the north-west corner is a dead end behind seats 0 and 2
    state = moving([(0, 2), (1, 0), (1, 1)], 4, mover=1)
    assert steps_names(state) == ["step n", "step s"]  # the dead end is a legal choice
    state = step(state, "n", "e")
    assert state.positions[1] == (0, 1)
    assert state.phase == ROLL and state.mover == 2  # 2 steps unused, turn over
    assert state.events[-1] == ("locked-in", 2)


def test_a_player_boxed_in_at_the_start_loses_the_turn_after_rolling() -> None:
    state = position([(5, 5), (0, 0), (0, 1), (1, 0)], mover=1)
    state = roll(state, 3)
    assert state.positions[1] == (0, 0)
    assert state.phase == ROLL and state.mover == 2
    assert state.events == (("boxed", 1, 3),)


# ----------------------- "The next player is the one to the left of the previous player."


def test_the_next_player_is_the_seat_to_the_left_wrapping_round() -> None:
    state = moving([CENTRE, (0, 0), (6, 6)], 1, mover=2)
    state = step(state, "n")
    assert state.mover == 0 and state.decision() == Chance((D6,), "roll/0/d6")
    state = step(roll(state, 1), "n")
    assert state.mover == 1


# ----- "When the tagged player reaches a tile occupied by another player ... rock, paper, scissor"


def test_reaching_an_occupied_tile_stops_the_tagged_player_for_a_battle() -> None:
    state = step(moving([CENTRE, (2, 3), (6, 6)], 5), "n")
    assert state.decision() == Simultaneous((0, 1), "rps")
    assert state.phase == RPS and state.positions[0] == state.positions[1] == (2, 3)
    assert [str(a) for a in state.legal_actions(1)] == ["rps rock", "rps paper", "rps scissors"]
    assert state.legal_actions(2) == ()
    with pytest.raises(IllegalAction):
        state.apply(Move(0, Action("step", ("n",))))


def test_a_drawn_battle_is_played_again() -> None:
    state = step(moving([CENTRE, (2, 3), (6, 6)], 5), "n")
    state = rps(state, "rock", "rock")
    assert state.decision() == Simultaneous((0, 1), "rps") and state.rps_draws == 1
    state = rps(state, "paper", "paper")
    assert state.rps_draws == 2 and state.tagged == 0


# --- "When the tagged player wins, the loser becomes the new tagged player. The winner is immune"


def test_when_the_tagged_player_wins_the_loser_is_tagged_and_the_winner_immune() -> None:
    state = step(moving([CENTRE, (2, 3), (6, 6)], 5), "n")
    state = rps(state, "rock", "scissors")
    assert state.tagged == 1
    assert state.immune == 0 and state.immunity_left == 4  # blocked for steps 1-4
    assert state.mover == 1 and state.decision() == Chance((D6,), "roll/1/d6")


def test_immunity_holds_for_four_steps_and_is_lost_on_the_fifth() -> None:
    # seat 1 was just tagged by seat 0, next to it; entering (3,3) is possible on odd steps
    state = moving([CENTRE, (3, 4), (6, 6)], 6, mover=1, tagged=1, immune=0, immunity_left=4)
    with pytest.raises(IllegalAction, match="immune"):
        state.apply(Move(1, Action("step", ("w",))))  # 1st step
    state = step(state, "s", "w")
    assert "step n" not in steps_names(state)  # 3rd step still blocked
    state = step(state, "w", "n")
    assert state.immune == -1  # 4 steps moved: the 5th may attack
    state = step(state, "e")
    assert state.decision() == Simultaneous((1, 0), "rps")  # (tagged, other)


def test_immunity_still_blocks_the_fourth_step() -> None:
    state = moving([CENTRE, (3, 5), (6, 6)], 6, mover=1, tagged=1, immune=0, immunity_left=4)
    state = step(state, "n", "w", "w")
    assert state.positions[1] == (2, 3) and state.immunity_left == 1
    with pytest.raises(IllegalAction, match="immune from you for 1 more step"):
        state.apply(Move(1, Action("step", ("s",))))


def test_immunity_counts_the_newly_tagged_players_steps_across_turns() -> None:
    state = moving([CENTRE, (3, 4), (6, 6)], 3, mover=1, tagged=1, immune=0, immunity_left=4)
    state = step(state, "e", "e", "n")
    assert state.immune == 0 and state.immunity_left == 1
    state = step(roll(state, 1), "n")  # seat 2 flees
    state = step(roll(state, 1), "n")  # seat 0 flees: immunity is not spent by its own steps
    assert state.immunity_left == 1
    state = step(roll(state, 1), "n")
    assert state.immune == -1


def test_the_newly_tagged_player_may_attack_others_at_once() -> None:
    state = moving([CENTRE, (3, 4), (3, 5)], 3, mover=1, tagged=1, immune=0, immunity_left=4)
    state = step(state, "e")
    assert state.decision() == Simultaneous((1, 2), "rps")


def test_immunity_steps_option_zero_gives_no_immunity() -> None:
    rules = Rules(immunity_steps=0)
    state = step(moving([CENTRE, (2, 3), (6, 6)], 5, rules=rules), "n")
    state = rps(state, "rock", "scissors")
    assert state.tagged == 1 and state.immune == -1 and state.immunity_left == 0
    adjacent = moving([CENTRE, (3, 4)], 2, mover=1, tagged=1, rules=rules)
    assert step(adjacent, "w").decision() == Simultaneous((1, 0), "rps")


# ------------- "If the tagged player loses in rock, paper, scissor, the game continue as normal."


def test_when_the_tagged_player_loses_nothing_changes_and_play_goes_on() -> None:
    state = moving([CENTRE, (2, 3), (6, 6)], 5, immune=2, immunity_left=3)
    state = step(state, "n")
    state = rps(state, "rock", "paper")
    assert state.tagged == 0 and state.immune == 2 and state.immunity_left == 2
    assert state.phase == ROLL and state.mover == 1


# --------------- "In any case, both players stay put at the same tile and the round continues"


def test_both_stay_on_the_tile_and_the_mover_turn_ends_with_steps_unused() -> None:
    for tagger_choice, winner_tagged in (("paper", 1), ("scissors", 0)):
        state = step(moving([CENTRE, (2, 3), (6, 6)], 6, mover=0), "n")
        state = rps(state, tagger_choice, "rock")
        assert state.tagged == winner_tagged
        assert state.positions[0] == state.positions[1] == (2, 3)
        assert state.phase == ROLL and state.mover == 1  # the seat left of the mover


def test_a_tagged_player_sharing_a_tile_moves_off_it_and_cannot_come_back() -> None:
    state = position([(2, 3), (2, 3), (6, 6)], tagged=1, mover=1, immune=0, immunity_left=4)
    state = roll(state, 2)
    state = step(state, "e")
    assert "step w" not in steps_names(state)


# ------------------------------------------------------ "Players cannot move through each other."


def test_untagged_players_cannot_enter_or_pass_an_occupied_tile() -> None:
    state = moving([(3, 1), CENTRE, (3, 4)], 4, mover=1)
    with pytest.raises(IllegalAction, match="cannot move through each other"):
        state.apply(Move(1, Action("step", ("e",))))  # seat 2, untagged
    with pytest.raises(IllegalAction, match="seat 0 is there"):
        step(state, "w").apply(Move(1, Action("step", ("w",))))  # the tagged seat 0


def test_nobody_but_the_tagged_player_enters_a_shared_tile() -> None:
    state = moving([(2, 3), (2, 3), (2, 4)], 2, mover=2, tagged=1, immune=0, immunity_left=4)
    assert "step w" not in steps_names(state)


# ------------ "The currently tagged player uses a D6 dice, while the other players use a D4."


def test_the_tagged_player_rolls_a_d6_and_the_others_a_d4() -> None:
    tagged_turn = position([CENTRE, (0, 0), (6, 6)], mover=0)
    assert tagged_turn.decision() == Chance((D6,), "roll/0/d6")
    other_turn = position([CENTRE, (0, 0), (6, 6)], mover=1)
    assert other_turn.decision() == Chance((D4,), "roll/1/d4")
    with pytest.raises(IllegalAction):
        other_turn.apply(Roll(((5,),)))
    assert roll(tagged_turn, 6).steps_left == 6


def test_dice_options() -> None:
    rules = Rules(tagged_die=8, other_die=3)
    assert position([CENTRE, (0, 0)], mover=0, rules=rules).decision() == Chance(
        (Die(tuple(range(1, 9))),), "roll/0/d8"
    )
    assert position([CENTRE, (0, 0)], mover=1, rules=rules).decision() == Chance(
        (Die((1, 2, 3)),), "roll/1/d3"
    )
