"""Board Tag views for people and bots: the view dict, the text render and the invariants."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lanTag.rules import boardtag_board as bb
from lanTag.rules.boardtag_board import (
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
    from lanTag.rules.base import Action, Fact
    from lanTag.rules.boardtag import BoardTagState


def seat_letter(seat: int) -> str:
    return chr(ord("A") + seat)


def _square_or_none(square: int) -> str | None:
    return bb.square_name(square) if square != OFF else None


def state_view(state: BoardTagState, seat: int | None) -> dict[str, Any]:
    """Everything is public in Board Tag; ``legal`` lists the actions of ``seat`` now."""
    started = state.phase not in (CHOOSE_IT, PLACE)
    it_view: dict[str, Any] | None = None
    if state.it_seat >= 0:
        x, y = bb.point_xy(state.it_point)
        it_view = {
            "seat": state.it_seat,
            "die": state.it_die,
            "score": state.dice[state.it_die].score,
            "point": [x, y],
            "facing": state.it_facing,
            "front": [
                bb.square_name(sq) for sq in bb.front_squares(state.it_point, state.it_facing)
            ],
            "adjacent": [bb.square_name(sq) for sq in bb.touching_squares(state.it_point)],
            "free_jump_left": state.phase == IT and state.jumps == 0,
            "free_turn_left": state.phase == IT and state.turns == 0,
        }
    board: list[list[dict[str, int] | None]] = [[None] * bb.SIZE for _ in range(bb.SIZE)]
    for i, die in enumerate(state.dice):
        if die.square != OFF:
            board[die.square // bb.SIZE][die.square % bb.SIZE] = {
                "die": i,
                "seat": die.owner,
                "score": die.score,
            }
    view: dict[str, Any] = {
        "game": "boardtag",
        "you": seat,
        "seats": state.seats,
        "phase": state.phase,
        "round": state.round,
        "max_rounds": state.max_rounds,
        "turn": state.mover if state.phase not in (CHOOSE_IT, OVER) else None,
        "board": board,  # board[row][col], row 0 = rank 1
        "dice": [
            {
                "die": i,
                "seat": d.owner,
                "score": d.score,
                "square": _square_or_none(d.square),
                "is_it_die": started and i == state.it_die,
                "moved": i in state.finished,
            }
            for i, d in enumerate(state.dice)
        ],
        "totals": list(state.totals()),
        "it": it_view,
        "active_die": state.active_die if state.active_die != OFF else None,
        "free_step_left": state.phase == RUN and state.active_die != OFF and state.steps == 0,
        "events": events_texts(state),
        "event_facts": [list(fact) for fact in state.events],
        "legal": [str(a) for a in state.legal_actions(seat)] if seat is not None else [],
    }
    if state.phase == OVER:
        view["outcome"] = {
            "ranking": [list(g) for g in state.ranking],
            "summary": outcome_summary(state),
        }
    return view


def render_state(state: BoardTagState) -> str:
    labels = {d.square: f"{seat_letter(d.owner)}{d.score}" for d in state.dice if d.square != OFF}
    lines = bb.render_board(labels, state.it_point, state.it_facing)
    letters = " ".join(f"{seat_letter(s)}=seat {s}" for s in range(state.seats))
    lines.append(f"legend: {letters}; A3 = seat 0's die showing 3; ^>v< = IT facing n/e/s/w")
    dice = []
    for s in range(state.seats):
        shown = [
            f"[{d.score}]"
            if i == state.it_die and state.phase != PLACE
            else "-"
            if d.square == OFF and state.phase in (CHOOSE_IT, PLACE)
            else str(d.score)
            for i in range(DICE_PER_SEAT * s, DICE_PER_SEAT * s + DICE_PER_SEAT)
            for d in (state.dice[i],)
        ]
        dice.append(f"{seat_letter(s)} {' '.join(shown)}")
    lines.append("dice: " + " | ".join(dice) + "   ([n] = the IT die)")
    lines.append(_status(state))
    if state.events:
        lines.append("last: " + "; ".join(events_texts(state)))
    return "\n".join(lines)


def _status(state: BoardTagState) -> str:
    rounds = f"/{state.max_rounds}" if state.max_rounds else ""
    where = f"round {state.round}{rounds}"
    it = f"IT seat {state.it_seat} at {bb.point_name(state.it_point)} facing {state.it_facing}"
    active = state.dice[state.active_die] if state.active_die != OFF else None
    if state.phase == OVER:
        return f"game over ({where}): {outcome_summary(state)}"
    if state.phase == CHOOSE_IT:
        return "setup: roll for who is IT"
    if state.phase == PLACE:
        return f"setup: seat {state.mover} places a Runner on a free edge square; {it}"
    if state.phase == FACE:
        return f"setup: seat {state.mover} chooses IT's facing"
    if state.phase == RETURN:
        return f"{where}: seat {state.mover} puts its old IT die on a free edge square; {it}"
    if state.phase == RUN:
        if active is None:
            return f"{where}, Run Phase: seat {state.mover} picks a die to move; {it}"
        free = "free step left" if state.steps == 0 else f"{state.steps} step(s) taken"
        return (
            f"{where}, Run Phase: seat {state.mover} moves "
            f"{bb.square_name(active.square)} ({free}); {it}"
        )
    return (
        f"{where}, IT Phase: {it}, IT die {state.dice[state.it_die].score}, "
        f"jumps {state.jumps}, turns {state.turns}"
    )


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


# ---------------------------------------------------------------- words for the facts


def _die_label(die: int | str, score: int | str, square: int | str) -> str:
    """A die named by its facts: the owner's letter, the score and the square: "B3 on c4"."""
    where = bb.square_name(int(square)) if square != OFF else "off the board"
    return f"{seat_letter(int(die) // DICE_PER_SEAT)}{score} on {where}"


def events_texts(state: BoardTagState) -> list[str]:
    """What the last input did, one phrase per fact (the state keeps facts only)."""
    return [event_text(fact) for fact in state.events]


def event_text(fact: Fact) -> str:
    code, args = fact[0], fact[1:]
    if code in ("places", "returns"):
        seat, square = args
        what = "places a Runner on" if code == "places" else "'s old IT die returns on"
        sep = "" if code == "returns" else " "
        return f"seat {seat}{sep}{what} {bb.square_name(int(square))}"
    if code == "picks":
        return f"seat {args[0]} picks {_die_label(*args[1:])}"
    if code == "step":
        die, score, square, direction, to, cost = args
        how = "free" if cost == 0 else "pays 1"
        where = bb.square_name(int(to))
        return f"{_die_label(die, score, square)} steps {direction} to {where} ({how})"
    if code in ("done", "stays"):
        return f"{_die_label(*args)} {'is done' if code == 'done' else 'stays'}"
    if code == "gains-passed":
        return f"{_die_label(*args)} gains a point: IT moved next to it"
    if code == "jumps":
        kind, to, cost = args
        how = "free" if cost == 0 else "pays 1"
        return f"IT jumps {kind} to {bb.point_name(int(to))} ({how})"
    if code == "turns":
        facing, cost = args
        return f"IT turns to face {facing} ({'free' if cost == 0 else 'pays 1'})"
    if code == "tags":
        old_seat, square, new_seat = args
        return f"seat {old_seat} tags {bb.square_name(int(square))}: seat {new_seat} is IT"
    return _EVENT_TEXTS[str(code)].format(*args)


_EVENT_TEXTS = {
    "it": "seat {0} is IT",
    "faces": "IT faces {0}",
    "ends": "IT ends its phase",
    "gains-near-it": "it gains a point for entering a square next to IT",
    "gains-staying": "it gains a point for not moving",
}


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


def purpose_text(purpose: str) -> str:
    """A boardtag chance purpose (a fact code) in words."""
    return "who starts as IT" if purpose == "first-it" else purpose
