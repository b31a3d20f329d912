"""What Stomptag shows: the view dict, the plain-text board and the event lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lanTag.games.stomptag.collide import CROSS, MEET, SWAP
from lanTag.games.stomptag.orders import MOVES, ORDERS_UP
from lanTag.games.stomptag.orders import ORDERS as PLAIN_ORDERS
from lanTag.games.stomptag.rounds import (
    BID,
    CANCEL,
    EDGE,
    IT_TAX,
    MADE_IT,
    OUT,
    RECOVER,
    TAG,
    TAX,
    TELEPORTED,
    UPGRADE,
    Event,
)
from lanTag.games.stomptag.state import BIDS, ORDERS
from lanTag.rules.base import Chance, Over, Simultaneous
from lanTag.views.naming import Namer, plain_namer

if TYPE_CHECKING:
    from lanTag.games.stomptag.engine import StomptagState

LEGEND = (
    "legend: numbers are seats, @ marks the it, . is empty; north is up; "
    "cells are (column,row) from the north-west corner"
)


def events_texts(state: StomptagState, name: Namer = plain_namer) -> list[str]:
    """What the last input did, one phrase per event, seats named by ``name``."""
    return [describe_event(e, state.cell_name, name) for e in state.events]


def events_hit(state: StomptagState) -> list[tuple[int, ...]]:
    """The seats each event happens to: tagged, made it, out, or losing points in a
    collision (the round's bids, tax and recovery are bookkeeping, not hits)."""
    out: list[tuple[int, ...]] = []
    for e in state.events:
        if e.what == TAG:
            out.append(tuple(e.seats[1:2]))
        elif e.what in (MADE_IT, OUT):
            out.append(tuple(e.seats))
        elif e.what in (SWAP, MEET, CROSS):
            out.append(tuple(s for s, v in zip(e.seats, e.values, strict=False) if v < 0))
        else:
            out.append(())
    return out


def describe_event(event: Event, cell_name: Callable[[int], str], name: Namer = plain_namer) -> str:
    """One line, seats named by ``name``, e.g. ``move 1: seat 0 and seat 2 meet at (3,2)
    (collision): seat 0 +2, seat 2 -6``."""
    when = f"move {event.step}: " if event.step else ""
    who = " and ".join(name(s) for s in event.seats)
    points = ", ".join(f"{name(s)} {v:+d}" for s, v in zip(event.seats, event.values, strict=False))
    cell = cell_name(event.cell) if event.cell >= 0 else ""
    if event.what == TAG and len(event.seats) == 2:
        return f"{when}{name(event.seats[0])}, the it, tags {name(event.seats[1])}"
    text = _EVENT_TEXTS.get(event.what, "{what} {who}")
    words = text.format(what=event.what, who=who, points=points, cell=cell)
    return words if event.what in _UNTIMED else when + words


# The words for each event: {who} its seats (named by the namer passed in), {points}
# each seat's change, {cell} its cell; all but _UNTIMED's start with their move.
_EVENT_TEXTS = {
    BID: "bids paid: {points}",
    SWAP: "{who} swap places (collision): {points}",
    MEET: "{who} meet at {cell} (collision): {points}",
    CROSS: "{who} cross paths (collision): {points}",
    UPGRADE: "upgrade bought: {points}",
    TELEPORTED: "{who} teleports to {cell}: {points}",
    EDGE: "{who} cannot move off the grid",
    CANCEL: "later moves cancelled for {who}",
    RECOVER: "stride recovery: {points}",
    TAX: "it tax: {points}",
    OUT: "{who} out of the game",
    MADE_IT: "{who} is made it",
}
_UNTIMED = frozenset({BID, UPGRADE, RECOVER, TAX})


def event_obj(event: Event, cell_name: Callable[[int], str]) -> dict[str, Any]:
    """An event for views: its fields plus the descriptive line."""
    return {
        "what": event.what,
        "step": event.step,
        "seats": list(event.seats),
        "values": list(event.values),
        "cell": event.cell,
        "text": describe_event(event, cell_name),
    }


def warnings(state: StomptagState, seat: int | None) -> list[str]:
    """Act or lose: the it whose points the round's it tax would use up."""
    t = state.table
    if seat is None or not 0 <= seat < state.seats or state.phase != ORDERS:
        return []
    if t.it != seat or t.out[seat] or t.points[seat] > IT_TAX:
        return []
    return [
        f"you are it with {t.points[seat]} point(s) and pay {IT_TAX} at the round's end: "
        "tag someone this round or you are out"
    ]


def view(state: StomptagState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) sees; ``bid_range``/``can_upgrade`` are its own."""
    t, side = state.table, state.settings.side
    board = [[-1] * side for _ in range(side)]
    for s, cell in enumerate(t.cells):
        if cell >= 0:
            board[cell // side][cell % side] = s
    d = state.decision()
    players = [
        {
            "seat": s,
            "points": t.points[s],
            "in_game": t.out[s] == 0,
            "out_wave": t.out[s],
            "cell": [t.cells[s] % side, t.cells[s] // side] if t.cells[s] >= 0 else None,
            "minimum": state.minimums[s],
            "bid": state.bids[s],
            "moves": t.moves[s],
            "it": s == t.it,
            "can_teleport": t.out[s] == 0 and t.can_teleport(s),
        }
        for s in range(state.seats)
    ]
    shown: dict[str, Any] = {
        "game": "stomptag",
        "phase": state.phase,
        "round": state.round,
        "max_rounds": state.settings.max_rounds,
        "round_seconds": state.settings.round_seconds,
        "side": side,
        "board": board,
        "players": players,
        "it": t.it,
        "queue": list(t.queue),
        "teleport_open": t.tag_last_round,
        "to_act": list(d.seats) if isinstance(d, Simultaneous) else [],
        "last_orders": [[s, order_words(o.text())] for s, o in state.orders],
        "events": [event_obj(e, state.cell_name) for e in state.events],
        "move_words": list(MOVES),
        "seat": seat,
        "warnings": warnings(state, seat),
    }
    if seat is not None and 0 <= seat < state.seats and state.phase in (BIDS, ORDERS):
        if state.phase == BIDS:
            shown["bid_range"] = list(state.bid_range(seat))
        elif t.out[seat] == 0:
            space = state.order_space(seat)
            shown["can_upgrade"] = space.upgrade_ok
    if isinstance(d, Over):
        shown["ranking"] = [list(g) for g in d.outcome.ranking]
        shown["scores"] = list(d.outcome.scores)
    return shown


def render(state: StomptagState) -> str:
    t, side = state.table, state.settings.side
    limit = f"/{state.settings.max_rounds}" if state.settings.max_rounds else ""
    lines = [f"Stomptag round {state.round}{limit}, {state.phase}; {side}x{side} grid"]
    at = {cell: seat for seat, cell in enumerate(t.cells) if cell >= 0}
    if at:
        width = len(str(state.seats - 1)) + 2
        label = len(str(side))
        lines.append(" " * label + "".join(str(c + 1).rjust(width) for c in range(side)))
        for row in range(side):
            marks = []
            for column in range(side):
                seat = at.get(row * side + column)
                mark = "." if seat is None else f"@{seat}" if seat == t.it else str(seat)
                marks.append(mark.rjust(width))
            lines.append(str(row + 1).rjust(label) + "".join(marks))
    else:
        lines.append("(nobody is on the board yet)")
    lines.append(LEGEND)
    for seat in range(state.seats):
        parts = [f"seat {seat}: {t.points[seat]} pts"]
        if state.minimums[seat]:
            parts.append(f"min {state.minimums[seat]}")
        if state.bids[seat]:
            parts.append(f"bid {state.bids[seat]}")
        parts.append(f"{t.moves[seat]} move{'s' if t.moves[seat] > 1 else ''}")
        if t.cells[seat] >= 0:
            parts.append(f"at {state.cell_name(t.cells[seat])}")
        if seat == t.it:
            parts.append("it")
        if t.out[seat]:
            parts.append(f"out (wave {t.out[seat]})")
        lines.append(", ".join(parts))
    if t.queue:
        lines.append("itness queue, front first: " + " ".join(str(s) for s in t.queue))
    if state.orders:
        orders = (f"seat {s} {order_words(o.text())}" for s, o in state.orders)
        lines.append("orders: " + "; ".join(orders))
    if state.events:
        lines.append("events: " + "; ".join(events_texts(state)))
    lines.append("status: " + _status(state))
    return "\n".join(lines)


def _status(state: StomptagState) -> str:
    d = state.decision()
    if isinstance(d, Over):
        return f"game over: {d.outcome.summary}"
    if isinstance(d, Chance):
        return f"waiting for the {d.purpose} draw"
    assert isinstance(d, Simultaneous)
    seats = " ".join(str(s) for s in d.seats)
    extra = "; teleports open to all (someone was tagged)" if state.table.tag_last_round else ""
    kind = "bids" if d.kind == "bid" else d.kind
    return f"waiting for secret {kind} from seats {seats}{extra}"


def purpose_text(purpose: str) -> str:
    """Stomptag's purposes are not worded (docs/rules/VERSIONS.md): the code itself."""
    return purpose


def order_words(text: str) -> str:
    """An order as the table reads it: its mode and moves, and the upgrade it buys
    (``orders+up stomp n ne`` -> ``stomp n ne + upgrade``).  ``text`` is the typed form
    (``Order.text()``, ``Stomptag.action_text``); anything else is returned as it is."""
    verb, _, rest = text.partition(" ")
    if verb == ORDERS_UP and rest:
        return f"{rest} + upgrade"
    return rest if verb == PLAIN_ORDERS and rest else text


def choice_words(kind: str, text: str) -> str | None:
    """A revealed order as the table reads it (:func:`order_words`); a bid as typed."""
    return order_words(text) if kind == "orders" else None


def roll_values(after: dict[str, Any], name: Namer = plain_namer) -> str | None:
    """What a roll drew, read from the view after it: each seat's minimum bid (the draw is a
    permutation of 0..n-1; a minimum is that plus one), or where teleports landed."""
    players = after.get("players")
    if not isinstance(players, list):
        return None
    fresh = [p for p in players if isinstance(p, dict)]
    if after.get("phase") == "bids":
        return ", ".join(f"{name(p['seat'])} {p['minimum']}" for p in fresh)
    if any(p.get("cell") is not None for p in fresh):
        return ", ".join(
            f"{name(p['seat'])} at ({p['cell'][0] + 1},{p['cell'][1] + 1})"
            for p in fresh
            if p.get("cell") is not None
        )
    return None
