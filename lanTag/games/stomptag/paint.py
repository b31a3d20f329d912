"""Stomptag on the console: the field, the it, the itness queue and the last orders.

Drawn from the view dict alone (lanTag/games/stomptag/view.py), in one cell width.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.ui.painted import Painted, plain, seat_legend
from lanTag.ui.style import seat_class

ZOOMS = 1
# What the players panel's badges (see badge()) mean, a legend line.
BADGE_KEY = "players: 20pt points, it = the it, out = knocked out"


def badge(view: dict[str, Any], seat: int) -> str:
    """A seat's points; the it, and who is out."""
    p = view["players"][seat]
    mark = "it " if p["it"] else "" if p["in_game"] else "out "
    return f"{mark}{p['points']}pt"


def paint(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    del zoom  # one cell width
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
