"""Stomptag heuristic: bid the minimum, keep away from the it, let the it hunt.

* **Bids** are paid from your points, so the bot bids its minimum: every point bid is a
  point of life gone, and the queue place it buys only matters after a knock-out.
* **Orders** are secret and simultaneous, so the bot scores each plan (stomp or stride,
  and the first two moves; later moves stand still) against a simple model of the others'
  next move: a player stays put half the time and otherwise steps anywhere; the it steps
  towards its nearest prey half the time.  A plan's score is its expected point change:
  collisions at the text's prices (a stomper meeting a strider gains 2, the strider loses
  6; equals lose 3 each), being tagged or tagging someone (about two rounds of the it's
  4-point tax), a strider's +1 for a round without collisions, and at the end a little
  for distance from the it (or, for the it, closeness to prey).
* Only an it with points to spare buys an upgrade (a second move: one move never catches
  a player who keeps one step away); nobody teleports (5 points to land at random).

Probabilities are integers in millionths, so every peer ranks the plans identically.
"""

from __future__ import annotations

from itertools import product

from lanTag.bots.common import Below, best_of
from lanTag.games.stomptag.engine import StomptagState
from lanTag.games.stomptag.orders import DELTAS, NOTHING, Order
from lanTag.games.stomptag.state import BIDS, ORDERS
from lanTag.rules.base import Action, State

_ONE = 1_000_000  # probability 1, in millionths
_TAG = 8  # points: being it costs 4 a round and it takes a while to pass it on
_PLANNED_MOVES = 2  # moves searched; later moves stand still (9**k plans otherwise)
_WALKS = (NOTHING, *DELTAS)

Cell = tuple[int, int]  # (column, row)


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, StomptagState)
    if state.phase == BIDS:
        return Action("bid", (state.bid_range(seat)[0],))
    assert state.phase == ORDERS
    return _Orders(state, seat).best(below)


def _chebyshev(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class _Orders:
    def __init__(self, state: StomptagState, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.side = state.settings.side
        table = state.table
        self.it = table.it
        self.cells = {s: self.xy(table.cells[s]) for s in table.living()}
        self.here = self.cells[seat]
        self.others = [s for s in self.cells if s != seat]
        # Each opponent's end cell after one move, in millionths (used for every move).
        self.spread = {o: self.model(o) for o in self.others}

    def xy(self, cell: int) -> Cell:
        return cell % self.side, cell // self.side

    def step(self, cell: Cell, move: str) -> Cell | None:
        """Where ``move`` goes from ``cell``; None off the grid (a failed move)."""
        if move == NOTHING:
            return cell
        dx, dy = DELTAS[move]
        x, y = cell[0] + dx, cell[1] + dy
        return (x, y) if 0 <= x < self.side and 0 <= y < self.side else None

    def around(self, cell: Cell) -> list[Cell]:
        return [c for m in _WALKS if (c := self.step(cell, m)) is not None]

    def model(self, seat: int) -> dict[Cell, int]:
        """The guessed spread of ``seat``'s next cell: half staying (the it: chasing),
        half anywhere around."""
        origin = self.cells[seat]
        spread: dict[Cell, int] = {}
        cells = self.around(origin)
        for c in cells:
            spread[c] = spread.get(c, 0) + _ONE // 2 // len(cells)
        if seat == self.it:
            prey = [self.cells[s] for s in self.cells if s != seat]
            if prey:
                near = min(_chebyshev(origin, p) for p in prey)
                goal = [p for p in prey if _chebyshev(origin, p) == near]
                best = min(min(_chebyshev(c, g) for g in goal) for c in cells)
                chase = [c for c in cells if min(_chebyshev(c, g) for g in goal) == best]
                for c in chase:
                    spread[c] = spread.get(c, 0) + _ONE // 2 // len(chase)
                return spread
        spread[origin] = spread.get(origin, 0) + _ONE // 2
        return spread

    def collision_odds(self, start: Cell, end: Cell) -> dict[int, int]:
        """Per opponent, the odds (millionths) of colliding in a move from start to end:
        meeting it where it ends, or trading places with it."""
        odds = {}
        for o in self.others:
            spread = self.spread[o]
            p = spread.get(end, 0)
            if end == self.cells[o] and start != end:
                p += spread.get(start, 0)  # it comes our way while we go to its cell
            if p:
                odds[o] = p
        return odds

    def price(self, o: int, stomp: bool) -> int:
        """Expected points (doubled, to keep halves whole) of one collision with ``o``."""
        if self.seat == self.it:
            # We are the it: stomping tags o (the it is assumed to stomp; others 50:50).
            tag = 2 * _TAG if stomp else 0
            return tag + ((2 - 3) if stomp else (-3 - 6))
        if o == self.it:  # the it stomps: we are tagged
            return -2 * _TAG + (-6 if stomp else -12)
        return -1 if stomp else -9  # o stomps or strides with even odds

    def plan_value(self, stomp: bool, moves: tuple[str, ...]) -> int | None:
        cell, total, risk = self.here, 0, 0
        for move in moves:
            nxt = self.step(cell, move)
            if nxt is None:
                return None  # off the grid: a failed move, never planned
            for o, p in self.collision_odds(cell, nxt).items():
                total += p * self.price(o, stomp)
                risk += p
            cell = nxt
        if not stomp:  # a strider with no collision this round recovers 1 point
            total += 2 * max(0, _ONE - risk)
        if self.seat == self.it:
            total -= 2 * 4 * max(0, _ONE - risk)  # the tax, unless the tag passes on
            prey = [self.cells[o] for o in self.others]
            total -= _ONE * min(_chebyshev(cell, p) for p in prey) if prey else 0
        elif self.it in self.cells:
            total += _ONE // 2 * min(_chebyshev(cell, self.cells[self.it]), 4)
        return total

    def best(self, below: Below) -> Action:
        table = self.state.table
        owned = table.moves[self.seat]
        searched = min(owned, _PLANNED_MOVES)
        # One move can never catch a player who keeps one step away, so an it with points
        # to spare buys a second move (usable from the next round).
        upgrade = (
            self.seat == self.it
            and owned < min(2, self.state.settings.max_moves)
            and table.points[self.seat] > self.state.settings.upgrade_cost + 2 * 4 + 2
        )
        scored = []
        for stomp in (False, True):
            for moves in product(_WALKS, repeat=searched):
                value = self.plan_value(stomp, moves)
                if value is not None:
                    full = (*moves, *(NOTHING,) * (owned - searched))
                    scored.append((value, Order(stomp, full, upgrade).action()))
        return best_of(scored, below)
