"""How a view's words name a seat: a *namer* passed to each view's wording table.

The plain-text board and the view dict say ``seat 2``; the console passes its own namer
("seat 2 bot-2", "seat 0 (you)", lanTag.ui.feed.seat_namer) to the same table, so each
game's events are worded in one place (its ``lanTag/games/<id>/view.py``) for every screen.
"""

from __future__ import annotations

from collections.abc import Callable

Namer = Callable[[int], str]  # seat -> how a sentence names it


def plain_namer(seat: int) -> str:
    """``seat 2``: the words of the plain-text board, the view dict and the logs."""
    return f"seat {seat}"
