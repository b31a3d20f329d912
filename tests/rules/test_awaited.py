"""What the game waits for, as data (#26 item 2): ``State.awaited()`` per engine, and
Tag 'em's modifiers of a proposed attack.

Every engine's answer agrees with its decision over random playouts; its turn boundaries
are checked against the engine's own turn counters; the cases the decision cannot say
(a re-roll, whose roll, a turn of several inputs) are set up through positions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from lanTag.games.assassination.engine import Assassination
from lanTag.games.boardtag.engine import BoardTagState
from lanTag.games.prototag.engine import Prototag
from lanTag.games.stomptag.engine import StomptagState
from lanTag.games.tagem.engine import Tagem, TagemState
from lanTag.rules import awaited
from lanTag.rules.awaited import Awaited, awaited_from
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Move,
    Over,
    Roll,
    Simultaneous,
    State,
    Turn,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game
from lanTag.views.registry import game_view
from tests.rules.test_positions import _assassination, _prototag, _tagem

ENGINES = ("prototag", "assassination", "boardtag", "stomptag", "tagem")


def _playout(engine: str, seed: int, steps: int = 400) -> Iterator[State]:
    game = get_game(engine)
    rng = random.Random(f"awaited-{engine}-{seed}")
    state = game.new_state(rng.randint(game.min_seats, min(game.max_seats, 4)))
    for _ in range(steps):
        yield state
        if isinstance(state.decision(), Over):
            return
        state = state.apply(random_input(state, rng.randrange))


@pytest.mark.parametrize("engine", ENGINES)
def test_awaited_agrees_with_the_decision_over_random_playouts(engine: str) -> None:
    kinds: set[str] = set()
    for seed in range(3):
        for state in _playout(engine, seed):
            wait, decision = state.awaited(), state.decision()
            kinds.add(wait.kind)
            if isinstance(decision, Turn):
                assert (wait.kind, wait.seats) == (awaited.MOVE, (decision.seat,))
            elif isinstance(decision, Simultaneous):
                assert wait.kind == awaited.SECRET and wait.choice == decision.kind
                assert sorted(wait.seats) == sorted(decision.seats)
            elif isinstance(decision, Chance):
                assert wait.kind == awaited.ROLL and wait.choice == decision.purpose
                assert wait.draws == decision.draws
                assert set(wait.seats) <= set(range(state.game.position(state)["seats"]))
            else:
                assert wait == Awaited(awaited.OVER)
    assert {awaited.ROLL, awaited.OVER} <= kinds


@pytest.mark.parametrize("engine", ENGINES)
def test_a_turn_belongs_to_one_seat_until_the_next_turn_starts(engine: str) -> None:
    for seed in range(3):
        owner = -2
        for state in _playout(engine, seed):
            wait = state.awaited()
            if wait.turn_starts:
                owner = wait.turn_of
            elif wait.turn_of >= 0:
                assert wait.turn_of == owner, (state.awaited(), owner)


def _starts(engine: str, seed: int) -> list[tuple[State, Awaited]]:
    return [(s, s.awaited()) for s in _playout(engine, seed)]


def test_tagem_turns_start_where_the_turn_counter_moves() -> None:
    for seed in range(3):
        seen: tuple[int, int] | None = None
        for state, wait in _starts("tagem", seed):
            if not isinstance(state.decision(), Turn):
                continue
            assert isinstance(state, TagemState)
            counter = (state.round, state.turn)
            assert wait.turn_starts == (counter != seen), counter
            seen = counter


def test_assassination_turns_start_with_a_roll_and_a_null_reroll_stays_in_the_turn() -> None:
    # The victim (seat 0) rolls the null face: it may throw again or keep still.
    state = Assassination.from_position(_assassination(mover=0))
    first = state.awaited()
    assert (first.kind, first.seats, first.turn_of) == (awaited.ROLL, (0,), 0)
    assert first.turn_starts and not first.reroll
    null = state.apply(Roll(((0,),)))
    assert null.awaited() == Awaited(awaited.MOVE, (0,), "reroll-or-keep", turn_of=0)
    again = null.apply(Move(0, Action("reroll"))).awaited()
    assert again.kind == awaited.ROLL and again.reroll and not again.turn_starts
    assert again.turn_of == 0 and again.draws == first.draws


def test_prototag_turns_are_a_roll_then_steps_and_a_tied_start_is_a_reroll() -> None:
    state = Prototag.new_state(3)
    start = state.awaited()
    assert (start.kind, start.seats, start.reroll) == (awaited.ROLL, (0, 1, 2), False)
    tied = state.apply(Roll(((6,), (6,), (2,)))).awaited()
    assert (tied.seats, tied.reroll) == ((0, 1), True)
    rolling = Prototag.from_position(_prototag())
    wait = rolling.awaited()
    assert (wait.kind, wait.seats, wait.turn_of, wait.turn_starts) == (awaited.ROLL, (0,), 0, True)
    stepping = rolling.apply(Roll(((3,),))).awaited()
    assert (stepping.kind, stepping.turn_of, stepping.turn_starts) == (awaited.MOVE, 0, False)


def test_boardtag_counts_one_turn_start_per_round() -> None:
    for seed in range(3):
        states = _starts("boardtag", seed)
        last = states[-1][0]
        assert isinstance(last, BoardTagState)
        assert sum(wait.turn_starts for _, wait in states) == last.round > 0


def test_stomptag_rounds_start_with_orders_and_teleports_are_the_teleporters_rolls() -> None:
    teleports = 0
    for seed in range(6):
        for state, wait in _starts("stomptag", seed):
            assert isinstance(state, StomptagState)
            assert wait.turn_starts == (wait.kind == awaited.SECRET and wait.choice == "orders")
            if wait.kind == awaited.ROLL and wait.choice == "teleport landings":
                teleports += 1
                movers = {s for s, order in state.orders if "teleport" in str(order)}
                assert wait.seats and set(wait.seats) <= set(range(state.seats))
                assert movers == set() or set(wait.seats) == movers
    assert teleports > 0


def test_the_default_reads_the_decision_alone() -> None:
    assert awaited_from(Turn(2)) == Awaited(awaited.MOVE, (2,), "move", (), False, 2, True)
    with pytest.raises(ValueError, match="not one of"):
        Awaited("wait")
    with pytest.raises(ValueError, match="only a roll has draws"):
        Awaited(awaited.MOVE, draws=Tagem.new_state(2).awaited().draws)


# ---------------------------------------------------------------- tag 'em attack modifiers


def _cover_attack() -> tuple[Any, Action]:
    # B0 on cover (r2c11 is '%'), A0 next to it on the west, A1 also next to B0.
    state = Tagem.from_position(_tagem(pawns=[["r2c10", "r1c11"], ["r2c11", "r7c11"]]))
    return state, Action("attack", (0, "e"))


def test_a_proposed_attack_names_its_modifiers() -> None:
    state, attack = _cover_attack()
    modifiers = state.attack_modifiers(0, attack)
    assert (modifiers.attacker_horde, modifiers.defender_cover) == (1, True)
    assert (modifiers.attacker_bonus, modifiers.defender_bonus) == (0, 0)
    # the same modifiers the declared attack then rolls with
    declared = state.apply(Move(0, attack))
    assert declared.pending == modifiers
    wait = declared.awaited()
    assert (wait.kind, wait.seats, wait.turn_of) == (awaited.ROLL, (0, 1), 0)


def test_only_a_legal_attack_has_modifiers() -> None:
    state, _ = _cover_attack()
    with pytest.raises(IllegalAction, match="is not an attack"):
        state.attack_modifiers(0, Action("end"))
    with pytest.raises(IllegalAction, match="no opposing pawn"):
        state.attack_modifiers(0, Action("attack", (0, "w")))
    with pytest.raises(IllegalAction, match="not asked to act"):
        state.attack_modifiers(1, Action("attack", (0, "w")))


def test_the_tagem_view_shows_each_proposed_attack_with_its_modifiers() -> None:
    state, _ = _cover_attack()
    shown = game_view("tagem").view(state, 0)
    # A0 from the west and A1 from the north: each has the other as its horde.
    assert shown["attacks"] == [
        {
            "action": action,
            "attacker": attacker,
            "defender": "B0",
            "attacker_bonus": 0,
            "defender_bonus": 0,
            "text": "+1 horde, -1 cover against no modifier",
            "line": f"{action}: {attacker} +0 vs B0 +0 (+1 horde, -1 cover against no modifier)",
        }
        for action, attacker in (("attack 0 e", "A0"), ("attack 1 s", "A1"))
    ]
    assert game_view("tagem").view(state, 1)["attacks"] == []


def test_a_declared_attack_is_worded_as_the_attack_list_words_it() -> None:
    # One wording of the modifiers: the feed's "attacks" line says what the list said.
    state, attack = _cover_attack()
    listed = game_view("tagem").view(state, 0)["attacks"][0]["text"]
    declared = state.apply(Move(0, attack))
    assert game_view("tagem").events_texts(declared) == [f"A0 attacks B0 ({listed})"]
