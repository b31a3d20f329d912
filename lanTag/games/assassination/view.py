"""What players see of TAG: The Assassination Game: the view dict and the text board."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lanTag.games.assassination.board import MOVE, NULL, OVER, PICK, ROLL, SAFE_HOUSE, SIDES
from lanTag.rules.base import Fact
from lanTag.views.naming import Namer, plain_namer

if TYPE_CHECKING:
    from lanTag.games.assassination.engine import AssassinationState

LEGEND = (
    "legend: V<n> victim (on H: in the Safe House), digits assassins by seat, "
    "H Safe House, B base, b base the victim touched, . square"
)


def cells(state: AssassinationState) -> list[list[str]]:
    """Rows north to south of per-square text: pieces (V<seat> for the victim, assassins'
    seat digits, several if they share), else terrain (H, B, b, .)."""
    board = state.board
    flat = ["H" if c in board.hole else "." for c in board.squares]
    for side, base in enumerate(board.bases):
        touched = state.victim >= 0 and state.coins[state.victim] >> side & 1
        flat[base] = "b" if touched else "B"
    for seat, square in enumerate(state.positions):
        if seat != state.victim:
            flat[square] = (flat[square] if flat[square].isdigit() else "") + str(seat)
    if state.positions:
        square = state.positions[state.victim]
        flat[min(board.hole) if square == SAFE_HOUSE else square] = f"V{state.victim}"
    size = board.size
    return [flat[r * size : (r + 1) * size] for r in range(size)]


def view(state: AssassinationState, seat: int | None) -> dict[str, Any]:
    """Everything is public in this game, so every seat sees the same, plus its legal actions."""
    board = state.board
    pieces = [
        {
            "seat": s,
            "role": state.role(s),
            "square": board.name(p),
            "coins": state.coin_sides(s),
            "catches": state.catches[s],
        }
        for s, p in enumerate(state.positions)
    ]
    moving = state.phase == MOVE
    return {
        "game": "assassination",
        "you": seat,
        "phase": state.phase,
        "to_move": state.mover if state.mover >= 0 else None,
        "victim": state.victim if state.victim >= 0 else None,
        "board_size": board.size,
        "cells": cells(state),
        "safe_house": sorted(board.name(c) for c in board.hole),
        "bases": {side: board.name(b) for side, b in zip(SIDES, board.bases, strict=True)},
        "pieces": pieces,
        "roll": state.roll if moving or state.phase == NULL else None,
        "steps_left": state.steps_left if moving else None,
        "round": state.round_number(),
        "max_rounds": state.max_rounds,
        "scores": list(state.catches),
        "events": events_texts(state),
        "event_facts": [list(fact) for fact in state.events],
        "legal": [str(a) for a in state.legal_actions(seat)] if seat is not None else [],
        "arrows": arrows(state, seat),
        "warnings": warnings(state, seat),
        "winner": state.winner if state.winner >= 0 else None,
    }


def warnings(state: AssassinationState, seat: int | None) -> list[str]:
    """Act or lose: an assassin when the victim needs one more base to win at once."""
    victim = state.victim
    if seat is None or victim < 0 or seat == victim or state.phase in (PICK, OVER):
        return []
    missing = [side for side in range(len(SIDES)) if not state.coins[victim] >> side & 1]
    if len(missing) != 1:
        return []
    base = state.board.name(state.board.bases[missing[0]])
    return [
        f"seat {victim} has touched 3 of 4 bases: catch them before they land on {base} or they win"
    ]


def arrows(state: AssassinationState, seat: int | None) -> dict[str, str]:
    """The compass way of each of ``seat``'s legal ``leave <square>`` (the side of the Safe
    House it steps out of), so an arrow key can play it like a ``step``."""
    if seat is None:
        return {}
    board = state.board
    rows = [cell // board.size for cell in board.hole]
    cols = [cell % board.size for cell in board.hole]
    ways: dict[str, str] = {}
    for action in state.legal_actions(seat):
        cell = board.cell_of(str(action.args[0])) if action.verb == "leave" else None
        if cell is None:
            continue
        row, col = divmod(cell, board.size)
        side = "n" if row < min(rows) else "s" if row > max(rows) else ""
        ways[str(action)] = side or ("w" if col < min(cols) else "e")
    return ways


def render(state: AssassinationState) -> str:
    rows = cells(state)
    width = max(2, *(len(c) for row in rows for c in row)) + 1
    size = state.board.size
    lines = ["   " + "".join(chr(ord("a") + c).ljust(width) for c in range(size)).rstrip()]
    for r, row in enumerate(rows):
        lines.append(f"{size - r:>2} " + "".join(c.ljust(width) for c in row).rstrip())
    lines += [LEGEND, "status: " + _status(state)]
    if state.events:
        lines.append("events: " + "; ".join(events_texts(state)))
    return "\n".join(lines)


def _status(state: AssassinationState) -> str:
    if state.phase == PICK:
        return "rolling for the first victim"
    limit = f"/{state.max_rounds}" if state.max_rounds else ""
    bases = ",".join(state.coin_sides(state.victim)) or "-"
    parts = [
        f"round {state.round_number()}{limit}",
        f"victim seat {state.victim} (bases {bases})",
        "catches " + " ".join(f"{s}:{c}" for s, c in enumerate(state.catches)),
    ]
    who = f"seat {state.mover} ({state.role(state.mover)})"
    if state.phase == OVER:
        parts.append("over: " + state.outcome().summary)
    elif state.phase == ROLL:
        parts.append(f"{who} to roll")
    elif state.phase == NULL:
        parts.append(f"{who} rolled a null: reroll or keep")
    else:
        parts.append(f"{who} rolled {state.roll}, {state.steps_left} step(s) left")
    return " | ".join(parts)


# ---------------------------------------------------------------- words for the facts


def events_texts(state: AssassinationState, name: Namer = plain_namer) -> list[str]:
    """What the last input did, one sentence per fact, seats named by ``name``."""
    return [event_text(state, fact, name) for fact in state.events]


def events_hit(state: AssassinationState) -> list[tuple[int, ...]]:
    """The seats each fact happens to: the victim an assassin catches."""
    return [(int(fact[2]),) if fact[0] == "catch" else () for fact in state.events]


def event_text(state: AssassinationState, fact: Fact, name: Namer = plain_namer) -> str:
    code, args = str(fact[0]), fact[1:]
    if code == "round-limit":
        return _EVENT_TEXTS[code].format(*args)
    who = name(int(args[0]))  # every other fact names the seat it is about first
    if code == "step":
        return f"{who} steps to {state.board.name(int(args[1]))}"
    if code == "catch":
        _, old, square = args
        where = state.board.name(int(square))
        return f"{who} catches {name(int(old))} on {where} and becomes the victim"
    if code == "base":
        _, side, touched = args
        return f"{who} lands on the {SIDES[int(side)]} base ({touched}/4 touched)"
    return _EVENT_TEXTS[code].format(who, *args[1:])


# {0} is the seat the fact is about (named by the namer passed in), except round-limit's.
_EVENT_TEXTS = {
    "reroll": "{0} re-rolls the null",
    "keep": "{0} keeps the null and stays put",
    "first-victim": "{0} is the first victim",
    "null-lost": "{0} rolled a null and cannot move this turn",
    "null": "{0} rolled a null",
    "null-again": "{0} rolled a null again and stays put",
    "rolled": "{0} rolled {1}",
    "stuck": "{0} rolled {1} but has no legal move; stays put",
    "wins": "{0} has touched all four bases and wins",
    "round-limit": "round limit ({0}) reached",
}


def purpose_text(purpose: str) -> str:
    """An assassination chance purpose (a fact code) in words."""
    if purpose == "first-victim":
        return "roll-off for the first victim"
    kind, _, rest = purpose.partition("/")
    if kind == "die":
        seat, _, role = rest.partition("/")
        return f"die roll for seat {seat} ({role})"
    return purpose


def roll_text(
    purpose: str, values: Sequence[Sequence[int]], name: Namer = plain_namer
) -> str | None:
    """The first-victim roll draws a seat: named, not its number."""
    if purpose == "first-victim" and len(values) == 1 and len(values[0]) == 1:
        return name(values[0][0])
    return None
