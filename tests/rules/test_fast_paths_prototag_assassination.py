"""The replay fast paths of Prototag and TAG: The Assassination Game against their slow
definitions, over seeded random playouts with varied seats and options.

Covered: check_action accepts exactly ``legal_actions`` (with the reasons the slow path
gives), the direct step checks and move tables match the searches they replace, the
one-construction transitions match the dataclasses.replace chains they replace, encode()
is ``canonical_pack([id, to_obj()])``, and the per-state memo is not part of the value.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from lanTag.games.assassination.board import SAFE_HOUSE, can_finish
from lanTag.games.assassination.engine import Assassination, AssassinationState
from lanTag.games.prototag.board import STEP_DELTAS
from lanTag.games.prototag.engine import Prototag, PrototagState
from lanTag.games.prototag.state import MOVE, ROLL, RPS
from lanTag.rules.base import (
    Action,
    IllegalAction,
    Move,
    Over,
    Roll,
    State,
    Turn,
    canonical_pack,
)
from lanTag.rules.playout import random_input

GAMES = 3  # per option set and seat count

PROTOTAG_OPTIONS: list[dict[str, object]] = [
    {},
    {"first_tagged": "random", "board_size": 3},
    {"board_size": 4, "immunity_steps": 0, "end_steps": 25},
    {"immunity_steps": 2, "tagged_die": 1, "other_die": 1, "end_steps": 12},
    {"tagged_die": 20, "other_die": 12, "board_size": 5, "immunity_steps": 3},
]
ASSASSINATION_OPTIONS: list[dict[str, object]] = [
    {},
    {"variation_a": True, "null_reroll": "once"},
    {"max_rounds": 2},
    {"max_rounds": 0},
]

JUNK = [
    Action.parse(text)
    for text in (
        "step n", "step e", "step s", "step w", "step x", "step 1", "step", "step n e",
        "leave c4", "leave c2", "leave b3", "leave d4", "leave e4", "leave z9", "leave a",
        "reroll", "keep", "rps rock", "rps paper", "rps scissors", "rps lizard", "keep 1",
    )
]  # fmt: skip


def playout_states(game: Any, options: list[dict[str, object]]) -> Iterator[State]:
    for index, opts in enumerate(options):
        for seats in range(game.min_seats, game.max_seats + 1):
            for n in range(GAMES):
                rng = random.Random(f"fast-{game.id}-{index}-{seats}-{n}")
                state = game.new_state(seats, opts)
                for _ in range(3000):
                    yield state
                    if isinstance(state.decision(), Over):
                        break
                    state = state.apply(random_input(state, rng.randrange))


def candidates(state: State, seats: int) -> list[Action]:
    found = set(JUNK)
    for seat in range(seats):
        found.update(state.legal_actions(seat))
    return sorted(found, key=str)


def check_outcome(state: State, seat: int, action: Action) -> str | None:
    try:
        state.check_action(seat, action)
    except IllegalAction as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------------- prototag


def slow_legal_steps(state: PrototagState) -> tuple[str, ...]:
    return tuple(d for d in STEP_DELTAS if state.blocked_reason(d) is None)


def slow_step(state: PrototagState, direction: str) -> PrototagState:
    """PrototagState._step as it was: a chain of dataclasses.replace calls."""
    replace = dataclasses.replace
    mover = state.mover
    row, col = state.positions[mover]
    d_row, d_col = STEP_DELTAS[direction]
    target = (row + d_row, col + d_col)
    moved = replace(
        state,
        positions=(*state.positions[:mover], target, *state.positions[mover + 1 :]),
        path=(*state.path, target),
        events=(("step", mover, direction),),
    )
    if mover == state.tagged:
        events = moved.events
        immune, immunity_left = state.immune, state.immunity_left
        if immune >= 0:
            immunity_left -= 1
            if immunity_left == 0:
                events += (("immune-over", immune),)
                immune = -1
        moved = replace(
            moved,
            tagged_steps=state.tagged_steps + 1,
            immune=immune,
            immunity_left=immunity_left,
            events=events,
        )
        others = moved.occupants(target, excluding=mover)
        if others:
            return replace(
                moved,
                phase=RPS,
                opponent=others[0],
                events=(*events, ("meets", mover, others[0])),
            )
        if moved.tagged_steps >= state.rules.end_steps:
            return moved._game_over(events)
    if moved.steps_left == 0:
        return moved._end_turn(moved.events)
    if not slow_legal_steps(moved):
        return moved._end_turn((*moved.events, ("locked-in", moved.steps_left)))
    return moved


def slow_begin_move(state: PrototagState, value: int) -> PrototagState:
    moving = dataclasses.replace(
        state,
        phase=MOVE,
        roll=value,
        path=(state.positions[state.mover],),
        events=(("rolls", state.mover, value),),
    )
    if not slow_legal_steps(moving):
        return moving._end_turn((("boxed", state.mover, value),))
    return moving


def test_prototag_fast_paths_match_the_slow_definitions() -> None:
    states = 0
    for state in playout_states(Prototag, PROTOTAG_OPTIONS):
        assert isinstance(state, PrototagState)
        states += 1
        assert state.encode() == canonical_pack([Prototag.id, state.to_obj()])
        if state.phase == MOVE:
            assert state.legal_steps() == slow_legal_steps(state)
            assert [str(a) for a in state.legal_actions(state.mover)] == [
                f"step {d}" for d in slow_legal_steps(state)
            ]
            for d in slow_legal_steps(state):
                got = state.apply(Move(state.mover, Action("step", (d,))))
                assert got == slow_step(state, d) and repr(got) == repr(slow_step(state, d))
        if state.phase == ROLL:
            for value in range(1, state.die_faces(state.mover) + 1):
                assert state.apply(Roll(((value,),))) == slow_begin_move(state, value)
        for seat in range(state.seats):
            legal = state.legal_actions(seat)
            for action in candidates(state, state.seats):
                reason = check_outcome(state, seat, action)
                assert (reason is None) == (action in legal), (state, seat, action)
                direction = action.args[0] if len(action.args) == 1 else None
                stepping = state.phase == MOVE and seat == state.mover and action.verb == "step"
                if reason is not None and stepping and direction in STEP_DELTAS:
                    why = state.blocked_reason(str(direction))
                    assert reason == f"seat {seat} cannot step {direction}: {why}"
    assert states > 2500


# ---------------------------------------------------------------------------- assassination


def slow_steps(state: AssassinationState) -> list[tuple[Action, int]]:
    """AssassinationState._steps as it was: a search per call, actions built by name."""
    board, here = state.board, state.positions[state.mover]
    blocked, no_landing = state._limits()
    steps = []
    for target in board.neighbours(here):
        if target == state.came_from or target in blocked:
            continue
        if not can_finish(board, target, here, state.steps_left - 1, blocked, no_landing):
            continue
        if here == SAFE_HOUSE:
            steps.append((Action("leave", (board.name(target),)), target))
        else:
            steps.append((Action("step", (board.direction(here, target),)), target))
    return steps


def test_assassination_fast_paths_match_the_slow_definitions() -> None:
    states = 0
    for state in playout_states(Assassination, ASSASSINATION_OPTIONS):
        assert isinstance(state, AssassinationState)
        states += 1
        assert state.encode() == canonical_pack([Assassination.id, state.to_obj()])
        if state.phase == MOVE:
            assert list(state._steps()) == slow_steps(state)
        for seat in range(state.seats):
            legal = state.legal_actions(seat)
            for action in candidates(state, state.seats):
                reason = check_outcome(state, seat, action)
                assert (reason is None) == (action in legal), (state, seat, action)
                if reason is not None:
                    assert reason == state._why_illegal(seat, action)
    assert states > 2500


def test_assassination_memo_is_not_part_of_the_value() -> None:
    state = Assassination.new_state(4).apply(Roll(((0,),))).apply(Roll(((3,),)))
    assert isinstance(state, AssassinationState)
    assert isinstance(state.decision(), Turn) and state.legal_actions(state.mover)
    assert state._moves is not None  # filled by the roll's lock-in check
    fresh = dataclasses.replace(state)  # a new object, memo not filled yet
    assert fresh._moves is None
    assert fresh == state and hash(fresh) == hash(state) and repr(fresh) == repr(state)
    assert "_moves" not in repr(state)
    assert fresh.legal_actions(fresh.mover) == state.legal_actions(state.mover)
    assert Assassination.decode_state(state.encode()) == state


def test_assassination_but_is_dataclasses_replace() -> None:
    rng = random.Random("but")
    for state in playout_states(Assassination, [{}]):
        assert isinstance(state, AssassinationState)
        if rng.random() < 0.9:
            continue
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(AssassinationState):
            if f.init and rng.random() < 0.3:
                changes[f.name] = getattr(state, f.name)
        changes["events"] = (("x",),)
        changes["steps_left"] = rng.randrange(6)
        assert state._but(**changes) == dataclasses.replace(state, **changes)
