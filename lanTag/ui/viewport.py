"""The board pane's window onto a board bigger than the pane (big Tag 'em or Stomptag maps).

The pure part (:class:`Viewport`, :func:`follow`, :func:`clip`) decides which slice of the
painted rows is shown and draws the clipping marks; :class:`BoardControl` runs it at the
size prompt-toolkit gives the pane.  The column labels (top rows) and row labels (left
columns) stay pinned while the board under them scrolls.  Marks, drawn only when the
board is cut off on that side, in columns reserved at the pane's edges: ``◀`` left of
every row, ``▶`` right of every row, ``▲`` / ``▼`` right of the first / last row shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import UIContent, UIControl

from lanTag.ui.boards import Painted

Cell = tuple[int, int]  # (row index in Painted.rows, column in characters)
MARK = "class:warn"


@dataclass(frozen=True, slots=True)
class Viewport:
    """The first body row and body column shown (rows and columns after the pinned labels)."""

    top: int = 0
    left: int = 0


@dataclass(frozen=True, slots=True)
class Clipped:
    """What was cut off on each side (in rows / columns), for marks and hints."""

    above: int = 0
    below: int = 0
    before: int = 0
    after: int = 0

    @property
    def any(self) -> bool:
        return bool(self.above or self.below or self.before or self.after)


def focus_cell(
    spots: Mapping[tuple[int, int], Cell],
    seat: int | None,
    selected: int | None,
    primary: tuple[int, int] | None = None,
) -> Cell | None:
    """Where our selected piece is drawn, else the piece of ours that acts now (``primary``:
    Board Tag's die being moved, or IT), else our lowest-numbered piece; None if none is."""
    if seat is None:
        return None
    if selected is not None and (seat, selected) in spots:
        return spots[(seat, selected)]
    if primary is not None and primary[0] == seat and primary in spots:
        return spots[primary]
    ours = sorted(piece for s, piece in spots if s == seat)
    return spots[(seat, ours[0])] if ours else None


def focus_cells(
    spots: Mapping[tuple[int, int], Cell],
    seat: int | None,
    selected: int | None,
    fit: bool,
    primary: tuple[int, int] | None = None,
) -> list[Cell]:
    """The cells the pane keeps in view: the one :func:`focus_cell` names first, then, when
    ``fit``, every other piece of ours."""
    first = focus_cell(spots, seat, selected, primary)
    if first is None:
        return []
    if not fit:
        return [first]
    return [first, *(cell for (s, _), cell in sorted(spots.items()) if s == seat and cell != first)]


def _span(length: int, shown: int, start: int) -> int:
    return max(0, min(start, length - shown))


def _axis(start: int, lo: int, hi: int, length: int, shown: int, margin: int) -> int:
    """The first position shown on one axis so that ``lo..hi`` is in view with a margin."""
    margin = min(margin, max(0, (shown - 1 - (hi - lo)) // 2))
    if lo - margin < start:
        start = lo - margin
    elif hi + margin >= start + shown:
        start = hi + margin - shown + 1
    return _span(length, shown, start)


def follow(vp: Viewport, cell: Cell, body: Cell, shown: Cell, margin: Cell = (1, 2)) -> Viewport:
    """Scroll as little as possible so ``cell`` (body coordinates) is in view with a margin.

    ``body`` and ``shown`` are (rows, columns) of the whole body and of the visible part.
    """
    return follow_all(vp, [cell], body, shown, margin)


def follow_all(
    vp: Viewport, cells: list[Cell], body: Cell, shown: Cell, margin: Cell = (1, 2)
) -> Viewport:
    """Scroll as little as possible so every cell of ``cells`` is in view; on an axis where
    they do not all fit, the first cell (the selected piece) is kept in view instead."""
    (rows, cols), (my, mx) = shown, margin
    first = cells[0]
    tops = [row for row, _ in cells]
    # A piece's glyph is two characters wide at most: keep both in view.
    lefts = [col for _, col in cells]
    lo_r, hi_r = min(tops), max(tops)
    if hi_r - lo_r >= rows:
        lo_r = hi_r = first[0]
    lo_c, hi_c = min(lefts), max(lefts) + 1
    if hi_c - lo_c >= cols:
        lo_c, hi_c = first[1], first[1] + 1
    return Viewport(
        _axis(vp.top, lo_r, hi_r, body[0], rows, my), _axis(vp.left, lo_c, hi_c, body[1], cols, mx)
    )


def cut(row: StyleAndTextTuples, start: int, stop: int) -> StyleAndTextTuples:
    """The characters ``start:stop`` of a row of styled fragments."""
    out: StyleAndTextTuples = []
    pos = 0
    for fragment in row:
        style, text = fragment[0], fragment[1]
        end = pos + len(text)
        if end > start and pos < stop:
            out.append((style, text[max(0, start - pos) : stop - pos]))
        pos = end
        if pos >= stop:
            break
    return out


def _width(row: StyleAndTextTuples) -> int:
    return sum(len(f[1]) for f in row)


def clip(
    painted: Painted,
    vp: Viewport,
    width: int,
    height: int,
    cell: Cell | None = None,
    more: tuple[Cell, ...] = (),
) -> tuple[list[StyleAndTextTuples], Viewport, Clipped]:
    """The rows to draw in a ``width`` x ``height`` pane, the viewport really used and what
    was cut off.  With ``cell`` (a Painted.rows position) the viewport follows it, and keeps
    the cells ``more`` in view too where they all fit."""
    rows = painted.rows
    full_w = painted.width
    pin_r = min(painted.head_rows, len(rows))
    pin_c = painted.head_cols if full_w > painted.head_cols else 0
    room = width >= 3  # marks only where they leave the board some room
    right = 1 if room and (len(rows) > height or full_w > width) else 0
    left = 1 if room and full_w > width - right else 0
    if left and width - pin_c - 2 < 4:
        pin_c = 0  # too narrow to keep the labels: the board gets every column
    shown = (max(1, height - pin_r), max(1, width - pin_c - left - right))
    body = (len(rows) - pin_r, full_w - pin_c)
    wanted = (cell, *more) if cell is not None else ()
    inside = [(r - pin_r, c - pin_c) for r, c in wanted if r >= pin_r and c >= pin_c]
    if inside:
        vp = follow_all(vp, inside, body, shown)
    vp = Viewport(_span(body[0], shown[0], vp.top), _span(body[1], shown[1], vp.left))
    clipped = Clipped(
        above=vp.top,
        below=max(0, body[0] - vp.top - shown[0]),
        before=vp.left,
        after=max(0, body[1] - vp.left - shown[1]),
    )
    picked = rows[:pin_r] + rows[pin_r + vp.top : pin_r + vp.top + shown[0]]
    picked = picked[:height]
    out: list[StyleAndTextTuples] = []
    for i, row in enumerate(picked):
        line = cut(row, 0, pin_c)
        line += [("", " " * (pin_c - _width(line)))] if pin_c else []
        if left:
            line.append((MARK, "◀" if clipped.before else " "))
        body_part = cut(row, pin_c + vp.left, pin_c + vp.left + shown[1])
        line += body_part
        if right:
            mark = "▶" if clipped.after else " "
            if i == pin_r and clipped.above:
                mark = "▲"
            elif i == len(picked) - 1 and i >= pin_r and clipped.below:
                mark = "▼"
            line += [("", " " * (shown[1] - _width(body_part))), (MARK, mark)]
        out.append(cut(line, 0, width))
    return out, vp, clipped


class BoardState(Protocol):
    """Where the game model keeps the pane's scroll position between draws."""

    board_scroll: int
    board_left: int
    board_follow: bool


def fits(painted: Painted, width: int, height: int) -> bool:
    """The whole board fits ``width`` columns (with the marks column a board taller than
    ``height`` rows needs)."""
    return painted.width + (1 if len(painted.rows) > height else 0) <= width


class BoardControl(UIControl):
    """Draws the painted board clipped to the pane, following the focus cells when asked.

    ``painted(zoom)`` draws the board at a zoom level (0 the widest cells, ``zooms()``
    levels); the control draws the widest level that fits the pane, else the narrowest,
    clipped.  ``focus(painted)`` names the cells to keep in view, the selected piece first.
    """

    def __init__(
        self,
        painted: Callable[[int], Painted],
        zooms: Callable[[], int],
        focus: Callable[[Painted], list[Cell]],
        state: BoardState,
    ) -> None:
        self._painted, self._zooms, self._focus, self._state = painted, zooms, focus, state
        self.clipped = Clipped()
        self.zoom = 0
        self.lines: list[StyleAndTextTuples] = []  # the rows last drawn (tests read them)

    def zoom_for(self, width: int, height: int) -> int:
        """The widest zoom level whose board fits ``width`` x ``height``, else the narrowest."""
        last = max(1, self._zooms()) - 1
        return next(
            (z for z in range(last) if fits(self._painted(z), width, height)),
            last,
        )

    def preferred_width(self, max_available_width: int) -> int | None:
        return self._painted(0).width

    def preferred_height(
        self,
        width: int,
        max_available_height: int,
        wrap_lines: bool,
        get_line_prefix: object,
    ) -> int | None:
        return len(self._painted(0).rows)

    def create_content(self, width: int, height: int) -> UIContent:
        s = self._state
        zoom, self.zoom = self.zoom, self.zoom_for(width, height)
        painted = self._painted(self.zoom)
        cells = self._focus(painted) if s.board_follow else []
        was = self.clipped.any
        lines, vp, self.clipped = clip(
            painted,
            Viewport(s.board_scroll, s.board_left),
            width,
            height,
            cells[0] if cells else None,
            tuple(cells[1:]),
        )
        if self.clipped.any != was or self.zoom != zoom:
            # The status lines mention the cut, the legend the zoom, and either may have
            # been laid out before this board: draw once more with the new state.
            get_app().invalidate()
        # Remember where we are: panning goes on from what is on screen.
        s.board_scroll, s.board_left = vp.top, vp.left
        self.lines = lines
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines))
