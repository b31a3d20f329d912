"""Small layout helpers shared by the screens."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import FormattedTextControl, UIContent

_PIECES = re.compile(r"(\n| +)")


def word_wrap(fragments: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """Break lines at spaces so words stay whole (prompt_toolkit wraps at any character).

    Spaces where a line breaks are dropped; spaces that start a line of the text (an
    indent, as in the help's columns) are kept.  Words longer than ``width`` are left to
    the window's own character wrapping.
    """
    width = max(1, width)
    out: StyleAndTextTuples = []
    col = 0
    gap: tuple[str, str] | None = None  # spaces waiting to see whether the next word fits
    fresh = True  # at the start of one of the text's own lines (not of a wrapped one)
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        for piece in _PIECES.split(text):
            if not piece:
                continue
            if piece == "\n":
                out.append((style, "\n"))
                col, gap, fresh = 0, None, True
            elif piece[0] == " " and fresh and col == 0:
                out.append((style, piece))  # an indent
                col = len(piece)
            elif piece[0] == " ":
                gap = (style, piece) if col > 0 else None
            else:
                spaces = len(gap[1]) if gap is not None else 0
                if col > 0 and col + spaces + len(piece) > width:
                    out.append(("", "\n"))
                    col = 0
                elif gap is not None:
                    out.append(gap)
                    col += spaces
                gap, fresh = None, False
                out.append((style, piece))
                col += len(piece)
                if col > width:  # a long word the window wraps: where its last row ends
                    col %= width
    return out


class WrappedText(FormattedTextControl):
    """A FormattedTextControl whose text is word-wrapped to the width it is drawn at."""

    def __init__(
        self, source: Callable[[], StyleAndTextTuples], *, follow: bool = False, **kwargs: Any
    ) -> None:
        self._source = source
        self._width = 80
        self._follow = follow  # keep the last line in view (logs)
        super().__init__(lambda: word_wrap(self._source(), self._width), **kwargs)

    def preferred_height(
        self,
        width: int,
        max_available_height: int,
        wrap_lines: bool,
        get_line_prefix: Any,
    ) -> int | None:
        self._width = width
        return super().preferred_height(width, max_available_height, wrap_lines, get_line_prefix)

    def create_content(self, width: int, height: int | None) -> UIContent:
        self._width = width
        content = super().create_content(width, height)
        if self._follow and content.line_count:
            # The window scrolls to keep the cursor visible: put it on the newest line.
            content.cursor_position = Point(0, content.line_count - 1)
        return content
