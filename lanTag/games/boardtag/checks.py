"""Board Tag checks the engine runs: its invariants, why an action is illegal, the outcome line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import (
    CHOOSE_IT,
    DICE_PER_SEAT,
    FACE,
    IT,
    MAX_SCORE,
    MIN_SCORE,
    OFF,
    OVER,
    PHASES,
    PLACE,
    RETURN,
    RUN,
)

if TYPE_CHECKING:
    from lanTag.games.boardtag.engine import BoardTagState
    from lanTag.rules.base import Action


def broken_invariants(state: BoardTagState) -> list[str]:
    broken: list[str] = []
    if state.phase not in PHASES:
        return [f"unknown phase {state.phase!r}"]
    if not 2 <= state.seats <= 6 or len(state.dice) != DICE_PER_SEAT * state.seats:
        return [f"{len(state.dice)} dice for {state.seats} seats"]
    if state.run_order not in ("left", "right") or state.max_rounds < 0:
        broken.append("bad options")
    indices = (state.active_die, *state.finished, *state.passed_by_it)
    if any(not OFF <= i < len(state.dice) for i in indices):
        return [*broken, "a die index is out of range"]
    squares = [d.square for d in state.dice if d.square != OFF]
    if len(squares) != len(set(squares)):
        broken.append("two dice share a square")
    for i, d in enumerate(state.dice):
        if d.owner != i // DICE_PER_SEAT or not MIN_SCORE <= d.score <= MAX_SCORE:
            broken.append(f"die {i} has owner {d.owner} and score {d.score}")
        if not OFF <= d.square < bb.SIZE * bb.SIZE:
            broken.append(f"die {i} is on square {d.square}")
    if state.phase == CHOOSE_IT:
        return broken + (["dice on the board before IT is chosen"] if squares else [])
    if not 0 <= state.it_seat < state.seats or state.it_die // DICE_PER_SEAT != state.it_seat:
        return [*broken, f"IT die {state.it_die} does not belong to IT seat {state.it_seat}"]
    if not 0 <= state.it_point < bb.LATTICE * bb.LATTICE or state.it_facing not in bb.FACINGS:
        broken.append("IT is off the lattice or faces nowhere")
    if state.dice[state.it_die].square != OFF:
        broken.append("the IT die is on the board")
    if state.phase != PLACE and state.dice[state.it_die].score == MAX_SCORE:
        broken.append("the IT die shows 6 (a tagged die always loses a point)")
    off = {i for i, d in enumerate(state.dice) if d.square == OFF}
    expected_off = {state.it_die}
    if state.phase == RETURN:
        expected_off.add(state.active_die)
    if state.phase != PLACE and off != expected_off:
        broken.append(f"dice off the board {sorted(off)}, expected {sorted(expected_off)}")
    if state.phase == RUN:
        if any(state.dice[i].square == OFF for i in state.finished):
            broken.append("a finished die is off the board")
        if state.active_die != OFF and (
            state.active_die in state.finished or state.dice[state.active_die].owner != state.mover
        ):
            broken.append("the active die is not an unmoved die of the mover")
    if state.phase in (FACE, IT) and state.mover != state.it_seat:
        broken.append("the IT player must act")
    if state.phase == OVER:
        ranked = sorted(s for group in state.ranking for s in group)
        if ranked != list(range(state.seats)):
            broken.append("the ranking does not place every seat once")
    elif not 0 <= state.mover < state.seats:
        broken.append(f"no seat {state.mover} to act")
    return broken


def why_illegal(state: BoardTagState, seat: int, action: Action) -> str:
    """Why ``action`` is not legal for ``seat`` now (check_action's IllegalAction text)."""
    if state.phase in (CHOOSE_IT, OVER):
        return "no player acts now" if state.phase == CHOOSE_IT else "the game is over"
    if seat != state.mover:
        return f"it is seat {state.mover}'s turn, not seat {seat}'s"
    allowed = {
        PLACE: ("place",),
        RETURN: ("place",),
        FACE: ("face",),
        RUN: ("pick",) if state.active_die == OFF else ("step", "stay", "done"),
        IT: ("jump", "face", "tag", "end"),
    }[state.phase]
    shapes = {
        "place": "place <square>",
        "face": "face n|e|s|w",
        "pick": "pick <square>",
        "step": "step <dir>",
        "stay": "stay",
        "done": "done",
        "jump": "jump ffl|ffr|llf|rrf",
        "tag": "tag <square>",
        "end": "end",
    }
    expected = ", ".join(shapes[v] for v in allowed)
    takes_word = action.verb in ("place", "face", "pick", "step", "jump", "tag")
    word = action.args[0] if len(action.args) == 1 else None
    if action.verb not in allowed or (
        (not isinstance(word, str)) if takes_word else bool(action.args)
    ):
        return f"{action} is not an action now; expected {expected}"
    if action.verb in ("place", "pick", "tag"):
        sq = bb.parse_square(str(word))
        if sq is None:
            return f"{word!r} is not a square (a1..h8)"
        if action.verb == "place":
            return f"{word} is taken" if bb.is_edge(sq) else f"{word} is not an edge square"
        if action.verb == "pick":
            return f"no die of yours waiting to move on {word}"
        if state.die_at(sq) is None:
            return f"there is no die on {word}"
        if sq not in bb.front_squares(state.it_point, state.it_facing):
            return f"{word} is not one of the two squares in front of IT"
        return "don't tag your own Runner: there is no gain in it"
    if action.verb == "step":
        if word not in bb.STEPS:
            return f"{word!r} is not a direction ({' '.join(bb.STEPS)})"
        if not state.can_pay(state.active_die, state.steps):
            return "the free step is used and a Runner never spends its last point"
        to = bb.step_target(state.dice[state.active_die].square, str(word))
        return "that step leaves the board" if to is None else "that square is occupied"
    if action.verb == "jump":
        if word not in bb.JUMPS:
            return f"{word!r} is not a jump ({' '.join(bb.JUMPS)})"
        if not state.can_pay(state.it_die, state.jumps):
            return "the free jump is used and the IT die never spends its last point"
        return "that jump leaves the board's lines"
    if action.verb == "face":
        if word not in bb.FACINGS:
            return f"{word!r} is not a facing ({' '.join(bb.FACINGS)})"
        if word == state.it_facing:
            return f"IT already faces {word}"
        return "the free turn is used and the IT die never spends its last point"
    if action.verb == "stay":
        return "this die has already moved; say done"
    return "take a step or stay first"  # "done" before any step


def outcome_summary(state: BoardTagState) -> str:
    """How the game ended, in words ('' while it goes on)."""
    if not state.end or not state.ranking:
        return ""
    head = state.ranking[0]
    if state.end[0] == "three-sixes":
        summary = " and ".join(f"seat {s}" for s in head) + " ended an IT Phase with three sixes"
        if state.end[1] != -1:
            summary += f"; seat {state.end[1]} was IT and did not tag them"
        return summary
    best = state.totals()[head[0]]
    leaders = " and ".join(f"seat {s}" for s in head)
    verb = "leads" if len(head) == 1 else "share the lead"
    return f"round limit {state.max_rounds} reached: {leaders} {verb} with {best} pips"
