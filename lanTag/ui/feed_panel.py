"""The side panel's "since your last move": what happened while we waited, folded to fit.

The lines about us (caught, tagged, a pawn lost: ``LogLine.mine``) always stand; the others
fill the rows left, newest first, up to :data:`FEED_SHOWN` lines in all, and the header
counts what was folded into the log ("(2 more in the log)").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.layout.controls import UIContent, UIControl

from lanTag.ui.board_pane import rows_of
from lanTag.ui.game_lines import LogLine
from lanTag.ui.widgets import word_wrap

FEED_SHOWN = 4  # lines shown when there is room (all of them are in the log)
HEADER = "since your last move"


def feed_fragments(lines: Sequence[LogLine], width: int, rows: int | None) -> StyleAndTextTuples:
    """The panel's text at ``width``: every line about us, then the newest others while
    the total stays within FEED_SHOWN lines and ``rows`` rows (None: no row limit)."""
    pinned = [i for i, line in enumerate(lines) if line.mine]
    keep = set(pinned)
    for i in reversed([i for i, line in enumerate(lines) if not line.mine]):
        if len(keep) >= FEED_SHOWN:
            break
        trial = _text(lines, keep | {i})
        if rows is not None and rows_of(trial, width) > rows:
            break
        keep.add(i)
    return _text(lines, keep)


def _text(lines: Sequence[LogLine], keep: set[int]) -> StyleAndTextTuples:
    folded = len(lines) - len(keep)
    more = f" ({folded} more in the log)" if folded else ""
    out: StyleAndTextTuples = [("class:header", HEADER), ("class:dim", more)]
    for i in sorted(keep):
        out += [("", "\n"), (lines[i].style, "» " + lines[i].text)]
    return out


class FeedControl(UIControl):
    """Draws :func:`feed_fragments` word-wrapped to the size it is given."""

    def __init__(self, lines: Callable[[], Sequence[LogLine]]) -> None:
        self._lines = lines

    def least_rows(self, width: int) -> int:
        """The rows the header and the lines about us need: the panel never has fewer."""
        lines = self._lines()
        pinned = {i for i, line in enumerate(lines) if line.mine}
        return rows_of(_text(lines, pinned), width)

    def preferred_height(
        self,
        width: int,
        max_available_height: int,
        wrap_lines: bool,
        get_line_prefix: object,
    ) -> int | None:
        return rows_of(feed_fragments(self._lines(), width, None), width)

    def create_content(self, width: int, height: int) -> UIContent:
        text = word_wrap(feed_fragments(self._lines(), width, height), width)
        rows = list(split_lines(text))
        return UIContent(get_line=lambda i: rows[i], line_count=len(rows))
