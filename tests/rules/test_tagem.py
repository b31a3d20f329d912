"""Tag 'em scenario tests: setup, movement, tiles and attacks (flag modes: test_tagem_flags)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lanTag.games.tagem.board import MapError
from lanTag.games.tagem.engine import TWO_D6, Tagem, TagemState
from lanTag.games.tagem.view import events_texts
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Move,
    Over,
    Roll,
    Shuffle,
    State,
    Turn,
)
from lanTag.views.registry import game_view
from tests.rules.tagem_helpers import act, cell, legal, roll, setup, where

VIEW = game_view("tagem")

# ---------------------------------------------------------------- setup


def test_pawns_start_in_the_x_formation() -> None:
    state = Tagem.new_state(2, {"map": "skirmish"})
    board = state.board
    for seat in range(2):
        row, col = divmod(board.starts[seat], board.width)
        expected = [
            (row, col),
            (row - 1, col - 1),
            (row - 1, col + 1),
            (row + 1, col - 1),
            (row + 1, col + 1),
        ]
        assert [divmod(c, board.width) for c in state.pawns[seat]] == expected


def test_turn_order_is_rolled_first_and_then_followed() -> None:
    state: State = Tagem.new_state(3)
    assert state.decision() == Chance((Shuffle(3),), "turn-order")
    state = state.apply(Roll(((2, 0, 1),)))
    assert state.decision() == Turn(2)
    state = act(state, 2, "end")
    assert state.decision() == Turn(0)
    state = act(state, 0, "end")
    state = act(state, 0 + 1, "end")
    assert state.decision() == Turn(2) and state.round == 2


def test_points_of_movement_default_to_the_map_and_the_option_overrides() -> None:
    assert Tagem.new_state(2).pom == 10  # skirmish suggests 10
    assert Tagem.new_state(3).pom == 15  # outpost suggests 15
    assert Tagem.new_state(2, {"pom": 7}).pom_left == 7


def test_more_pawns_continue_the_x_outwards() -> None:
    state = Tagem.new_state(2, {"map": "skirmish", "pawns": 9})
    board = state.board
    row, col = divmod(board.starts[0], board.width)
    assert [divmod(c, board.width) for c in state.pawns[0][5:]] == [
        (row - 2, col - 2),
        (row - 2, col + 2),
        (row + 2, col - 2),
        (row + 2, col + 2),
    ]
    with pytest.raises(MapError, match="X formation of starting point 1"):
        Tagem.new_state(2, {"map": "crescent", "pawns": 9})


def test_the_map_limits_the_players() -> None:
    with pytest.raises(MapError, match="for 2-2 players, not 3"):
        Tagem.new_state(3, {"map": "skirmish"})
    assert Tagem.new_state(3).board.name == "Outpost"  # auto: the smallest map for three
    assert Tagem.new_state(8).board.name == "Ringfort"


def test_default_action_forfeits_the_turn() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 8)})
    assert state.default_action(0) == Action("end")
    with pytest.raises(IllegalAction):
        state.default_action(1)


# ---------------------------------------------------------------- movement


def test_moves_are_orthogonal_steps_into_empty_tiles() -> None:
    state = setup({"A0": (4, 4), "A1": (3, 4), "B0": (4, 5), "B1": (5, 5)})
    actions = legal(state, 0)
    assert "move 0 w" in actions and "move 0 s" in actions
    assert "move 0 n" not in actions  # own pawn there
    assert "move 0 e" not in actions  # opposing pawn there: attack instead
    assert "attack 0 e" in actions
    assert not any(a.startswith("attack 1") for a in actions)  # B1 is only diagonal to A1
    with pytest.raises(IllegalAction, match="B0 is there"):
        act(state, 0, "move 0 e")
    assert legal(state, 1) == set()


def test_block_void_and_the_edge_cannot_be_entered() -> None:
    state = setup({"A0": (4, 4), "A1": (0, 11), "B0": (8, 8)}, terrain={(4, 5): "#", (3, 4): "_"})
    assert {"move 0 e", "move 0 n"}.isdisjoint(legal(state, 0))
    assert {"move 1 n", "move 1 e"}.isdisjoint(legal(state, 0))
    with pytest.raises(IllegalAction, match="Block tile or edge"):
        act(state, 0, "move 0 e")


def test_points_of_movement_are_shared_by_all_pawns() -> None:
    state = setup({"A0": (4, 4), "A1": (6, 6), "B0": (8, 11)}, pom=3)
    state = act(state, 0, "move 0 e")
    state = act(state, 0, "move 1 s")
    assert state.pom_left == 1 and state.decision() == Turn(0)
    state = act(state, 0, "move 1 s")
    assert where(state, "A0") == (4, 5) and where(state, "A1") == (8, 6)
    assert state.decision() == Turn(1) and state.pom_left == 3  # all spent: B's turn, fresh PoM


def test_wade_costs_two_to_leave_and_one_to_enter() -> None:
    state = setup({"A0": (4, 4), "B0": (8, 11)}, terrain={(4, 5): "~", (4, 6): "~"})
    state = act(state, 0, "move 0 e")  # path -> wade: the path sets the cost
    assert state.pom_left == 9
    state = act(state, 0, "move 0 e")  # wade -> wade
    assert state.pom_left == 7
    state = act(state, 0, "move 0 e")  # wade -> path
    assert state.pom_left == 5 and where(state, "A0") == (4, 7)


def test_leaving_wade_needs_two_points() -> None:
    state = setup({"A0": (4, 4), "A1": (6, 6), "B0": (8, 11)}, terrain={(4, 4): "~"}, pom=3)
    state = act(state, 0, "move 1 s")
    state = act(state, 0, "move 1 s")
    assert state.pom_left == 1
    assert not any(a.startswith("move 0") for a in legal(state, 0))
    with pytest.raises(IllegalAction, match="leaving Wade costs 2"):
        act(state, 0, "move 0 e")


def test_cover_costs_one_like_path() -> None:
    state = setup({"A0": (4, 4), "B0": (8, 11)}, terrain={(4, 4): "%", (4, 5): "%"})
    state = act(state, 0, "move 0 e")
    state = act(state, 0, "move 0 e")
    assert state.pom_left == 8


def test_entering_a_garrison_stops_that_pawn_for_the_turn() -> None:
    state = setup({"A0": (4, 4), "A1": (6, 6), "B0": (3, 5)}, terrain={(4, 5): "^"})
    state = act(state, 0, "move 0 e")
    assert state.stopped == (0,) and state.pom_left == 9
    assert not any(a.startswith("move 0") for a in legal(state, 0))
    assert "attack 0 n" in legal(state, 0)  # attacking is not moving
    assert "move 1 n" in legal(state, 0)  # the other pawns go on
    with pytest.raises(IllegalAction, match="entered a Garrison"):
        act(state, 0, "move 0 s")
    state = act(state, 0, "end")
    state = act(state, 1, "end")
    state = act(state, 0, "move 0 s")  # next turn it leaves at 1 PoM
    assert where(state, "A0") == (5, 5) and state.pom_left == 9


def test_end_forfeits_the_unspent_points() -> None:
    state = setup({"A0": (4, 4), "B0": (8, 11)})
    state = act(state, 0, "move 0 e")
    state = act(state, 0, "end")
    assert state.decision() == Turn(1) and state.pom_left == 10
    assert "end" in legal(state, 1)


# ---------------------------------------------------------------- attacks


def test_an_attack_costs_one_point_even_from_wade_and_asks_for_two_dice() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 4): "~"})
    state = act(state, 0, "attack 0 e")
    assert state.pom_left == 9
    decision = state.decision()
    assert isinstance(decision, Chance) and decision.draws == (TWO_D6,)


def test_only_orthogonally_adjacent_opponents_can_be_attacked() -> None:
    state = setup({"A0": (4, 4), "A1": (4, 5), "B0": (5, 5), "B1": (2, 2)})
    actions = {a for a in legal(state, 0) if a.startswith("attack")}
    assert actions == {"attack 1 s"}
    with pytest.raises(IllegalAction, match="no opposing pawn e of pawn 0"):
        act(state, 0, "attack 0 e")


def test_the_higher_total_wins_and_the_winner_stays_put() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "B1": (8, 8)})
    state = roll(act(state, 0, "attack 0 e"), 5, 2)
    assert where(state, "B0") is None and where(state, "A0") == (4, 4)
    assert state.tags == (1, 0) and state.pending is None and state.decision() == Turn(0)


def test_the_attacker_can_lose() -> None:
    state = setup({"A0": (4, 4), "A1": (8, 8), "B0": (4, 5)})
    state = roll(act(state, 0, "attack 0 e"), 2, 5)
    assert where(state, "A0") is None and where(state, "B0") == (4, 5)
    assert state.tags == (0, 1)


def test_a_tied_roll_defeats_nobody() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)})
    state = roll(act(state, 0, "attack 0 e"), 4, 4)
    assert where(state, "A0") == (4, 4) and where(state, "B0") == (4, 5)
    assert state.pom_left == 9 and ("tie",) in state.events
    assert "a tie: nobody is defeated" in events_texts(state)


def test_the_texts_horde_example_two_helpers_against_one() -> None:
    # A0 attacks B0; A has helpers in two "C" spots around B0, B one in a "D" spot around A0.
    state = setup({"A0": (4, 4), "A1": (3, 5), "A2": (5, 5), "B0": (4, 5), "B1": (4, 3)})
    state = act(state, 0, "attack 0 e")
    attack = state.pending
    assert attack is not None
    assert (attack.attacker_horde, attack.defender_horde) == (2, 1)
    assert (attack.attacker_bonus, attack.defender_bonus) == (2, 1)
    state = roll(state, 3, 3)  # equal dice, but 3+2 = 5 beats 3+1 = 4
    assert where(state, "B0") is None


def test_horde_counts_only_the_two_teams_in_the_fight() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "C0": (3, 5), "C1": (3, 4)}, seats=3)
    attack = act(state, 0, "attack 0 e").pending
    assert attack is not None and (attack.attacker_horde, attack.defender_horde) == (0, 0)


def test_garrison_gives_its_occupant_plus_one_attacking_or_defending() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 4): "^"})
    assert act(state, 0, "attack 0 e").pending.attacker_bonus == 1  # type: ignore[union-attr]
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 5): "^"})
    assert act(state, 0, "attack 0 e").pending.defender_bonus == 1  # type: ignore[union-attr]


def test_both_in_garrison_both_get_plus_one() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 4): "^", (4, 5): "^"})
    attack = act(state, 0, "attack 0 e").pending
    assert attack is not None and (attack.attacker_bonus, attack.defender_bonus) == (1, 1)


def test_cover_costs_the_attacker_one() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 5): "%"})
    state = act(state, 0, "attack 0 e")
    assert state.pending is not None and state.pending.attacker_bonus == -1
    state = roll(state, 4, 3)  # 4-1 = 3 vs 3: a tie, where without cover A would win
    assert where(state, "B0") == (4, 5)


def test_cover_and_garrison_cancel_out() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 4): "^", (4, 5): "%"})
    attack = act(state, 0, "attack 0 e").pending
    assert attack is not None and attack.attacker_garrison and attack.defender_cover
    assert (attack.attacker_bonus, attack.defender_bonus) == (0, 0)


def test_an_attacker_in_cover_gains_nothing() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(4, 4): "%"})
    attack = act(state, 0, "attack 0 e").pending
    assert attack is not None and (attack.attacker_bonus, attack.defender_bonus) == (0, 0)


def test_helpers_add_one_each_whatever_their_tile() -> None:
    # Helper A1 sits in a Garrison: still +1, not +2.  B0 is in Cover: the helper
    # does not suffer the -1, only the attacker does.
    state = setup({"A0": (4, 4), "A1": (3, 5), "B0": (4, 5)}, terrain={(3, 5): "^", (4, 5): "%"})
    attack = act(state, 0, "attack 0 e").pending
    assert attack is not None and attack.attacker_horde == 1
    assert attack.attacker_bonus == 0  # +1 horde, -1 cover


def test_a_pawn_may_attack_several_times_in_a_turn() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "B1": (3, 4)})
    state = roll(act(state, 0, "attack 0 e"), 3, 2)  # B1 helps B0: 3 vs 2+1, a tie
    state = roll(act(state, 0, "attack 0 n"), 6, 1)
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert state.out == ((1,),)
    assert isinstance(state.decision(), Over)


def test_an_attack_with_the_last_point_ends_the_turn_after_the_roll() -> None:
    state = setup({"A0": (4, 4), "A1": (8, 8), "B0": (4, 5), "B1": (8, 11)}, pom=1)
    state = act(state, 0, "attack 0 e")
    assert isinstance(state.decision(), Chance)
    state = roll(state, 6, 1)
    assert state.decision() == Turn(1)


def test_move_after_attack_continues_the_turn() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "B1": (8, 11)})
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    state = act(state, 0, "move 0 e")
    assert where(state, "A0") == (4, 5) and state.pom_left == 8


# ---------------------------------------------------------------- elimination


def test_elimination_last_team_standing_and_ranking() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "C0": (6, 6)}, seats=3, order=(1, 0, 2))
    state = act(state, 1, "end")
    state = roll(act(state, 0, "attack 0 e"), 6, 1)
    assert state.out == ((1,),)
    state = act(state, 0, "end")
    assert state.decision() == Turn(2)
    state = act(state, 2, "end")
    assert state.decision() == Turn(0)  # B is skipped
    state = act(state, 0, "move 0 s")
    state = act(state, 0, "move 0 s")
    state = act(state, 0, "move 0 e")
    state = roll(act(state, 0, "attack 0 e"), 2, 1)
    decision = state.decision()
    assert isinstance(decision, Over)
    assert decision.outcome.ranking == ((0,), (2,), (1,))
    assert decision.outcome.scores == (1, 0, 0)
    assert "last team standing" in decision.outcome.summary


def test_an_attacker_losing_its_last_pawn_ends_its_turn() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "C0": (8, 8)}, seats=3)
    state = roll(act(state, 0, "attack 0 e"), 1, 2)
    assert state.out == ((0,),) and state.decision() == Turn(1)


def test_the_turn_limit_ends_the_game_on_pawns_left() -> None:
    state = setup({"A0": (4, 4), "A1": (6, 6), "B0": (8, 11)}, max_turns=2)
    for _ in range(2):
        state = act(state, 0, "end")
        assert not isinstance(state.decision(), Over)
        state = act(state, 1, "end")
    decision = state.decision()
    assert isinstance(decision, Over) and decision.outcome.ranking == ((0,), (1,))
    assert decision.outcome.scores == (2, 1)


def test_max_turns_zero_is_unlimited() -> None:
    state = setup({"A0": (4, 4), "B0": (8, 11)}, max_turns=0)
    for _ in range(30):
        state = act(act(state, 0, "end"), 1, "end")
    assert state.round == 31 and state.decision() == Turn(0)


# ---------------------------------------------------------------- encoding, views


def test_mid_attack_states_round_trip() -> None:
    state = setup({"A0": (4, 4), "A1": (3, 5), "B0": (4, 5)}, terrain={(4, 5): "%"})
    state = act(state, 0, "attack 0 e")
    assert Tagem.decode_state(state.encode()) == state


def test_the_map_text_is_part_of_the_encoding() -> None:
    a = setup({"A0": (4, 4), "B0": (4, 5)})
    b = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(0, 0): "%"})
    assert a.to_obj()[0] != b.to_obj()[0] and a.state_hash() != b.state_hash()
    assert "grid:" in a.to_obj()[0]


def test_unsound_structures_are_rejected() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)})
    obj = state.to_obj()
    with pytest.raises(ValueError):
        Tagem.state_from_obj(obj[:-1])
    bad = list(obj)
    bad[10] = [[cell(4, 4), -1, -1, -1, -1], [cell(4, 4), -1, -1, -1, -1]]
    with pytest.raises(ValueError, match="shares a tile"):
        Tagem.state_from_obj(bad)
    bad = list(obj)
    bad[1] = "tag"
    with pytest.raises(ValueError):
        Tagem.state_from_obj(bad)


def test_invariants_notice_a_pawn_on_a_block() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(2, 6): "#"})
    broken = replace(state, pawns=((cell(2, 6), -1, -1, -1, -1), state.pawns[1]))
    assert any("BLOCK" in s for s in broken.invariants())


def test_render_and_view_show_the_position() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(2, 2): "~"})
    text = VIEW.render(state)
    assert "A0B0" in text.splitlines()[6]
    assert text.splitlines()[-1].startswith("status: A to act (seat 0), 10 of 10 PoM left")
    assert any(line.startswith("legend:") for line in text.splitlines())
    view = VIEW.view(state, 0)
    assert view["to_act"] == 0 and "attack 0 e" in view["legal"]
    assert {
        "seat": 1,
        "pawn": 0,
        "name": "B0",
        "row": 4,
        "col": 5,
        "stopped": False,
        "carries_flag": False,
    } in view["pawns"]
    assert view["terrain"][2][2] == "~" and VIEW.view(state, None)["legal"] == []


def test_illegal_inputs_say_why() -> None:
    state = setup({"A0": (4, 4), "B0": (8, 11)})
    for text, reason in [
        ("jump 0 n", "unknown action"),
        ("move 0", "bad move"),
        ("move 7 n", "no pawn 7"),
        ("move 1 n", "out of play"),
        ("move 0 up", "bad move"),
    ]:
        with pytest.raises(IllegalAction, match=reason):
            state.apply(Move(0, Action.parse(text)))
    assert isinstance(state, TagemState)
