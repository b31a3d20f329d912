"""Prototag presentation: the plain-text board and the per-seat view dict."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lanTag.games.prototag.board import render_grid
from lanTag.rules.base import Fact, Over, Simultaneous, Turn
from lanTag.views.naming import Namer, plain_namer

if TYPE_CHECKING:
    from lanTag.games.prototag.engine import PrototagState


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


def warnings(state: PrototagState, seat: int | None) -> list[str]:
    """Act or lose: the tagged player when the shared count is within a roll of its end."""
    if seat is None or state.is_over or state.tagged != seat:
        return []
    left = state.rules.end_steps - state.tagged_steps
    if left > state.rules.tagged_die:
        return []
    return [
        f"tagged steps {state.tagged_steps}/{state.rules.end_steps}: tag someone within "
        f"{left} step(s) or you lose"
    ]


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
        "warnings": warnings(state, seat),
        "legal": [str(a) for a in state.legal_actions(seat)] if seat is not None else [],
        "status": state.status(),
        "last_event": events_text(state),
        "events": events_texts(state),
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
    return "; ".join(events_texts(state))


def events_texts(state: PrototagState, name: Namer = plain_namer) -> list[str]:
    """One phrase per fact of the last input, seats named by ``name``."""
    return [event_text(state, fact, name) for fact in state.events]


def event_text(state: PrototagState, fact: Fact, name: Namer = plain_namer) -> str:
    code, args = str(fact[0]), fact[1:]
    if code == "start":
        return "every player throws a D6; the highest starts"
    if code in ("start-tie", "starts", "starts-tagged"):
        shown = ", ".join(f"{name(seat)} {value}" for seat, value in state.start_rolls)
        if code == "start-tie":
            tied = ", ".join(name(int(seat)) for seat in args)
            return f"start roll: {shown}; {tied} tie and throw again"
        tagged = " and is tagged" if code == "starts-tagged" else ""
        return f"start roll: {shown}; {name(int(args[0]))} starts{tagged}"
    if code in _RPS_RESULTS:
        tagger, tagger_choice, target, target_choice = args
        shown = f"{name(int(tagger))} {tagger_choice}, {name(int(target))} {target_choice}"
        result = _RPS_RESULTS[code].format(tagger=name(int(tagger)), target=name(int(target)))
        return f"rock-paper-scissors: {shown}: {result}"
    if code == "loses":
        return f"the tagged steps reach {state.rules.end_steps}: {name(int(args[0]))} loses"
    seats = _SEAT_ARGS.get(code, 0)
    shown_args = [name(int(a)) if i < seats else a for i, a in enumerate(args)]
    return _EVENT_TEXTS[code].format(*shown_args)


# The words for each fact; ``{tagger}``/``{target}`` and the first _SEAT_ARGS[code]
# arguments are seats, named by the namer passed in.
_RPS_RESULTS = {
    "rps-draw": "a draw, play again",
    "rps-tags": "{target} is tagged",
    "rps-stays": "{tagger} stays tagged",
}
_EVENT_TEXTS = {
    "tagged": "{0} is tagged",
    "boxed": "{0} rolls {1} but is boxed in",
    "rolls": "{0} rolls {1}",
    "step": "{0} steps {1}",
    "immune-over": "{0} is no longer immune",
    "meets": "tagged {0} reaches {1}: rock-paper-scissors!",
    "locked-in": "locked in with {0} step(s) unused",
    "immune": "{0} is immune for {1} step(s)",
}
_SEAT_ARGS = {
    "tagged": 1,
    "boxed": 1,
    "rolls": 1,
    "step": 1,
    "immune-over": 1,
    "meets": 2,
    "immune": 1,
}


def events_hit(state: PrototagState) -> list[tuple[int, ...]]:
    """The seats each fact happens to: tagged, reached for a battle, staying tagged, losing."""
    out: list[tuple[int, ...]] = []
    for fact in state.events:
        code, args = str(fact[0]), fact[1:]
        if code in ("tagged", "starts-tagged", "loses", "rps-stays"):
            out.append((int(args[0]),))
        elif code == "meets":
            out.append((int(args[1]),))
        elif code == "rps-tags":
            out.append((int(args[2]),))
        else:
            out.append(())
    return out


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


def roll_text(
    purpose: str, values: Sequence[Sequence[int]], name: Namer = plain_namer
) -> str | None:
    """The first-tagged roll draws a seat: named, not its number."""
    if purpose == "first-tagged" and len(values) == 1 and len(values[0]) == 1:
        return name(values[0][0])
    return None
