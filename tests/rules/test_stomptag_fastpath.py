"""Stomptag fast paths against their slow definitions, over random playouts.

``check_action`` checks an order directly instead of building the legal OrderSpace;
``decision()`` is memoized per state; the round resolves moves on row-major cell indices
through ``settle_move`` instead of Step objects; ``member_points`` is a closed form.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from lanTag.games.stomptag.collide import (
    Collision,
    Step,
    collision_points,
    crossing,
    member_points,
    resolve_move,
    settle_move,
)
from lanTag.games.stomptag.engine import Stomptag, StomptagState
from lanTag.games.stomptag.orders import DELTAS, LETTER_HELP, LETTERS, MODES, MOVES, VERBS
from lanTag.rules.base import Action, IllegalAction, State
from lanTag.rules.playout import random_input

LETTER_WORDS = "".join(LETTERS[m] for m in MOVES)
WORDS: list[int | str] = [*MOVES, *LETTER_WORDS, "up", "orders", "xk", 7]
MODE_WORDS: list[int | str] = [*MODES, "run", 3]


def reference_error(action: Action, moves: int, teleport_ok: bool, upgrade_ok: bool) -> str | None:
    """The reasons of the order grammar, one rule at a time (None: legal)."""
    if action.verb not in VERBS:
        return f"orders look like 'orders stomp n ne' or 'orders+up stride e' (not {action.verb!r})"
    if action.verb == "orders+up" and not upgrade_ok:
        return "no more upgrades: you already have the most moves allowed"
    if not action.args or action.args[0] not in MODES:
        return "the first word of orders is 'stomp' or 'stride', for the whole round"
    words = action.args[1:]
    if len(words) > 1:
        return (
            f"orders are one word of move letters after the mode ({LETTER_HELP}), "
            f"e.g. 'orders {action.args[0]} {'x' * moves}', not {len(words)} words"
        )
    word = words[0] if words else ""
    if not isinstance(word, str) or any(c not in LETTER_WORDS for c in word):
        return f"{word!r} is not a word of move letters ({LETTER_HELP}; one letter per move)"
    if len(word) != moves:
        return f"you have {moves} move(s) this round: give exactly {moves} move(s), not {len(word)}"
    if "t" in word and not teleport_ok:
        return "teleport only right after someone was tagged or after your own teleport"
    return None


def candidates(rng: random.Random, moves: int) -> list[Action]:
    out = []
    for _ in range(12):
        verb = rng.choice([*VERBS, "orders", "bid", "stomp"])
        mode = rng.choice(MODE_WORDS)
        count = rng.choice([moves, moves, moves - 1, moves + 1, 0])
        word = "".join(rng.choice(LETTER_WORDS) for _ in range(max(1, count)))
        if rng.random() < 0.6:  # the wire form: one word of letters, sometimes of a bad count
            args: list[int | str] = [mode, word]
        else:  # words: never the wire form but for a single one-letter move
            args = [mode, *(rng.choice(WORDS) for _ in range(max(0, count)))]
        out.append(Action(verb, tuple(args[: rng.choice([0, len(args), len(args)])])))
    return out


def check_state(rng: random.Random, state: StomptagState) -> None:
    fresh = replace(state)  # an equal state with no memo yet
    assert state.decision() == fresh.decision() and state.decision() is state.decision()
    for seat in range(-1, state.seats + 1):
        legal = state.legal_actions(seat)
        if state.phase != "orders" or not 0 <= seat < state.seats or state.table.out[seat]:
            for action in candidates(rng, 1):
                try:
                    state.check_action(seat, action)
                except IllegalAction:
                    continue
                assert state.phase == "bids" and action in legal
            continue
        space = state.order_space(seat)
        listed = list(legal) if len(legal) <= 800 else [legal[i] for i in range(0, len(legal), 7)]
        for action in listed:
            state.check_action(seat, action)  # everything listed is accepted
        for action in candidates(rng, space.moves):
            want = reference_error(action, space.moves, space.teleport_ok, space.upgrade_ok)
            try:
                state.check_action(seat, action)
                got = None
            except IllegalAction as exc:
                got = str(exc)
            assert got == want, (action, got, want)
            if len(legal) <= 800:
                assert (got is None) == (action in listed)


def test_fast_paths_match_the_slow_definitions_over_random_games() -> None:
    rng = random.Random(2024)
    for _ in range(24):
        seats = rng.randint(3, 9)
        side = rng.randint(int((seats - 1) ** 0.5) + 1, 5)
        options = {"grid_size": side, "max_moves": rng.randint(1, 3), "start_points": 15}
        state: State = Stomptag.new_state(seats, options)
        for _ in range(60):
            assert isinstance(state, StomptagState)
            check_state(rng, state)
            if state.is_over:
                break
            state = state.apply(random_input(state, rng.randrange))


def test_member_points_is_collision_points() -> None:
    rng = random.Random(7)
    for _ in range(500):
        seats = tuple(sorted(rng.sample(range(12), rng.randint(2, 6))))
        stompers = {s for s in seats if rng.random() < 0.5}
        expected = collision_points(Collision("meet", seats), stompers)
        assert member_points(seats, stompers) == expected


def column_row(side: int) -> Callable[[int], tuple[int, int]]:
    return lambda cell: (cell % side, cell // side)


def test_settle_move_on_cell_indices_matches_resolve_move_on_cells() -> None:
    rng = random.Random(11)
    for _ in range(2000):
        side = rng.randint(2, 5)
        cells = rng.sample(range(side * side), rng.randint(1, min(9, side * side)))
        steps, want = [], {}
        for seat, cell in enumerate(cells):
            x, y = cell % side, cell // side
            dx, dy = DELTAS[rng.choice(list(DELTAS))]
            if rng.random() < 0.2 or not (0 <= x + dx < side and 0 <= y + dy < side):
                dx = dy = 0
            want[seat] = cell + dy * side + dx
            steps.append(Step(seat, (x, y), (x + dx, y + dy), rng.random() < 0.5, dx * dy != 0))
        res = resolve_move(steps)
        seats = list(range(len(cells)))
        diagonal = [(s.seat, *crossing(s.origin, s.target)) for s in steps if s.diagonal]
        stomp = {s.seat for s in steps if s.stomp}
        phases, ends = settle_move(
            seats, dict(enumerate(cells)), want, stomp, diagonal, column_row(side)
        )
        assert ends == {s: y * side + x for s, (x, y) in res.ends}
        as_cells = [
            [(k, m, None if c is None else (c % side, c // side)) for k, m, c in p] for p in phases
        ]
        assert as_cells == [[(c.kind, c.seats, c.cell) for c in p] for p in res.phases]
