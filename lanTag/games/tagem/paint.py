"""Tag 'em on the console: the map's cells, pawns, flags and starts, in three cell widths.

Drawn from the view dict alone (lanTag/games/tagem/view.py).  Zoom 0 draws the roomy
cells; each higher level is narrower, so a big map (the Crescent, 35 tiles) still fits
its pane or needs less scrolling (:data:`ZOOMS` levels; the screen picks the widest that
fits, lanTag/ui/board_pane.py).  Every level keeps the labels and the marks that tell
pieces apart; what a narrower level gives up is said in its legend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.games.tagem.pieces import LETTERS
from lanTag.ui.painted import Painted, plain, seat_legend, seat_tag
from lanTag.ui.style import seat_class

_TERRAIN = {".": "free", "%": "cover", "~": "wade", "^": "garrison", "#": "block"}

# Cell widths per zoom level (characters per tile, its separator included).
CELLS = (4, 3, 2)  # "A0% " / "A0%" / "A0"
ZOOMS = len(CELLS)
# What the players panel's badges (see badge()) mean, a legend line.
BADGE_KEY = "players: 2t defeated, 5p pawns left"


def badge(view: dict[str, Any], seat: int) -> str:
    """A seat's tags and the pawns it has left."""
    pawns = sum(1 for p in view["pawns"] if p["seat"] == seat)
    return f"{view['tags'][seat]}t {pawns}p"


def _tagem_pawn(text: str) -> tuple[int, int, bool] | None:
    """(seat, pawn, carries a flag) of a cell text like "B3" or "b3" (carrying), else None."""
    head, tail = text[:1], text[1:]
    if not tail.isdigit() or not head or head.upper() not in LETTERS:
        return None
    return LETTERS.index(head.upper()), int(tail), head.islower()


def _tagem_header(width: int, cell: int) -> str:
    """Column numbers from 1 over each cell's first two characters; two-character cells
    number every other column (1, 3, 5, ...) so the numbers never run together."""
    if cell >= 3:
        return "    " + "".join(f"{c + 1:>2}".ljust(cell) for c in range(width))
    return "    " + "".join(f"{c + 1:>2}" if c % 2 == 0 else "  " for c in range(width))


def paint(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    """Cells labelled (column,row) from 1 as the messages name them.  Zoom 0: cells three
    characters wide and one apart; a pawn keeps its tile visible (its third character is
    the tile's glyph, blank on a path, and in colour the tile's background); ``[A]`` is A's
    start.  Zoom 1: the same cells with no gap.  Zoom 2: two characters a cell, a pawn's
    tile only by its background colour (underlined without colour), a start ``[A``."""
    cell = CELLS[min(zoom, len(CELLS) - 1)]
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
                owner = LETTERS.lower().find(text[1:].strip()) if text[1:].strip() else -1
                style = "class:flag" + (f" {seat_class(owner)}" if owner >= 0 else "")
                flag = f"*{text[1:].strip()} " if owner >= 0 else " * "
                line.append((style, flag[:glyphs] if glyphs == 3 or owner >= 0 else " *"))
            elif (r, c) in starts:
                mark = f"[{LETTERS[starts[r, c]]}]"[:glyphs]
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
