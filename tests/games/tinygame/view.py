"""What people see of a Countdown state."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lanTag.views.naming import Namer, plain_namer
from tests.games.tinygame.engine import CountdownState


def view(state: CountdownState, seat: int | None) -> dict[str, Any]:
    return {
        "left": state.left,
        "mover": state.mover,
        "winner": state.winner,
        "you": seat,
        "legal": [str(a) for a in state.legal_actions(seat)] if seat is not None else [],
        "events": [{"text": text} for text in events_texts(state)],
    }


def render(state: CountdownState) -> str:
    if state.winner >= 0:
        return f"Countdown: seat {state.winner} took the last counter"
    who = f"seat {state.mover} to take" if state.mover >= 0 else "drawing who starts"
    return f"Countdown: {state.left} left, {who}"


def purpose_text(purpose: str) -> str:
    return "who takes first" if purpose == "first-taker" else purpose


def events_texts(state: CountdownState, name: Namer = plain_namer) -> list[str]:
    texts = []
    for fact in state.events:
        if fact[0] == "first":
            texts.append(f"{name(int(fact[1]))} starts")
        else:
            _, seat, taken, left = fact
            texts.append(f"{name(int(seat))} takes {taken} ({left} left)")
    return texts


def roll_text(purpose: str, values: Sequence[Sequence[int]], name: Namer = plain_namer) -> str:
    return name(values[0][0])
