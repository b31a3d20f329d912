"""The two boards drawn in more than one cell width: Board Tag and Tag 'em.

Each painter takes a ``zoom``: 0 draws the roomy cells; each higher level is narrower, so a
big map (Tag 'em's Crescent, 35 tiles) or Board Tag at 60 columns still fits its pane or
needs less scrolling.  :data:`ZOOMS` says how many levels an engine has; the screen picks
the widest that fits (lanTag/ui/board_pane.py).  Every level keeps the labels and the
marks that tell pieces apart; what a narrower level gives up is said in its legend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.games.boardtag import board as bb
from lanTag.games.tagem.pieces import LETTERS as TAGEM_LETTERS
from lanTag.ui.painted import Painted, plain, seat_legend, seat_tag
from lanTag.ui.style import seat_class

_TERRAIN = {".": "free", "%": "cover", "~": "wade", "^": "garrison", "#": "block"}

# Cell widths per zoom level (characters per square or tile, its separator included).
BOARDTAG_SQUARES = (4, 3)  # "+---" / "+--"
TAGEM_CELLS = (4, 3, 2)  # "A0% " / "A0%" / "A0"
ZOOMS = {"boardtag": len(BOARDTAG_SQUARES), "tagem": len(TAGEM_CELLS)}


# --------------------------------------------------------------------------- board tag


def boardtag(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    """Squares between grid lines; IT stands on a crossing point of the lines.

    The files a-h and ranks 1-8 label the squares (where the dice stand); the lines are
    numbered 0-8 along the top and the right, so IT's point reads (x,y) as the
    messages say it ("IT jumps ffl to point (2,1)").  Zoom 1 draws squares two wide.
    """
    step = BOARDTAG_SQUARES[min(zoom, len(BOARDTAG_SQUARES) - 1)]
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


# --------------------------------------------------------------------------- tag 'em


def _tagem_pawn(text: str) -> tuple[int, int, bool] | None:
    """(seat, pawn, carries a flag) of a cell text like "B3" or "b3" (carrying), else None."""
    head, tail = text[:1], text[1:]
    if not tail.isdigit() or not head or head.upper() not in TAGEM_LETTERS:
        return None
    return TAGEM_LETTERS.index(head.upper()), int(tail), head.islower()


def _tagem_header(width: int, cell: int) -> str:
    """Column numbers from 1 over each cell's first two characters; two-character cells
    number every other column (1, 3, 5, ...) so the numbers never run together."""
    if cell >= 3:
        return "    " + "".join(f"{c + 1:>2}".ljust(cell) for c in range(width))
    return "    " + "".join(f"{c + 1:>2}" if c % 2 == 0 else "  " for c in range(width))


def tagem(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    """Cells labelled (column,row) from 1 as the messages name them.  Zoom 0: cells three
    characters wide and one apart; a pawn keeps its tile visible (its third character is
    the tile's glyph, blank on a path, and in colour the tile's background); ``[A]`` is A's
    start.  Zoom 1: the same cells with no gap.  Zoom 2: two characters a cell, a pawn's
    tile only by its background colour (underlined without colour), a start ``[A``."""
    cell = TAGEM_CELLS[min(zoom, len(TAGEM_CELLS) - 1)]
    glyphs = min(cell, 3)  # characters of the cell itself (the rest is the gap)
    width = v["width"]
    starts = {(r, c): seat for seat, (r, c) in enumerate(v["starts"])}
    out = Painted(head_rows=1, head_cols=4)
    out.rows.append(plain(_tagem_header(width, cell).rstrip(), "class:label"))
    for r, cells in enumerate(v["cells"]):
        line: StyleAndTextTuples = [("class:label", f"{r + 1:>3} ")]
        for c, text in enumerate(cells):
            glyph = v["terrain"][r][c]
            tile = _TERRAIN.get(glyph)
            pawn = _tagem_pawn(text.strip())
            if pawn is not None:
                seat, piece, carrying = pawn
                out.spot(seat, piece, line)
                under = "" if glyph == "." else f" class:under.{tile}" if tile else ""
                style = seat_class(seat) + under + (" class:flag reverse" if carrying else "")
                line.append((style, f"{text.strip()}{glyph if glyph != '.' else ' '}"[:glyphs]))
            elif text.startswith("*"):
                owner = TAGEM_LETTERS.lower().find(text[1:].strip()) if text[1:].strip() else -1
                style = "class:flag" + (f" {seat_class(owner)}" if owner >= 0 else "")
                flag = f"*{text[1:].strip()} " if owner >= 0 else " * "
                line.append((style, flag[:glyphs] if glyphs == 3 or owner >= 0 else " *"))
            elif (r, c) in starts:
                mark = f"[{TAGEM_LETTERS[starts[r, c]]}]"[:glyphs]
                line.append((f"{seat_class(starts[r, c])} class:start", mark))
            elif glyph == " ":
                line.append(("", " " * glyphs))
            else:
                shown = f" {glyph} "[:glyphs] if glyphs == 3 else f" {glyph}"
                line.append((f"class:{tile}" if tile else "", shown))
            if c < width - 1 and cell > glyphs:
                line.append(("", " "))
        out.rows.append(line)
    limit = f" of {v['max_turns']}" if v["max_turns"] else ""
    head = f"{v['map']}, {v['mode_name']}, round {v['round']}{limit}"
    if v["to_act"] is not None:
        who = seat_tag("tagem", v["to_act"])
        head += f" | {who} to act, {v['pom_left']} of {v['pom']} PoM left"
    out.info.append(plain(head))
    tags = " ".join(f"{seat_tag('tagem', s)}:{n}" for s, n in enumerate(v["tags"]))
    out.info.append(plain(f"tags {tags}"))
    if v["pending_attack"]:
        a = v["pending_attack"]
        out.info.append(plain(f"attack: {a['attacker']} on {a['defender']}", "class:warn"))
    if v["attacks"]:
        # The modifiers each legal attack would roll with, in the view's words.
        out.side_header = "attacks you can make"
        out.side = [plain(attack["line"]) for attack in v["attacks"]]
    out.legend.append(seat_legend("tagem", names))
    out.legend.append(
        [
            ("", "A0 pawn 0 of A  "),
            ("class:flag", "*"),
            ("", " flag  "),
            ("class:cover", "%"),
            ("", " cover "),
            ("class:wade", "~"),
            ("", " wade "),
            ("class:garrison", "^"),
            ("", " garrison "),
            ("class:block", "#"),
            ("", " block "),
            ("class:start", "[A]"),
            ("", " A's start  "),
            (
                "",
                "A0% pawn on cover  a0 carries a flag  cells (column,row)"
                if cell > 2
                else "A0 on % ~ ^: coloured (underlined)  a0 carries a flag  cells (column,row)",
            ),
        ]
    )
    return out.finish(v)
