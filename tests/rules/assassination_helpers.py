"""Building and driving constructed TAG: The Assassination Game positions in tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lanTag.games.assassination.board import SAFE_HOUSE
from lanTag.games.assassination.engine import Assassination, AssassinationState
from lanTag.rules.base import Action, Move, Roll


def make(
    seats: int = 3,
    *,
    victim: int = 0,
    places: dict[int, str] | None = None,
    mover: int | None = None,
    options: dict[str, object] | None = None,
    **fields: Any,
) -> AssassinationState:
    """A position after the first-victim roll: ``places`` moves seats to named squares
    ("safe" = the Safe House), ``mover`` (default: the victim) is about to roll."""
    state = Assassination.new_state(seats, options).apply(Roll(((victim,),)))
    positions = list(state.positions)
    for seat, name in (places or {}).items():
        cell = SAFE_HOUSE if name == "safe" else state.board.cell_of(name)
        assert cell is not None, name
        positions[seat] = cell
    state = replace(
        state,
        positions=tuple(positions),
        mover=victim if mover is None else mover,
        events=(),
        **fields,
    )
    assert state.invariants() == [], state.invariants()
    return state


def roll(state: AssassinationState, value: int) -> AssassinationState:
    after = state.apply(Roll(((value,),)))
    assert isinstance(after, AssassinationState)
    return after


def act(state: AssassinationState, *texts: str) -> AssassinationState:
    """The mover takes these actions in order (e.g. "leave c4", "step n")."""
    for text in texts:
        after = state.apply(Move(state.mover, Action.parse(text)))
        assert isinstance(after, AssassinationState)
        assert after.invariants() == [], after.invariants()
        state = after
    return state


def legal(state: AssassinationState) -> set[str]:
    return {str(a) for a in state.legal_actions(state.mover)}


def square(state: AssassinationState, seat: int) -> str:
    return state.board.name(state.positions[seat])
