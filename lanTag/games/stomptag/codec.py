"""Stomptag state decoding (the inverse of ``StomptagState.to_obj``) and invariants."""

from __future__ import annotations

from typing import Any, TypeAlias

from lanTag.games.stomptag.orders import MOVES, Order
from lanTag.games.stomptag.rounds import Event, Settings, Table
from lanTag.games.stomptag.state import StomptagFields

MINIMUMS, BIDS, PLACING, ORDERS, TELEPORTS, OVER = PHASES = (
    "minimums",
    "bids",
    "placing",
    "orders",
    "teleports",
    "over",
)
BOARD_PHASES = (ORDERS, TELEPORTS)

Fields: TypeAlias = tuple[
    int,
    Settings,
    str,
    int,
    tuple[int, ...],
    tuple[int, ...],
    Table,
    tuple[tuple[int, Order], ...],
    tuple[Event, ...],
]


def _int(x: object) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ValueError(f"expected an integer, got {x!r}")
    return x


def _bool(x: object) -> bool:
    if not isinstance(x, bool):
        raise ValueError(f"expected a boolean, got {x!r}")
    return x


def _str(x: object, allowed: tuple[str, ...] | None = None) -> str:
    if not isinstance(x, str) or (allowed is not None and x not in allowed):
        raise ValueError(f"unexpected word {x!r}")
    return x


def _list(x: object, length: int | None = None) -> list[Any]:
    if not isinstance(x, list | tuple) or (length is not None and len(x) != length):
        raise ValueError(f"expected a list{'' if length is None else f' of {length}'}")
    return list(x)


def _ints(x: object, length: int | None = None) -> tuple[int, ...]:
    return tuple(_int(v) for v in _list(x, length))


def state_fields(obj: Any) -> Fields:
    """Constructor arguments of a StomptagState from its ``to_obj`` form (ValueError if bad)."""
    seats_obj, opts, phase, round_, minimums, bids, table, orders, events = _list(obj, 9)
    seats = _int(seats_obj)
    if seats < 1:
        raise ValueError("no seats")
    settings = Settings(*_ints(opts, 7))
    points, cells, out, queue, it, moves, teleported, tagged = _list(table, 8)
    decoded_table = Table(
        _ints(points, seats),
        _ints(cells, seats),
        _ints(out, seats),
        _ints(queue),
        _int(it),
        _ints(moves, seats),
        tuple(_bool(b) for b in _list(teleported, seats)),
        _bool(tagged),
    )
    decoded_orders = []
    for item in _list(orders):
        # A forfeit order carries a fifth field, True (absent otherwise: older states).
        fields = _list(item)
        if len(fields) == 5 and fields[4] is True:
            fields = fields[:4]
            forfeit = True
        else:
            forfeit = False
        seat, stomp, upgrade, steps = _list(fields, 4)
        words = tuple(_str(w, MOVES) for w in _list(steps))
        order = Order(_bool(stomp), words, _bool(upgrade), forfeit)
        decoded_orders.append((_int(seat), order))
    decoded_events = []
    for item in _list(events):
        what, step, who, values, cell = _list(item, 5)
        decoded_events.append(Event(_str(what), _int(step), _ints(who), _ints(values), _int(cell)))
    return (
        seats,
        settings,
        _str(phase, PHASES),
        _int(round_),
        _ints(minimums, seats),
        _ints(bids, seats),
        decoded_table,
        tuple(decoded_orders),
        tuple(decoded_events),
    )


def broken_invariants(state: StomptagFields) -> list[str]:
    """Every broken invariant of ``state`` as a sentence (empty when sound)."""
    problems: list[str] = []
    t, n, cells = state.table, state.seats, state.settings.cells
    living = t.living()
    if cells < n or min(state.settings.start_points, state.settings.max_moves) < 1:
        problems.append(f"settings {state.settings} cannot hold a game of {n}")
    if any(not 0 <= s < n for s in (*t.queue, *(s for s, _ in state.orders))):
        problems.append("a seat number is out of range")
    if state.phase != MINIMUMS and sorted(state.minimums) != list(range(1, n + 1)):
        problems.append(f"minimum bids {state.minimums} are not a permutation of 1..{n}")
    if state.phase not in (MINIMUMS, BIDS):
        if any(b < m for b, m in zip(state.bids, state.minimums, strict=True)):
            problems.append("a bid is below its minimum")
        if sorted(t.queue) != list(living):
            problems.append(f"itness queue {t.queue} is not the living seats {living}")
        if living and t.it not in living:
            problems.append(f"the it ({t.it}) is not a living player")
    for seat in range(n):
        if t.out[seat] and (t.cells[seat] != -1 or t.points[seat] > 0):
            problems.append(f"eliminated seat {seat} is on the board or has points")
        if not 1 <= t.moves[seat] <= state.settings.max_moves:
            problems.append(f"seat {seat} has {t.moves[seat]} moves")
    if state.phase in BOARD_PHASES:
        placed = [t.cells[s] for s in living]
        if any(not 0 <= c < cells for c in placed):
            problems.append("a living player is off the board")
        if len(set(placed)) != len(placed):
            problems.append("two players share a cell")
        if any(t.points[s] <= 0 for s in living):
            problems.append("a living player has no points left")
        if len(living) < 2:
            problems.append("play goes on with fewer than two players")
    if state.phase == TELEPORTS:
        if not any(o.teleports for _, o in state.orders):
            problems.append("teleport landings are pending without a teleport order")
        if tuple(s for s, _ in state.orders) != living:
            problems.append("pending orders do not cover exactly the living seats")
        elif any(len(o.moves) != t.moves[s] for s, o in state.orders):
            problems.append("a pending order has the wrong number of moves")
    return problems
