"""Conformance suite: every registered engine gets these for free.

Seeded random playouts must end within the engine's declared bound, keep the
engine's invariants after every step, round-trip their encodings, and reject
illegal inputs without changing the state.
"""

from __future__ import annotations

import itertools
import random

import pytest

from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Joint,
    Move,
    Over,
    Roll,
    Simultaneous,
    Turn,
    decode_input,
    encode_input,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import engine_ids, get_game
from lanTag.views.registry import game_view

PLAYOUTS = 1000
DEEP_CHECKS = 15  # playouts that also round-trip every state and input


def _seat_counts(game):  # a small, a middle and the largest table that stays quick
    top = min(game.max_seats, 8)
    return sorted({game.min_seats, (game.min_seats + top) // 2, top})


@pytest.mark.parametrize("engine", engine_ids())
def test_random_playouts_terminate_and_keep_invariants(engine: str) -> None:
    game = get_game(engine)
    counts = _seat_counts(game)
    for n in range(PLAYOUTS):
        seats = counts[n % len(counts)]
        rng = random.Random(f"{engine}-{n}")
        state = game.new_state(seats)
        bound = game.playout_step_bound(seats)
        deep = n < DEEP_CHECKS
        steps = 0
        while not isinstance(state.decision(), Over):
            assert steps < bound, f"{engine} playout {n} ({seats} seats) exceeded {bound} steps"
            inp = random_input(state, rng.randrange)
            if deep:
                assert decode_input(encode_input(inp)) == inp
            state = state.apply(inp)
            steps += 1
            if deep:
                assert state.invariants() == [], f"{engine} playout {n} step {steps}"
                assert game.decode_state(state.encode()) == state
        outcome = state.decision().outcome
        ranked = sorted(s for group in outcome.ranking for s in group)
        assert ranked == list(range(seats)), f"ranking must place every seat once: {outcome}"


@pytest.mark.parametrize("engine", engine_ids())
def test_action_text_and_msgpack_round_trip(engine: str) -> None:
    game = get_game(engine)
    rng = random.Random(engine)
    state = game.new_state(game.min_seats)
    seen = 0
    for _ in range(300):
        d = state.decision()
        if isinstance(d, Over):
            break
        seats = (d.seat,) if isinstance(d, Turn) else d.seats if isinstance(d, Simultaneous) else ()
        for seat in seats:
            for action in itertools.islice(state.legal_actions(seat), 50):
                assert Action.parse(str(action)) == action
                assert Action.from_msgpack(action.to_msgpack()) == action
                # what players read (game.action_text), typed back, is the same action
                shown = Action.parse(game.action_text(action))
                assert state.typed_action(seat, shown) == action
                assert state.typed_action(seat, action) == action  # the wire form typed
                seen += 1
        state = state.apply(random_input(state, rng.randrange))
    assert seen > 0


@pytest.mark.parametrize("engine", engine_ids())
def test_illegal_inputs_raise_and_leave_state_unchanged(engine: str) -> None:
    game = get_game(engine)
    rng = random.Random(f"illegal-{engine}")
    state = game.new_state(game.min_seats)
    checked = 0
    for _ in range(200):
        d = state.decision()
        if isinstance(d, Over):
            break
        before = state.encode()
        bogus = [Move(0, Action("no_such_verb")), Roll(((99, 99),)), Joint(((0, Action("zz")),))]
        if isinstance(d, Turn):
            other = (d.seat + 1) % game.min_seats
            bogus.append(Move(other, state.legal_actions(d.seat)[0]))
        if isinstance(d, Chance):
            bogus.append(Roll(()))
        for inp in bogus:
            with pytest.raises(IllegalAction):
                state.apply(inp)
            assert state.encode() == before
            checked += 1
        state = state.apply(random_input(state, rng.randrange))
    assert checked > 0


@pytest.mark.parametrize("engine", engine_ids())
def test_options_have_clear_errors(engine: str) -> None:
    from lanTag.rules.base import OptionError

    game = get_game(engine)
    with pytest.raises(OptionError, match="no option"):
        game.parse_options({"definitely_not_an_option": "1"})
    with pytest.raises(OptionError):
        game.check_seats(game.min_seats - 1)
    defaults = game.parse_options({})
    assert set(defaults) == {s.name for s in game.option_specs}
    for spec in game.option_specs:
        assert spec.help, f"option {spec.name} needs a help line"
        if isinstance(spec.default, int) and not isinstance(spec.default, bool):
            if spec.min is not None:
                with pytest.raises(OptionError, match=spec.name):
                    game.parse_options({spec.name: str(spec.min - 1)})
            with pytest.raises(OptionError, match=spec.name):
                game.parse_options({spec.name: "not-a-number"})


@pytest.mark.parametrize("engine", engine_ids())
def test_view_and_render_work_for_every_seat(engine: str) -> None:
    game = get_game(engine)
    state = game.new_state(game.min_seats)
    rng = random.Random(f"view-{engine}")
    shown = game_view(engine)
    assert shown.module is not None  # every engine of the registry has a view of its own
    for _ in range(30):
        for seat in [None, *range(game.min_seats)]:
            assert isinstance(shown.view(state, seat), dict)
        assert isinstance(shown.render(state), str) and shown.render(state)
        if isinstance(state.decision(), Over):
            break
        state = state.apply(random_input(state, rng.randrange))
