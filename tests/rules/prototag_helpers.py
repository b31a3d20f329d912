"""Builders for constructed Prototag positions (tiles are (row, col), row 0 = north)."""

from __future__ import annotations

from typing import Any

from lanTag.games.prototag.board import Tile
from lanTag.games.prototag.engine import PrototagState
from lanTag.games.prototag.state import MOVE, ROLL, RPS, Rules
from lanTag.rules.base import Action, Joint, Move, Roll


def position(
    tiles: list[Tile],
    *,
    tagged: int = 0,
    mover: int = 0,
    phase: str = ROLL,
    roll: int = 0,
    rules: Rules | None = None,
    **fields: Any,
) -> PrototagState:
    """A sound position; MOVE and RPS positions start their path on the mover's tile."""
    if phase in (MOVE, RPS) and "path" not in fields:
        fields["path"] = (tiles[mover],)
    state = PrototagState(
        rules=rules or Rules(),
        seats=len(tiles),
        phase=phase,
        positions=tuple(tiles),
        tagged=tagged,
        mover=mover,
        roll=roll,
        **fields,
    )
    assert state.invariants() == [], state.invariants()
    return state


def moving(tiles: list[Tile], roll: int, *, mover: int = 0, **kwargs: Any) -> PrototagState:
    """The mover has just rolled ``roll`` and not stepped yet."""
    return position(tiles, phase=MOVE, roll=roll, mover=mover, **kwargs)


def step(state: PrototagState, *directions: str) -> PrototagState:
    for direction in directions:
        after = state.apply(Move(state.mover, Action("step", (direction,))))
        assert isinstance(after, PrototagState)
        state = after
    return state


def roll(state: PrototagState, *values: int) -> PrototagState:
    after = state.apply(Roll(tuple((v,) for v in values)))
    assert isinstance(after, PrototagState)
    return after


def rps(state: PrototagState, tagged_choice: str, other_choice: str) -> PrototagState:
    choices = {state.tagged: tagged_choice, state.opponent: other_choice}
    joint = Joint(tuple((seat, Action("rps", (choices[seat],))) for seat in sorted(choices)))
    after = state.apply(joint)
    assert isinstance(after, PrototagState)
    return after


def steps_names(state: PrototagState) -> list[str]:
    return [str(a) for a in state.legal_actions(state.mover)]
