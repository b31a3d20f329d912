"""Prototag presentation: the plain-text board and the per-seat view dict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanTag.rules.base import Over, Simultaneous, Turn
from lanTag.rules.prototag_board import render_grid

if TYPE_CHECKING:
    from lanTag.rules.prototag import PrototagState


def render_state(state: PrototagState) -> str:
    size, end = state.rules.board_size, state.rules.end_steps
    tagged = f"seat {state.tagged}" if state.tagged >= 0 else "nobody yet"
    immune = (
        f"seat {state.immune} ({state.immunity_left} step(s))" if state.immune >= 0 else "nobody"
    )
    lines = [f"Prototag {size}x{size} | tagged: {tagged} | tagged steps {state.tagged_steps}/{end}"]
    lines += render_grid(size, state.positions, state.tagged, state.path)
    lines.append(
        "legend: N seat N, *N tagged seat N (*NM: sharing with seat M), + visited this turn, . free"
    )
    lines.append(f"status: {state.status()} | immune: {immune} | last: {state.last_event}")
    return "\n".join(lines)


def view_of(state: PrototagState, seat: int | None) -> dict[str, Any]:
    """Everything is public in Prototag (RPS choices never sit in a state), so every seat
    sees the same facts; ``legal`` lists what ``seat`` itself may do now."""
    decision = state.decision()
    acting: tuple[int, ...] = ()
    if isinstance(decision, Turn):
        acting = (decision.seat,)
    elif isinstance(decision, Simultaneous):
        acting = decision.seats
    return {
        "game": "prototag",
        "you": seat,
        "board_size": state.rules.board_size,
        "pieces": [
            {
                "seat": s,
                "row": row,
                "col": col,
                "tagged": s == state.tagged,
                "immune": s == state.immune,
            }
            for s, (row, col) in enumerate(state.positions)
        ],
        "phase": state.phase,
        "turn": state.mover,
        "tagged": state.tagged,
        "immune": state.immune,
        "immunity_left": state.immunity_left,
        "roll": state.roll,
        "steps_left": state.steps_left,
        "path": [list(tile) for tile in state.path],
        "tagged_steps": state.tagged_steps,
        "end_steps": state.rules.end_steps,
        "dice": {"tagged": state.rules.tagged_die, "other": state.rules.other_die},
        "start": {
            "contenders": list(state.contenders),
            "rolls": [list(pair) for pair in state.start_rolls],
        },
        "battle": (
            {"tagged": state.tagged, "opponent": state.opponent, "draws": state.rps_draws}
            if isinstance(decision, Simultaneous)
            else None
        ),
        "acting": list(acting),
        "legal": [str(a) for a in state.legal_actions(seat)] if seat is not None else [],
        "status": state.status(),
        "last_event": state.last_event,
        "outcome": (
            {"loser": state.tagged, "summary": decision.outcome.summary}
            if isinstance(decision, Over)
            else None
        ),
    }
