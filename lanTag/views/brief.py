"""A position in one line (issue #38 item 6: see before you sit): whose turn it is, the
game's own headline (its text board's first line: tags, scores, steps), and the digest by
which `lantag verify` and the game name it."""

from __future__ import annotations

import hashlib

from lanTag.rules import awaited
from lanTag.rules.base import Over, State
from lanTag.rules.registry import get_game
from lanTag.views.registry import game_view

BRIEF_CHARS = 120  # the note an advert carries (its TXT string stays well under 255 bytes)


def waits_for(state: State) -> str:
    """What the position waits for, in words (from ``state.awaited()``)."""
    wait = state.awaited()
    seats = ", ".join(map(str, wait.seats))
    plural = "s" if len(wait.seats) > 1 else ""
    turn = "; a new turn" if wait.turn_starts and wait.turn_of >= 0 else ""
    if wait.kind == awaited.MOVE:
        choice = "" if wait.choice == awaited.MOVE else f" ({wait.choice})"
        return f"seat {seats} to move{choice}{turn}"
    if wait.kind == awaited.SECRET:
        return f"seat{plural} {seats} to choose in secret ({wait.choice})"
    if wait.kind == awaited.ROLL:
        whose = f" for seat{plural} {seats}" if wait.seats else ""
        again = ", again" if wait.reroll else ""
        words = game_view(state.game.id).purpose_text(wait.choice)
        return f"a roll{whose} ({words}{again}){turn}"
    decision = state.decision()
    assert isinstance(decision, Over)
    return f"the game is over: {decision.outcome.summary}"


def position_digest(start_position: bytes) -> str:
    """SHA-256 (hex) of a start position's canonical bytes (as ``lantag verify`` shows it)."""
    return hashlib.sha256(start_position).hexdigest()


def position_note(engine: str, start_position: bytes) -> str:
    """Whose turn and the headline of ``start_position`` (a state of ``engine``), one line of
    at most BRIEF_CHARS; "" when the bytes are no position of that engine."""
    try:
        state = get_game(engine).decode_state(start_position)
    except (ValueError, KeyError, TypeError, IndexError):
        return ""
    headline = game_view(engine).render(state).splitlines()[:1]
    text = "; ".join([waits_for(state), *(line.strip() for line in headline)])
    return "".join(c for c in text if c.isprintable())[:BRIEF_CHARS]


def position_line(engine: str, start_position: bytes) -> str:
    """``from position <16 digits>: <note>`` (what the lobby, the list and a joiner show)."""
    note = position_note(engine, start_position)
    digest = position_digest(start_position)[:16]
    return f"from position {digest}: {note}" if note else f"from position {digest}"
