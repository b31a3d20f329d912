"""Prototag presentation: the plain-text board and the per-seat view dict."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanTag.rules.base import Fact, Over, Simultaneous, Turn
from lanTag.rules.prototag_board import render_grid

if TYPE_CHECKING:
    from lanTag.rules.prototag import PrototagState


def render(state: PrototagState) -> str:
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
    lines.append(f"status: {state.status()} | immune: {immune} | last: {events_text(state)}")
    return "\n".join(lines)


def view(state: PrototagState, seat: int | None) -> dict[str, Any]:
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
        "last_event": events_text(state),
        "event_facts": [list(fact) for fact in state.events],
        "outcome": (
            {"loser": state.tagged, "summary": decision.outcome.summary}
            if isinstance(decision, Over)
            else None
        ),
    }


# ---------------------------------------------------------------- words for the facts


def events_text(state: PrototagState) -> str:
    """What the last input did, in words (the state keeps facts only)."""
    return "; ".join(event_text(state, fact) for fact in state.events)


def event_text(state: PrototagState, fact: Fact) -> str:
    code, args = fact[0], fact[1:]
    if code == "start":
        return "every player throws a D6; the highest starts"
    if code in ("start-tie", "starts", "starts-tagged"):
        shown = ", ".join(f"seat {seat} {value}" for seat, value in state.start_rolls)
        if code == "start-tie":
            return f"start roll: {shown}; seats {', '.join(map(str, args))} tie and throw again"
        tagged = " and is tagged" if code == "starts-tagged" else ""
        return f"start roll: {shown}; seat {args[0]} starts{tagged}"
    if code in _RPS_RESULTS:
        tagger, tagger_choice, target, target_choice = args
        shown = f"seat {tagger} {tagger_choice}, seat {target} {target_choice}"
        return f"rps: {shown}: " + _RPS_RESULTS[str(code)].format(tagger=tagger, target=target)
    if code == "loses":
        return f"the tagged steps reach {state.rules.end_steps}: seat {args[0]} loses"
    return _EVENT_TEXTS[str(code)].format(*args)


_RPS_RESULTS = {
    "rps-draw": "draw, play again",
    "rps-tags": "seat {target} is tagged",
    "rps-stays": "seat {tagger} stays tagged",
}
_EVENT_TEXTS = {
    "tagged": "seat {0} is tagged",
    "boxed": "seat {0} rolls {1} but is boxed in",
    "rolls": "seat {0} rolls {1}",
    "step": "seat {0} steps {1}",
    "immune-over": "seat {0} is no longer immune",
    "meets": "tagged seat {0} reaches seat {1}: rock, paper, scissors!",
    "locked-in": "locked in with {0} step(s) unused",
    "immune": "seat {0} is immune for {1} step(s)",
}


def purpose_text(purpose: str) -> str:
    """A prototag chance purpose (a fact code) in words."""
    kind, _, rest = purpose.partition("/")
    if kind == "roll":
        seat, _, die = rest.partition("/")
        return f"seat {seat}'s {die.upper()} roll"
    if kind == "start-roll":
        return "start roll of seats " + ", ".join(rest.split("."))
    if kind == "first-tagged":
        return "the first tagged seat"
    return purpose
