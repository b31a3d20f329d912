"""Board Tag scenario tests: one or more constructed positions per rule sentence.

Squares are named a1..h8 (north = rank 8); IT stands on lattice intersections (x, y),
x and y in 0..8, and (4, 4) is the centre, touching d4, e4, d5 and e5.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import Runner
from lanTag.games.boardtag.engine import BoardTag, BoardTagState
from lanTag.rules.base import Action, Chance, IllegalAction, Move, Over, Pick, Roll, Turn
from lanTag.views.registry import game_view

VIEW = game_view("boardtag")

# Squares the helper uses for dice a test does not place: far from the centre and apart.
FILLER = ("a1", "c1", "e1", "g1", "a8", "c8", "e8", "g8", "a3", "a6", "h3", "h6", "c3")


def point(x: int, y: int) -> int:
    return x + bb.LATTICE * y


def position(
    dice: dict[str, tuple[int, int]],
    *,
    seats: int = 2,
    it_seat: int = 0,
    it_score: int = 1,
    it_at: tuple[int, int] = (4, 4),
    facing: str = "n",
    phase: str = bb.RUN,
    max_rounds: int = 0,
    **fields: Any,
) -> BoardTagState:
    """A position: ``dice`` maps a square to (seat, score); other dice go on FILLER squares.

    The IT seat's last die is the IT die (showing ``it_score``); by default it is round 1
    and the IT player is about to act.
    """
    placed: dict[int, list[tuple[int, int]]] = {s: [] for s in range(seats)}
    for name, (seat, score) in dice.items():
        square = bb.parse_square(name)
        assert square is not None
        placed[seat].append((score, square))
    fillers = [bb.parse_square(f) for f in FILLER if f not in dice]
    runners: list[Runner] = []
    for seat in range(seats):
        wanted = 2 if seat == it_seat else 3
        own = placed[seat]
        assert len(own) <= wanted, f"seat {seat} has only {wanted} Runners"
        while len(own) < wanted:
            filler = fillers.pop(0)
            assert filler is not None
            own.append((1, filler))
        runners += [Runner(seat, score, square) for score, square in own]
        if seat == it_seat:
            runners.append(Runner(seat, it_score, bb.OFF))
    values: dict[str, Any] = {"round": 1, "mover": it_seat, "active_die": bb.OFF}
    values.update(fields)
    state = BoardTagState(
        seats,
        max_rounds,
        "left",
        tuple(runners),
        phase,
        it_seat=it_seat,
        it_die=3 * it_seat + 2,
        it_point=point(*it_at),
        it_facing=facing,
        **values,
    )
    assert state.invariants() == []
    return state


def act(state: BoardTagState, text: str, seat: int | None = None) -> BoardTagState:
    decision = state.decision()
    assert isinstance(decision, Turn)
    return state.apply(Move(decision.seat if seat is None else seat, Action.parse(text)))


def acts(state: BoardTagState, *texts: str) -> BoardTagState:
    for text in texts:
        state = act(state, text)
    return state


def legal(state: BoardTagState) -> set[str]:
    decision = state.decision()
    assert isinstance(decision, Turn)
    return {str(a) for a in state.legal_actions(decision.seat)}


def score_at(state: BoardTagState, name: str) -> int:
    die = state.die_at(bb.parse_square(name) or 0)
    assert die is not None, f"no die on {name}"
    return state.dice[die].score


def it_phase(dice: dict[str, tuple[int, int]], **kw: Any) -> BoardTagState:
    return position(dice, phase=bb.IT, **kw)


def rejects(state: BoardTagState, text: str, why: str) -> None:
    with pytest.raises(IllegalAction, match=why):
        act(state, text)


# ----------------------------------------------------------------- geometry


def test_squares_touching_an_intersection_and_the_two_in_front() -> None:
    centre = point(4, 4)
    names = lambda squares: {bb.square_name(s) for s in squares}  # noqa: E731
    assert names(bb.touching_squares(centre)) == {"d4", "e4", "d5", "e5"}
    assert names(bb.front_squares(centre, "n")) == {"d5", "e5"}
    assert names(bb.front_squares(centre, "s")) == {"d4", "e4"}
    assert names(bb.front_squares(centre, "e")) == {"e4", "e5"}
    assert names(bb.front_squares(centre, "w")) == {"d4", "d5"}
    assert names(bb.touching_squares(point(0, 0))) == {"a1"}
    assert names(bb.front_squares(point(4, 8), "n")) == set()  # facing off the board


# ----------------------------------------------------------------- setup


def test_a_fair_roll_picks_who_is_it_and_the_it_player_places_first() -> None:
    state = BoardTag.new_state(3)
    assert state.decision() == Chance((Pick(3),), "first-it")
    state = state.apply(Roll(((1,),)))
    assert state.it_seat == 1 and state.decision() == Turn(1)
    assert legal(state) == {f"place {bb.square_name(sq)}" for sq in bb.EDGE_SQUARES}


def test_setup_order_edges_only_and_every_die_starts_at_one() -> None:
    state = BoardTag.new_state(3).apply(Roll(((1,),)))
    rejects(state, "place d4", "not an edge square")
    movers = []
    for name in ("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1"):
        movers.append(state.mover)
        state = act(state, f"place {name}")
    # IT's player puts two dice down, then the others put all three, going to the left.
    assert movers == [1, 1, 2, 2, 2, 0, 0, 0]
    assert state.phase == bb.FACE and state.decision() == Turn(1)
    assert all(d.score == 1 for d in state.dice)
    assert [d.square == bb.OFF for d in state.dice].count(True) == 1  # only the IT die
    assert state.dice[state.it_die].owner == 1


def test_a_taken_edge_square_cannot_be_placed_on() -> None:
    state = act(BoardTag.new_state(2).apply(Roll(((0,),))), "place a1")
    rejects(state, "place a1", "a1 is taken")


def test_it_starts_at_the_centre_facing_the_way_its_player_chooses() -> None:
    state = BoardTag.new_state(2).apply(Roll(((0,),)))
    state = acts(state, "place a1", "place b1", "place c1", "place d1", "place e1")
    assert legal(state) == {"face n", "face e", "face s", "face w"}
    state = act(state, "face w")
    assert (state.it_point, state.it_facing) == (bb.CENTRE, "w")
    assert bb.point_xy(state.it_point) == (4, 4)
    assert state.phase == bb.RUN and state.round == 1 and state.mover == 0


# ----------------------------------------------------------------- run phase


def test_it_player_moves_both_runners_then_others_one_die_at_a_time() -> None:
    state = position({}, seats=3, it_seat=0)
    movers = []
    while state.phase == bb.RUN:
        movers.append(state.mover)
        if state.active_die == bb.OFF:
            state = act(state, f"pick {sorted(legal(state))[0].split()[1]}")
        state = act(state, "stay")
    assert movers == [0, 0, 1, 2, 1, 2, 1, 2]
    assert state.phase == bb.IT and state.decision() == Turn(0)


def test_run_order_right_is_the_literal_left_to_right_variant() -> None:
    assert BoardTag.new_state(3, {"run_order": "right"}).run_order == "right"
    state = replace(position({}, seats=3, it_seat=0), run_order="right")
    movers = []
    while state.phase == bb.RUN:
        movers.append(state.mover)
        if state.active_die == bb.OFF:
            state = act(state, f"pick {sorted(legal(state))[0].split()[1]}")
        state = act(state, "stay")
    assert movers == [0, 0, 2, 1, 2, 1, 2, 1]


def test_a_runner_steps_to_any_free_neighbouring_square_or_stays() -> None:
    state = position({"c3": (1, 1), "b3": (0, 1), "d2": (1, 1)}, mover=1, finished=(0, 1))
    state = act(state, "pick c3")
    assert legal(state) == {"stay", "step n", "step ne", "step e", "step s", "step sw", "step nw"}
    rejects(state, "step w", "occupied")
    edge = act(position({"a2": (1, 1), "b6": (1, 1)}, mover=1, finished=(0, 1)), "pick a2")
    assert legal(edge) == {"stay", "step n", "step ne", "step e", "step se"}  # a1 is taken
    rejects(edge, "step w", "leaves the board")


def test_one_free_step_then_points_but_never_the_last_point() -> None:
    state = act(position({"b2": (1, 3)}, mover=1, finished=(0, 1)), "pick b2")
    state = act(state, "step n")  # free
    assert score_at(state, "b3") == 3
    state = acts(state, "step n", "step n")  # 1 point each
    assert score_at(state, "b5") == 1
    assert legal(state) == {"done"}
    rejects(state, "step n", "never spends its last point")


def test_a_runner_at_one_gets_only_its_free_step() -> None:
    state = acts(position({"b2": (1, 1)}, mover=1, finished=(0, 1)), "pick b2", "step e")
    assert legal(state) == {"done"} and score_at(state, "c2") == 1
    rejects(state, "stay", "already moved")


def test_a_runner_that_does_not_move_gains_a_point() -> None:
    state = position({"b2": (1, 2), "b6": (1, 2)}, mover=1, finished=(0, 1, 5))
    state = act(state, "pick b2")
    state = act(state, "stay")
    assert score_at(state, "b2") == 3
    moved = act(act(state, "step n"), "done")  # the last die was picked for us
    assert score_at(moved, "b7") == 2


def test_entering_a_square_next_to_it_gains_a_point_once_per_run_phase() -> None:
    # IT at the centre touches d4, e4, d5, e5.
    state = act(position({"c5": (1, 2)}, mover=1, finished=(0, 1)), "pick c5")
    state = act(state, "step e")  # free step into d5: +1
    assert score_at(state, "d5") == 3
    state = act(state, "step e")  # pays 1 into e5: no second point this phase
    assert score_at(state, "e5") == 2


def test_a_runner_entering_next_to_it_can_spend_the_point_it_gained() -> None:
    state = act(position({"c5": (1, 1)}, mover=1, finished=(0, 1)), "pick c5")
    state = act(state, "step e")
    assert score_at(state, "d5") == 2 and "step w" in legal(state)
    state = act(state, "step w")
    assert score_at(state, "c5") == 1


def test_scores_cap_at_six() -> None:
    state = position({"b2": (1, 6), "c5": (1, 6)}, mover=1, finished=(0, 1, 5))
    state = act(state, "pick b2")
    state = act(state, "stay")
    assert score_at(state, "b2") == 6
    state = act(state, "step e")  # c5 enters d5 next to IT
    assert score_at(state, "d5") == 6


def test_it_players_runners_never_gain_but_may_spend() -> None:
    state = act(position({"b2": (0, 2), "c5": (0, 2)}), "pick b2")
    state = act(state, "stay")
    assert score_at(state, "b2") == 2  # no point for staying
    state = acts(state, "step e")  # c5 -> d5, next to IT: still no point
    assert score_at(state, "d5") == 2
    state = act(state, "step e")  # but it can pay for extra steps
    assert score_at(state, "e5") == 1


def test_it_does_not_block_a_diagonal_step_through_its_intersection() -> None:
    state = act(position({"d4": (1, 1)}, mover=1, finished=(0, 1)), "pick d4")
    assert "step ne" in legal(state)


# ----------------------------------------------------------------- IT phase: movement


def jumps_from(state: BoardTagState) -> dict[str, tuple[int, int]]:
    out = {}
    for kind in bb.JUMPS:
        target = bb.jump_target(state.it_point, state.it_facing, kind)
        if target is not None:
            out[kind] = bb.point_xy(target)
    return out


def test_it_jumps_like_a_knight_that_never_moves_backward() -> None:
    north = it_phase({})
    assert jumps_from(north) == {"ffl": (3, 6), "ffr": (5, 6), "llf": (2, 5), "rrf": (6, 5)}
    east = it_phase({}, facing="e")
    assert jumps_from(east) == {"ffl": (6, 5), "ffr": (6, 3), "llf": (5, 6), "rrf": (5, 2)}
    state = act(north, "jump ffr")
    assert bb.point_xy(state.it_point) == (5, 6) and state.it_facing == "n"


def test_it_may_land_on_the_edge_lines_but_not_leave_the_board() -> None:
    state = act(it_phase({}, it_at=(4, 6)), "jump ffr")
    assert bb.point_xy(state.it_point) == (5, 8)
    stuck = it_phase({}, it_at=(4, 8))
    assert not any(a.startswith("jump") for a in legal(stuck))
    rejects(stuck, "jump ffl", "leaves the board's lines")


def test_one_free_jump_then_it_die_points_never_the_last() -> None:
    state = act(it_phase({}, it_score=3), "jump ffr")
    assert state.dice[state.it_die].score == 3
    state = act(state, "jump rrf")  # facing n: (5,6) -> (7,7), pays 1
    assert state.dice[state.it_die].score == 2
    state = act(state, "jump llf")  # (7,7) -> (5,8), pays 1
    assert state.dice[state.it_die].score == 1
    assert not any(a.startswith("jump") for a in legal(state))
    rejects(state, "jump llf", "never spends its last point")


def test_one_free_rotation_to_any_facing_then_it_die_points() -> None:
    state = it_phase({}, it_score=2)
    assert {"face e", "face s", "face w"} <= legal(state) and "face n" not in legal(state)
    state = act(state, "face s")
    assert state.dice[state.it_die].score == 2
    state = act(state, "face w")
    assert state.dice[state.it_die].score == 1 and state.it_facing == "w"
    rejects(state, "face e", "never spends its last point")
    rejects(state, "face w", "already faces w")


# ----------------------------------------------------------------- IT phase: tagging


def test_figure_tag_in_front_without_moving_but_a_die_behind_needs_a_rotation() -> None:
    # Red (seat 1) stands in front of IT; green (seat 2) will be behind IT after its jump.
    state = it_phase({"e5": (1, 1), "f6": (2, 1)}, seats=3)
    assert "tag e5" in legal(state)  # IT doesn't move: it can capture red
    state = act(state, "jump ffr")  # to (5,6): green on f6 is now next to IT, behind it
    assert "f6" in {bb.square_name(s) for s in bb.touching_squares(state.it_point)}
    assert "tag f6" not in legal(state)
    rejects(state, "tag f6", "not one of the two squares in front")
    state = act(state, "face s")  # the free rotation
    assert "tag f6" in legal(state)
    state = act(state, "tag f6")
    assert state.it_seat == 2


def test_tagging_your_own_runner_is_forbidden() -> None:
    state = it_phase({"e5": (0, 2), "d5": (1, 1)})
    assert legal(state) >= {"tag d5"} and "tag e5" not in legal(state)
    rejects(state, "tag e5", "don't tag your own Runner")


def test_a_tag_passes_control_and_swaps_the_it_die() -> None:
    state = it_phase({"e5": (1, 4)}, it_score=2)
    state = act(state, "tag e5")
    assert state.it_seat == 1 and state.decision() == Turn(0)  # the old owner places
    tagged = state.it_die
    assert state.dice[tagged].score == 3 and state.dice[tagged].square == bb.OFF
    assert state.it_point == bb.CENTRE and state.it_facing == "n"  # IT stays in place
    assert state.phase == bb.RETURN and state.dice[2].score == 3  # old IT die gained a point
    rejects(state, "place d4", "not an edge square")
    state = act(state, "place h8")
    assert state.dice[2].square == bb.parse_square("h8")
    # The tag ended the IT Phase: a new turn starts with the new IT player's Runners.
    assert state.phase == bb.RUN and state.round == 2 and state.mover == 1


def test_a_tagged_die_at_one_stays_at_one() -> None:
    state = act(it_phase({"e5": (1, 1)}), "tag e5")
    assert state.dice[state.it_die].score == 1


def test_the_new_it_player_spends_from_the_new_it_die() -> None:
    state = act(act(it_phase({"e5": (1, 3)}), "tag e5"), "place h8")
    while state.phase == bb.RUN:
        state = (
            act(state, "stay")
            if state.active_die != bb.OFF
            else act(state, f"pick {sorted(legal(state))[0].split()[1]}")
        )
    assert state.decision() == Turn(1) and state.dice[state.it_die].score == 2
    state = acts(state, "jump ffr", "jump ffr")
    assert state.dice[state.it_die].score == 1


def test_it_moving_next_to_a_runner_without_tagging_gives_it_a_point() -> None:
    state = it_phase({"f6": (1, 2), "e7": (1, 2), "a7": (1, 1)}, it_score=2)
    state = act(state, "jump ffr")  # (5,6) touches e6, f6, e7, f7
    state = act(state, "end")
    assert score_at(state, "f6") == 3 and score_at(state, "e7") == 3
    assert score_at(state, "a7") == 1


def test_a_runner_it_moved_next_to_and_then_tagged_gains_nothing() -> None:
    state = it_phase({"f6": (1, 2), "e7": (1, 2)}, it_score=2)
    state = acts(state, "jump ffr", "tag e7")
    assert state.dice[state.it_die].score == 1  # 2, minus the tag point, no bonus
    assert score_at(state, "f6") == 3  # the untagged neighbour is paid as the phase ends


def test_it_moving_next_to_its_own_runner_gives_nothing() -> None:
    state = acts(it_phase({"f6": (0, 2)}), "jump ffr", "end")
    assert score_at(state, "f6") == 2


# ----------------------------------------------------------------- winning


def test_three_sixes_at_the_end_of_an_it_phase_win() -> None:
    state = it_phase({"b2": (1, 6), "b4": (1, 6), "b6": (1, 6)})
    state = act(state, "end")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((1,), (0,)) and decision.outcome.winners == (1,)


def test_sixes_reached_in_the_run_phase_only_count_when_the_it_phase_ends() -> None:
    sixes_and_five = {"b2": (1, 6), "b4": (1, 6), "b6": (1, 5)}
    state = position(sixes_and_five, mover=1, finished=(0, 1, 3, 4), active_die=5)
    state = act(state, "stay")
    assert score_at(state, "b6") == 6 and state.phase == bb.IT
    state = act(state, "end")
    assert isinstance(state.decision(), Over)


def test_facing_three_sixes_it_must_tag_one_or_lose() -> None:
    # Seat 1 shows three sixes; seat 2 is ahead of IT (seat 0) on pips.
    sixes = {"d5": (1, 6), "b4": (1, 6), "b6": (1, 6), "g2": (2, 2)}
    lose = act(it_phase(sixes, seats=3), "end")
    decision = lose.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((1,), (2,), (0,))
    assert "did not tag" in decision.outcome.summary
    saved = act(act(it_phase(sixes, seats=3), "tag d5"), "place h8")
    assert not isinstance(saved.decision(), Over) and saved.it_seat == 1


def test_tag_or_lose_with_no_die_in_reach_leaves_only_losing() -> None:
    state = it_phase({"b2": (1, 6), "b4": (1, 6), "b6": (1, 6)}, it_score=1)
    state = acts(state, "jump ffr", "face e")
    assert legal(state) == {"end"}
    final = act(state, "end").decision()
    assert isinstance(final, Over) and final.outcome.ranking == ((1,), (0,))


def test_the_old_it_die_returning_can_complete_three_sixes() -> None:
    state = it_phase({"b2": (0, 6), "b4": (0, 6), "e5": (1, 2)}, it_score=5)
    state = act(act(state, "tag e5"), "place h8")
    final = state.decision()
    assert isinstance(final, Over) and final.outcome.winners == (0,)
    assert final.outcome.ranking == ((0,), (1,))


def test_round_limit_ranks_by_total_pips_with_ties_shared() -> None:
    state = it_phase({"b2": (1, 3), "b4": (2, 2)}, seats=3, max_rounds=1, it_score=2)
    final = act(state, "end").decision()
    # seat 0: 1+1+2 = 4, seat 1: 3+1+1 = 5, seat 2: 2+1+1 = 4
    assert isinstance(final, Over) and final.outcome.ranking == ((1,), (0, 2))
    assert final.outcome.scores == (4, 5, 4)
    assert "round limit 1" in final.outcome.summary


def test_max_rounds_zero_never_stops_the_game() -> None:
    state = act(it_phase({}, max_rounds=0, round=500), "end")
    assert state.phase == bb.RUN and state.round == 501


# ----------------------------------------------------------------- engine plumbing


def test_options_map_and_bound() -> None:
    assert BoardTag.new_state(2).max_rounds == 15
    assert BoardTag.new_state(2, {"max_rounds": 0}).max_rounds == 0
    with pytest.raises(ValueError, match="no map"):
        BoardTag.new_state(2, map_text="xx")
    assert BoardTag.playout_step_bound(6) > BoardTag.playout_step_bound(2)


def test_state_round_trips_and_bad_states_are_rejected() -> None:
    state = act(it_phase({"f6": (1, 2)}, seats=3), "jump ffr")
    assert BoardTag.decode_state(state.encode()) == state
    broken = state.to_obj()
    broken[3][0][2] = broken[3][1][2]  # two dice on one square
    with pytest.raises(ValueError, match="share a square"):
        BoardTag.state_from_obj(broken)
    with pytest.raises(ValueError):
        BoardTag.state_from_obj([1, 2, 3])
    for index, bad in ((11, 99), (14, [99]), (3, [[0, 1]]), (13, 1), (2, 5)):
        mangled = state.to_obj()
        mangled[index] = bad  # active die, finished dice, a die, a bool, run order
        with pytest.raises(ValueError):
            BoardTag.state_from_obj(mangled)


def test_wrong_verbs_say_what_is_expected() -> None:
    state = position({})
    rejects(state, "jump ffl", "expected pick <square>")
    rejects(state, "pick e4", "no die of yours")
    rejects(it_phase({}), "stay", "expected jump")
    rejects(it_phase({}), "tag e5", "no die on e5")


def test_render_and_view_show_it_and_the_dice() -> None:
    state = it_phase({"e5": (1, 4)}, facing="e")
    text = VIEW.render(state)
    assert ">" in text and "B4" in text and "IT Phase" in text
    view = VIEW.view(state, 0)
    assert view["it"]["facing"] == "e" and view["it"]["front"] == ["e4", "e5"]
    assert "tag e5" in view["legal"] and view["turn"] == 0
