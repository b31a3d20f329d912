"""Choices a cheating peer makes: an action the rules forbid, the answer that beats a
revealed one.  Test code only (tests.support.adversary uses them)."""

from __future__ import annotations

from lanTag.rules.base import Action, IllegalAction
from lanTag.session.lockstep import Session

__all__ = ["beats", "illegal_for"]

# rock-paper-scissors (prototag battles): what beats each choice
_BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}


def beats(action: Action) -> Action | None:
    """The rock-paper-scissors choice that beats ``action``, None for any other action."""
    if action.verb == "rps" and len(action.args) == 1 and action.args[0] in _BEATS:
        return Action("rps", (_BEATS[str(action.args[0])],))
    return None


def illegal_for(s: Session, seat: int) -> Action | None:
    """A well-formed action the rules forbid for ``seat`` now."""
    offered = list(s.state.legal_actions(seat))  # in the engine's order: a seeded run repeats
    legal = set(offered)
    candidates = [Action(a.verb, (*a.args, 99)) for a in offered]
    candidates += [Action("resign"), Action("step", ("up",)), Action("pass", (12345,))]
    for action in candidates:
        if action in legal:
            continue
        try:
            s.state.check_action(seat, action)
        except IllegalAction:
            return action
    return None
