"""The one coordinate convention of every game's places: algebraic, as on a chessboard.

A place is a **file** then a **rank**: files are letters from the left (west) edge, ``a``,
``b``, ... ``z``, then ``aa``, ``ab``, ... (a board wider than 26); ranks are numbers from
the bottom (south) edge, ``1``, ``2``, ...  ``a1`` is the bottom-left corner with north up,
for a square (Board Tag, Assassination), a tile (Prototag, Tag 'em), a cell (Stomptag) and
a crossing point of grid lines (Board Tag's IT: the point is named like the square whose
bottom-left corner it is, so the lines read ``a``..``i`` and ``1``..``9``).

Positions (``lantag position``) write places this way and mark it with the envelope field
``"coordinates": "algebraic"``; a position without that field was written before the
convention and is read in its game's old spelling (each game's ``position.py`` and
docs/rules/<game>.md say which).  The boards on screen label their files and ranks the same way.

Only words: no place name enters consensus bytes here.  Two games' actions do name squares
(Board Tag's ``place/pick/tag e5``, Assassination's ``leave c3``) with their own parsers,
which already spelled squares this way; tests/rules/test_coordinates.py pins that they agree
with this module.  Engines number places internally as they always have (a row from the top
times the width, plus the column; Stomptag's starting cells and teleport landings are drawn
as such indices), and that numbering is consensus and stays.
"""

from __future__ import annotations

import re

__all__ = [
    "ALGEBRAIC",
    "FIELD",
    "file_index",
    "file_labels",
    "file_name",
    "grid_name",
    "parse",
    "parse_grid",
    "place_name",
    "span",
]

FIELD = "coordinates"  # the position envelope's field naming the convention
ALGEBRAIC = "algebraic"  # its one value

_PLACE = re.compile(r"([a-z]{1,3})([1-9][0-9]{0,3})")  # used with fullmatch


def file_name(index: int) -> str:
    """The letters of file ``index`` (0: ``a``, 25: ``z``, 26: ``aa``, 27: ``ab``, ...)."""
    if index < 0:
        raise ValueError(f"no file {index}")
    letters = ""
    number = index + 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def file_index(letters: str) -> int:
    """The index of the file named ``letters`` (the inverse of :func:`file_name`)."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("a") + 1
    return number - 1


def file_labels(count: int) -> list[list[str]]:
    """The files of a board ``count`` wide written downwards, one character per file and
    row: one row while every name is one letter (up to 26 files), else one row per letter
    with the names right-aligned (``aa`` reads down its column), for boards whose columns
    are too narrow for two letters side by side."""
    names = [file_name(index) for index in range(count)]
    tall = max((len(name) for name in names), default=1)
    return [[name.rjust(tall)[row] for name in names] for row in range(tall)]


def place_name(file: int, rank: int) -> str:
    """``file`` from the left and ``rank`` from the bottom, both from 0: ``place_name(0, 0)``
    is ``a1``."""
    if rank < 0:
        raise ValueError(f"no rank {rank + 1}")
    return f"{file_name(file)}{rank + 1}"


def parse(text: object) -> tuple[int, int] | None:
    """``(file, rank)`` from 0 of a place name (``"e5"``: ``(4, 4)``), None if ``text`` is no
    place name at all (the caller checks it is on its board).  Letters are lower case and a
    rank has no leading zero, so every place has exactly one name."""
    match = _PLACE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    return file_index(match.group(1)), int(match.group(2)) - 1


def grid_name(row: int, col: int, height: int) -> str:
    """The name of the place in ``row`` from the top and ``col`` from the left (both from 0)
    of a board ``height`` rows tall: how the engines number places, turned the right way up."""
    return place_name(col, height - 1 - row)


def parse_grid(text: object, width: int, height: int) -> tuple[int, int] | None:
    """``(row, col)`` from the top-left, both from 0, of a place named on a ``width`` x
    ``height`` board; None when ``text`` names no place of it."""
    place = parse(text)
    if place is None:
        return None
    col, rank = place
    if not (0 <= col < width and 0 <= rank < height):
        return None
    return height - 1 - rank, col


def span(width: int, height: int) -> str:
    """``a1..e5``: the corners of a ``width`` x ``height`` board, for messages."""
    return f"a1..{place_name(width - 1, height - 1)}"
