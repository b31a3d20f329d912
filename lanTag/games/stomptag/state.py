"""What a Stomptag state is made of: its fields, in wire order, and the questions they answer
(a seat's bid range and order space, a cell's name), and the board's side for a seat count.

No rule is applied here: the engine's ``StomptagState`` (engine.py) adds the rules to these
fields; ``codec`` and ``position`` read and write them without importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lanTag.games.stomptag.orders import Order, OrderSpace
from lanTag.games.stomptag.rounds import Event, Settings, Table
from lanTag.rules.base import Decision, State

MINIMUMS, BIDS, PLACING, ORDERS, TELEPORTS, OVER = PHASES = (
    "minimums",
    "bids",
    "placing",
    "orders",
    "teleports",
    "over",
)
BOARD_PHASES = (ORDERS, TELEPORTS)


def auto_side(seats: int) -> int:
    """5x5 up to 10 players, 6x6 up to 15, then one more row and column per 5 players."""
    return max(5, 3 + (seats + 4) // 5)


@dataclass(frozen=True, slots=True)
class StomptagFields(State):
    """A Stomptag position's fields (the rules over them: engine.StomptagState)."""

    seats: int
    settings: Settings
    phase: str
    round: int  # the round being played (0 before the board is set)
    minimums: tuple[int, ...]  # 0 until drawn
    bids: tuple[int, ...]  # 0 until bid
    table: Table
    orders: tuple[tuple[int, Order], ...]  # the last revealed orders (pending in TELEPORTS)
    events: tuple[Event, ...]  # what the last resolution did
    # decision() memo: a pure function of the fields above (the session asks several times)
    _decision: Decision | None = field(default=None, init=False, repr=False, compare=False)

    # -- queries ------------------------------------------------------------

    def bid_range(self, seat: int) -> tuple[int, int]:
        """From the minimum up to every point you have ("hasty bids could knock you out")."""
        low = self.minimums[seat]
        return low, max(low, self.table.points[seat])

    def order_space(self, seat: int) -> OrderSpace:
        t = self.table
        upgrade_ok = t.moves[seat] < self.settings.max_moves
        return OrderSpace(t.moves[seat], t.can_teleport(seat), upgrade_ok)

    def _living(self, seat: int) -> bool:
        """``seat in self.table.living()`` without building the tuple."""
        out = self.table.out
        return 0 <= seat < len(out) and out[seat] == 0

    def cell_name(self, cell: int) -> str:
        """1-based (column,row); row 1 is the north edge."""
        return f"({cell % self.settings.side + 1},{cell // self.settings.side + 1})"
