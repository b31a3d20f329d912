"""A view module for the toy engine of tests/session (registered by tests/views only)."""

from __future__ import annotations

from typing import Any

from tests.session.toygame import ToyState


def view(state: ToyState, seat: int | None) -> dict[str, Any]:
    return {"you": seat, "scores": list(state.scores)}


def render(state: ToyState) -> str:
    return f"toy round {state.round} of {state.rounds}"


def purpose_text(purpose: str) -> str:
    return "the bonus seat" if purpose == "bonus" else purpose
