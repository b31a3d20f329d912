"""Colours and text attributes shared by every screen.

Everything a colour says is also said by the text itself or by an attribute
(bold, reverse, underline), so ``NO_COLOR`` or ``color=False`` loses nothing:
player pieces carry their seat number or letter, IT and the victim are marked
with ``*``, ``@`` or ``V`` and drawn reversed.
"""

from __future__ import annotations

import os

from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

# Eight distinguishable ANSI colours; seats beyond eight reuse them (their numbers still differ).
SEAT_COLOURS = (
    "ansired",
    "ansiblue",
    "ansigreen",
    "ansimagenta",
    "ansicyan",
    "ansiyellow",
    "ansibrightred",
    "ansibrightblue",
)

_COLOURED: dict[str, str] = {
    "title": "reverse bold",
    "header": "bold underline",
    "dim": "ansibrightblack",
    "hint": "ansibrightblack",
    "error": "ansired bold",
    "ok": "ansigreen",
    "warn": "ansiyellow bold",
    "you": "bold",
    "it": "reverse bold",
    "immune": "underline",
    "path": "ansibrightblack",
    "free": "ansibrightblack",
    "safehouse": "bg:ansiwhite ansiblack bold",
    "base": "ansiyellow bold",
    "base.touched": "ansigreen",
    "front": "underline",
    "moved": "ansibrightblack",
    "active": "bold underline",
    "cover": "ansigreen",
    "wade": "ansicyan",
    "garrison": "ansiyellow bold",
    "block": "reverse",
    "flag": "ansiyellow bold",
    "start": "underline",
    "grid": "ansibrightblack",
    # The tile under a pawn, as a background (its glyph is drawn beside the pawn too).
    "under.cover": "bg:ansigreen",
    "under.wade": "bg:ansicyan",
    "under.garrison": "bg:ansiyellow",
    "label": "ansibrightblack",
    "log.step": "",
    "log.roll": "ansiyellow",
    "log.chat": "ansicyan",
    "log.blame": "ansired bold",
    "log.net": "ansimagenta",
    "selected": "reverse",
    "prompt": "bold",
    "prompt.board": "ansibrightblack",
    "overlay": "bg:ansiblack ansiwhite",
    "frame.label": "bold",
}

# Without colour only attributes remain; the styles that were colour-only become plain.
_PLAIN: dict[str, str] = {
    key: " ".join(w for w in value.split() if w in ("bold", "underline", "reverse", "italic"))
    for key, value in _COLOURED.items()
}
_PLAIN["safehouse"] = "reverse"
# Compact Tag 'em cells drop the tile glyph beside a pawn: without colour, underline it.
for _tile in ("cover", "wade", "garrison"):
    _PLAIN[f"under.{_tile}"] = "underline"
_PLAIN["overlay"] = ""


def colour_enabled(color: bool) -> bool:
    """lanTag's one NO_COLOR rule: False when the caller (``color``) or NO_COLOR says so.

    no-color.org: colour is off when NO_COLOR is present and not an empty string.  Every
    screen applies it to its ``color`` argument; the CLI passes whether stdout is a terminal.
    """
    return color and not os.environ.get("NO_COLOR")


def seat_class(seat: int) -> str:
    return f"class:seat{seat % len(SEAT_COLOURS)}"


def make_style(color: bool) -> Style:
    rules = dict(_COLOURED if color else _PLAIN)
    for i, colour in enumerate(SEAT_COLOURS):
        rules[f"seat{i}"] = f"{colour} bold" if color else "bold"
    return Style.from_dict(rules)


def color_depth(color: bool) -> ColorDepth | None:
    """Monochrome when colour is off; otherwise let the output pick (None)."""
    return None if color else ColorDepth.DEPTH_1_BIT
