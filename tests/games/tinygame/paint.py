"""Countdown on the console: the counters left, one ``o`` each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lanTag.ui.painted import Painted, plain, seat_legend

ZOOMS = 1
BADGE_KEY = "players: next = takes now, won = took the last"


def badge(view: dict[str, Any], seat: int) -> str:
    return "won" if view["winner"] == seat else "next" if view["mover"] == seat else ""


def paint(v: dict[str, Any], names: Sequence[str], zoom: int = 0) -> Painted:
    out = Painted()
    out.rows.append(plain("o " * v["left"] or "(none left)"))
    out.info.append(plain(f"{v['left']} counter(s) left"))
    out.legend.append(seat_legend("tinygame", names))
    return out.finish(v)
