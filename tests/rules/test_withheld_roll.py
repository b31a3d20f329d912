"""Whose roll a chance step is, and the roll a seat gets when it withholds its own
(``State.roll_owners``, ``State.withheld_roll``; protocol 6, SPEC §5.5; each engine's
docs/rules/<game>.md "Withheld rolls")."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest

from lanTag.rules.base import (
    Chance,
    Die,
    IllegalAction,
    Pick,
    Roll,
    Shuffle,
    State,
    Turn,
    lowest_values,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import engine_ids, get_game


def _states(
    engine: str, seats: int, options: dict[str, object] | None = None, games: int = 12
) -> Iterator[State]:
    """Every state of a few seeded random games."""
    game = get_game(engine)
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_state(seats, options or {})
        for _ in range(2_000):
            yield state
            if state.is_over:
                break
            state = state.apply(random_input(state, rng.randrange))


def _first(states: Iterator[State], where: Callable[[State], bool]) -> State:
    return next(s for s in states if where(s))


def _chance(state: State) -> Chance | None:
    d = state.decision()
    return d if isinstance(d, Chance) else None


# -- the default ------------------------------------------------------------------------------


def test_the_default_is_nobodys_roll_and_every_die_on_its_lowest_face() -> None:
    assert lowest_values(Die((0, 1, 2, 3, 4, 5), 2)) == (0, 0)
    assert lowest_values(Die((3, 1, 2))) == (1,)
    assert lowest_values(Pick(9, 3)) == (0, 0, 0)
    assert lowest_values(Shuffle(4)) == (0, 1, 2, 3)
    # Stomptag overrides nothing: its rolls are nobody's, its default is the base's.
    state = _first(_states("stomptag", 4), lambda s: _chance(s) is not None)
    chance = _chance(state)
    assert chance is not None and state.roll_owners() == ()
    assert state.withheld_roll((0,)) == Roll(tuple(lowest_values(d) for d in chance.draws))


def test_no_roll_no_withheld_roll() -> None:
    state = _first(_states("prototag", 3), lambda s: isinstance(s.decision(), Turn))
    assert state.roll_owners() == ()
    with pytest.raises(IllegalAction, match="no roll"):
        state.withheld_roll((0,))


@pytest.mark.parametrize("engine", engine_ids())
def test_every_withheld_roll_is_a_legal_roll_of_its_state(engine: str) -> None:
    """Whatever the engine says is someone's roll, its withheld roll is an outcome the
    state accepts, for each owner alone and for all of them."""
    game = get_game(engine)
    seen = 0
    for state in _states(engine, min(max(game.min_seats, 3), game.max_seats), games=6):
        owners = state.roll_owners()
        if not owners:
            continue
        assert _chance(state) is not None
        assert len(set(owners)) == len(owners)
        for seats in [*((s,) for s in owners), owners]:
            state.apply(state.withheld_roll(seats))  # IllegalAction fails the test
        seen += 1
    if engine in ("boardtag", "stomptag"):
        assert seen == 0  # nobody's rolls only: a pick of IT; bids, cells, landings
    else:
        assert seen > 0


# -- Prototag -------------------------------------------------------------------------------


def test_prototag_move_roll_is_the_movers_and_withheld_it_is_a_1() -> None:
    for tagged in (True, False):
        state = _first(
            _states("prototag", 3),
            lambda s, t=tagged: s.phase == "roll" and (s.mover == s.tagged) == t,  # type: ignore[attr-defined]
        )
        mover = state.mover  # type: ignore[attr-defined]
        assert state.roll_owners() == (mover,)
        assert state.withheld_roll((mover,)) == Roll(((1,),))


def test_prototag_start_throw_withheld_starts_the_withholder_tagged() -> None:
    state = get_game("prototag").new_state(4, {})
    assert state.roll_owners() == (0, 1, 2, 3)
    after = state.apply(state.withheld_roll((2,)))
    assert after.tagged == 2  # type: ignore[attr-defined]
    tie = state.apply(state.withheld_roll((1, 3)))
    assert tie.contenders == (1, 3)  # type: ignore[attr-defined]  # they throw again


def test_prototag_random_first_tagged_is_everyones_pick() -> None:
    state = get_game("prototag").new_state(3, {"first_tagged": "random"})
    assert state.roll_owners() == ()  # the throw only picks who moves first
    pick = _first(_states("prototag", 3, {"first_tagged": "random"}), lambda s: s.phase == "pick")  # type: ignore[attr-defined]
    assert pick.roll_owners() == (0, 1, 2)
    assert pick.apply(pick.withheld_roll((1, 2))).tagged == 1  # type: ignore[attr-defined]


# -- Assassination --------------------------------------------------------------------------


def test_assassination_die_is_the_movers_null_for_an_assassin_ace_for_the_victim() -> None:
    states = list(_states("assassination", 4))
    first = _first(iter(states), lambda s: _chance(s) is not None)
    assert first.roll_owners() == ()  # the first victim's pick is nobody's
    rolls = [s for s in states if s.phase == "roll"]  # type: ignore[attr-defined]
    victim = _first(iter(rolls), lambda s: s.mover == s.victim)  # type: ignore[attr-defined]
    assassin = _first(iter(rolls), lambda s: s.mover != s.victim)  # type: ignore[attr-defined]
    for state, value in ((victim, 1), (assassin, 0)):
        mover = state.mover  # type: ignore[attr-defined]
        assert state.roll_owners() == (mover,)
        assert state.withheld_roll((mover,)) == Roll(((value,),))
    # The victim's ace moves it (no re-roll choice): a null would ask it to re-roll.
    assert victim.apply(victim.withheld_roll((victim.mover,))).phase != "null"  # type: ignore[attr-defined]


# -- Tag 'em -------------------------------------------------------------------------------


def test_tagem_attack_roll_is_both_sides_and_the_withholder_gets_the_worst_dice() -> None:
    states = list(_states("tagem", 4, games=6))
    order = _first(iter(states), lambda s: _chance(s) is not None)
    assert order.roll_owners() == ()  # the turn order is nobody's
    assert order.withheld_roll((0,)) == Roll((tuple(range(4)),))  # the base's default
    attacks = [s for s in states if _chance(s) is not None and s.pending is not None]  # type: ignore[attr-defined]
    assert attacks
    for state in attacks:
        a = state.pending  # type: ignore[attr-defined]
        assert state.roll_owners() == (a.attacker, a.defender)
        assert state.withheld_roll((a.attacker,)) == Roll(((1, 6),))
        assert state.withheld_roll((a.defender,)) == Roll(((6, 1),))
        assert state.withheld_roll((a.attacker, a.defender)) == Roll(((1, 1),))
        # No modifier saves a withholder: its pawn is defeated.
        for withholder, loser in ((a.attacker, "attacker"), (a.defender, "defender")):
            after = state.apply(state.withheld_roll((withholder,)))
            pawn = a.attacker_pawn if loser == "attacker" else a.defender_pawn
            assert after.pawns[withholder][pawn] != state.pawns[withholder][pawn]  # type: ignore[attr-defined]
