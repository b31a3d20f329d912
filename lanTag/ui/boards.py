"""Coloured boards, status lines and legends, drawn from each engine's ``view()`` dict.

Painters read only the view (the engines' public presentation contract) and
keep the engines' own text layout, so the screen matches ``render()`` and the
rule texts.  Every distinction is carried by a glyph as well as a colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.rules import boardtag_board as bb
from lanTag.ui.style import seat_class

TAGEM_LETTERS = "ABCDEFGH"
BOARDTAG_LETTERS = "ABCDEF"
_TERRAIN = {".": "free", "%": "cover", "~": "wade", "^": "garrison", "#": "block"}


@dataclass
class Painted:
    rows: list[StyleAndTextTuples] = field(default_factory=list)
    info: list[StyleAndTextTuples] = field(default_factory=list)
    legend: list[StyleAndTextTuples] = field(default_factory=list)
    # What a player deciding now needs beside the board (Tag 'em's attacks and their
    # modifiers), shown in the side panel under a header, one entry per item.
    side_header: str = ""
    side: list[StyleAndTextTuples] = field(default_factory=list)
    # (seat, piece) -> (row index, column) of the piece's glyph: the pane follows ours.
    spots: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    head_rows: int = 0  # column labels on top, pinned when the board scrolls
    head_cols: int = 0  # row labels on the left, pinned likewise

    @property
    def width(self) -> int:
        return max((_row_width(row) for row in self.rows), default=0)

    def spot(self, seat: int, piece: int, row: StyleAndTextTuples, extra: int = 0) -> None:
        """Record that (seat, piece) is drawn where ``row`` (being built) ends, plus ``extra``."""
        self.spots.setdefault((seat, piece), (len(self.rows), _row_width(row) + extra))


def _row_width(row: StyleAndTextTuples) -> int:
    return sum(len(f[1]) for f in row)


def _plain(text: str, style: str = "") -> StyleAndTextTuples:
    return [(style, text)]


def seat_tag(engine: str, seat: int) -> str:
    """How a seat is named on its board: a letter in Board Tag and Tag 'em, else its number."""
    if engine == "boardtag" and seat < len(BOARDTAG_LETTERS):
        return BOARDTAG_LETTERS[seat]
    if engine == "tagem" and seat < len(TAGEM_LETTERS):
        return TAGEM_LETTERS[seat]
    return str(seat)


def _seat_legend(engine: str, names: Sequence[str]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for seat, name in enumerate(names):
        out.append((seat_class(seat), seat_tag(engine, seat)))
        out.append(("", f" {name}  "))
    return out


def _events_line(v: dict[str, Any], keep: int = 3) -> list[StyleAndTextTuples]:
    """The last input's facts in the view's words (the feed's, with plain seat names)."""
    events = v.get("events") or []
    texts = [e["text"] if isinstance(e, dict) else str(e) for e in events][-keep:]
    return [_plain("last: " + "; ".join(texts), "class:dim")] if texts else []


# --------------------------------------------------------------------------- prototag


def _prototag(v: dict[str, Any], names: Sequence[str]) -> Painted:
    size, tagged, immune = v["board_size"], v["tagged"], v["immune"]
    at: dict[tuple[int, int], list[int]] = {}
    for p in v["pieces"]:
        at.setdefault((p["row"], p["col"]), []).append(p["seat"])
    path = {(t[0], t[1]) for t in v["path"]}
    out = Painted(head_rows=1, head_cols=3)
    out.rows.append(_plain("   " + "".join(f" {chr(97 + c)} " for c in range(size)), "class:label"))
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
    out.info.append(_plain(v["status"]))
    line = f"tagged steps {v['tagged_steps']}/{v['end_steps']}"
    if immune >= 0:
        line += f" | immune: seat {immune} ({v['immunity_left']} step(s))"
    out.info.append(_plain(line))
    if v["battle"]:
        b = v["battle"]
        out.info.append(_plain(f"battle: seat {b['tagged']} vs seat {b['opponent']}", "class:warn"))
    out.info += _events_line(v)
    out.legend.append(_seat_legend("prototag", names))
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
    return out


# --------------------------------------------------------------------------- assassination


def _assassination_cell(text: str) -> StyleAndTextTuples:
    if text.startswith("V"):
        return [(f"{seat_class(int(text[1:]))} class:it", text)]
    if text.isdigit():
        return [(seat_class(int(ch)), ch) for ch in text]
    style = {"H": "class:safehouse", "B": "class:base", "b": "class:base.touched"}
    return [(style.get(text, "class:free"), text)]


def _assassination(v: dict[str, Any], names: Sequence[str]) -> Painted:
    rows, size = v["cells"], v["board_size"]
    width = max(2, *(len(c) for row in rows for c in row)) + 1
    out = Painted(head_rows=1, head_cols=3)
    letters = "".join(chr(97 + c).ljust(width) for c in range(size))
    out.rows.append(_plain("   " + letters, "class:label"))
    for r, cells in enumerate(rows):
        row: StyleAndTextTuples = [("class:label", f"{size - r:>2} ")]
        for text in cells:
            if text.startswith("V") and text[1:].isdigit():
                out.spot(int(text[1:]), 0, row)
            elif text.isdigit():
                for n, ch in enumerate(text):
                    out.spot(int(ch), 0, row, n)
            row += _assassination_cell(text)
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
    out.info.append(_plain(line))
    victim = v["victim"]
    if victim is not None:
        touched = ",".join(v["pieces"][victim]["coins"]) or "none"
        bases = " ".join(f"{side}={sq}" for side, sq in v["bases"].items())
        out.info.append(_plain(f"bases {bases} | touched by the victim: {touched}"))
    out.info += _events_line(v)
    out.legend.append(_seat_legend("assassination", names))
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
    return out


# --------------------------------------------------------------------------- board tag


def _boardtag(v: dict[str, Any], names: Sequence[str]) -> Painted:
    """Squares between grid lines; IT stands on a crossing point of the lines.

    The files a-h and ranks 1-8 label the squares (where the dice stand); the lines are
    numbered 0-8 along the bottom and the right, so IT's point reads (x,y) as the
    messages say it ("IT jumps ffl to point (2,1)").
    """
    it = v["it"]
    it_point = it["point"][0] + bb.LATTICE * it["point"][1] if it else -1
    front = set(it["front"]) if it else set()
    moved = {d["die"] for d in v["dice"] if d["moved"]}
    out = Painted(head_rows=1, head_cols=3)
    # One label row: the lines' numbers 0-8 over the crossing points, the files between.
    labels = "".join(f"{x} {bb.FILES[x]} " for x in range(bb.SIZE)) + str(bb.SIZE)
    out.rows.append(_plain("   " + labels, "class:label"))
    for y in range(bb.LATTICE - 1, -1, -1):
        line: StyleAndTextTuples = [("", "   ")]
        for x in range(bb.LATTICE):
            if x + bb.LATTICE * y == it_point and it is not None:
                line.append((f"{seat_class(it['seat'])} class:it", bb.ARROWS[it["facing"]]))
            else:
                line.append(("class:grid", "+"))
            if x < bb.LATTICE - 1:
                line.append(("class:grid", "---"))
        line.append(("class:label", f" {y}"))
        out.rows.append(line)
        if y == 0:
            break
        row_no = y - 1
        line = [("class:label", f"{row_no + 1:>2} ")]
        for col in range(bb.SIZE):
            die = v["board"][row_no][col]
            name = bb.square_name(col + bb.SIZE * row_no)
            style = "class:front" if name in front else ""
            line.append(("class:grid", "|"))
            if die is None:
                line.append((style, "   "))
                continue
            style = f"{seat_class(die['seat'])} {style}"
            if die["die"] in moved:
                style += " class:moved"
            if die["die"] == v["active_die"]:
                style += " class:active"
            line.append((style.strip(), f" {seat_tag('boardtag', die['seat'])}{die['score']}"))
        line.append(("class:grid", "|"))
        out.rows.append(line)
    limit = f"/{v['max_rounds']}" if v["max_rounds"] else ""
    head = f"round {v['round']}{limit} | phase {v['phase']}"
    if it is not None:
        x, y = it["point"]
        head += f" | IT: seat {it['seat']} at point ({x},{y}) facing {it['facing']}"
        head += f", IT die {it['score']}"
    out.info.append(_plain(head))
    dice: StyleAndTextTuples = [("", "dice:")]
    for seat in range(v["seats"]):
        own = [d for d in v["dice"] if d["seat"] == seat]
        shown = " ".join(f"[{d['score']}]" if d["is_it_die"] else str(d["score"]) for d in own)
        dice += [("", " "), (seat_class(seat), seat_tag("boardtag", seat)), ("", f" {shown} ")]
    dice.append(("", f"| pips {' '.join(str(t) for t in v['totals'])}"))
    out.info.append(dice)
    out.info += _events_line(v)
    out.legend.append(_seat_legend("boardtag", names))
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
    return out


# --------------------------------------------------------------------------- stomptag


def _stomptag(v: dict[str, Any], names: Sequence[str]) -> Painted:
    side, it = v["side"], v["it"]
    seats = len(v["players"])
    width, label = len(str(seats - 1)) + 2, len(str(side))
    out = Painted()
    if any(p["cell"] is not None for p in v["players"]):
        out.head_rows, out.head_cols = 1, label
        header = " " * label + "".join(str(c + 1).rjust(width) for c in range(side))
        out.rows.append(_plain(header, "class:label"))
        for r in range(side):
            line: StyleAndTextTuples = [("class:label", str(r + 1).rjust(label))]
            for c in range(side):
                seat = v["board"][r][c]
                if seat < 0:
                    line.append(("class:free", ".".rjust(width)))
                elif seat == it:
                    text = f"@{seat}"
                    out.spot(seat, 0, line, width - len(text))
                    line += [
                        ("", " " * (width - len(text))),
                        (f"{seat_class(seat)} class:it", text),
                    ]
                else:
                    text = str(seat)
                    out.spot(seat, 0, line, width - len(text))
                    line += [("", " " * (width - len(text))), (seat_class(seat), text)]
            out.rows.append(line)
    else:
        out.rows.append(_plain("(nobody is on the board yet)", "class:dim"))
    limit = f"/{v['max_rounds']}" if v["max_rounds"] else ""
    out.info.append(_plain(f"round {v['round']}{limit} | phase {v['phase']} | {side}x{side}"))
    if v["to_act"]:
        out.info.append(_plain("secret choices from seats " + " ".join(map(str, v["to_act"]))))
    if v["queue"]:
        out.info.append(_plain("itness queue: " + " ".join(map(str, v["queue"]))))
    if v["teleport_open"]:
        out.info.append(_plain("teleports open to all (someone was tagged)", "class:warn"))
    if v["last_orders"]:
        orders = "; ".join(f"seat {s} {o}" for s, o in v["last_orders"])
        out.info.append(_plain("orders: " + orders, "class:dim"))
    out.info += _events_line(v)
    out.legend.append(_seat_legend("stomptag", names))
    out.legend.append(
        [
            ("", "N seat N  "),
            ("class:it", "@N"),
            ("", " the it  "),
            ("class:free", "."),
            ("", " empty  north is up, cells (col,row)"),
        ]
    )
    return out


# --------------------------------------------------------------------------- tag 'em


def _tagem_pawn(text: str) -> tuple[int, int, bool] | None:
    """(seat, pawn, carries a flag) of a cell text like "B3" or "b3" (carrying), else None."""
    head, tail = text[:1], text[1:]
    if not tail.isdigit() or not head or head.upper() not in TAGEM_LETTERS:
        return None
    return TAGEM_LETTERS.index(head.upper()), int(tail), head.islower()


def _tagem(v: dict[str, Any], names: Sequence[str]) -> Painted:
    """Cells three characters wide and one apart, labelled (column,row) from 1 as the
    messages name them.  A pawn keeps its tile visible: its third character is the tile's
    glyph (blank on a path) and, in colour, the tile's background; ``[A]`` is A's start."""
    width = v["width"]
    starts = {(r, c): seat for seat, (r, c) in enumerate(v["starts"])}
    out = Painted(head_rows=1, head_cols=4)
    header = "    " + "".join(f"{c + 1:>2}  " for c in range(width))
    out.rows.append(_plain(header.rstrip(), "class:label"))
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
                line.append((style, f"{text.strip()}{glyph if glyph != '.' else ' '}"[:3]))
            elif text.startswith("*"):
                owner = TAGEM_LETTERS.lower().find(text[1:].strip()) if text[1:].strip() else -1
                style = "class:flag" + (f" {seat_class(owner)}" if owner >= 0 else "")
                line.append((style, f"*{text[1:].strip()} "[:3] if owner >= 0 else " * "))
            elif (r, c) in starts:
                line.append(
                    (f"{seat_class(starts[r, c])} class:start", f"[{TAGEM_LETTERS[starts[r, c]]}]")
                )
            elif glyph == " ":
                line.append(("", "   "))
            else:
                line.append((f"class:{tile}" if tile else "", f" {glyph} "))
            if c < width - 1:
                line.append(("", " "))
        out.rows.append(line)
    limit = f" of {v['max_turns']}" if v["max_turns"] else ""
    head = f"{v['map']}, {v['mode_name']}, round {v['round']}{limit}"
    if v["to_act"] is not None:
        who = seat_tag("tagem", v["to_act"])
        head += f" | {who} to act, {v['pom_left']} of {v['pom']} PoM left"
    out.info.append(_plain(head))
    tags = " ".join(f"{seat_tag('tagem', s)}:{n}" for s, n in enumerate(v["tags"]))
    out.info.append(_plain(f"tags {tags}"))
    if v["pending_attack"]:
        a = v["pending_attack"]
        out.info.append(_plain(f"attack: {a['attacker']} on {a['defender']}", "class:warn"))
    out.info += _events_line(v)
    if v["attacks"]:
        # The modifiers each legal attack would roll with, in the view's words.
        out.side_header = "attacks you can make"
        out.side = [_plain(attack["line"]) for attack in v["attacks"]]
    out.legend.append(_seat_legend("tagem", names))
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
            ("", " A's start  A0% pawn on cover  a0 carries a flag  cells (column,row)"),
        ]
    )
    return out


Painter = Callable[[dict[str, Any], Sequence[str]], Painted]
PAINTERS: dict[str, Painter] = {
    "prototag": _prototag,
    "assassination": _assassination,
    "boardtag": _boardtag,
    "stomptag": _stomptag,
    "tagem": _tagem,
}


def paint(
    engine: str, view: dict[str, Any], names: Sequence[str], render: Callable[[], str]
) -> Painted:
    """The coloured board of ``engine``; unknown engines get their plain ``render()`` text."""
    painter = PAINTERS.get(engine)
    if painter is None:
        return Painted(rows=[_plain(line) for line in render().splitlines()])
    return painter(view, names)


# --------------------------------------------------------------------------- side panel


def badge(engine: str, view: dict[str, Any], seat: int) -> str:
    """A seat's score and role in a few characters, for the players list."""
    if engine == "prototag":
        if view["tagged"] == seat:
            return "TAGGED"
        return "immune" if view["immune"] == seat else ""
    if engine == "assassination":
        role = "victim " if view["victim"] == seat else ""
        return f"{role}{view['scores'][seat]}c"
    if engine == "boardtag":
        it = view["it"]
        return ("IT " if it and it["seat"] == seat else "") + f"{view['totals'][seat]}pip"
    if engine == "stomptag":
        p = view["players"][seat]
        mark = "it " if p["it"] else "" if p["in_game"] else "out "
        return f"{mark}{p['points']}pt"
    if engine == "tagem":
        pawns = sum(1 for p in view["pawns"] if p["seat"] == seat)
        return f"{view['tags'][seat]}t {pawns}p"
    scores = view.get("scores")
    return str(scores[seat]) if isinstance(scores, list) and seat < len(scores) else ""
