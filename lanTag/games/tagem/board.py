"""The Tag 'em map format (specified in docs/maps.md) and its loader.

A map file is a short ``key: value`` header, a ``grid:`` line, then one line
per row of tile glyphs.  Loading checks everything the rules later rely on
(every starting point reachable, every X formation open) and reports the
first problem with its file, line and column, so the rule engine never meets
a broken map.  Parsed maps are frozen values compared by their text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from importlib import resources

from lanTag.errors import LanTagError

__all__ = [
    "DIRS",
    "SHIPPED_MAPS",
    "GameMap",
    "MapError",
    "Tile",
    "auto_map",
    "canonical_map",
    "check_formations",
    "parse_map",
    "shipped_map",
]


class Tile(IntEnum):
    PATH = 0
    COVER = 1
    WADE = 2
    GARRISON = 3
    BLOCK = 4
    VOID = 5


TILE_OF_GLYPH: dict[str, Tile] = {
    ".": Tile.PATH,
    "%": Tile.COVER,
    "~": Tile.WADE,
    "^": Tile.GARRISON,
    "#": Tile.BLOCK,
    "_": Tile.VOID,
}
GLYPH_OF_TILE: dict[int, str] = {int(tile): glyph for glyph, tile in TILE_OF_GLYPH.items()}
START_GLYPHS = "12345678"  # starting point N, on a Path tile
FLAG_GLYPH = "F"  # the Capture-The-Flag flag spot, on a Path tile
MAX_PLAYERS = len(START_GLYPHS)

DIRS = ("n", "e", "s", "w")
_DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
# The X formation: the starting point, its four diagonals, then the arms one step further
# out for a sixth to ninth pawn (the text's "continue the X formation").
X_OFFSETS = ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1), (-2, -2), (-2, 2), (2, -2), (2, 2))
_X_NAMES = ("start", "NW", "NE", "SW", "SE", "NW", "NE", "SW", "SE")
_HEADER_KEYS = ("name", "pom", "players")

SHIPPED_MAPS = ("skirmish", "outpost", "crescent", "ringfort")  # smallest first


class MapError(LanTagError, ValueError):
    """A map file the loader rejects: where (file, line, column) and what is wrong."""

    def __init__(self, source: str, line: int, column: int, reason: str) -> None:
        super().__init__(f"{source}:{line}:{column}: {reason}")
        self.source = source
        self.line = line
        self.column = column
        self.reason = reason

    def with_source(self, source: str) -> MapError:
        """The same error naming another file (for callers that know the real path)."""
        return MapError(source, self.line, self.column, self.reason)


@dataclass(frozen=True, slots=True, repr=False)
class GameMap:
    """A checked map.  Cells are flat indices ``row * width + col``; equal iff the text is."""

    text: str
    source: str = field(compare=False)
    name: str = field(compare=False)
    pom: int = field(compare=False)
    min_players: int = field(compare=False)
    max_players: int = field(compare=False)
    width: int = field(compare=False)
    height: int = field(compare=False)
    tiles: tuple[int, ...] = field(compare=False)
    starts: tuple[int, ...] = field(compare=False)  # cell of starting point 1, 2, ...
    flag_spot: int = field(compare=False)  # -1: the map has none
    # steps[cell][d]: the enterable cell one step in DIRS[d] from cell, or -1
    steps: tuple[tuple[int, int, int, int], ...] = field(compare=False)
    # reach[i]: every cell reachable from starting point i, nearest first (ties row-major)
    reach: tuple[tuple[int, ...], ...] = field(compare=False)
    near: tuple[int, ...] = field(compare=False)  # how many of reach[i] lie under 2 steps away
    players_line: int = field(compare=False)  # file line of the 'players:' header
    grid_line: int = field(compare=False)  # file line of the first grid row

    def __repr__(self) -> str:  # the generated one would print every table
        return f"GameMap({self.name!r}, {self.width}x{self.height}, from {self.source!r})"

    def where(self, cell: int) -> tuple[int, int]:
        """(file line, column) of a cell, for error messages."""
        return self.grid_line + cell // self.width, cell % self.width + 1

    def error_at(self, cell: int, reason: str) -> MapError:
        line, column = self.where(cell)
        return MapError(self.source, line, column, reason)

    def enterable(self, cell: int) -> bool:
        return self.tiles[cell] < Tile.BLOCK

    def x_cell(self, start: int, slot: int) -> int:
        """The cell of X formation slot ``slot`` around ``start``, or -1 if off the map."""
        dr, dc = X_OFFSETS[slot]
        row, col = start // self.width + dr, start % self.width + dc
        if 0 <= row < self.height and 0 <= col < self.width:
            return row * self.width + col
        return -1


def _int_value(source: str, line: int, column: int, key: str, text: str) -> int:
    if not text.isdigit():
        raise MapError(source, line, column, f"'{key}' needs a whole number, got {text!r}")
    return int(text)


def _players(source: str, line: int, column: int, text: str) -> tuple[int, int]:
    low_text, dash, high_text = text.partition("-")
    low = _int_value(source, line, column, "players", low_text.strip())
    high = _int_value(source, line, column, "players", high_text.strip()) if dash else low
    if not 2 <= low <= high <= MAX_PLAYERS:
        raise MapError(
            source, line, column, f"'players' must be N or N-M with 2 <= N <= M <= {MAX_PLAYERS}"
        )
    return low, high


def parse_map(text: str, source: str = "<map>") -> GameMap:
    """Parse and check a map; raises MapError naming the first problem."""
    return _parse_cached(text, source)


@lru_cache(maxsize=32)  # a pure function of its arguments: states re-parse the same few texts
def _parse_cached(text: str, source: str) -> GameMap:
    lines = text.splitlines()
    header: dict[str, tuple[str, int, int]] = {}
    grid_index = -1
    for index, raw in enumerate(lines):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.lower() == "grid:":
            grid_index = index + 1
            break
        key, colon, value = stripped.partition(":")
        key = key.strip().lower()
        column = raw.index(stripped[0]) + 1
        if not colon:
            raise MapError(
                source, index + 1, column, f"expected 'key: value' or 'grid:', got {stripped!r}"
            )
        if key not in _HEADER_KEYS:
            raise MapError(
                source, index + 1, column, f"unknown header {key!r} (name, pom, players)"
            )
        if key in header:
            raise MapError(source, index + 1, column, f"header {key!r} given twice")
        after = raw.index(":") + 1
        value_column = after + len(raw[after:]) - len(raw[after:].lstrip()) + 1
        header[key] = (value.strip(), index + 1, value_column)
    if grid_index < 0:
        raise MapError(source, len(lines) + 1, 1, "no 'grid:' line: the grid must follow it")
    for key in _HEADER_KEYS:
        if key not in header:
            raise MapError(source, 1, 1, f"the header needs '{key}:'")
    name, _, _ = header["name"]
    if not name:
        raise MapError(source, header["name"][1], header["name"][2], "'name' is empty")
    pom_text, pom_line, pom_column = header["pom"]
    pom = _int_value(source, pom_line, pom_column, "pom", pom_text)
    if not 1 <= pom <= 99:
        raise MapError(source, pom_line, pom_column, "'pom' must be 1-99")
    players_text, players_line, players_column = header["players"]
    low, high = _players(source, players_line, players_column, players_text)

    rows = [line.rstrip(" \t") for line in lines[grid_index:]]
    while rows and not rows[-1]:
        rows.pop()
    if not rows:
        raise MapError(source, grid_index + 1, 1, "the grid is empty")
    width = len(rows[0])
    tiles: list[int] = []
    starts: dict[int, int] = {}
    flag_spot = -1
    for r, row in enumerate(rows):
        line = grid_index + r + 1
        for c, glyph in enumerate(row):
            cell = r * width + c
            if glyph in TILE_OF_GLYPH:
                tiles.append(TILE_OF_GLYPH[glyph])
                continue
            tiles.append(Tile.PATH)
            if glyph in START_GLYPHS:
                if int(glyph) in starts:
                    raise MapError(source, line, c + 1, f"starting point {glyph} appears twice")
                starts[int(glyph)] = cell
            elif glyph == FLAG_GLYPH:
                if flag_spot >= 0:
                    raise MapError(source, line, c + 1, "a map has at most one flag spot 'F'")
                flag_spot = cell
            else:
                known = "".join(TILE_OF_GLYPH) + START_GLYPHS + FLAG_GLYPH
                raise MapError(source, line, c + 1, f"unknown glyph {glyph!r} (known: {known})")
        if len(row) != width:
            raise MapError(
                source,
                line,
                min(len(row), width) + 1,
                f"row is {len(row)} tiles wide but the first row is {width}: "
                "pad a shorter row with '_' (void)",
            )
    height = len(rows)
    for number in range(1, len(starts) + 1):
        if number not in starts:
            late = min(n for n in starts if n > number)
            line, column = grid_index + starts[late] // width + 1, starts[late] % width + 1
            raise MapError(source, line, column, f"starting point {late} without {number}")
    if len(starts) < high:
        raise MapError(
            source,
            players_line,
            players_column,
            f"'players' allows {high} but the grid has only {len(starts)} starting points",
        )
    steps = _steps(tiles, width, height)
    start_cells = tuple(starts[n] for n in range(1, len(starts) + 1))
    reach, near = zip(*(_reach(steps, cell) for cell in start_cells), strict=True)
    board = GameMap(
        text=text,
        source=source,
        name=name,
        pom=pom,
        min_players=low,
        max_players=high,
        width=width,
        height=height,
        tiles=tuple(tiles),
        starts=start_cells,
        flag_spot=flag_spot,
        steps=steps,
        reach=reach,
        near=near,
        players_line=players_line,
        grid_line=grid_index + 1,
    )
    connected = set(reach[0])
    for number, cell in enumerate(start_cells[1:], start=2):
        if cell not in connected:
            raise board.error_at(cell, f"starting point {number} cannot be reached from point 1")
    if flag_spot >= 0 and flag_spot not in connected:
        raise board.error_at(flag_spot, "the flag spot cannot be reached from starting point 1")
    check_formations(board, range(len(start_cells)), 5)
    return board


def _steps(tiles: list[int], width: int, height: int) -> tuple[tuple[int, int, int, int], ...]:
    table = []
    for cell, tile in enumerate(tiles):
        row, col = divmod(cell, width)
        targets = [-1, -1, -1, -1]
        if tile < Tile.BLOCK:
            for d, (dr, dc) in enumerate(_DELTAS):
                r, c = row + dr, col + dc
                if 0 <= r < height and 0 <= c < width and tiles[r * width + c] < Tile.BLOCK:
                    targets[d] = r * width + c
        table.append((targets[0], targets[1], targets[2], targets[3]))
    return tuple(table)


def _reach(steps: tuple[tuple[int, int, int, int], ...], start: int) -> tuple[tuple[int, ...], int]:
    """Cells reachable from ``start`` by distance then row-major order, and how many are < 2."""
    order: list[int] = []
    near = 0
    frontier, seen, distance = [start], {start}, 0
    while frontier:
        frontier.sort()
        order.extend(frontier)
        if distance < 2:
            near = len(order)
        nxt = []
        for cell in frontier:
            for target in steps[cell]:
                if target >= 0 and target not in seen:
                    seen.add(target)
                    nxt.append(target)
        frontier, distance = nxt, distance + 1
    return tuple(order), near


def check_formations(
    board: GameMap, slots: Iterable[int], pawns: int
) -> tuple[tuple[int, ...], ...]:
    """The X formation cells of each starting point in ``slots`` for ``pawns`` pawns.

    Raises MapError where a formation leaves the map, meets a Block or void
    tile, a starting point, the flag spot, another formation, or a tile cut off
    from the starting points.
    """
    formations: list[tuple[int, ...]] = []
    owner: dict[int, int] = {}
    connected = set(board.reach[0])
    for slot in slots:
        start = board.starts[slot]
        cells = []
        for index in range(pawns):
            cell = board.x_cell(start, index)
            what = f"X formation of starting point {slot + 1} ({_X_NAMES[index]}, pawn {index})"
            if cell < 0:
                raise board.error_at(start, f"{what} runs off the map")
            if not board.enterable(cell):
                tile = Tile(board.tiles[cell]).name.capitalize()
                raise board.error_at(cell, f"{what} is blocked by a {tile} tile")
            if index and (cell in board.starts or cell == board.flag_spot):
                raise board.error_at(cell, f"{what} lands on a starting point or the flag spot")
            if cell in owner:
                raise board.error_at(
                    cell, f"{what} overlaps the formation of starting point {owner[cell] + 1}"
                )
            if cell not in connected:
                raise board.error_at(cell, f"{what} is cut off from the starting points")
            owner[cell] = slot
            cells.append(cell)
        formations.append(tuple(cells))
    return tuple(formations)


def shipped_map(name: str) -> GameMap:
    """One of the maps shipped in lanTag/games/tagem/maps (package data)."""
    if name not in SHIPPED_MAPS:
        raise ValueError(f"no shipped map {name!r} (maps: {', '.join(SHIPPED_MAPS)})")
    return _load_shipped(name)


@lru_cache(maxsize=len(SHIPPED_MAPS))  # package data never changes while running
def _load_shipped(name: str) -> GameMap:
    maps = resources.files("lanTag.games.tagem") / "maps"
    text = (maps / f"{name}.map").read_text(encoding="utf-8")
    return parse_map(text, f"{name}.map")


def canonical_map(board: GameMap) -> GameMap:
    """The same map as the facts alone: header values and grid, no comments or blank lines.

    States keep this form, so rewording a map's comments never changes a state hash.
    """
    rows = board.text.splitlines()[board.grid_line - 1 : board.grid_line - 1 + board.height]
    low, high = board.min_players, board.max_players
    players = f"{low}-{high}" if low != high else f"{low}"
    lines = [f"name: {board.name}", f"pom: {board.pom}", f"players: {players}", "grid:"]
    text = "\n".join([*lines, *(row.rstrip(" \t") for row in rows)]) + "\n"
    return board if text == board.text else parse_map(text, board.source)


def auto_map(seats: int) -> GameMap:
    """The smallest shipped map that seats ``seats`` players."""
    for name in SHIPPED_MAPS:
        board = shipped_map(name)
        if board.min_players <= seats <= board.max_players:
            return board
    raise ValueError(f"no shipped map seats {seats} players; pass a map file")
