"""Scenario tests for TAG: The Assassination Game, one or more per rule sentence.

Each test quotes the sentence it checks (seed text sections 3-6) or the decision
from docs/rules/assassination.md.  5x5 board: Safe House c3, bases c5 (n),
e3 (e), c1 (s), a3 (w); corners a5, e1, e5, a1.
"""

from __future__ import annotations

import pytest

from lanTag.games.assassination.board import SAFE_HOUSE
from lanTag.games.assassination.engine import Assassination, AssassinationState
from lanTag.games.assassination.view import events_texts
from lanTag.rules.base import (
    Action,
    Chance,
    Die,
    IllegalAction,
    Move,
    Over,
    Pick,
    Roll,
    Turn,
)
from lanTag.views.registry import game_view
from tests.rules.assassination_helpers import act, legal, make, roll, square

VIEW = game_view("assassination")

# ------------------------------------------------------------------ 3. set-up


def test_board_is_5x5_with_the_empty_centre_as_safe_house() -> None:
    """3A "a 5X5 (6X6 for 6-8 players) board with a the center being empty, this is the
    Safe House." """
    state = make(3)
    assert state.board.size == 5
    assert VIEW.view(state, 0)["safe_house"] == ["c3"]
    assert state.positions[0] == SAFE_HOUSE
    assert state.board.cell_of("c3") is None  # not a square anyone can stand on


def test_six_to_eight_players_use_6x6_with_the_2x2_centre_as_one_safe_house() -> None:
    """3A "6X6 for 6-8 players" and decision: the empty 2x2 centre is one space."""
    state = make(6)
    assert state.board.size == 6
    assert VIEW.view(state, 0)["safe_house"] == ["c3", "c4", "d3", "d4"]
    after = roll(state, 1)
    assert legal(after) == {f"leave {s}" for s in ("c5", "d5", "b4", "e4", "b3", "e3", "c2", "d2")}


def test_a_base_on_one_square_of_each_side() -> None:
    """3B "Place an Ace coin face-down on one square on each side of the board." """
    assert VIEW.view(make(3), 0)["bases"] == {"n": "c5", "e": "e3", "s": "c1", "w": "a3"}
    # 6x6: a pinwheel, each base two steps from the Safe House like on 5x5.
    assert VIEW.view(make(6), 0)["bases"] == {"n": "c6", "e": "f4", "s": "d1", "w": "a3"}
    state = act(roll(make(6), 2), "leave c5", "step n")
    assert state.coin_sides(0) == ["n"]


def test_a_roll_picks_the_first_victim_the_others_are_assassins() -> None:
    """3D "Roll to see who will be the first victim, the other players are assassins." """
    state = Assassination.new_state(4)
    assert state.decision() == Chance((Pick(4),), purpose="first-victim")
    state = state.apply(Roll(((2,),)))
    assert isinstance(state, AssassinationState)
    assert state.victim == 2
    assert [state.role(s) for s in range(4)] == ["assassin", "assassin", "victim", "assassin"]


def test_victim_in_safe_house_assassins_on_opposite_corners() -> None:
    """3E "The victim starts in the Safe House, the assassins start on opposite corners of
    the board." Assassins take corners in seat order from the victim's left."""
    three = Assassination.new_state(3).apply(Roll(((1,),)))
    assert isinstance(three, AssassinationState)
    assert three.positions[1] == SAFE_HOUSE
    assert (square(three, 2), square(three, 0)) == ("a5", "e1")  # opposite corners
    five = make(5)
    assert [square(five, s) for s in range(1, 5)] == ["a5", "e1", "e5", "a1"]


def test_six_to_eight_players_start_one_square_out_two_to_a_corner() -> None:
    """3E "For 6-8 players the assassins start one square out from the coners, with 2 to a
    corner." """
    state = make(8)
    corners = {"a6", "f6", "a1", "f1"}
    starts = [state.positions[s] for s in range(1, 8)]
    assert len(set(starts)) == 7
    per_corner: dict[str, int] = {}
    for cell in starts:
        name = state.board.name(cell)
        near = [c for c in corners if _adjacent(state, name, c)]
        assert len(near) == 1, name
        per_corner[near[0]] = per_corner.get(near[0], 0) + 1
    assert sorted(per_corner.values()) == [1, 2, 2, 2]
    assert [square(state, s) for s in (1, 2)] == ["b6", "e1"]  # opposite corners first


def _adjacent(state: AssassinationState, a: str, b: str) -> bool:
    cell_a, cell_b = state.board.cell_of(a), state.board.cell_of(b)
    assert cell_a is not None and cell_b is not None
    return cell_b in state.board.neighbours(cell_a)


# ------------------------------------------------------------------ 4A. turn order


def _movers(state: AssassinationState, count: int) -> list[int]:
    """Whose die it is for ``count`` turns, every turn a null (victim keeps it)."""
    movers = []
    for _ in range(count):
        movers.append(state.mover)
        state = roll(state, 0)
        if state.phase == "null":
            state = act(state, "keep")
    return movers


def test_the_victim_takes_a_turn_after_each_assassin() -> None:
    """4A "The victim takes a turn after each assassin." Decision: the victim moves first,
    assassins in seat order to the left (seat + 1)."""
    assert _movers(make(3, victim=0), 7) == [0, 1, 0, 2, 0, 1, 0]
    assert _movers(make(4, victim=2), 7) == [2, 3, 2, 0, 2, 1, 2]


# ------------------------------------------------------------------ 4B. the victim's turn


def test_victim_moves_exactly_the_roll_and_may_change_direction() -> None:
    """4Bi "Roll the die and move the spaces indicated orthologically, you may change
    directions" """
    state = roll(make(3), 3)
    state = act(state, "leave d3", "step n")
    assert state.mover == 0 and state.steps_left == 1
    state = act(state, "step w")
    assert square(state, 0) == "c4"
    assert state.mover == 1 and state.phase == "roll"  # the turn ended after 3 steps


def test_victim_may_not_backtrack_onto_the_square_just_left() -> None:
    """4Bi "you may not backtrack onto the space you just left." """
    state = act(roll(make(3, places={0: "b2"}), 2), "step n")
    assert "step s" not in legal(state)
    with pytest.raises(IllegalAction, match="backtrack onto b2"):
        act(state, "step s")


def test_only_the_square_just_left_is_barred_so_a_loop_may_revisit() -> None:
    """Decision on 4Bi: a 4-step loop back to the starting square is allowed."""
    state = act(roll(make(3, places={0: "b4"}), 4), "step n", "step e", "step s", "step w")
    assert square(state, 0) == "b4" and state.mover == 1


def test_only_steps_that_can_finish_the_move_are_offered() -> None:
    """Decision: a step into a dead end (no way to take the rest of the roll) is illegal."""
    state = roll(make(3, places={0: "a4", 1: "b4", 2: "b5"}), 2)
    assert legal(state) == {"step s"}  # north to a5 would be stuck: b5 holds an assassin
    with pytest.raises(IllegalAction, match="no way to take the remaining 1 step"):
        act(state, "step n")


def test_no_exact_path_means_the_turn_is_lost() -> None:
    """Decision: with no path of exactly the roll, the pawn stays and the turn passes."""
    state = roll(make(3, places={0: "a5", 1: "b5", 2: "a4"}), 2)
    assert square(state, 0) == "a5"
    assert state.mover == 1 and state.phase == "roll"
    assert state.events == (("stuck", 0, 2),)
    assert "no legal move" in events_texts(state)[0]


def test_victim_may_reroll_a_null() -> None:
    """4Bii "On a roll of 0 (Null) you may re-roll." """
    state = roll(make(3), 0)
    assert state.decision() == Turn(0)
    assert legal(state) == {"reroll", "keep"}
    rerolled = act(state, "reroll")
    assert isinstance(rerolled.decision(), Chance)
    assert rerolled.mover == 0
    kept = act(state, "keep")
    assert kept.positions[0] == SAFE_HOUSE and kept.mover == 1


def test_a_reroll_that_is_null_again_may_be_rerolled_by_default() -> None:
    """Decision on 4Bii: a re-rolled null is again "a roll of 0" (option null_reroll=every)."""
    state = roll(act(roll(make(3), 0), "reroll"), 0)
    assert legal(state) == {"reroll", "keep"}


def test_null_reroll_once_option_allows_one_reroll_per_turn() -> None:
    """Option null_reroll=once: a second null ends the turn."""
    state = roll(act(roll(make(3, options={"null_reroll": "once"}), 0), "reroll"), 0)
    assert state.mover == 1 and state.positions[0] == SAFE_HOUSE
    assert state.events == (("null-again", 0),)
    assert "null again" in events_texts(state)[0]


def test_aces_count_as_one() -> None:
    """4Bii "Aces count as 1." (and the piecepack die has faces null, ace, 2-5)"""
    state = make(3)
    assert state.decision() == Chance((Die(faces=(0, 1, 2, 3, 4, 5)),), purpose="die/0/victim")
    state = act(roll(state, 1), "leave c2")
    assert square(state, 0) == "c2" and state.mover == 1


def test_victim_may_not_reenter_the_safe_house() -> None:
    """4Biii "Once the victim has left the Safe House he may not re-enter." """
    state = roll(make(3, places={0: "c4"}), 1)
    assert legal(state) == {"step n", "step e", "step w"}
    with pytest.raises(IllegalAction, match="may not re-enter"):
        act(state, "step s")


def test_victim_may_not_pass_over_an_assassin() -> None:
    """4Biv "You may not pass over an assassin." """
    state = roll(make(3, places={0: "b4", 1: "c4"}), 2)
    assert "step e" not in legal(state)
    with pytest.raises(IllegalAction, match="may not pass over the assassin on c4"):
        act(state, "step e")


def test_victim_may_not_land_on_an_assassin_either() -> None:
    """Decision on 4Biv: the victim never enters an assassin's square, last step included."""
    state = roll(make(3, places={0: "b4", 1: "c4"}), 1)
    assert legal(state) == {"step n", "step s", "step w"}


def test_victim_lands_on_a_base_by_exact_count_and_marks_it() -> None:
    """4Bv "You must land on the bases by exact count. When you land on a base place one of
    your coins next to it" """
    state = act(roll(make(3), 2), "leave c4", "step n")
    assert square(state, 0) == "c5"
    assert state.coin_sides(0) == ["n"]
    assert "lands on the n base (1/4 touched)" in events_texts(state)[-1]


def test_victim_passing_over_a_base_does_not_touch_it() -> None:
    """Decision on 4Bv: passing over is allowed; only landing by exact count marks a base."""
    state = act(roll(make(3), 3), "leave c4", "step n", "step e")
    assert square(state, 0) == "d5"
    assert state.coins[0] == 0


# ------------------------------------------------------------------ 4C. the assassin's turn


def test_assassin_moves_exactly_the_roll_without_backtracking() -> None:
    """4Cii "Roll the die and move the spaces indicated orthologically, you may change
    directions but you may not backtrack onto the space you just left." """
    state = act(roll(make(3, places={0: "e3"}, mover=1), 2), "step e")
    assert square(state, 1) == "b5"
    with pytest.raises(IllegalAction, match="backtrack onto a5"):
        act(state, "step w")
    state = act(state, "step s")
    assert square(state, 1) == "b4" and state.mover == 0


def test_assassin_cannot_move_on_a_null() -> None:
    """4Ciii "On a roll of 0 (Null) you cannot move this turn." """
    state = roll(make(3, mover=1), 0)
    assert square(state, 1) == "a5"
    assert state.mover == 0 and state.phase == "roll"


def test_assassin_may_not_land_on_a_base() -> None:
    """4Civ "You may not land on a base" """
    state = roll(make(3, places={1: "b5"}, mover=1), 1)
    assert "step e" not in legal(state)
    with pytest.raises(IllegalAction, match="may not land on a base"):
        act(state, "step e")


def test_assassin_may_pass_over_a_base() -> None:
    """4Civ "but you may pass over it." """
    state = act(roll(make(3, places={1: "b5"}, mover=1), 2), "step e")
    assert square(state, 1) == "c5" and state.invariants() == []
    assert legal(state) == {"step e", "step s"}
    assert square(act(state, "step e"), 1) == "d5"


def test_assassin_may_not_enter_the_safe_house() -> None:
    """4Cv "You may not enter the Safe House." """
    state = roll(make(3, places={0: "e3", 1: "c4"}, mover=1), 1)
    assert "step s" not in legal(state)
    with pytest.raises(IllegalAction, match="assassins may not enter"):
        act(state, "step s")


def test_assassin_cannot_catch_the_victim_in_the_safe_house() -> None:
    """4Cv again: the victim in the Safe House is out of reach."""
    state = roll(make(3, places={1: "c4"}, mover=1), 1)
    assert VIEW.view(state, 1)["legal"] == ["step e", "step w"]  # c5 is a base, c3 the Safe House


def _caught(**options: object) -> AssassinationState:
    """Seat 1 lands on the victim (seat 0, bases n and e) on c4."""
    state = make(3, places={0: "c4", 1: "b4"}, mover=1, coins=(0b0011, 0, 0), options=options)
    return act(roll(state, 1), "step e")


def test_landing_on_the_victim_catches_and_the_catcher_becomes_victim_in_safe_house() -> None:
    """4Ci "capture the victim by landing on him." 4Cvi a "You become the victim and move
    your pawn to the Safe House." """
    state = _caught()
    assert state.victim == 1 and state.positions[1] == SAFE_HOUSE
    assert "seat 1 catches seat 0 on c4" in events_texts(state)[-1]


def test_the_old_victim_becomes_an_assassin_and_loses_the_coins() -> None:
    """4Cvi b "The old victim becomes an assassin and his coins are removed" Decision: the
    old victim's pawn stays where it was caught."""
    state = _caught()
    assert state.role(0) == "assassin" and square(state, 0) == "c4"
    assert state.coins == (0, 0, 0)


def test_the_new_victim_takes_the_next_turn_then_the_assassin_to_the_catchers_left() -> None:
    """4Cvi c "Play continues with the new victim taking his first turn." """
    state = _caught()
    assert state.mover == 1 and isinstance(state.decision(), Chance)
    state = act(roll(state, 1), "leave b3")
    assert state.mover == 2  # seat 1's left
    state = roll(make(4, places={0: "c4", 2: "b4"}, mover=2), 1)
    state = act(roll(act(state, "step e"), 1), "leave d3")
    assert state.mover == 3


def test_assassin_passing_over_the_victim_does_not_catch() -> None:
    """Decision on 4Ci: only landing on the victim catches; passing over is allowed."""
    state = act(roll(make(3, places={0: "c4", 1: "b4"}, mover=1), 2), "step e", "step e")
    assert square(state, 1) == "d4" and state.victim == 0


def test_assassins_may_share_a_square() -> None:
    """Decision: the text forbids assassins only bases and the Safe House."""
    state = act(roll(make(3, places={0: "e3", 1: "b4", 2: "b5"}, mover=1), 1), "step n")
    assert square(state, 1) == square(state, 2) == "b5"
    assert "12" in VIEW.render(state)


# ------------------------------------------------------------------ 5. winning


def test_a_catch_is_a_small_victory() -> None:
    """5A "A small victory goes to any assassin who catches the victim." """
    state = _caught()
    assert state.catches == (0, 1, 0)
    assert VIEW.view(state, None)["scores"] == [0, 1, 0]


def test_the_victim_who_touches_all_four_bases_wins() -> None:
    """5B "Truly winning the game is only possible by the victim who touches all four
    bases." """
    state = make(3, places={0: "b3"}, coins=(0b0111, 0, 0), catches=(0, 0, 1), assassin_turns=1)
    state = act(roll(state, 1), "step w")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0,), (2,), (1,))
    assert decision.outcome.scores == (0, 0, 1)
    assert "seat 0 touched all four bases and wins" in decision.outcome.summary


def test_three_bases_are_not_enough() -> None:
    """5B: the game goes on until all four are touched."""
    state = act(roll(make(3, places={0: "b3"}, coins=(0b0011, 0, 0)), 1), "step w")
    assert not state.is_over and state.coin_sides(0) == ["n", "e", "w"]


# ------------------------------------------------------------------ 6. variations


def test_variation_a_keeps_a_caught_victims_coins() -> None:
    """6A "For a shorter and easier game don't remove a victims coins when they are
    captured." """
    state = _caught(variation_a=True)
    assert state.coins == (0b0011, 0, 0)


def test_variation_a_coins_count_when_the_player_is_victim_again() -> None:
    """6A: kept coins still count toward touching all four bases."""
    state = make(
        3,
        places={0: "c4", 1: "b4"},
        mover=1,
        coins=(0, 0b0111, 0),  # kept from seat 1's earlier time as victim
        options={"variation_a": True},
    )
    state = act(roll(state, 1), "step e")
    assert state.victim == 1 and state.coins == (0, 0b0111, 0)
    state = act(roll(state, 2), "leave b3", "step w")
    assert state.is_over and state.winner == 1


# ------------------------------------------------------------------ game end (decision)


def test_max_rounds_ends_after_the_victims_last_answer_ranked_by_catches_then_bases() -> None:
    """Decision: max_rounds (default 10) ends the game; ties broken by bases touched."""
    state = make(
        3,
        options={"max_rounds": 1},
        assassin_turns=2,
        catches=(0, 1, 1),
        coins=(0b0001, 0, 0),
    )
    state = act(roll(state, 0), "keep")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((1, 2), (0,))
    assert "round limit (1) reached" in decision.outcome.summary


def test_the_round_limit_waits_for_the_last_assassin_turn() -> None:
    state = make(3, options={"max_rounds": 1}, assassin_turns=1)
    state = act(roll(state, 0), "keep")
    assert not state.is_over and state.mover == 1


def test_max_rounds_zero_plays_on_without_limit() -> None:
    state = make(3, options={"max_rounds": 0}, assassin_turns=5000)
    state = act(roll(state, 0), "keep")
    assert not state.is_over and state.mover == 1


def test_a_limit_game_without_catches_or_coins_ties_everyone() -> None:
    state = act(roll(make(3, options={"max_rounds": 1}, assassin_turns=2), 0), "keep")
    assert state.outcome().ranking == ((0, 1, 2),)


# ------------------------------------------------------------------ vocabulary & plumbing


def test_actions_name_the_rule_that_forbids_them() -> None:
    state = roll(make(3), 2)
    with pytest.raises(IllegalAction, match="not seat 1's"):
        state.apply(Move(1, Action("step", ("n",))))
    with pytest.raises(IllegalAction, match="it is not seat 1's turn to act"):
        state.check_action(1, Action("step", ("n",)))
    with pytest.raises(IllegalAction, match="in the Safe House: step out with 'leave <square>'"):
        act(state, "step n")
    with pytest.raises(IllegalAction, match="a1 is not a square next to the Safe House"):
        act(state, "leave a1")
    with pytest.raises(IllegalAction, match="step takes one of n, e, s, w"):
        act(act(state, "leave c4"), "step x")
    with pytest.raises(IllegalAction, match="answer 'reroll' or 'keep'"):
        act(roll(make(3), 0), "leave c4")
    corner = roll(make(3, places={0: "e3", 1: "a5"}, mover=1), 1)
    with pytest.raises(IllegalAction, match="off the board"):
        act(corner, "step n")


def test_state_round_trips_and_bad_structures_are_rejected() -> None:
    state = act(roll(make(5), 3), "leave c4")
    assert Assassination.decode_state(state.encode()) == state
    obj = state.to_obj()
    with pytest.raises(ValueError, match="18 fields"):
        Assassination.state_from_obj(obj[:-1])
    obj[7][1] = SAFE_HOUSE  # an assassin in the Safe House
    with pytest.raises(ValueError, match="assassin 1 is off the board or in the Safe House"):
        Assassination.state_from_obj(obj)


def test_map_text_is_refused() -> None:
    from lanTag.rules.base import OptionError

    with pytest.raises(OptionError, match="takes no map"):
        Assassination.new_state(3, map_text="x")


def test_render_and_view_show_pieces_bases_and_status() -> None:
    state = act(roll(make(3, places={0: "c4"}), 1), "step n")
    text = VIEW.render(state)
    assert " 5 1  .  V0 .  ." in text  # the victim on the north base, assassin 1 on a5
    assert "status: round 1/10 | victim seat 0 (bases n)" in text
    view = VIEW.view(state, 1)
    assert view["pieces"][0] == {
        "seat": 0,
        "role": "victim",
        "square": "c5",
        "coins": ["n"],
        "catches": 0,
    }
    assert view["to_move"] == 1 and view["legal"] == []


def test_decoding_a_damaged_state_raises_value_error_only() -> None:
    """Peers decode states: any damaged field is a ValueError, never a crash."""
    state = act(roll(make(4, places={1: "b4"}, mover=1), 3), "step e")
    good = state.to_obj()
    for index in range(len(good)):
        for bad in (-3, 99, 2, "x", [], [99], True):
            obj = [*good[:index], bad, *good[index + 1 :]]
            try:
                decoded = Assassination.state_from_obj(obj)
            except ValueError:
                continue
            assert decoded.invariants() == []
