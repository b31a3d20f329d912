"""Coloured boards, status lines and legends, drawn from each game's ``view()`` dict.

Each game draws its own board in its package's paint module (``GameEntry.paint``:
lanTag/games/<id>/paint.py); this module finds it by engine id.  A paint module has
``paint(view, names, zoom) -> Painted``, ``ZOOMS`` (how many cell widths it draws in, zoom
0 the widest), ``badge(view, seat)`` (a seat's score and role for the players panel) and
``BADGE_KEY`` (those badges in words).  Painters read only the view (the engines' public
presentation contract) and keep the engines' own text layout, so the screen matches
``render()`` and the rule texts.  Every distinction is carried by a glyph as well as a
colour.  A game without a painter gets its plain ``render()`` text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from lanTag.rules.registry import find_entry
from lanTag.ui.painted import Painted, plain, seat_tag

__all__ = ["Painted", "badge", "badge_key", "paint", "seat_tag", "zooms"]


def painter(engine: str) -> ModuleType | None:
    """The paint module of ``engine``'s package, None for a game without one."""
    entry = find_entry(engine)
    return entry.module(entry.paint) if entry is not None else None


def zooms(engine: str) -> int:
    """How many cell widths ``engine``'s board is drawn in (1: one, the only)."""
    module = painter(engine)
    return int(module.ZOOMS) if module is not None else 1


def paint(
    engine: str,
    view: dict[str, Any],
    names: Sequence[str],
    render: Callable[[], str],
    zoom: int = 0,
) -> Painted:
    """The coloured board of ``engine`` at ``zoom`` (0: its widest cells; see :func:`zooms`);
    games without a painter get their plain ``render()`` text."""
    module = painter(engine)
    if module is None:
        return Painted(rows=[plain(line) for line in render().splitlines()])
    painted: Painted = module.paint(view, names, zoom)
    # What the players panel's badges mean, after the seats' names.
    painted.legend.insert(1, plain(badge_key(engine)))
    return painted


# --------------------------------------------------------------------------- side panel


def badge_key(engine: str) -> str:
    """The players panel's badges (see :func:`badge`) in words: a legend line ("" for a
    game without a painter)."""
    module = painter(engine)
    return str(module.BADGE_KEY) if module is not None else ""


def badge(engine: str, view: dict[str, Any], seat: int) -> str:
    """A seat's score and role in a few characters, for the players list: the game's
    painter says; a game without one shows the view's ``scores``, if it has them."""
    module = painter(engine)
    if module is not None:
        return str(module.badge(view, seat))
    scores = view.get("scores")
    return str(scores[seat]) if isinstance(scores, list) and seat < len(scores) else ""
