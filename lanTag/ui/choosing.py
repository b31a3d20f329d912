"""Secret choices on the game screen: one letter for an option, and the "secret" line.

A secret choice whose options end in words of different first letters (Prototag's
``rps rock``, ``rps paper``, ``rps scissors``) takes that letter alone: ``p`` then Enter
seals paper.  The side panel's secret line shows the choice being sealed now (who
chooses, whether ours is sealed) and, once it is revealed, what was chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lanTag.rules.base import Simultaneous
from lanTag.ui.outcomes import SECRET_NAMES

if TYPE_CHECKING:
    from lanTag.ui.model import GameModel


def letter_choices(model: GameModel) -> dict[str, str]:
    """Each letter and the action it stands for, while we make such a secret choice;
    empty otherwise (two options share a first letter, or no secret choice of ours)."""
    s = model.session
    if s is None or model.seat is None or s.my_turn() != "secret":
        return {}
    letters: dict[str, str] = {}
    for action in model.legal():
        text = model.action_text(action)
        letter = text.rsplit(" ", 1)[-1][:1].lower()
        if not letter.isalpha() or letter in letters:
            return {}
        letters[letter] = text
    return letters


def letters_hint(model: GameModel) -> str:
    """The message line's hint for such a choice: "secret rock-paper-scissors: r rock ·
    p paper · s scissors, then Enter seals it"; empty when letters do not apply."""
    letters = letter_choices(model)
    s = model.session
    if not letters or s is None:
        return ""
    d = s.state.decision()
    kind = SECRET_NAMES.get(d.kind, d.kind) if isinstance(d, Simultaneous) else ""
    keys = " · ".join(f"{k} {text.rsplit(' ', 1)[-1]}" for k, text in letters.items())
    return f"secret {kind}: {keys}, then Enter seals it"


def secret_pending(model: GameModel) -> bool:
    """A secret choice is being sealed now (its line then leads the turn panel)."""
    s = model.session
    return s is not None and isinstance(s.state.decision(), Simultaneous)


def secret_text(model: GameModel) -> str:
    """The secret line: the choice being sealed now, else the last one revealed; empty
    before any."""
    s = model.session
    if s is not None and model.seat is not None:
        d = s.state.decision()
        if isinstance(d, Simultaneous):
            names = model.names()

            def who(seat: int) -> str:
                return "you" if seat == model.seat else f"seat {seat} {names[seat]}"

            seats = d.seats
            choosers = (
                f"{who(seats[0])} vs {who(seats[1])}"
                if len(seats) == 2
                else "seats " + " ".join(map(str, seats))
            )
            sealed = model.committed is not None and model.committed[0] == s.step
            mine = " (yours sealed)" if sealed else ""
            return f"{SECRET_NAMES.get(d.kind, d.kind)} now: {choosers}{mine}"
    return model.last_secret.text() if model.last_secret is not None else ""
