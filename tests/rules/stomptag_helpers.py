"""Builders for constructed Stomptag positions.

Cells are (column, row), 0-based, row 0 the north edge, as in stomptag_collide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from lanTag.games.stomptag.collide import Cell
from lanTag.games.stomptag.engine import Stomptag, StomptagState
from lanTag.games.stomptag.rounds import Event, Table
from lanTag.rules.base import Action, Joint, Roll


def position(
    cells: Sequence[Cell | None],
    *,
    points: Sequence[int] | int = 30,
    it: int = 0,
    queue: Sequence[int] | None = None,
    moves: Sequence[int] | int = 1,
    teleported: Sequence[bool] | None = None,
    tag_last_round: bool = False,
    options: Mapping[str, object] | None = None,
    round_: int = 1,
) -> StomptagState:
    """A position waiting for orders.  ``None`` cells are seats already out (wave 1).

    The default queue is every living seat in seat order with the it moved to the back.
    """
    n = len(cells)
    state = Stomptag.new_state(n, options)
    side = state.settings.side
    pts = [points] * n if isinstance(points, int) else list(points)
    out = [0 if c is not None else 1 for c in cells]
    for seat, c in enumerate(cells):
        if c is None:
            pts[seat] = min(pts[seat], 0)
    living = [s for s in range(n) if out[s] == 0]
    if queue is None:
        queue = [s for s in living if s != it] + [it]
    table = Table(
        points=tuple(pts),
        cells=tuple(-1 if c is None else c[1] * side + c[0] for c in cells),
        out=tuple(out),
        queue=tuple(queue),
        it=it,
        moves=tuple([moves] * n if isinstance(moves, int) else moves),
        teleported=tuple(teleported or [False] * n),
        tag_last_round=tag_last_round,
    )
    return replace(
        state,
        phase="orders",
        round=round_,
        minimums=tuple(range(1, n + 1)),
        bids=tuple(range(1, n + 1)),
        table=table,
    )


def typed(state: StomptagState, seat: int, text: str) -> Action:
    """Orders as a player types them (``orders stomp n teleport``), in the wire form."""
    return state.typed_action(seat, Action.parse(text))


def orders_joint(state: StomptagState, orders: Mapping[int, str]) -> Joint:
    """Every living seat's orders, typed in words; seats not named take their default
    (stride, stay)."""
    choices = []
    for seat in state.table.living():
        text = orders.get(seat)
        choices.append((seat, typed(state, seat, text) if text else state.default_action(seat)))
    return Joint(tuple(choices))


def play(
    state: StomptagState, orders: Mapping[int, str], landings: Sequence[int] = ()
) -> StomptagState:
    """Apply one round of orders, then the teleport landings if any were ordered."""
    after = state.apply(orders_joint(state, orders))
    assert isinstance(after, StomptagState)
    if after.phase == "teleports":
        after = after.apply(Roll((tuple(landings),)))
        assert isinstance(after, StomptagState)
    else:
        assert not landings, "landings given but nobody teleported"
    assert after.invariants() == [], after.invariants()
    return after


def at(state: StomptagState, seat: int) -> Cell | None:
    cell = state.table.cells[seat]
    side = state.settings.side
    return None if cell < 0 else (cell % side, cell // side)


def cell_index(state: StomptagState, cell: Cell) -> int:
    return cell[1] * state.settings.side + cell[0]


def delta(before: StomptagState, after: StomptagState) -> list[int]:
    return [b - a for a, b in zip(before.table.points, after.table.points, strict=True)]


def events_of(state: StomptagState, what: str) -> list[Event]:
    return [e for e in state.events if e.what == what]


def simple(events: Sequence[Event]) -> list[tuple[Any, ...]]:
    """(what, step, seats, values) of events, for compact assertions."""
    return [(e.what, e.step, e.seats, e.values) for e in events]
