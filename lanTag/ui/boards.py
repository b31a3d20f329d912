"""Coloured boards, status lines and legends, drawn from each engine's ``view()`` dict.

Painters read only the view (the engines' public presentation contract) and
keep the engines' own text layout, so the screen matches ``render()`` and the
rule texts.  Every distinction is carried by a glyph as well as a colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.ui import board_grids
from lanTag.ui.painted import Painted, plain, seat_legend, seat_tag
from lanTag.ui.style import seat_class

__all__ = ["Painted", "badge", "paint", "seat_tag"]

# --------------------------------------------------------------------------- prototag


def _prototag(v: dict[str, Any], names: Sequence[str]) -> Painted:
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
    out.rows.append(plain("   " + letters, "class:label"))
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


# --------------------------------------------------------------------------- stomptag


def _stomptag(v: dict[str, Any], names: Sequence[str]) -> Painted:
    side, it = v["side"], v["it"]
    seats = len(v["players"])
    width, label = len(str(seats - 1)) + 2, len(str(side))
    out = Painted()
    if any(p["cell"] is not None for p in v["players"]):
        out.head_rows, out.head_cols = 1, label
        header = " " * label + "".join(str(c + 1).rjust(width) for c in range(side))
        out.rows.append(plain(header, "class:label"))
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
        out.rows.append(plain("(nobody is on the board yet)", "class:dim"))
    limit = f"/{v['max_rounds']}" if v["max_rounds"] else ""
    out.info.append(plain(f"round {v['round']}{limit} | phase {v['phase']} | {side}x{side}"))
    if v["to_act"]:
        out.info.append(plain("secret choices from seats " + " ".join(map(str, v["to_act"]))))
    if v["queue"]:
        out.info.append(plain("itness queue: " + " ".join(map(str, v["queue"]))))
    if v["teleport_open"]:
        out.info.append(plain("teleports open to all (someone was tagged)", "class:warn"))
    if v["last_orders"]:
        orders = "; ".join(f"seat {s} {o}" for s, o in v["last_orders"])
        out.extra.append(plain("orders: " + orders, "class:dim"))
    out.legend.append(seat_legend("stomptag", names))
    out.legend.append(
        [
            ("", "N seat N  "),
            ("class:it", "@N"),
            ("", " the it  "),
            ("class:free", "."),
            ("", " empty  north is up, cells (col,row)"),
        ]
    )
    return out.finish(v)


Painter = Callable[[dict[str, Any], Sequence[str]], Painted]
PAINTERS: dict[str, Painter] = {
    "prototag": _prototag,
    "assassination": _assassination,
    "stomptag": _stomptag,
}
# Boards drawn in several cell widths, zoom 0 the widest (lanTag/ui/board_grids.py).
ZOOMED: dict[str, Callable[[dict[str, Any], Sequence[str], int], Painted]] = {
    "boardtag": board_grids.boardtag,
    "tagem": board_grids.tagem,
}


def zooms(engine: str) -> int:
    """How many cell widths ``engine``'s board is drawn in (1: one, the only)."""
    return board_grids.ZOOMS.get(engine, 1)


def paint(
    engine: str,
    view: dict[str, Any],
    names: Sequence[str],
    render: Callable[[], str],
    zoom: int = 0,
) -> Painted:
    """The coloured board of ``engine`` at ``zoom`` (0: its widest cells; see :func:`zooms`);
    unknown engines get their plain ``render()`` text."""
    zoomed = ZOOMED.get(engine)
    painter = PAINTERS.get(engine)
    if zoomed is not None:
        painted = zoomed(view, names, zoom)
    elif painter is not None:
        painted = painter(view, names)
    else:
        return Painted(rows=[plain(line) for line in render().splitlines()])
    if engine in BADGE_KEYS:
        # What the players panel's badges mean, after the seats' names.
        painted.legend.insert(1, plain(BADGE_KEYS[engine]))
    return painted


# --------------------------------------------------------------------------- side panel


# The players panel's badges (see badge()) in words, one legend line per game.
BADGE_KEYS = {
    "prototag": "players: TAGGED is it, immune = not taggable yet",
    "assassination": "players: 2c catches, victim runs now",
    "boardtag": "players: 9pip on 3 dice, IT plays IT",
    "stomptag": "players: 20pt points, it = the it, out = knocked out",
    "tagem": "players: 2t defeated, 5p pawns left",
}


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
