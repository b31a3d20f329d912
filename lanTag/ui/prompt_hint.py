"""The game screen's message line when nothing else is said: what the player can do now
(the one input rule on our turn, the keys of game over, why we only watch)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanTag.peer.resume import watch_reason
from lanTag.session.referee import NeedKind
from lanTag.ui import turn_clock
from lanTag.ui.choosing import letters_hint

if TYPE_CHECKING:
    from lanTag.ui.model import GameModel

# The one input rule, said the same way on the message line and in the F1 help.
INPUT_RULE = "letters type · arrows move · Tab cycles · Enter plays · Esc clears"


def prompt_hint(model: GameModel) -> str:
    """What the player can do now, shown on the message line when nothing else is."""
    s = model.session
    if s is None:
        return "waiting for the game to start"
    if model.is_over():
        if model.show_over:
            return "game over: q or Enter leaves, b hides the result box"
        return "game over: Esc shows the result box (q or Enter there leaves)"
    seat = model.seat
    if seat is None:
        return "watching: F1 or Ctrl-G help, Ctrl-Q leave"
    if model.can_take_back():
        at = model.dropped_at.get(seat)
        return turn_clock.take_back_hint(seat, at, model.idle_dropped, model.turn_limit())
    if model.seat_taken_over():
        # Why we only watch, in one line: the table dropped the seat, and either we wait
        # for a live seat to let us back in (a resume, SPEC §5.6) or it cannot be.
        reason = watch_reason(s)
        if reason is None:
            return (
                "waiting for the table to let you back in… (a bot plays your seat "
                f"{seat} meanwhile); Ctrl-Q leave"
            )
        at = model.dropped_at.get(seat)
        when = f" at step {at}" if at is not None else ""
        return (
            f"watching: a bot plays your seat {seat} since it was dropped{when}"
            f" ({reason}); Ctrl-Q leave"
        )
    mine = s.my_turn()
    if mine == "turn":
        return "your turn: " + INPUT_RULE
    if mine == "secret":
        return letters_hint(model) or "secret: " + INPUT_RULE
    if model.committed is not None and model.committed[0] == s.step:
        others = len(model.waiting_for())
        return f"committed '{model.committed[1]}' — waiting for {others} other(s)"
    if s.needs().kind is NeedKind.ENTROPY:
        return "rolling: every live seat reveals its next chain link"
    return "waiting: " + model.turn_text()
