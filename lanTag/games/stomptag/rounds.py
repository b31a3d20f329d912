"""Stomptag bookkeeping: settling bids and resolving a round of orders.

Pure functions from a frozen :class:`Table` (the per-seat game data) to a new Table and
the :class:`Event` list that explains every point change.  Movement itself is
:func:`lanTag.games.stomptag.collide.settle_move` (``resolve_move`` on plain data, with
row-major cell indices), called once per move of the round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lanTag.games.stomptag.collide import Cell, member_points, settle_move
from lanTag.games.stomptag.orders import DELTAS, NOTHING, TELEPORT, Order

IT_TAX = 4  # "your points are reduced by 4 each turn you are it"
STRIDE_BONUS = 1  # "Striding recovers 1 points for you if you don't run into anyone"

# Event kinds (``Event.what``); collisions use the collide module's SWAP / MEET / CROSS.
BID = "bid"
UPGRADE = "upgrade"
TELEPORTED = "teleport"
EDGE = "edge"  # a move off the grid: "a move that cannot be made"
CANCEL = "cancel"  # the rest of a player's moves are cancelled
TAG = "tag"
RECOVER = "recover"
TAX = "tax"
OUT = "out"
MADE_IT = "it"  # made it without a tag: the first it, or after the it is eliminated


@dataclass(frozen=True, slots=True)
class Settings:
    """Validated game options (the grid side already worked out)."""

    start_points: int
    side: int
    teleport_cost: int
    upgrade_cost: int
    max_moves: int
    max_rounds: int
    round_seconds: int

    @property
    def cells(self) -> int:
        return self.side * self.side


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened in the last resolution.

    ``values`` are point changes aligned with ``seats`` (empty when no points moved);
    ``step`` is the move (1-based) it happened in, 0 outside the moves; ``cell`` is a
    teleport's landing cell or a meet's cell, else -1.
    """

    what: str
    step: int
    seats: tuple[int, ...]
    values: tuple[int, ...] = ()
    cell: int = -1


@dataclass(frozen=True, slots=True)
class Table:
    """Per-seat game data, indexed by seat."""

    points: tuple[int, ...]
    cells: tuple[int, ...]  # row * side + column; -1 when not on the board
    out: tuple[int, ...]  # 0 while in the game, else the elimination wave (1 = first out)
    queue: tuple[int, ...]  # the itness queue, front first; living seats only
    it: int  # -1 before the bids are settled (and when nobody is left)
    moves: tuple[int, ...]  # moves per round: 1 + upgrades bought
    teleported: tuple[bool, ...]  # tried a teleport in the last round
    tag_last_round: bool

    @classmethod
    def start(cls, seats: int, points: int) -> Table:
        return cls(
            (points,) * seats,
            (-1,) * seats,
            (0,) * seats,
            (),
            -1,
            (1,) * seats,
            (False,) * seats,
            False,
        )

    def living(self) -> tuple[int, ...]:
        return tuple(s for s, wave in enumerate(self.out) if wave == 0)

    def can_teleport(self, seat: int) -> bool:
        """ "only ... right after a person is tagged or you used teleportation last round" """
        return self.tag_last_round or self.teleported[seat]


class _Work:
    """A mutable working copy of a Table, local to one resolution."""

    def __init__(self, table: Table) -> None:
        self.points = list(table.points)
        self.cells = list(table.cells)
        self.out = list(table.out)
        self.queue = list(table.queue)
        self.it = table.it
        self.moves = list(table.moves)
        self.events: list[Event] = []
        self.alive = [s for s, wave in enumerate(self.out) if wave == 0]  # kept by eliminate

    def gain(
        self, what: str, step: int, seats: Sequence[int], amounts: Sequence[int], cell: int = -1
    ) -> None:
        for seat, amount in zip(seats, amounts, strict=True):
            self.points[seat] += amount
        self.events.append(Event(what, step, tuple(seats), tuple(amounts), cell))

    def send_to_back(self, seat: int) -> None:
        self.queue.remove(seat)
        self.queue.append(seat)

    def eliminate(self, step: int) -> None:
        """ "When a person runs out of points, they are out of the game." """
        gone = [s for s in self.alive if self.points[s] <= 0]
        if not gone:
            return
        self.alive = [s for s in self.alive if self.points[s] > 0]
        wave = max(self.out) + 1
        for seat in gone:
            self.out[seat] = wave
            self.cells[seat] = -1
            self.queue.remove(seat)
        self.events.append(Event(OUT, step, tuple(gone)))
        if self.it in gone:
            # "the person first in the itness queue is made it and is moved to the back"
            self.it = self.queue[0] if self.queue else -1
            if self.queue:
                self.send_to_back(self.it)
                self.events.append(Event(MADE_IT, step, (self.it,)))

    def table(self, teleported: tuple[bool, ...], tag_last_round: bool) -> Table:
        return Table(
            tuple(self.points),
            tuple(self.cells),
            tuple(self.out),
            tuple(self.queue),
            self.it,
            tuple(self.moves),
            teleported,
            tag_last_round,
        )


def settle_bids(
    table: Table,
    minimums: Sequence[int],
    bids: Sequence[int],
    forfeits: frozenset[int] = frozenset(),
) -> tuple[Table, tuple[Event, ...]]:
    """Pay the bids, form the itness queue (lower bid first, then lower minimum), pick the it.

    ``forfeits``: convicted seats (SPEC §4.4), first in the queue whatever they bid."""
    work = _Work(table)
    seats = range(len(bids))
    work.gain(BID, 0, seats, [-b for b in bids])
    work.queue = sorted(seats, key=lambda s: (s not in forfeits, bids[s], minimums[s]))
    work.eliminate(0)
    if work.queue:  # the front of the queue is it, and goes to the back like any new it
        work.it = work.queue[0]
        work.send_to_back(work.it)
        work.events.append(Event(MADE_IT, 0, (work.it,)))
    return work.table(table.teleported, False), tuple(work.events)


def place(table: Table, cells: int, picks: Sequence[int]) -> Table:
    """Living seats, in seat order, each take the picks[i]-th still-free cell."""
    free = list(range(cells))
    placed = list(table.cells)
    for seat, pick in zip(table.living(), picks, strict=True):
        placed[seat] = free.pop(pick)
    return Table(
        table.points,
        tuple(placed),
        table.out,
        table.queue,
        table.it,
        table.moves,
        table.teleported,
        table.tag_last_round,
    )


def teleport_slots(orders: Mapping[int, Order]) -> list[tuple[int, int]]:
    """(seat, move index) of every ordered teleport: seat order, then move order."""
    return [
        (seat, i)
        for seat in sorted(orders)
        for i, move in enumerate(orders[seat].moves)
        if move == TELEPORT
    ]


def resolve_round(
    table: Table, settings: Settings, orders: Mapping[int, Order], landings: Sequence[int]
) -> tuple[Table, tuple[Event, ...]]:
    """Resolve one round: upgrades, the moves one by one, stride recovery, the it tax.

    ``landings`` are the teleport destinations drawn for ``teleport_slots(orders)``;
    a teleport whose move is cancelled leaves its landing unused.
    """
    work = _Work(table)
    buyers, stomping, longest, teleports = [], [], 0, False
    for seat, order in orders.items():  # one pass for what the round needs of the orders
        if order.upgrade:
            buyers.append(seat)
        if order.stomp:
            stomping.append(seat)
        longest = max(longest, len(order.moves))
        teleports = teleports or TELEPORT in order.moves
    landing: dict[tuple[int, int], int] = {}
    if landings or teleports:
        landing = dict(zip(teleport_slots(orders), landings, strict=True))
    buyers.sort()
    for seat in buyers:  # bought now, usable from the next round on
        work.moves[seat] += 1
    if buyers:
        work.gain(UPGRADE, 0, buyers, [-settings.upgrade_cost] * len(buyers))
        work.eliminate(0)
    stompers = frozenset(stomping)
    side = settings.side

    def column_row(cell: int) -> Cell:  # the collide module's Cell of a cell index
        return cell % side, cell // side

    collided: set[int] = set()
    cancelled: set[int] = set()
    teleported: set[int] = set()
    tagged = False
    for index in range(longest):
        alive = work.alive
        if len(alive) <= 1:
            break
        step = index + 1
        origin, want, diagonal, edged = _steps(
            work, settings, orders, cancelled, teleported, landing, index
        )
        phases, ends = settle_move(alive, origin, want, stompers, diagonal, column_row)
        for phase in phases:  # in order: a tag may move the it on
            for kind, members, meet_cell in phase:
                collided.update(members)
                tagged |= _score(work, kind, members, meet_cell, stompers, step)
        cells = work.cells
        stopped = edged  # then the blocked: tried to move and did not get there
        for seat in alive:
            end = cells[seat] = ends[seat]
            if end != want[seat] != origin[seat]:
                stopped.append(seat)
        # "If you ... can't move to your desired spot for one of them, the rest of your
        # submitted moves are cancelled" (off the grid, or stopped by a collision).
        if stopped:
            stopped = sorted(set(stopped))
            cancelled.update(stopped)
            unfinished = [s for s in stopped if set(orders[s].moves[step:]) - {NOTHING}]
            if unfinished:
                work.events.append(Event(CANCEL, step, tuple(unfinished)))
        work.eliminate(step)
    if len(work.alive) > 1:
        recovering = [
            s
            for s in work.alive
            if s not in stompers and s not in collided and not orders[s].forfeit
        ]
        if recovering:
            work.gain(RECOVER, 0, recovering, [STRIDE_BONUS] * len(recovering))
        work.gain(TAX, 0, [work.it], [-IT_TAX])
        work.eliminate(0)
    seats = len(table.points)
    flags = tuple(s in teleported for s in range(seats)) if teleported else (False,) * seats
    return work.table(flags, tagged), tuple(work.events)


def _steps(
    work: _Work,
    settings: Settings,
    orders: Mapping[int, Order],
    cancelled: set[int],
    teleported: set[int],
    landing: Mapping[tuple[int, int], int],
    index: int,
) -> tuple[dict[int, int], dict[int, int], list[tuple[int, Cell, int]], list[int]]:
    """Every living player's origin and target cell for move ``index`` (teleports paid and
    noted in ``teleported``), its diagonal steps for ``settle_move``, and who hit the edge.

    Cells stay row-major indices: ``settle_move`` only needs them distinct, plus their
    (column, row) order for meets, so no Cell is built but for diagonal steps.
    """
    side, step = settings.side, index + 1
    cells = work.cells
    origin: dict[int, int] = {}
    want: dict[int, int] = {}
    diagonal: list[tuple[int, Cell, int]] = []
    edged: list[int] = []
    moves = {  # first, as before any point moves: a missing order is a KeyError
        s: NOTHING if s in cancelled or index >= len(orders[s].moves) else orders[s].moves[index]
        for s in work.alive
    }
    for seat, move in moves.items():  # cancelled players stand still
        here = origin[seat] = want[seat] = cells[seat]
        if move == NOTHING:
            continue
        if move == TELEPORT:
            teleported.add(seat)
            want[seat] = cell = landing[seat, index]
            work.points[seat] -= settings.teleport_cost
            work.events.append(Event(TELEPORTED, step, (seat,), (-settings.teleport_cost,), cell))
            continue
        dx, dy = DELTAS[move]
        x, y = here % side, here // side
        column, row = x + dx, y + dy
        if 0 <= column < side and 0 <= row < side:
            want[seat] = row * side + column
            if dx != 0 and dy != 0:
                diagonal.append((seat, (x + column, y + row), dx * dy))
        else:  # "a move that cannot be made": stay put
            edged.append(seat)
            work.events.append(Event(EDGE, step, (seat,)))
    return origin, want, diagonal, edged


def _score(
    work: _Work,
    kind: str,
    members: tuple[int, ...],
    meet_cell: int | None,
    stompers: frozenset[int],
    step: int,
) -> bool:
    """Book a collision's points and any tag it makes; True if it was a tag."""
    cell = -1 if meet_cell is None else meet_cell
    points = member_points(members, stompers)
    for seat, amount in zip(members, points, strict=True):
        work.points[seat] += amount
    work.events.append(Event(kind, step, members, points, cell))
    # "While you are it, you can tag someone by colliding into someone while stomping."
    # Several at once: the one nearest the front of the itness queue.
    if work.it not in members or work.it not in stompers:
        return False
    victim = min((s for s in members if s != work.it), key=work.queue.index)
    work.events.append(Event(TAG, step, (work.it, victim)))
    work.it = victim
    work.send_to_back(victim)
    return True
