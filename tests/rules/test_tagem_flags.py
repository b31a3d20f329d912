"""Tag 'em scenario tests: respawning, Capture-The-Flag and Capture-Their-Flag."""

from __future__ import annotations

import pytest

from lanTag.games.tagem.engine import Flag, Tagem
from lanTag.rules.base import Over, Turn
from lanTag.views.registry import game_view
from tests.rules.tagem_helpers import act, cell, legal, map_text, roll, setup, where

VIEW = game_view("tagem")

# FIELD's starting points: A (seat 0) at r1c1, B (seat 1) at r1c10, C (seat 2) at r7c1.
FLAG_SPOT = {(8, 6): "F"}

# ---------------------------------------------------------------- respawning


def test_a_defeated_pawn_returns_to_its_free_starting_point() -> None:
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (4, 5), "B1": (8, 11)}, mode="ctcf", pawn_count=2
    )
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert where(state, "B0") == (1, 10) and where(state, "A0") == (4, 4)
    assert state.tags == (1, 0)


def test_a_crowded_starting_point_continues_the_x() -> None:
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (4, 5), "B1": (1, 10)}, mode="ctcf", pawn_count=2
    )
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert where(state, "B0") == (0, 9)  # the X's first diagonal (north-west)


def test_opponents_next_to_the_starting_point_send_the_pawn_two_tiles_away() -> None:
    # A1 and A2 stand next to B's empty starting point r1c10: B0 may not come back there,
    # nor on any tile next to an A pawn; the nearest such tile two steps off is r1c8.
    pawns = {"A0": (4, 4), "A1": (2, 10), "A2": (0, 10), "B0": (4, 5), "B1": (8, 11), "B2": (6, 8)}
    state = setup(pawns, mode="ctcf", pawn_count=3)
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert where(state, "B0") == (1, 8)


def test_a_full_x_sends_the_pawn_two_tiles_away() -> None:
    # B1-B4 and A4 (only diagonal to the starting point, so no threat) fill B's X.
    state = setup(
        {
            "A0": (4, 4),
            "A1": (6, 6),
            "A2": (7, 7),
            "A3": (7, 8),
            "A4": (2, 11),
            "B0": (4, 5),
            "B1": (1, 10),
            "B2": (0, 9),
            "B3": (0, 11),
            "B4": (2, 9),
        },
        mode="ctcf",
    )
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert where(state, "B0") == (1, 8)


def test_a_pawn_never_respawns_on_the_tile_where_it_was_lost() -> None:
    # Seed text: "... This is to avoid respawning in the very same place the pawn was lost
    # in."  B0 is defeated on r0c9, the first diagonal of B's X; B1 holds the starting
    # point and no A pawn is next to it, so the X goes on: past r0c9 (where B0 fell, free
    # again) to the next diagonal, r0c11.
    pawns = {"A0": (0, 8), "A1": (6, 6), "B0": (0, 9), "B1": (1, 10)}
    state = setup(pawns, mode="ctcf", pawn_count=2)
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert ("respawns", 1, 0, cell(0, 11)) in state.events
    assert where(state, "B0") == (0, 11) and where(state, "A0") == (0, 8)


def test_an_attacker_lost_on_its_starting_point_respawns_elsewhere() -> None:
    # A0 attacks from A's own starting point r1c1 and loses (decision 15); B0 stands next
    # to that starting point, so A0 goes two tiles away, never back onto r1c1.
    pawns = {"A0": (1, 1), "A1": (6, 6), "B0": (1, 2), "B1": (8, 11)}
    state = setup(pawns, mode="ctcf", pawn_count=2)
    state = roll(act(state, 0, "attack 0 e"), 1, 6)
    assert where(state, "A0") not in ((1, 1), None) and where(state, "B0") == (1, 2)


def test_a_pawn_never_respawns_onto_a_flag_it_could_lift() -> None:
    pawns = {"A0": (4, 4), "A1": (6, 6), "B0": (4, 5), "B1": (8, 11)}
    state = setup(
        pawns, mode="ctf", pawn_count=2, terrain=FLAG_SPOT, flags=(Flag(-1, cell(1, 10)),)
    )
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert where(state, "B0") == (0, 9)
    assert state.flags == (Flag(-1, cell(1, 10)),)


def test_an_attacker_respawned_in_its_own_turn_may_move_on() -> None:
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (3, 5), "B1": (8, 11)},
        mode="ctcf",
        pawn_count=2,
        terrain={(4, 5): "^"},
    )
    state = act(state, 0, "move 0 e")
    assert state.stopped == (0,)
    state = roll(act(state, 0, "attack 0 n"), 1, 6)
    assert where(state, "A0") == (1, 1) and state.stopped == ()
    assert "move 0 e" in legal(state, 0)


# ---------------------------------------------------------------- capture-the-flag


def test_ctf_starts_with_one_flag_on_the_flag_spot() -> None:
    state = Tagem.new_state(2, {"mode": "ctf"})
    assert state.flags == (Flag(-1, state.board.flag_spot),)
    assert not Tagem.new_state(2, {"mode": "elimination"}).flags


def test_stepping_onto_the_flag_picks_it_up_at_the_usual_cost() -> None:
    pawns = {"A0": (4, 5), "A1": (6, 6), "B0": (8, 11), "B1": (8, 10)}
    state = setup(
        pawns,
        mode="ctf",
        pawn_count=2,
        terrain=FLAG_SPOT | {(4, 5): "~"},
        flags=(Flag(-1, cell(4, 6)),),
    )
    state = act(state, 0, "move 0 e")
    assert state.flags == (Flag(-1, -1, 0, 0),) and state.pom_left == 8
    state = act(state, 0, "move 0 n")
    assert state.flags == (Flag(-1, -1, 0, 0),)  # the flag goes with its carrier
    assert "a0" in VIEW.render(state) and VIEW.view(state, 0)["pawns"][0]["carries_flag"]


def test_a_defeated_carrier_drops_the_flag_where_it_stood() -> None:
    pawns = {"A0": (4, 6), "A1": (6, 6), "B0": (4, 7), "B1": (8, 11)}
    state = setup(
        pawns,
        mode="ctf",
        pawn_count=2,
        terrain=FLAG_SPOT,
        flags=(Flag(-1, -1, 0, 0),),
        order=(1, 0),
    )
    state = roll(act(state, 1, "attack 0 w"), 6, 1)
    assert state.flags == (Flag(-1, cell(4, 6)),)
    assert where(state, "A0") == (1, 1) and where(state, "B0") == (4, 7)  # winner stays put
    state = act(state, 1, "move 0 w")  # 1 PoM to step onto it and claim it
    assert state.flags == (Flag(-1, -1, 1, 0),)


def test_a_carrier_that_loses_its_own_attack_drops_the_flag_too() -> None:
    pawns = {"A0": (4, 6), "A1": (6, 6), "B0": (4, 7), "B1": (8, 11)}
    state = setup(pawns, mode="ctf", pawn_count=2, terrain=FLAG_SPOT, flags=(Flag(-1, -1, 0, 0),))
    state = roll(act(state, 0, "attack 0 e"), 1, 6)
    assert state.flags == (Flag(-1, cell(4, 6)),)


def test_bringing_the_flag_to_your_starting_point_wins() -> None:
    pawns = {"A0": (1, 2), "A1": (6, 6), "B0": (8, 11), "B1": (8, 10)}
    state = setup(pawns, mode="ctf", pawn_count=2, terrain=FLAG_SPOT, flags=(Flag(-1, -1, 0, 0),))
    state = act(state, 0, "move 0 w")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0,), (1,))
    assert "brought the flag home" in decision.outcome.summary


def test_the_flag_on_someone_elses_starting_point_wins_nothing() -> None:
    pawns = {"A0": (1, 9), "A1": (6, 6), "B0": (8, 11), "B1": (8, 10)}
    state = setup(pawns, mode="ctf", pawn_count=2, terrain=FLAG_SPOT, flags=(Flag(-1, -1, 0, 0),))
    state = act(state, 0, "move 0 e")
    assert state.decision() == Turn(0) and state.winner == -1


def test_ctf_turn_limit_puts_the_carrier_first() -> None:
    pawns = {"A0": (4, 4), "A1": (6, 6), "B0": (8, 11), "B1": (8, 10)}
    state = setup(
        pawns, mode="ctf", pawn_count=2, terrain=FLAG_SPOT, flags=(Flag(-1, -1, 1, 1),), max_turns=1
    )
    state = act(act(state, 0, "end"), 1, "end")
    decision = state.decision()
    assert isinstance(decision, Over) and decision.outcome.ranking == ((1,), (0,))


def test_ctf_needs_a_flag_spot() -> None:
    from lanTag.rules.base import OptionError
    from tests.rules.tagem_helpers import FIELD

    with pytest.raises(OptionError, match="flag spot"):
        Tagem.new_state(2, {"mode": "ctf"}, map_text=map_text(FIELD))


# ---------------------------------------------------------------- capture-their-flag


def test_ctcf_puts_a_flag_on_every_starting_point() -> None:
    state = Tagem.new_state(3, {"mode": "ctcf"})
    assert state.flags == tuple(Flag(s, state.board.starts[s]) for s in range(3))


def test_a_team_never_lifts_its_own_flag() -> None:
    state = setup(
        {"A0": (1, 2), "A1": (6, 6), "B0": (8, 11), "B1": (8, 10)}, mode="ctcf", pawn_count=2
    )
    state = act(state, 0, "move 0 w")
    assert state.flags[0] == Flag(0, cell(1, 1))


def test_an_opponent_lifts_a_flag_by_stepping_onto_it() -> None:
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (1, 2), "B1": (8, 10)},
        mode="ctcf",
        pawn_count=2,
        order=(1, 0),
    )
    state = act(state, 1, "move 0 w")
    assert state.flags[0] == Flag(0, -1, 1, 0)


def test_bringing_a_flag_home_eliminates_its_team() -> None:
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (1, 9), "B1": (8, 10)},
        mode="ctcf",
        pawn_count=2,
        order=(1, 0),
        flags=(Flag(0, -1, 1, 0), Flag(1, cell(1, 10))),
    )
    state = act(state, 1, "move 0 e")
    assert state.out == ((0,),) and state.pawns[0] == (-1, -1)
    assert state.flags[0] == Flag(0)  # captured: out of the game
    decision = state.decision()
    assert isinstance(decision, Over) and decision.outcome.ranking == ((1,), (0,))


def test_a_captured_teams_carried_flags_drop_and_play_goes_on() -> None:
    pawns = {"A0": (4, 4), "A1": (6, 6), "B0": (1, 9), "B1": (8, 10), "C0": (5, 1), "C1": (8, 1)}
    flags = (Flag(0, -1, 1, 0), Flag(1, cell(1, 10)), Flag(2, -1, 0, 1))
    state = setup(pawns, seats=3, mode="ctcf", pawn_count=2, order=(1, 0, 2), flags=flags)
    state = act(state, 1, "move 0 e")
    assert state.out == ((0,),)
    assert state.flags[2] == Flag(2, cell(6, 6))  # A1 carried C's flag: it drops there
    state = act(state, 1, "end")
    assert state.decision() == Turn(2)  # A is skipped
    state = act(state, 2, "end")
    assert state.decision() == Turn(1)


def test_a_carried_flag_is_not_yet_taken() -> None:
    # B carries A's flag; A's pawns still respawn until the flag reaches B's starting point.
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (4, 5), "B1": (8, 10)},
        mode="ctcf",
        pawn_count=2,
        order=(1, 0),
        flags=(Flag(0, -1, 1, 1), Flag(1, cell(1, 10))),
    )
    state = roll(act(state, 1, "attack 0 w"), 6, 1)
    assert where(state, "A0") == (1, 1) and state.out == ()


def test_a_dropped_flag_stays_until_an_opponent_lifts_it() -> None:
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "B0": (4, 5), "B1": (8, 10)},
        mode="ctcf",
        pawn_count=2,
        flags=(Flag(0, -1, 1, 0), Flag(1, cell(1, 10))),
    )
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert state.flags[0] == Flag(0, cell(4, 5))
    state = act(state, 0, "move 0 e")  # A stands on its own flag but cannot carry it
    assert state.flags[0] == Flag(0, cell(4, 5))


def test_ctcf_turn_limit_ranks_teams_in_by_tags_above_teams_out() -> None:
    pawns = {"A0": (4, 4), "A1": (6, 6), "B0": (4, 5), "B1": (8, 10), "C0": (5, 1), "C1": (8, 1)}
    state = setup(pawns, seats=3, mode="ctcf", pawn_count=2, max_turns=1)
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    state = act(act(act(state, 0, "end"), 1, "end"), 2, "end")
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0,), (1, 2)) and decision.outcome.scores == (1, 0, 0)
