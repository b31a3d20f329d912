"""Board Tag on the console: squares between grid lines, IT on a crossing point of the lines.

Drawn from the view dict alone (lanTag/games/boardtag/view.py), in two cell widths
(:data:`ZOOMS`; the screen picks the widest that fits, lanTag/ui/board_pane.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.games.boardtag import board as bb
from lanTag.ui.painted import Painted, plain, seat_legend, seat_tag
from lanTag.ui.style import seat_class

# Cell widths per zoom level (characters per square, its separator included).
SQUARES = (4, 3)  # "+---" / "+--"
ZOOMS = len(SQUARES)
# What the players panel's badges (see badge()) mean, a legend line.
BADGE_KEY = "players: 9pip on 3 dice, IT plays IT"


def badge(view: dict[str, Any], seat: int) -> str:
    """A seat's pips, and IT."""
    it = view["it"]
    return ("IT " if it and it["seat"] == seat else "") + f"{view['totals'][seat]}pip"


def paint(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    """Squares between grid lines; IT stands on a crossing point of the lines.

    The files a-h and ranks 1-8 label the squares (where the dice stand); the lines are
    numbered 0-8 along the top and the right, so IT's point reads (x,y) as the
    messages say it ("IT jumps ffl to point (2,1)").  Zoom 1 draws squares two wide.
    """
    step = SQUARES[min(zoom, len(SQUARES) - 1)]
    inner = step - 1  # characters inside a square
    it = v["it"]
    it_point = it["point"][0] + bb.LATTICE * it["point"][1] if it else -1
    front = set(it["front"]) if it else set()
    moved = {d["die"] for d in v["dice"] if d["moved"]}
    out = Painted(head_rows=1, head_cols=3)
    # The piece that acts now: the die being moved, else IT in its phase (or facing).
    active = v["active_die"]
    if active is not None:
        out.primary = (v["dice"][active]["seat"], 1 + active % 3)
    elif it is not None and v["phase"] in ("it", "face"):
        out.primary = (it["seat"], 0)
    # One label row: the lines' numbers 0-8 over the crossing points, the files between.
    labels = "".join(f"{x}{bb.FILES[x]:^{inner}}" for x in range(bb.SIZE)) + str(bb.SIZE)
    out.rows.append(plain("   " + labels, "class:label"))
    for y in range(bb.LATTICE - 1, -1, -1):
        line: StyleAndTextTuples = [("", "   ")]
        for x in range(bb.LATTICE):
            if x + bb.LATTICE * y == it_point and it is not None:
                out.spot(it["seat"], 0, line)  # IT is piece 0 of its player
                line.append((f"{seat_class(it['seat'])} class:it", bb.ARROWS[it["facing"]]))
            else:
                line.append(("class:grid", "+"))
            if x < bb.LATTICE - 1:
                line.append(("class:grid", "-" * inner))
        line.append(("class:label", f" {y}"))
        out.rows.append(line)
        if y == 0:
            break
        line = [("class:label", f"{y:>2} ")]
        for col in range(bb.SIZE):
            die = v["board"][y - 1][col]
            name = bb.square_name(col + bb.SIZE * (y - 1))
            style = "class:front" if name in front else ""
            line.append(("class:grid", "|"))
            if die is None:
                line.append((style, " " * inner))
                continue
            # A player's dice are its pieces 1-3 (IT is piece 0).
            out.spot(die["seat"], 1 + die["die"] % 3, line, inner - 2)
            style = f"{seat_class(die['seat'])} {style}"
            if die["die"] in moved:
                style += " class:moved"
            if die["die"] == v["active_die"]:
                style += " class:active"
            glyph = f"{seat_tag('boardtag', die['seat'])}{die['score']}"
            line.append((style.strip(), glyph.rjust(inner)))
        line.append(("class:grid", "|"))
        out.rows.append(line)
    limit = f"/{v['max_rounds']}" if v["max_rounds"] else ""
    head = f"round {v['round']}{limit} | phase {v['phase']}"
    if it is not None:
        x, y = it["point"]
        head += f" | IT: seat {it['seat']} at point ({x},{y}) facing {it['facing']}"
        head += f", IT die {it['score']}"
    out.info.append(plain(head))
    # Each seat's dice (their totals are the players panel's "pip" badges).
    dice: StyleAndTextTuples = [("", "dice:")]
    for seat in range(v["seats"]):
        own = [d for d in v["dice"] if d["seat"] == seat]
        shown = " ".join(f"[{d['score']}]" if d["is_it_die"] else str(d["score"]) for d in own)
        dice += [("", "  " if seat else " "), (seat_class(seat), seat_tag("boardtag", seat))]
        dice.append(("", f" {shown}"))
    out.info.append(dice)
    out.legend.append(seat_legend("boardtag", names))
    out.legend.append(
        [
            ("", "A3 A's die showing 3  "),
            ("class:it", "^>v<"),
            ("", " IT on a crossing point (x,y), facing n/e/s/w  "),
            ("class:front", "__"),
            ("", " in front of IT  "),
            ("class:moved", "dim"),
            ("", " moved  [n] IT die"),
        ]
    )
    return out.finish(v)
