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

from collections.abc import Container, Iterable
from dataclasses import dataclass

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


def resolve_move(steps: Iterable[Step]) -> Resolution:
    """Resolve one simultaneous move of every player on the board."""
    return _Resolver(steps).run()


class _Resolver:
    """Working state of one resolution (local to resolve_move, never shared)."""

    def __init__(self, steps: Iterable[Step]) -> None:
        self.steps = {st.seat: st for st in sorted(steps, key=lambda st: st.seat)}
        self.seats = tuple(self.steps)
        self.holder = {st.origin: st.seat for st in self.steps.values()}
        if len(self.holder) != len(self.steps):
            raise ValueError("two players start the move on the same cell")
        self.target = {seat: st.target for seat, st in self.steps.items()}
        self.counted: set[int] = set()
        self.phases: list[tuple[Collision, ...]] = []

    def run(self) -> Resolution:
        self._settle(self._swaps())
        while True:
            while meets := self._meets():
                self._settle(meets)
            crosses = self._crosses()
            if not crosses:
                break
            self._settle(crosses)
        blocked = frozenset(
            seat
            for seat, st in self.steps.items()
            if st.target != st.origin and self.target[seat] != st.target
        )
        ends = tuple((seat, self.target[seat]) for seat in self.seats)
        return Resolution(ends, tuple(self.phases), blocked)

    def _free_mover(self, seat: int) -> bool:
        return seat not in self.counted and self.target[seat] != self.steps[seat].origin

    def _swaps(self) -> list[Collision]:
        found = []
        for a in self.seats:
            b = self.holder.get(self.target[a])
            if (
                b is not None
                and a < b
                and self._free_mover(a)
                and self._free_mover(b)
                and self.target[b] == self.steps[a].origin
            ):
                found.append(Collision(SWAP, (a, b)))
        return found

    def _meets(self) -> list[Collision]:
        by_cell: dict[Cell, list[int]] = {}
        for seat in self.seats:  # a player standing still "goes to" its own cell
            by_cell.setdefault(self.target[seat], []).append(seat)
        return [
            Collision(MEET, tuple(members), cell)
            for cell, members in sorted(by_cell.items())
            if len(members) > 1
        ]

    def _crosses(self) -> list[Collision]:
        # Two diagonal steps cross when they share the centre of their 2x2 square and
        # slope opposite ways; same slope and centre would be a swap, settled already.
        by_centre: dict[Cell, dict[int, int]] = {}
        for seat in self.seats:
            st = self.steps[seat]
            if st.diagonal and self._free_mover(seat):
                (ox, oy), (tx, ty) = st.origin, st.target
                slope = (tx - ox) * (ty - oy)
                by_centre.setdefault((ox + tx, oy + ty), {})[slope] = seat
        return [
            Collision(CROSS, tuple(sorted(slopes.values())))
            for _, slopes in sorted(by_centre.items())
            if len(slopes) == 2
        ]

    def _settle(self, collisions: list[Collision]) -> None:
        """Settle one phase: collisions of the same precedence happen simultaneously."""
        if not collisions:
            return
        for collision in collisions:  # members are disjoint, so the order is immaterial
            winner = self._precedence(collision.seats)
            for seat in collision.seats:
                self.counted.add(seat)
                if seat != winner:
                    self.target[seat] = self.steps[seat].origin
        self.phases.append(tuple(collisions))

    def _precedence(self, members: tuple[int, ...]) -> int | None:
        """The lone stomper among striders, if no other member holds the cell it wants."""
        stompers = [m for m in members if self.steps[m].stomp]
        if len(stompers) != 1:
            return None
        stomper = stompers[0]
        wanted = self.target[stomper]
        if any(self.steps[m].origin == wanted for m in members if m != stomper):
            return None
        return stomper
