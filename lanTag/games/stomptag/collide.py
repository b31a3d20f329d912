"""Stomptag collision resolution for one move (one sub-step of a round).

Pure and free of ordering effects: the result depends on the set of steps, never on
the order they are given in.  The text's order is followed literally:

1. "trade places" (a *swap*);
2. "go to the same space" (a *meet*) and every chain it causes;
3. "a diagonal path crossing another person's" (a *cross*) and its chains;
   2 and 3 loop until nothing is left unresolved.

"If a person is counted in a collision, that same person is considered still for later
collision resolutions": a counted player never swaps or crosses again, and blocks the
cell it ends in.  A stopped player goes back to (stays in) its origin, so anyone still
heading there now runs into it: that is a chain.  "The stomper's move takes precedence
over the strider's move": a lone stomper among striders keeps its move, unless another
player of that collision holds the cell it wants (a stomper never pushes anyone out).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

Cell = tuple[int, int]  # (column, row), 0-based, row 0 is the north edge

SWAP = "swap"
MEET = "meet"
CROSS = "cross"

SAME_MODE_LOSS = -3  # "Two striders or two stompers that run into each other take 3 points"
STRIDER_LOSS = -6  # "the strider loses 6 points,
STOMPER_GAIN = 2  # while the stomper gains 2 points"


@dataclass(frozen=True, slots=True)
class Step:
    """One player's part in a move: where it stands, where it tries to be, and how."""

    seat: int
    origin: Cell
    target: Cell  # == origin for a player that stays put
    stomp: bool
    diagonal: bool = False  # a one-square diagonal step: the only path that can cross another


@dataclass(frozen=True, slots=True)
class Collision:
    """Players counted in one collision; every pair of them collided with each other."""

    kind: str  # SWAP, MEET or CROSS
    seats: tuple[int, ...]  # sorted
    cell: Cell | None = None  # the contested cell of a meet


@dataclass(frozen=True, slots=True)
class Resolution:
    ends: tuple[tuple[int, Cell], ...]  # (seat, cell after the move), sorted by seat
    phases: tuple[tuple[Collision, ...], ...]  # in resolution order; each phase is simultaneous
    blocked: frozenset[int]  # seats that tried to move and did not get where they wanted

    def end_of(self, seat: int) -> Cell:
        for s, cell in self.ends:
            if s == seat:
                return cell
        raise KeyError(seat)

    def collisions(self) -> tuple[Collision, ...]:
        return tuple(c for phase in self.phases for c in phase)


def pair_points(stomp_a: bool, stomp_b: bool) -> tuple[int, int]:
    """Point changes of two players that collide, by their modes."""
    if stomp_a == stomp_b:
        return SAME_MODE_LOSS, SAME_MODE_LOSS
    return (STOMPER_GAIN, STRIDER_LOSS) if stomp_a else (STRIDER_LOSS, STOMPER_GAIN)


def collision_points(collision: Collision, stompers: Container[int]) -> tuple[int, ...]:
    """Each member's point change: the sum over every other member it collided with."""
    totals = []
    for seat in collision.seats:
        total = 0
        for other in collision.seats:
            if other != seat:
                total += pair_points(seat in stompers, other in stompers)[0]
        totals.append(total)
    return tuple(totals)


def member_points(seats: tuple[int, ...], stompers: Container[int]) -> tuple[int, ...]:
    """:func:`collision_points` for distinct ``seats``, in closed form: a stomper meets
    k-1 other stompers and m-k striders, a strider k stompers and m-k-1 other striders."""
    flags = [seat in stompers for seat in seats]
    m, k = len(flags), flags.count(True)
    as_stomper = SAME_MODE_LOSS * (k - 1) + STOMPER_GAIN * (m - k)
    as_strider = STRIDER_LOSS * k + SAME_MODE_LOSS * (m - k - 1)
    return tuple(as_stomper if flag else as_strider for flag in flags)


def resolve_move(steps: Iterable[Step]) -> Resolution:
    """Resolve one simultaneous move of every player on the board."""
    by_seat = {st.seat: st for st in sorted(steps, key=_seat_of)}
    seats = tuple(by_seat)
    origin = {seat: st.origin for seat, st in by_seat.items()}
    want = {seat: st.target for seat, st in by_seat.items()}
    stomp = {seat for seat, st in by_seat.items() if st.stomp}
    diagonal = [
        (seat, *crossing(st.origin, st.target)) for seat, st in by_seat.items() if st.diagonal
    ]
    phases, target = settle_move(seats, origin, want, stomp, diagonal, _same)
    blocked = frozenset(
        seat for seat in seats if want[seat] != origin[seat] and target[seat] != want[seat]
    )
    return Resolution(
        tuple((seat, target[seat]) for seat in seats),
        tuple(tuple(Collision(*raw) for raw in phase) for phase in phases),
        blocked,
    )


def _seat_of(st: Step) -> int:
    return st.seat


def _same(cell: Cell) -> Cell:
    return cell


def crossing(origin: Cell, target: Cell) -> tuple[Cell, int]:
    """A diagonal step's centre key (the doubled centre of its 2x2 square) and slope sign."""
    (ox, oy), (tx, ty) = origin, target
    return (ox + tx, oy + ty), (tx - ox) * (ty - oy)


K = TypeVar("K", bound=Hashable)  # a cell: a Cell here, a row-major index in the round
# A collision as plain data: (kind, sorted seats, the contested cell of a meet or None).
RawCollision = tuple[str, tuple[int, ...], K | None]


def settle_move(
    seats: Sequence[int],
    origin: Mapping[int, K],
    want: Mapping[int, K],
    stomp: Container[int],
    diagonal: Sequence[tuple[int, Cell, int]],
    cell_order: Callable[[K], Cell],
) -> tuple[list[tuple[RawCollision[K], ...]], dict[int, K]]:
    """The phases of collisions and every seat's end cell: :func:`resolve_move` on plain data
    (the round calls it directly, with no Step objects and int cells).

    ``seats`` ascending and unique; ``diagonal`` holds (seat, centre, slope) of every
    one-square diagonal step by seat (see :func:`crossing`); ``stomp`` holds the stompers;
    ``cell_order`` maps a cell to its (column, row), the order meets are listed in.
    """
    holder = {origin[seat]: seat for seat in seats}
    if len(holder) != len(seats):
        raise ValueError("two players start the move on the same cell")
    target = dict(want)
    counted: set[int] = set()
    phases: list[tuple[RawCollision[K], ...]] = []

    def settle(collisions: list[RawCollision[K]]) -> None:
        # one phase: collisions of the same precedence happen simultaneously (members are
        # disjoint, so the order is immaterial)
        for _, members, _ in collisions:
            winner = _precedence(members, origin, target, stomp)
            for seat in members:
                counted.add(seat)
                if seat != winner:
                    target[seat] = origin[seat]
        phases.append(tuple(collisions))

    # 1. swaps; nobody is counted yet, so a seat whose target another holds is a free mover
    swaps: list[RawCollision[K]] = []
    for a in seats:
        b = holder.get(target[a])
        if b is not None and a < b and target[b] == origin[a]:
            swaps.append((SWAP, (a, b), None))
    if swaps:
        settle(swaps)
    while True:
        # 2. meets (a player standing still "goes to" its own cell), until none is left
        while len(set(target.values())) != len(seats):
            by_cell: dict[K, list[int]] = {}
            for seat in seats:
                by_cell.setdefault(target[seat], []).append(seat)
            shared = [c for c, members in by_cell.items() if len(members) > 1]
            shared.sort(key=cell_order)
            settle([(MEET, tuple(by_cell[cell]), cell) for cell in shared])
        # 3. crosses: two diagonal steps share the centre of their 2x2 square and slope
        # opposite ways (same slope and centre would be a swap, settled already)
        by_centre: dict[Cell, dict[int, int]] = {}
        for seat, centre, slope in diagonal:
            if seat not in counted and target[seat] != origin[seat]:
                by_centre.setdefault(centre, {})[slope] = seat
        crosses: list[RawCollision[K]] = [
            (CROSS, tuple(sorted(slopes.values())), None)
            for _, slopes in sorted(by_centre.items())
            if len(slopes) == 2
        ]
        if not crosses:
            break
        settle(crosses)
    return phases, target


def _precedence(
    members: tuple[int, ...],
    origin: Mapping[int, K],
    target: Mapping[int, K],
    stomp: Container[int],
) -> int | None:
    """The lone stomper among striders, if no other member holds the cell it wants."""
    stompers = [m for m in members if m in stomp]
    if len(stompers) != 1:
        return None
    stomper = stompers[0]
    wanted = target[stomper]
    if any(origin[m] == wanted for m in members if m != stomper):
        return None
    return stomper
