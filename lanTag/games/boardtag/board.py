"""Board Tag constants, the die value and geometry: the 8x8 squares Runners use and the
9x9 line intersections IT walks on.

Squares are numbered ``col + 8 * row`` with col, row in 0..7 (a1 = 0, h8 = 63; rank 1 is
the bottom row, north is up).  Intersections are numbered ``x + 9 * y`` with x, y in 0..8
counting board lines from the left and bottom edges, so intersection (x, y) is the lower-left
corner of the square in column x, row y, and the squares touching it are columns x-1..x,
rows y-1..y.
"""

from __future__ import annotations

from dataclasses import dataclass

SIZE = 8
LATTICE = SIZE + 1
FILES = "abcdefgh"
CENTRE = 4 + LATTICE * 4  # the intersection of the board's two middlemost lines

# Dice.
DICE_PER_SEAT = 3
MIN_SCORE = 1
MAX_SCORE = 6
OFF = -1  # the square of a die that is not on the board


@dataclass(frozen=True, slots=True)
class Runner:
    """One die: its owner's seat, the score it shows and its square (OFF when not on the board)."""

    owner: int
    score: int
    square: int


def seat_dice(seat: int) -> range:
    return range(DICE_PER_SEAT * seat, DICE_PER_SEAT * seat + DICE_PER_SEAT)


def with_die(dice: tuple[Runner, ...], index: int, score: int, square: int) -> tuple[Runner, ...]:
    """``dice`` with die ``index`` showing ``score`` on ``square``."""
    return (*dice[:index], Runner(dice[index].owner, score, square), *dice[index + 1 :])


def totals(dice: tuple[Runner, ...], seats: int) -> tuple[int, ...]:
    sums = [0] * seats
    for die in dice:
        sums[die.owner] += die.score
    return tuple(sums)


def unmoved(dice: tuple[Runner, ...], finished: tuple[int, ...], seat: int) -> tuple[int, ...]:
    """``seat``'s dice on the board that have not moved this Run Phase."""
    return tuple(i for i in seat_dice(seat) if dice[i].square != OFF and i not in finished)


# Phases, in game order.
CHOOSE_IT = "choose_it"  # chance: who starts as IT
PLACE = "place"  # setup: Runners go on edge squares
FACE = "face"  # setup: the IT player picks IT's first facing
RUN = "run"  # Run Phase
IT = "it"  # IT Phase
RETURN = "return"  # after a tag: the old IT die goes back on an edge square
OVER = "over"
PHASES = (CHOOSE_IT, PLACE, FACE, RUN, IT, RETURN, OVER)

# Runner steps: the eight neighbouring squares, clockwise from north.
STEPS: dict[str, tuple[int, int]] = {
    "n": (0, 1),
    "ne": (1, 1),
    "e": (1, 0),
    "se": (1, -1),
    "s": (0, -1),
    "sw": (-1, -1),
    "w": (-1, 0),
    "nw": (-1, 1),
}

# IT faces one of the four board lines through its intersection; the two squares on that side
# are "in front" (so there are always exactly two, as the text says).
FACINGS: dict[str, tuple[int, int]] = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
ARROWS = {"n": "^", "e": ">", "s": "v", "w": "<"}

# IT's knight-like jumps as (units forward, units to the right; negative = left):
# "two forward and one to the side, or two to either side and then one forward".
JUMPS: dict[str, tuple[int, int]] = {"ffl": (2, -1), "ffr": (2, 1), "llf": (1, -2), "rrf": (1, 2)}


def square_name(square: int) -> str:
    return f"{FILES[square % SIZE]}{square // SIZE + 1}"


def parse_square(name: str) -> int | None:
    """The square named like "e5", or None if ``name`` is no square of the board."""
    if len(name) != 2 or name[0] not in FILES or name[1] not in "12345678":
        return None
    return FILES.index(name[0]) + SIZE * (int(name[1]) - 1)


def is_edge(square: int) -> bool:
    col, row = square % SIZE, square // SIZE
    return col in (0, SIZE - 1) or row in (0, SIZE - 1)


EDGE_SQUARES = tuple(sq for sq in range(SIZE * SIZE) if is_edge(sq))


def step_target(square: int, direction: str) -> int | None:
    """The square one step from ``square`` towards ``direction``, or None off the board."""
    dc, dr = STEPS[direction]
    col, row = square % SIZE + dc, square // SIZE + dr
    if 0 <= col < SIZE and 0 <= row < SIZE:
        return col + SIZE * row
    return None


def point_xy(point: int) -> tuple[int, int]:
    return point % LATTICE, point // LATTICE


def point_name(point: int) -> str:
    x, y = point_xy(point)
    return f"({x},{y})"


def jump_target(point: int, facing: str, kind: str) -> int | None:
    """Where a jump of ``kind`` lands from ``point``; None if it would leave the lattice."""
    forward, right = JUMPS[kind]
    fx, fy = FACINGS[facing]
    rx, ry = fy, -fx  # a quarter turn clockwise
    x, y = point_xy(point)
    nx, ny = x + forward * fx + right * rx, y + forward * fy + right * ry
    if 0 <= nx < LATTICE and 0 <= ny < LATTICE:
        return nx + LATTICE * ny
    return None


def _touching(point: int) -> tuple[int, ...]:
    x, y = point_xy(point)
    return tuple(
        col + SIZE * row
        for row in (y - 1, y)
        for col in (x - 1, x)
        if 0 <= col < SIZE and 0 <= row < SIZE
    )


_TOUCHING = tuple(_touching(p) for p in range(LATTICE * LATTICE))  # asked on every Runner step


def touching_squares(point: int) -> tuple[int, ...]:
    """The (up to four) squares that have ``point`` as a corner: the squares "adjacent to IT"."""
    return _TOUCHING[point] if 0 <= point < len(_TOUCHING) else _touching(point)


def front_squares(point: int, facing: str) -> tuple[int, ...]:
    """The touching squares on the side IT faces (two, fewer at the board's edge)."""
    x, y = point_xy(point)
    fx, fy = FACINGS[facing]
    # Doubled coordinates keep the square centres (col + 1/2, row + 1/2) integral.
    return tuple(
        sq
        for sq in touching_squares(point)
        if (2 * (sq % SIZE) + 1 - 2 * x) * fx + (2 * (sq // SIZE) + 1 - 2 * y) * fy > 0
    )


def render_board(labels: dict[int, str], it_point: int, facing: str) -> list[str]:
    """Text rows, north at the top: two-character die labels in squares, IT's arrow on its
    intersection, '.' on the other intersections."""
    lines = ["  " + "".join(f" {f} " for f in FILES).rstrip()]
    for y in range(LATTICE - 1, -1, -1):
        marks = [ARROWS[facing] if x + LATTICE * y == it_point else "." for x in range(LATTICE)]
        lines.append("  " + "  ".join(marks))
        if y > 0:
            row = y - 1
            cells = "".join(f" {labels.get(c + SIZE * row, '  ')}" for c in range(SIZE))
            lines.append(f"{row + 1} {cells}".rstrip())
    return lines
