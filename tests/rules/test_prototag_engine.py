"""Prototag engine mechanics beyond the rule sentences: set-up decisions, options,
encodings, invariants, render and view."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.games.prototag.board import start_tiles
from lanTag.games.prototag.engine import Prototag
from lanTag.games.prototag.state import RPS, Rules
from lanTag.rules.base import Action, IllegalAction, Joint, Move, OptionError
from lanTag.views.registry import game_view
from tests.rules.prototag_helpers import moving, position, roll, rps, step

VIEW = game_view("prototag")

CENTRE = (3, 3)


def test_start_tiles_spread_round_the_edge_clockwise() -> None:
    assert start_tiles(7, 2) == ((0, 0), (6, 6))
    assert start_tiles(7, 4) == ((0, 0), (0, 6), (6, 6), (6, 0))
    assert start_tiles(7, 8) == (
        (0, 0), (0, 3), (0, 6), (3, 6), (6, 6), (6, 3), (6, 0), (3, 0),
    )  # fmt: skip
    assert start_tiles(3, 8) == (
        (0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0),
    )  # fmt: skip
    assert Prototag.new_state(3).positions == start_tiles(7, 3)


def test_seat_range_and_options_are_checked() -> None:
    with pytest.raises(OptionError):
        Prototag.new_state(1)
    with pytest.raises(OptionError):
        Prototag.new_state(9)
    with pytest.raises(OptionError, match="board_size"):
        Prototag.new_state(2, {"board_size": 2})
    with pytest.raises(OptionError, match="first_tagged"):
        Prototag.parse_options({"first_tagged": "loser"})
    with pytest.raises(OptionError, match="no maps"):
        Prototag.new_state(2, map_text="#")
    assert Prototag.parse_options({"tagged_die": "8"})["tagged_die"] == 8


def test_a_random_tagged_player_can_be_drawn_on_a_small_board() -> None:
    state = Prototag.new_state(8, {"board_size": 3, "first_tagged": "random"})
    state = roll(roll(state, 6, 1, 1, 1, 1, 1, 1, 1), 4)
    assert state.mover == 0 and state.tagged == 4
    # seat 0 in the north-west corner is walled in by seats 1 and 7: turn over after the roll
    state = roll(state, 2)
    assert state.mover == 1 and state.events[0][0] == "boxed"


def test_rps_and_step_actions_are_checked_with_reasons() -> None:
    walker = moving([CENTRE, (0, 0)], 2)
    with pytest.raises(IllegalAction, match="nothing to do"):
        walker.check_action(1, Action("step", ("n",)))
    with pytest.raises(IllegalAction, match="must move"):
        walker.apply(Move(0, Action("rps", ("rock",))))
    battle = step(moving([CENTRE, (2, 3)], 2), "n")
    assert battle.phase == RPS
    bad = Joint(((0, Action("rps", ("rock",))), (1, Action("rps", ("lizard",)))))
    with pytest.raises(IllegalAction, match="rps scissors"):
        battle.apply(bad)


def test_states_round_trip_through_bytes() -> None:
    state = step(moving([CENTRE, (2, 3), (6, 6)], 5, tagged_steps=7), "n")
    state = rps(state, "rock", "rock")
    assert Prototag.decode_state(state.encode()) == state
    fresh = Prototag.new_state(5, {"first_tagged": "random", "end_steps": 12})
    assert Prototag.decode_state(fresh.encode()) == fresh


def test_bad_or_inconsistent_structures_are_rejected() -> None:
    good = moving([CENTRE, (0, 0)], 3).to_obj()
    with pytest.raises(ValueError, match="16 fields"):
        Prototag.state_from_obj(good[:-1])
    off_board = [*good[:3], [[3, 3], [0, 9]], *good[4:]]
    with pytest.raises(ValueError, match="off the board"):
        Prototag.state_from_obj(off_board)
    as_text = [*good[:8], "3", *good[9:]]
    with pytest.raises(ValueError, match="integer"):
        Prototag.state_from_obj(as_text)
    bad_option = [[7, 40, 5, 6, 4, "loser"], *good[1:]]
    with pytest.raises(ValueError, match="first_tagged"):
        Prototag.state_from_obj(bad_option)


def test_invariants_catch_broken_positions() -> None:
    sound = moving([CENTRE, (0, 0), (6, 6)], 3)
    assert sound.invariants() == []
    crowd = dataclasses.replace(sound, positions=(CENTRE, (6, 6), (6, 6)))
    assert any("share a tile" in p for p in crowd.invariants())
    jump = dataclasses.replace(sound, path=(CENTRE, (5, 5)), positions=((5, 5), (0, 0), (6, 6)))
    assert any("not orthogonal" in p for p in jump.invariants())
    self_immune = dataclasses.replace(sound, immune=0, immunity_left=2)
    assert "the tagged seat cannot be immune" in self_immune.invariants()
    past_end = dataclasses.replace(sound, tagged_steps=40)
    assert any("end_steps" in p for p in past_end.invariants())


def test_render_shows_board_legend_and_status() -> None:
    state = step(moving([CENTRE, (2, 4), (6, 6)], 4, immune=2, immunity_left=3), "n", "e")
    lines = VIEW.render(state).splitlines()
    assert lines[0] == "Prototag 7x7 | tagged: seat 0 | tagged steps 2/40"
    assert lines[1] == "    a  b  c  d  e  f  g"
    assert lines[4] == " 3  .  .  .  + *01 .  ."  # (2,3) visited; tagged 0 with seat 1 on (2,4)
    assert lines[5] == " 4  .  .  .  +  .  .  ."  # the start tile, visited this turn
    assert lines[-2].startswith("legend:")
    assert lines[-1].startswith("status: rock-paper-scissors: seat 0 vs seat 1 | immune: seat 2")


def test_view_reports_the_public_position_and_own_legal_actions() -> None:
    state = position([CENTRE, (0, 0), (6, 6)], mover=1, immune=2, immunity_left=1)
    state = roll(state, 2)
    view = VIEW.view(state, 1)
    assert view["turn"] == 1 and view["tagged"] == 0 and view["roll"] == 2
    assert view["steps_left"] == 2 and view["legal"] == ["step e", "step s"]
    assert view["pieces"][0] == {"seat": 0, "row": 3, "col": 3, "tagged": True, "immune": False}
    assert view["pieces"][2]["immune"] is True
    assert VIEW.view(state, 0)["legal"] == [] and VIEW.view(state, None)["acting"] == [1]


def test_the_tagged_player_always_has_a_first_step() -> None:
    # The step bound relies on it: in a corner with the immune seat on one neighbour, the
    # other neighbour is free or holds a player the tagged player may attack.
    state = position([(0, 0), (0, 1), (1, 0)], immune=1, immunity_left=4)
    assert [str(a) for a in roll(state, 1).legal_actions(0)] == ["step s"]
    rules = Rules()
    bound = (rules.end_steps + 1) * 8 * (1 + rules.tagged_die)
    assert Prototag.playout_step_bound(8) >= bound
