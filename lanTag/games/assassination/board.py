"""Board geometry for TAG: The Assassination Game: squares, the Safe House, bases, paths.

Squares are numbered ``row * size + col`` with row 0 the north edge; players see
chess-style names (file a.. from the west, rank 1 at the south edge).  The Safe
House is the empty centre: one missing square on 5x5, the missing 2x2 block on
6x6.  Either way it is ONE space: a pawn in it stands at :data:`SAFE_HOUSE`
and steps out onto any square that borders the hole.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from lanTag.rules.base import Action

SAFE_HOUSE = -1  # the position of a pawn standing in the Safe House (not a square)
NO_SQUARE = -2  # "came from nowhere": the first step of a move may go any way

# Compass steps as (row delta, col delta); row 0 is north.
DIRECTIONS: dict[str, tuple[int, int]] = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}
SIDES = ("n", "e", "s", "w")  # bases are listed (and coin bits numbered) in this order

# Turn phases, shared by the engine and its view.  PICK: the roll-off for the first victim;
# ROLL: the mover's die; NULL: the victim re-rolls or keeps a null; MOVE: stepping; OVER.
PICK, ROLL, NULL, MOVE, OVER = "pick", "roll", "null", "move", "over"
PHASES = (PICK, ROLL, NULL, MOVE, OVER)


@dataclass(frozen=True, slots=True)
class Board:
    """One board size: which squares exist, where the bases and the assassins' starts are."""

    size: int
    hole: frozenset[int]  # the squares' worth of table covered by the Safe House
    bases: tuple[int, ...]  # one per side, in SIDES order
    starts: tuple[int, ...]  # assassin start squares, in placement order

    @property
    def squares(self) -> range:
        return range(self.size * self.size)

    def is_square(self, cell: int) -> bool:
        """A real square a pawn may stand on (on the board and not in the Safe House)."""
        return 0 <= cell < self.size * self.size and cell not in self.hole

    def name(self, cell: int) -> str:
        if cell == SAFE_HOUSE:
            return "safe-house"
        row, col = divmod(cell, self.size)
        return f"{chr(ord('a') + col)}{self.size - row}"

    def cell_of(self, name: str) -> int | None:
        """The square called ``name`` ("c4"), or None if there is no such square."""
        if len(name) < 2 or not name[1:].isdigit():
            return None
        col, rank = ord(name[0]) - ord("a"), int(name[1:])
        if not (0 <= col < self.size and 1 <= rank <= self.size):
            return None
        cell = (self.size - rank) * self.size + col
        return cell if self.is_square(cell) else None

    def toward(self, cell: int, direction: str) -> int | None:
        """The square one step from ``cell`` toward ``direction``; None off the board or into
        the Safe House."""
        row, col = divmod(cell, self.size)
        d_row, d_col = DIRECTIONS[direction]
        row, col = row + d_row, col + d_col
        if not (0 <= row < self.size and 0 <= col < self.size):
            return None
        target = row * self.size + col
        return target if target not in self.hole else None

    def neighbours(self, cell: int) -> tuple[int, ...]:
        """Squares one orthogonal step from ``cell``; from SAFE_HOUSE, every square bordering it."""
        return _neighbour_table(self)[cell]

    def direction(self, start: int, end: int) -> str:
        """The compass word of a one-step move between two adjacent squares."""
        return next(d for d in SIDES if self.toward(start, d) == end)


@cache
def board_for(seats: int) -> Board:
    """5x5 for 3-5 players, 6x6 for 6-8 ("6X6 for 6-8 players")."""
    if seats <= 5:
        # Middle square of each side; assassins on the corners, opposite corners first.
        return Board(5, frozenset({12}), bases=(2, 14, 22, 10), starts=(0, 24, 4, 20))
    # No side of 6x6 has a middle square: the bases form a pinwheel (c6, f4, d1, a3) so a
    # quarter turn maps the board onto itself, and each base is two steps from the Safe House.
    # Starts "one square out from the corners, with 2 to a corner": first one per corner
    # (opposite corners first, each the square clockwise of its corner), then the second.
    return Board(
        6,
        frozenset({14, 15, 20, 21}),
        bases=(2, 17, 33, 18),
        starts=(1, 34, 11, 24, 6, 29, 4, 31),
    )


@cache
def _neighbour_table(board: Board) -> dict[int, tuple[int, ...]]:
    table: dict[int, tuple[int, ...]] = {}
    for cell in board.squares:
        if board.is_square(cell):
            steps = (board.toward(cell, d) for d in SIDES)
            table[cell] = tuple(s for s in steps if s is not None)
    table[SAFE_HOUSE] = tuple(
        sorted(
            cell
            for cell in board.squares
            if board.is_square(cell) and any(_touches(board, cell, h) for h in board.hole)
        )
    )
    return table


@cache
def move_table(board: Board) -> dict[int, tuple[tuple[int, Action], ...]]:
    """Per position, its neighbours with the action that moves there, in neighbours() order:
    ``leave <square>`` out of the Safe House, ``step <direction>`` elsewhere."""
    table = {
        SAFE_HOUSE: tuple(
            (t, Action("leave", (board.name(t),))) for t in board.neighbours(SAFE_HOUSE)
        )
    }
    for cell in board.squares:
        if board.is_square(cell):
            table[cell] = tuple(
                (t, Action("step", (board.direction(cell, t),))) for t in board.neighbours(cell)
            )
    return table


def _touches(board: Board, a: int, b: int) -> bool:
    (ra, ca), (rb, cb) = divmod(a, board.size), divmod(b, board.size)
    return abs(ra - rb) + abs(ca - cb) == 1


def can_finish(
    board: Board,
    cell: int,
    came_from: int,
    remaining: int,
    blocked: frozenset[int],
    no_landing: frozenset[int],
) -> bool:
    """Can a pawn on ``cell`` still walk exactly ``remaining`` more steps?

    Each step is orthogonal, never back onto the square just left (``came_from``),
    never onto ``blocked`` squares, and the last step may not end on ``no_landing``.
    Rolls are at most 5 and a square has at most 3 onward choices, so the search
    is tiny (at most 3**5 leaves).
    """
    return _can_finish(_neighbour_table(board), cell, came_from, remaining, blocked, no_landing)


def _can_finish(
    table: dict[int, tuple[int, ...]],
    cell: int,
    came_from: int,
    remaining: int,
    blocked: frozenset[int],
    no_landing: frozenset[int],
) -> bool:
    # can_finish with the neighbour table looked up once and a loop for any(...)
    if remaining == 0:
        return cell not in no_landing
    for nxt in table[cell]:
        if (
            nxt != came_from
            and nxt not in blocked
            and _can_finish(table, nxt, cell, remaining - 1, blocked, no_landing)
        ):
            return True
    return False
