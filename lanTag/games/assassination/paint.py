"""Assassination on the console: the board, the victim, the assassins, the Safe House, the bases.

Drawn from the view dict alone (lanTag/games/assassination/view.py), in one cell width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.ui.painted import Painted, plain, seat_legend
from lanTag.ui.style import seat_class

ZOOMS = 1
# What the players panel's badges (see badge()) mean, a legend line.
BADGE_KEY = "players: 2c catches, victim runs now"


def badge(view: dict[str, Any], seat: int) -> str:
    """A seat's catches, and the victim."""
    role = "victim " if view["victim"] == seat else ""
    return f"{role}{view['scores'][seat]}c"


def _cell(text: str) -> StyleAndTextTuples:
    if text.startswith("V"):
        return [(f"{seat_class(int(text[1:]))} class:it", text)]
    if text.isdigit():
        return [(seat_class(int(ch)), ch) for ch in text]
    style = {"H": "class:safehouse", "B": "class:base", "b": "class:base.touched"}
    return [(style.get(text, "class:free"), text)]


def paint(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    del zoom  # one cell width
    rows, size = v["cells"], v["board_size"]
    width = max(2, *(len(c) for row in rows for c in row)) + 1
    out = Painted(head_rows=1, head_cols=3)
    letters = "".join(chr(97 + c).ljust(width) for c in range(size))
    out.rows.append(plain("   " + letters, "class:label"))
    for r, cells in enumerate(rows):
        row: StyleAndTextTuples = [("class:label", f"{size - r:>2} ")]
        for text in cells:
            if text.startswith("V") and text[1:].isdigit():
                out.spot(int(text[1:]), 0, row)
            elif text.isdigit():
                for n, ch in enumerate(text):
                    out.spot(int(ch), 0, row, n)
            row += _cell(text)
            row.append(("", " " * (width - len(text))))
        out.rows.append(row)
    limit = f"/{v['max_rounds']}" if v["max_rounds"] else ""
    line = f"round {v['round']}{limit} | phase {v['phase']}"
    if v["victim"] is not None:
        line += f" | victim: seat {v['victim']}"
    if v["roll"] is not None:
        line += f" | roll {v['roll']}"
        if v["steps_left"] is not None:
            line += f", {v['steps_left']} step(s) left"
    out.info.append(plain(line))
    victim = v["victim"]
    if victim is not None:
        touched = ",".join(v["pieces"][victim]["coins"]) or "none"
        bases = " ".join(f"{side}={sq}" for side, sq in v["bases"].items())
        out.info.append(plain(f"bases {bases} | touched by the victim: {touched}"))
    out.legend.append(seat_legend("assassination", names))
    out.legend.append(
        [
            ("class:it", "V<n>"),
            ("", " victim  digits assassins  "),
            ("class:safehouse", "H"),
            ("", " Safe House  "),
            ("class:base", "B"),
            ("", " base  "),
            ("class:base.touched", "b"),
            ("", " base touched"),
        ]
    )
    return out.finish(v)
