"""Prototag on the console: the board, the tagged player, the immune one, the path walked.

Drawn from the view dict alone (lanTag/games/prototag/view.py), in one cell width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.ui.painted import Painted, plain, seat_legend
from lanTag.ui.style import seat_class

ZOOMS = 1
# What the players panel's badges (see badge()) mean, a legend line.
BADGE_KEY = "players: TAGGED is it, immune = not taggable yet"


def badge(view: dict[str, Any], seat: int) -> str:
    """The tagged seat, the immune one."""
    if view["tagged"] == seat:
        return "TAGGED"
    return "immune" if view["immune"] == seat else ""


def paint(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    del zoom  # one cell width
    size, tagged, immune = v["board_size"], v["tagged"], v["immune"]
    at: dict[tuple[int, int], list[int]] = {}
    for p in v["pieces"]:
        at.setdefault((p["row"], p["col"]), []).append(p["seat"])
    path = {(t[0], t[1]) for t in v["path"]}
    out = Painted(head_rows=1, head_cols=3)
    out.rows.append(plain("   " + "".join(f" {chr(97 + c)} " for c in range(size)), "class:label"))
    for r in range(size):
        row: StyleAndTextTuples = [("class:label", f"{r + 1:>2} ")]
        for c in range(size):
            here = at.get((r, c), [])
            if tagged in here:
                others = [s for s in here if s != tagged]
                out.spot(tagged, 0, row, 0)  # drawn "*N", then the first other piece
                if others:
                    out.spot(others[0], 0, row, 2)
            elif here:
                out.spot(here[0], 0, row, 1)
            if tagged in here:
                others = [s for s in here if s != tagged]
                row.append((f"{seat_class(tagged)} class:it", f"*{tagged}"))
                row.append((seat_class(others[0]), str(others[0])) if others else ("", " "))
            elif here:
                style = seat_class(here[0]) + (" class:immune" if here[0] == immune else "")
                row.append(("", " "))
                row.append((style, str(here[0])))
                row.append(("", " "))
            elif (r, c) in path:
                row.append(("class:path", " + "))
            else:
                row.append(("class:free", " . "))
        out.rows.append(row)
    out.info.append(plain(v["status"]))
    line = f"tagged steps {v['tagged_steps']}/{v['end_steps']}"
    if immune >= 0:
        line += f" | immune: seat {immune} ({v['immunity_left']} step(s))"
    out.info.append(plain(line))
    if v["battle"]:
        b = v["battle"]
        out.info.append(plain(f"battle: seat {b['tagged']} vs seat {b['opponent']}", "class:warn"))
    out.legend.append(seat_legend("prototag", names))
    out.legend.append(
        [
            ("class:it", "*N"),
            ("", " tagged  "),
            ("class:immune", "N"),
            ("", " immune  "),
            ("class:path", "+"),
            ("", " visited this turn  "),
            ("class:free", "."),
            ("", " free"),
        ]
    )
    return out.finish(v)
