"""Feed lines: what one resolved step did, in words, from the engine's public facts.

The engines keep facts (``view()["event_facts"]``, Stomptag's ``events``) and word them
for their own plain-text render.  The screen words them for people: seats by name
("seat 2 bot-2", "seat 0 (you)"), places in the one coordinate system the board labels
(Board Tag squares a1..h8 and IT's crossing points (x,y) on the numbered lines; Stomptag
and Tag 'em cells (column,row) counted from 1), never cell indices or internal
abbreviations ("m2", "r6c5").  Each line says whether it is *notable*: a roll's result,
a collision, a battle or a tag, which the screen keeps in view until our next
decision; plain moves only go to the log (the board shows them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lanTag.rules.boardtag_board import DICE_PER_SEAT, point_xy, square_name

Namer = Callable[[int], str]  # seat -> how the feed names it


@dataclass(frozen=True, slots=True)
class FeedLine:
    text: str
    notable: bool


def seat_namer(names: Sequence[str], me: int | None) -> Namer:
    """``seat 2 bot-2``; our own seat ``seat 0 (you)`` (reads in any sentence)."""

    def name(seat: int) -> str:
        if seat == me:
            return f"seat {seat} (you)"
        return f"seat {seat} {names[seat]}" if 0 <= seat < len(names) else f"seat {seat}"

    return name


def plain_namer(seat: int) -> str:
    return f"seat {seat}"


_SEAT = re.compile(r"\bseat (\d+)\b")
_TAGEM_CELL = re.compile(r"\br(\d+)c(\d+)\b")


def _named(text: str, name: Namer) -> str:
    """The engine's ``seat N`` replaced by the feed's name for seat N."""
    return _SEAT.sub(lambda m: name(int(m.group(1))), text)


def tagem_place(row: int, col: int) -> str:
    """A Tag 'em cell as the board labels it: (column,row), both counted from 1."""
    return f"({col + 1},{row + 1})"


def tagem_places(text: str) -> str:
    """The engine's ``r<row>c<col>`` (counted from 0) as the board's (column,row)."""
    return _TAGEM_CELL.sub(lambda m: tagem_place(int(m.group(1)), int(m.group(2))), text)


def step_lines(
    engine: str, view: dict[str, Any], name: Namer, before: dict[str, Any] | None = None
) -> list[FeedLine]:
    """The lines for the facts of the input that led to ``view`` (the view after it).

    ``before``: the view before that input.  An engine may carry the previous input's
    facts over (Board Tag's returning IT die keeps the tag before it); those were told
    already, so the lines they start with are dropped.
    """
    worder = _WORDERS.get(engine)
    if worder is None:
        return []
    lines = worder(view, name)
    if before:
        told = worder(before, name)
        if told and lines[: len(told)] == told:
            lines = lines[len(told) :]
    return lines


# --------------------------------------------------------------------------- per engine


def _prototag(v: dict[str, Any], name: Namer) -> list[FeedLine]:
    out: list[FeedLine] = []
    rolls = ", ".join(f"{name(int(s))} {val}" for s, val in v["start"]["rolls"])
    for fact in v["event_facts"]:
        code, args = str(fact[0]), [int(a) if isinstance(a, int) else a for a in fact[1:]]
        if code == "start-tie":
            tied = ", ".join(name(int(s)) for s in args)
            out.append(FeedLine(f"start roll: {rolls}; {tied} tie and throw again", True))
        elif code in ("starts", "starts-tagged"):
            tagged = " and is tagged" if code == "starts-tagged" else ""
            out.append(FeedLine(f"start roll: {rolls}; {name(args[0])} starts{tagged}", True))
        elif code == "rolls":
            out.append(FeedLine(f"{name(args[0])} rolls {args[1]}", True))
        elif code == "boxed":
            out.append(FeedLine(f"{name(args[0])} rolls {args[1]} but is boxed in", True))
        elif code == "step":
            out.append(FeedLine(f"{name(args[0])} steps {args[1]}", False))
        elif code == "meets":
            line = f"tagged {name(args[0])} reaches {name(args[1])}: rock-paper-scissors!"
            out.append(FeedLine(line, True))
        elif code == "tagged":
            out.append(FeedLine(f"{name(args[0])} is tagged", True))
        elif code == "immune":
            out.append(FeedLine(f"{name(args[0])} is immune for {args[1]} step(s)", True))
        elif code == "immune-over":
            out.append(FeedLine(f"{name(args[0])} is no longer immune", False))
        elif code == "locked-in":
            out.append(FeedLine(f"locked in with {args[0]} step(s) unused", False))
        elif code == "loses":
            line = f"the tagged steps reach {v['end_steps']}: {name(args[0])} loses"
            out.append(FeedLine(line, True))
        elif code == "start":
            out.append(FeedLine("every player throws a D6; the highest starts", False))
        elif code in _RPS:
            # Not notable: the screen's secret-round line says who beat whom.
            tagger, pick, target, other = args
            shown = f"{name(tagger)} {pick}, {name(target)} {other}"
            out.append(
                FeedLine(
                    f"rock-paper-scissors: {shown}: " + _RPS[code](name, tagger, target), False
                )
            )
    return out


_RPS: dict[str, Callable[[Namer, int, int], str]] = {
    "rps-draw": lambda name, tagger, target: "a draw, play again",
    "rps-tags": lambda name, tagger, target: f"{name(target)} is tagged",
    "rps-stays": lambda name, tagger, target: f"{name(tagger)} stays tagged",
}


def _assassination(v: dict[str, Any], name: Namer) -> list[FeedLine]:
    return [
        FeedLine(_named(text, name), str(fact[0]) != "step")
        for fact, text in zip(v["event_facts"], v["events"], strict=False)
    ]


_BOARDTAG_MOVES = ("places", "picks", "step", "stays", "done", "turns", "faces", "ends", "jumps")


def _boardtag(v: dict[str, Any], name: Namer) -> list[FeedLine]:
    out = []
    owner, square = -1, -1  # the die the facts before a gain are about
    for fact, text in zip(v["event_facts"], v["events"], strict=False):
        code = str(fact[0])
        if code in ("step", "stays"):
            owner = int(fact[1]) // DICE_PER_SEAT
            square = int(fact[5] if code == "step" else fact[3])
        if code in ("gains-near-it", "gains-staying") and owner >= 0:
            why = "it entered a square next to IT" if code == "gains-near-it" else "it stayed"
            text = f"seat {owner}'s die on {square_name(square)} gains a point: {why}"
        elif code == "jumps":
            kind, (x, y), cost = fact[1], point_xy(int(fact[2])), int(fact[3])
            text = f"IT jumps {kind} to point ({x},{y}) ({'free' if cost == 0 else 'pays 1'})"
        out.append(FeedLine(_named(text, name), code not in _BOARDTAG_MOVES))
    return out


def _stomptag(v: dict[str, Any], name: Namer) -> list[FeedLine]:
    side = int(v["side"])

    def place(cell: int) -> str:
        return f"({cell % side + 1},{cell // side + 1})"

    out = []
    for e in v["events"]:
        what, seats, values = str(e["what"]), [int(s) for s in e["seats"]], e["values"]
        when = f"move {e['step']}: " if e["step"] else ""
        who = " and ".join(name(s) for s in seats)
        points = ", ".join(f"{name(s)} {int(p):+d}" for s, p in zip(seats, values, strict=False))
        cell = e.get("cell", -1)
        where = f" at {place(int(cell))}" if isinstance(cell, int) and cell >= 0 else ""
        texts = {
            "bid": f"bids paid: {points}",
            "swap": f"{when}{who} swap places (collision): {points}",
            "meet": f"{when}{who} meet{where} (collision): {points}",
            "cross": f"{when}{who} cross paths (collision): {points}",
            "upgrade": f"upgrade bought: {points}",
            "teleport": f"{when}{who} teleports to {place(int(cell))}: {points}",
            "edge": f"{when}{who} cannot move off the grid",
            "cancel": f"{when}later moves cancelled for {who}",
            "recover": f"stride recovery: {points}",
            "tax": f"it tax: {points}",
            "out": f"{when}{who} out of the game",
            "it": f"{when}{who} is made it",
        }
        if what == "tag" and len(seats) == 2:
            text = f"{when}{name(seats[0])}, the it, tags {name(seats[1])}"
        else:
            text = texts.get(what, f"{when}{what} {who}")
        out.append(FeedLine(text, True))
    return out


_TAGEM_MOVES = ("moves", "ends", "order")


def _tagem(v: dict[str, Any], name: Namer) -> list[FeedLine]:
    return [
        FeedLine(tagem_places(_named(text, name)), str(fact[0]) not in _TAGEM_MOVES)
        for fact, text in zip(v["event_facts"], v["events"], strict=False)
    ]


_WORDERS: dict[str, Callable[[dict[str, Any], Namer], list[FeedLine]]] = {
    "prototag": _prototag,
    "assassination": _assassination,
    "boardtag": _boardtag,
    "stomptag": _stomptag,
    "tagem": _tagem,
}
