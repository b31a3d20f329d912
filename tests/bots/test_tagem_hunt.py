"""The ``heuristic2`` Tag 'em bot (lanTag/games/tagem/bot_hunt.py) in built positions, and short
seeded games that end by the rules' own goals.

Positions are on the 12 x 9 test field of tests/rules/tagem_helpers.py (starting points
r1c1, r1c10, r7c1); seat 0 (team A) is to move.
"""

from __future__ import annotations

import pytest

from lanTag.bots import BOTS, choose_action
from lanTag.games.tagem.bot_hunt import _Hunt, free_costs
from lanTag.games.tagem.engine import END, Flag, TagemState
from lanTag.rules.base import Action
from lanTag.sim.simulate import simulate
from tests.rules.tagem_helpers import cell, setup


def _first_tie(n: int) -> int:
    return 0


def _bot(state: TagemState, seat: int = 0) -> Action:
    return choose_action("heuristic2", state, seat, _first_tie)


def test_heuristic2_is_a_bot_name_and_heuristic_is_kept() -> None:
    assert "heuristic2" in BOTS and "heuristic" in BOTS
    assert BOTS["heuristic2"] is not BOTS["heuristic"]


def test_attacks_when_the_odds_favour_it() -> None:
    # A0 and A1 both touch B0 (Horde +1: 21 wins to 10 losses); C is on the board, so
    # an even fight would not be taken, but this one is.
    state = setup({"A0": (4, 4), "A1": (3, 5), "B0": (4, 5), "C0": (7, 1)}, seats=3)
    action = _bot(state)
    assert action.verb == "attack"
    assert state.attack_modifiers(0, action).defender_pawn == 0


def test_no_even_fight_while_a_third_team_waits() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5), "C0": (7, 1)}, seats=3)
    assert _bot(state).verb != "attack"


def test_an_even_fight_when_two_teams_are_left_and_it_is_not_ahead() -> None:
    level = setup({"A0": (4, 4), "B0": (4, 5)})
    assert _bot(level).verb == "attack"
    # Ahead on pawns (A1 too far to help), the turn limit already ranks A first.
    ahead = setup({"A0": (4, 4), "A1": (8, 11), "B0": (4, 5)}, pom=2)
    assert _bot(ahead).verb != "attack"


def test_brings_a_helper_before_attacking() -> None:
    # A0 touches B0 (even odds); A1 is one step from B0's north side: step first (+1).
    state = setup({"A0": (4, 4), "A1": (2, 5), "B0": (4, 5), "C0": (7, 1)}, seats=3)
    assert str(_bot(state)) == "move 1 s"


def test_attacks_at_once_from_plus_three() -> None:
    # A0 stands in a Garrison (+1) and A1, A2 touch B0 too (Horde +2): +3.  A3 could still
    # step to B0's last side for +4, but +3 is enough.
    pawns = {"A0": (4, 4), "A1": (3, 5), "A2": (5, 5), "A3": (4, 7), "B0": (4, 5), "C0": (7, 1)}
    assert _bot(setup(pawns, seats=3, terrain={(4, 4): "^"})).verb == "attack"
    # Without the Garrison it is +2, and the step to +3 comes first.
    assert str(_bot(setup(pawns, seats=3))) == "move 3 w"


def test_advances_towards_the_nearest_enemy() -> None:
    state = setup({"A0": (1, 1), "B0": (1, 10)})
    assert str(_bot(state)) == "move 0 e"


def test_never_steps_next_to_an_enemy_without_a_strike() -> None:
    # East of A0 is the tile next to B0; with C on the board a lone pawn gains nothing there.
    state = setup({"A0": (4, 3), "B0": (4, 5), "C0": (7, 1)}, seats=3)
    assert _bot(state) == END


def test_in_the_flag_modes_only_carriers_are_struck() -> None:
    # A0, A1 and A2 touch B0 (+2 at no cost); B1, carrying the flag, can be reached and
    # struck at +1.  A beaten B0 would only respawn, so in CTF the carrier is the target.
    pawns = {"A0": (4, 4), "A1": (3, 5), "A2": (5, 5), "B0": (4, 5), "B1": (6, 7), "B2": (0, 11)}
    flag = (Flag(-1, -1, 1, 1),)
    ctf = setup(pawns, mode="ctf", pawn_count=3, flags=flag, terrain={(8, 11): "F"})
    strike = _Hunt(ctf, 0, ctf.legal_actions(0)).best_strike()
    assert strike is not None and strike.target == cell(6, 7)
    elimination = setup(pawns, pawn_count=3)
    strike = _Hunt(elimination, 0, elimination.legal_actions(0)).best_strike()
    assert strike is not None and strike.target == cell(4, 5)


def _ctcf(pawns: dict[str, tuple[int, int]], a_carrier: int) -> TagemState:
    """Capture-Their-Flag, B0 carrying A's flag and A's pawn ``a_carrier`` carrying B's."""
    flags = (Flag(0, -1, 1, 0), Flag(1, -1, 0, a_carrier))
    return setup(pawns, mode="ctcf", pawn_count=2, flags=flags)


def test_our_carrier_does_not_walk_off_to_help_a_strike() -> None:
    # A1 carries B's flag one step from B0's north side: as a helper it would make +1.
    state = _ctcf({"A0": (4, 4), "A1": (2, 5), "B0": (4, 5), "B1": (8, 11)}, a_carrier=1)
    assert str(_bot(state)) != "move 1 s"


def test_a_strike_is_made_by_a_pawn_without_flags() -> None:
    # A0 (carrying B's flag) and A1 both touch B0, the carrier, at equal odds.
    state = _ctcf({"A0": (4, 4), "A1": (3, 5), "B0": (4, 5), "B1": (8, 11)}, a_carrier=0)
    assert str(_bot(state)) == "attack 1 s"


def test_walks_go_around_pawns_and_stop_in_a_garrison() -> None:
    state = setup({"A0": (4, 4), "B0": (4, 5)}, terrain={(2, 6): "^"})
    occupied = frozenset({cell(4, 4), cell(4, 5)})
    costs = free_costs(state.board, cell(4, 6), occupied)
    assert costs[cell(4, 3)] == 5  # around A0 and B0, not through them (2 steps)
    # Through the Garrison at r2c6 a pawn would have to stop: r1c6 goes round it.
    assert costs[cell(1, 6)] == 5


@pytest.mark.parametrize("seats", [2, 3])
def test_a_short_seeded_game_ends_by_the_rules_goal(seats: int) -> None:
    report = simulate("tagem", 3, seed=1, seats=seats, bots="heuristic2", workers=1)
    decided = [r.value("decided") for r in report.results]
    assert sum(decided) >= 2, decided
    assert all(r.value("tags") > 0 for r in report.results)
