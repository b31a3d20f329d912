"""Prototag board geometry: tiles, steps, start tiles and the text grid."""

from __future__ import annotations

Tile = tuple[int, int]  # (row, column); row 0 is the north edge, column 0 the west edge

# Orthogonal steps only ("straight lines and right angles"), listed clockwise from north.
STEP_DELTAS: dict[str, Tile] = {"n": (-1, 0), "e": (0, 1), "s": (1, 0), "w": (0, -1)}


def on_board(tile: Tile, size: int) -> bool:
    return 0 <= tile[0] < size and 0 <= tile[1] < size


def is_adjacent(a: Tile, b: Tile) -> bool:
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def can_enter(
    target: Tile,
    size: int,
    path: tuple[Tile, ...],
    positions: tuple[Tile, ...],
    chaser: bool,
    immune: int,
) -> bool:
    """A step onto ``target`` is legal (PrototagState.blocked_reason is None) for a mover next
    to it: on the board, off this turn's path, and free, or else the mover is the tagged
    ``chaser`` and the ``immune`` seat is not there."""
    row, col = target
    if not (0 <= row < size and 0 <= col < size) or target in path:
        return False
    return target not in positions or (chaser and (immune < 0 or positions[immune] != target))


def can_step(
    tile: Tile,
    size: int,
    path: tuple[Tile, ...],
    positions: tuple[Tile, ...],
    chaser: bool,
    immune: int,
) -> bool:
    """The mover on ``tile`` has some legal step (``can_enter`` one of its neighbours)."""
    row, col = tile
    for d_row, d_col in STEP_DELTAS.values():  # a loop, not any(...): no generator per call
        if can_enter((row + d_row, col + d_col), size, path, positions, chaser, immune):
            return True
    return False


def perimeter(size: int) -> tuple[Tile, ...]:
    """The edge tiles, clockwise from the north-west corner."""
    last = size - 1
    north = [(0, col) for col in range(last)]
    east = [(row, last) for row in range(last)]
    south = [(last, col) for col in range(last, 0, -1)]
    west = [(row, 0) for row in range(last, 0, -1)]
    return tuple(north + east + south + west)


def start_tiles(size: int, seats: int) -> tuple[Tile, ...]:
    """Seats spread evenly round the edge, seat 0 in the north-west corner, going clockwise.

    Clockwise matches "the next player is the one to the left" at a real table; four seats
    get the four corners, eight seats the corners and the edge middles of a 7x7 board.
    """
    ring = perimeter(size)
    return tuple(ring[seat * len(ring) // seats] for seat in range(seats))


def column_name(col: int) -> str:
    return chr(ord("a") + col)


def render_grid(
    size: int, positions: tuple[Tile, ...], tagged: int, path: tuple[Tile, ...]
) -> list[str]:
    """Rows of 3-character cells: ' . ' free, ' + ' visited this turn, ' 2 ' seat 2,
    '*0 ' tagged seat 0, '*02' tagged seat 0 sharing its tile with seat 2."""
    lines = ["   " + "".join(f" {column_name(col)} " for col in range(size)).rstrip()]
    for row in range(size):
        cells = []
        for col in range(size):
            here = [seat for seat, tile in enumerate(positions) if tile == (row, col)]
            if tagged in here:
                others = "".join(str(seat) for seat in here if seat != tagged)
                cells.append(f"*{tagged}{others or ' '}")
            elif here:
                cells.append(f" {here[0]} ")
            elif (row, col) in path:
                cells.append(" + ")
            else:
                cells.append(" . ")
        lines.append(f"{row + 1:>2} " + "".join(cells).rstrip())
    return lines
