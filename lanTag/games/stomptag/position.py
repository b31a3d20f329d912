"""Stomptag positions: the state as named fields a person can read and write.

Cells are named "(column,row)" from 1, row 1 on the north edge, as the board and the
event lines name them; each player is one object; orders are in the words players type
("orders stomp n teleport").  docs/rules/stomptag.md lists the fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from lanTag.games.stomptag.orders import MOVES, ORDERS_UP, VERBS, Order
from lanTag.games.stomptag.rounds import Event, Settings, Table
from lanTag.games.stomptag.state import PHASES, StomptagFields, auto_side
from lanTag.rules.base import PositionError, State
from lanTag.rules.positions import FieldReader, envelope, read_count, read_list, read_seat

if TYPE_CHECKING:
    from lanTag.rules.base import Game

S = TypeVar("S", bound=StomptagFields)

FIELDS = ("phase", "round", "players", "queue", "it", "tag_last_round", "orders", "last_events")
PLAYER = ("points", "cell", "out", "moves", "teleported", "minimum", "bid")
_CELL = re.compile(r"\((\d+),(\d+)\)")


def position_of(state: State) -> dict[str, Any]:
    if not isinstance(state, StomptagFields):
        raise PositionError([f"not a stomptag state: {type(state).__name__}"])
    s, t = state.settings, state.table
    options = {
        "start_points": s.start_points,
        "grid_size": s.side,
        "teleport_cost": s.teleport_cost,
        "upgrade_cost": s.upgrade_cost,
        "max_moves": s.max_moves,
        "max_rounds": s.max_rounds,
        "round_seconds": s.round_seconds,
    }
    out = envelope(type(state).game, state.seats, options)
    out.update(
        {
            "phase": state.phase,
            "round": state.round,
            "players": [
                {
                    "points": t.points[seat],
                    "cell": state.cell_name(t.cells[seat]) if t.cells[seat] >= 0 else None,
                    "out": t.out[seat],
                    "moves": t.moves[seat],
                    "teleported": t.teleported[seat],
                    "minimum": state.minimums[seat],
                    "bid": state.bids[seat],
                }
                for seat in range(state.seats)
            ],
            "queue": list(t.queue),
            "it": t.it if t.it >= 0 else None,
            "tag_last_round": t.tag_last_round,
            "orders": [
                {"seat": seat, "order": order.text(), "forfeit": order.forfeit}
                for seat, order in state.orders
            ],
            "last_events": [
                [e.what, e.step, list(e.seats), list(e.values), e.cell] for e in state.events
            ],
        }
    )
    return out


def _read_flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{value!r} is not true or false")
    return value


def _read_cell(side: int) -> Callable[[object], int]:
    def read(value: object) -> int:
        if value is None:
            return -1
        match = _CELL.fullmatch(value) if isinstance(value, str) else None
        if match is not None:
            col, row = int(match.group(1)) - 1, int(match.group(2)) - 1
            if 0 <= col < side and 0 <= row < side:
                return row * side + col
        raise ValueError(
            f"{value!r} is not a cell of the {side}x{side} grid ((1,1)..({side},{side}))"
        )

    return read


def _read_player(side: int, start: int) -> Callable[[object], tuple[Any, ...]]:
    def read(value: object) -> tuple[Any, ...]:
        if not isinstance(value, Mapping) or not set(value) <= set(PLAYER):
            raise ValueError(f"a player is an object with some of {', '.join(PLAYER)}")
        return (
            read_count(-(1 << 30))(value.get("points", start)),  # the it tax may go below 0
            _read_cell(side)(value.get("cell")),
            read_count(0)(value.get("out", 0)),
            read_count(1)(value.get("moves", 1)),
            _read_flag(value.get("teleported", False)),
            read_count(0)(value.get("minimum", 0)),
            read_count(0)(value.get("bid", 0)),
        )

    return read


def _read_order(seats: int) -> Callable[[object], tuple[int, Order]]:
    def read(value: object) -> tuple[int, Order]:
        if not isinstance(value, Mapping) or set(value) != {"seat", "order", "forfeit"}:
            raise ValueError(f"{value!r} is not an order {{seat, order, forfeit}}")
        words = str(value["order"]).split()
        if len(words) < 2 or words[0] not in VERBS or words[1] not in ("stomp", "stride"):
            raise ValueError(f"{value['order']!r} is not 'orders stomp|stride <moves>'")
        if any(word not in MOVES for word in words[2:]):
            raise ValueError(f"{value['order']!r}: moves are {', '.join(MOVES)}")
        order = Order(
            words[1] == "stomp",
            tuple(words[2:]),
            words[0] == ORDERS_UP,
            _read_flag(value["forfeit"]),
        )
        return read_seat(seats, none=None)(value["seat"]), order

    return read


def _read_event(value: object) -> Event:
    if not isinstance(value, list) or len(value) != 5 or not isinstance(value[0], str):
        raise ValueError(f"{value!r} is not an event [what, step, seats, values, cell]")
    ints = read_list(read_count(-(1 << 30)))
    return Event(
        value[0], read_count(0)(value[1]), ints(value[2]), ints(value[3]), read_count(-1)(value[4])
    )


def state_of(game: type[Game], position: Mapping[str, Any], make: type[S]) -> S:
    """The state of class ``make`` (the engine's) that ``position`` describes."""
    reader = FieldReader(game, position, FIELDS)
    seats, options = reader.seats or game.min_seats, reader.options
    side = int(options["grid_size"]) or auto_side(seats)
    start = int(options["start_points"])
    settings = Settings(
        start,
        side,
        int(options["teleport_cost"]),
        int(options["upgrade_cost"]),
        int(options["max_moves"]),
        int(options["max_rounds"]),
        int(options["round_seconds"]),
    )
    known = len(reader.problems)
    no_players: tuple[tuple[Any, ...], ...] = ()
    players = reader.field("players", read_list(_read_player(side, start)), no_players)
    if "players" not in reader.position:
        reader.problem("players: one object per seat is needed")
    elif len(reader.problems) == known and len(players) != seats:
        reader.problem(f"players: {len(players)} players for {seats} seats")
    if len(players) != seats:
        players = tuple(_read_player(side, start)({}) for _ in range(seats))
    phase = reader.field("phase", lambda v: _word(v, PHASES), PHASES[0])
    if "phase" not in reader.position:
        reader.problem(f"phase: one of {', '.join(PHASES)} is needed")
    column = list(zip(*players, strict=True))
    table = Table(
        column[0],
        column[1],
        column[2],
        reader.field("queue", read_list(read_seat(seats, none=None)), ()),
        reader.field("it", read_seat(seats), -1),
        column[3],
        column[4],
        reader.field("tag_last_round", _read_flag, False),
    )
    state = make(
        seats,
        settings,
        phase,
        reader.field("round", read_count(0), 0),
        column[5],
        column[6],
        table,
        reader.field("orders", read_list(_read_order(seats)), ()),
        reader.field("last_events", read_list(_read_event), ()),
    )
    reader.check()
    broken = state.invariants()
    if broken:
        raise PositionError([f"not a stomptag position: {problem}" for problem in broken])
    return state


def _word(value: object, words: tuple[str, ...]) -> str:
    if value not in words:
        raise ValueError(f"{value!r} is not one of {', '.join(words)}")
    assert isinstance(value, str)
    return value
