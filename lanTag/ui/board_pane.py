"""The game screen's board pane: the board, then its status lines, beside the side panel.

What stays on screen however small the terminal (down to 60x16): the status lines and any
"act or lose" warning keep their rows (:class:`FitWindow`) and the board scrolls in what is
left.  Across, the board comes first: it takes the columns its widest fitting zoom needs
and the side panel keeps at least :data:`SIDE_MIN` (:func:`board_width`), so at 80 columns
a big Tag 'em map is drawn in compact cells rather than cut to a few columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding.key_bindings import KeyBindingsBase
from prompt_toolkit.layout import Container, HSplit, Window
from prompt_toolkit.layout.controls import UIControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from lanTag.ui.painted import Painted
from lanTag.ui.viewport import BoardControl, Cell, focus_cells
from lanTag.ui.widgets import WrappedText, word_wrap

SIDE_MIN = 28  # the side panel's least width from 60 columns up: a player's badge stays whole
SIDE_MIN_NARROW = 24  # below 60 columns
BOARD_MIN = 16
CUT_HINT = "board cut off: Shift+arrows pan, . shows all your pieces"


def rows_of(fragments: StyleAndTextTuples, width: int) -> int:
    """How many rows ``fragments`` take word-wrapped at ``width`` (as WrappedText draws them)."""
    width = max(1, width)
    text = "".join(f[1] for f in word_wrap(fragments, width))
    if not text:
        return 0
    return sum(max(1, -(-len(line) // width)) for line in text.split("\n"))


class FitWindow(Window):
    """A window whose least height is the rows its first lines need (``least(width)``), so
    they are never cut; its siblings keep ``spare`` rows.  It prefers no more than that:
    the rest of its text only takes rows its siblings leave (up to ``max_rows``, if given).
    """

    def __init__(
        self,
        content: UIControl,
        least: Callable[[int], int],
        spare: int = 3,
        max_rows: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(content, wrap_lines=True, **kwargs)
        self._least, self._spare, self._max = least, spare, max_rows

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        need = min(self._least(width), max(0, max_available_height - self._spare))
        if self._max is None:
            # No max: below the text, the pane is blank rather than the whole body shorter.
            return Dimension(min=need, preferred=need, weight=1)
        rows = self.content.preferred_height(width, max_available_height, True, None) or 0
        top = max(need, min(rows, self._max))
        return Dimension(min=need, preferred=top, max=top, weight=1)


class WidthBy(Container):
    """``child`` with a width that depends on the width there is (prompt_toolkit's
    dimensions cannot see it): ``width(available)`` gives the Dimension."""

    def __init__(self, child: Container, width: Callable[[int], Dimension]) -> None:
        self.child, self._width = child, width

    def reset(self) -> None:
        self.child.reset()

    def preferred_width(self, max_available_width: int) -> Dimension:
        return self._width(max_available_width)

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        return self.child.preferred_height(width, max_available_height)

    def write_to_screen(
        self,
        screen: Screen,
        mouse_handlers: MouseHandlers,
        write_position: WritePosition,
        parent_style: str,
        erase_bg: bool,
        z_index: int | None,
    ) -> None:
        self.child.write_to_screen(
            screen, mouse_handlers, write_position, parent_style, erase_bg, z_index
        )

    def get_key_bindings(self) -> KeyBindingsBase | None:
        return None

    def get_children(self) -> list[Container]:
        return [self.child]


def side_min(total: int) -> int:
    return SIDE_MIN if total >= 60 else SIDE_MIN_NARROW


def board_width(widths: Sequence[int], total: int) -> Dimension:
    """The board pane's width in a body ``total`` columns wide, for a board drawn ``widths``
    wide at each zoom: the widest zoom that fits beside the side panel (a column more for
    the scroll marks), else all the room there is."""
    room = max(BOARD_MIN, total - 1 - side_min(total))
    want = next((w + 1 for w in widths if w + 1 <= room), widths[-1] + 1)
    return Dimension(min=max(BOARD_MIN, min(want, room)), preferred=max(want, 36), weight=3)


def side_width(total: int) -> Dimension:
    return Dimension(min=side_min(total), preferred=40, max=48, weight=1)


class PaneModel(Protocol):
    """What the pane reads of the game screen's model (lanTag.ui.model.GameModel)."""

    board_scroll: int
    board_left: int
    board_follow: bool
    board_fit: bool
    selected: int | None

    @property
    def seat(self) -> int | None: ...

    @property
    def engine(self) -> str: ...


class BoardPane:
    """The board (zoomed to fit, following our pieces) over its status lines."""

    def __init__(
        self,
        model: PaneModel,
        painted_at: Callable[[int], Painted],
        zooms: Callable[[], int],
    ) -> None:
        self.model, self.painted_at, self._zooms = model, painted_at, zooms
        self.control = BoardControl(painted_at, zooms, self._focus, model)

    def _focus(self, painted: Painted) -> list[Cell]:
        m = self.model
        return focus_cells(painted.spots, m.seat, m.selected, m.board_fit, painted.primary)

    def container(self) -> Container:
        def rows() -> int:
            return len(self.painted_at(0).rows)

        board = Window(
            self.control,
            # The board takes what the status lines leave (weight), and scrolls.
            height=lambda: Dimension(min=min(3, rows()), preferred=rows(), max=rows(), weight=20),
            wrap_lines=False,
        )
        info = FitWindow(WrappedText(self.info_text), self._least_rows)
        return WidthBy(HSplit([board, info]), self._width)

    def _width(self, total: int) -> Dimension:
        widths = [self.painted_at(z).width for z in range(max(1, self._zooms()))]
        return board_width(widths, total)

    def _kept(self) -> StyleAndTextTuples:
        """The lines that must stay on screen: warnings, then the status lines."""
        painted = self.painted_at(0)
        out: StyleAndTextTuples = []
        for warning in painted.warnings:
            out += [("class:warn", "! " + warning), ("", "\n")]
        for line in painted.info:
            out += [*line, ("", "\n")]
        return out

    def _least_rows(self, width: int) -> int:
        return rows_of(self._kept()[:-1], width)

    def info_text(self) -> StyleAndTextTuples:
        out = self._kept()
        if self.control.clipped.any:
            # Said once here as well as by the marks: how to see the rest.
            out += [("class:hint", CUT_HINT), ("", "\n")]
        for line in self.painted_at(0).extra:
            out += [*line, ("", "\n")]
        return out[:-1]
