"""Board Tag as people and UIs see it: the view dict, the text board, the event words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import (
    CHOOSE_IT,
    DICE_PER_SEAT,
    FACE,
    IT,
    OFF,
    OVER,
    PLACE,
    RETURN,
    RUN,
)
from lanTag.games.boardtag.checks import outcome_summary
from lanTag.views.naming import Namer, plain_namer

if TYPE_CHECKING:
    from lanTag.games.boardtag.engine import BoardTagState
    from lanTag.rules.base import Action, Fact


def seat_letter(seat: int) -> str:
    return chr(ord("A") + seat)


def _square_or_none(square: int) -> str | None:
    return bb.square_name(square) if square != OFF else None


def view(state: BoardTagState, seat: int | None) -> dict[str, Any]:
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
        "warnings": warnings(state, seat),
    }
    if state.phase == OVER:
        view["outcome"] = {
            "ranking": [list(g) for g in state.ranking],
            "summary": outcome_summary(state),
        }
    return view


def warnings(state: BoardTagState, seat: int | None) -> list[str]:
    """Act or lose: IT's player while another player's three dice show 6 (the rules: tag
    one of them or lose; an IT Phase ending with them standing ranks you last)."""
    if seat is None or state.it_seat != seat or state.phase in (CHOOSE_IT, PLACE, OVER):
        return []
    return [
        f"seat {other} shows 6 6 6: tag one of its dice before your IT Phase ends, or you lose"
        for other in range(state.seats)
        if other != seat and all(state.dice[i].score == bb.MAX_SCORE for i in bb.seat_dice(other))
    ]


def render(state: BoardTagState) -> str:
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


# ---------------------------------------------------------------- words for the facts


def _die_label(die: int | str, score: int | str, square: int | str) -> str:
    """A die named by its facts: the owner's letter, the score and the square: "B3 on c4"."""
    where = bb.square_name(int(square)) if square != OFF else "off the board"
    return f"{seat_letter(int(die) // DICE_PER_SEAT)}{score} on {where}"


def events_texts(state: BoardTagState, name: Namer = plain_namer) -> list[str]:
    """What the last input did, one phrase per fact, seats named by ``name``.

    A gain names the die it is about: the one the step or stay before it moved.
    """
    out = []
    owner, square = -1, -1
    for fact in state.events:
        code = str(fact[0])
        if code in ("step", "stays"):
            owner = int(fact[1]) // DICE_PER_SEAT
            square = int(fact[5] if code == "step" else fact[3])
        if code in ("gains-near-it", "gains-staying") and owner >= 0:
            why = _EVENT_TEXTS[code]
            out.append(f"{name(owner)}'s die on {bb.square_name(square)} gains a point: {why}")
        else:
            out.append(event_text(fact, name))
    return out


def events_hit(state: BoardTagState) -> list[tuple[int, ...]]:
    """The seats each fact happens to: the player whose die is tagged (now IT), the first IT."""
    out: list[tuple[int, ...]] = []
    for fact in state.events:
        if fact[0] == "tags":
            out.append((int(fact[3]),))
        elif fact[0] == "it":
            out.append((int(fact[1]),))
        else:
            out.append(())
    return out


def event_text(fact: Fact, name: Namer = plain_namer) -> str:
    code, args = fact[0], fact[1:]
    if code in ("places", "returns"):
        seat, square = args
        what = " places a Runner on" if code == "places" else "'s old IT die returns on"
        return f"{name(int(seat))}{what} {bb.square_name(int(square))}"
    if code == "picks":
        return f"{name(int(args[0]))} picks {_die_label(*args[1:])}"
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
        return f"IT jumps {kind} to point {bb.point_name(int(to))} ({how})"
    if code == "turns":
        facing, cost = args
        return f"IT turns to face {facing} ({'free' if cost == 0 else 'pays 1'})"
    if code == "tags":
        old_seat, square, new_seat = args
        tagged = bb.square_name(int(square))
        return f"{name(int(old_seat))} tags {tagged}: {name(int(new_seat))} is IT"
    if code == "it":
        return f"{name(int(args[0]))} is IT"
    if code in ("gains-near-it", "gains-staying"):  # no step or stay before it to name the die
        return f"a die gains a point: {_EVENT_TEXTS[str(code)]}"
    return _EVENT_TEXTS[str(code)].format(*args)


_EVENT_TEXTS = {
    "faces": "IT faces {0}",
    "ends": "IT ends its phase",
    "gains-near-it": "it entered a square next to IT",
    "gains-staying": "it stayed",
}


def typed_hint(state: BoardTagState, seat: int, action: Action) -> str | None:
    """The answer to a ``pick`` once a die is picked: the rules pick the mover's last
    unmoved die themselves (nothing to choose), or the player picked one already."""
    if action.verb != "pick" or state.phase != RUN or seat != state.mover:
        return None
    active = state.active_die
    if active == OFF or state.dice[active].owner != seat:
        return None
    where = bb.square_name(state.dice[active].square)
    todo = "step <dir>, stay or done"
    if bb.unmoved(state.dice, state.finished, seat) == (active,):
        return f"no pick needed: the die on {where} is your last to move, picked for you; {todo}"
    return f"the die on {where} is picked already; {todo}"


def purpose_text(purpose: str) -> str:
    """A boardtag chance purpose (a fact code) in words."""
    return "who starts as IT" if purpose == "first-it" else purpose


def roll_text(
    purpose: str, values: Sequence[Sequence[int]], name: Namer = plain_namer
) -> str | None:
    """The who-starts-as-IT roll draws a seat: named, not its number."""
    if purpose == "first-it" and len(values) == 1 and len(values[0]) == 1:
        return name(values[0][0])
    return None
