"""Stomptag states on the wire: the msgpack-ready encoding and its checked decoding."""

from __future__ import annotations

from typing import Any, TypeAlias

from lanTag.games.stomptag.orders import MOVES, Order
from lanTag.games.stomptag.rounds import Event, Settings, Table
from lanTag.games.stomptag.state import PHASES, StomptagFields

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


def state_to_obj(state: StomptagFields) -> list[Any]:
    s, t = state.settings, state.table
    return [
        state.seats,
        [
            s.start_points,
            s.side,
            s.teleport_cost,
            s.upgrade_cost,
            s.max_moves,
            s.max_rounds,
            s.round_seconds,
        ],
        state.phase,
        state.round,
        list(state.minimums),
        list(state.bids),
        [
            list(t.points),
            list(t.cells),
            list(t.out),
            list(t.queue),
            t.it,
            list(t.moves),
            list(t.teleported),
            t.tag_last_round,
        ],
        [
            [seat, o.stomp, o.upgrade, list(o.moves), *((True,) if o.forfeit else ())]
            for seat, o in state.orders
        ],
        [[e.what, e.step, list(e.seats), list(e.values), e.cell] for e in state.events],
    ]


def state_fields(obj: Any) -> Fields:
    """Constructor arguments of a state from its :func:`state_to_obj` form (ValueError if bad)."""
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
