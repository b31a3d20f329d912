"""A board drawn for the console (:class:`Painted`) and the small helpers every painter shares.

The painters themselves live in each game's package (lanTag/games/<id>/paint.py), found
by engine id through lanTag/ui/boards.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.rules.registry import find_entry
from lanTag.ui.style import seat_class


@dataclass
class Painted:
    rows: list[StyleAndTextTuples] = field(default_factory=list)
    # The status lines under the board: always kept on screen (the board scrolls instead).
    info: list[StyleAndTextTuples] = field(default_factory=list)
    # Lines under the status that may give way to the board on a small terminal: the last
    # input's facts ("last: ...", also in the side panel's feed) and the like.
    extra: list[StyleAndTextTuples] = field(default_factory=list)
    # "Act or lose" warnings for the seat we play (the view's ``warnings``), above the status.
    warnings: list[str] = field(default_factory=list)
    legend: list[StyleAndTextTuples] = field(default_factory=list)
    # What a player deciding now needs beside the board (Tag 'em's attacks and their
    # modifiers), shown in the side panel under a header, one entry per item.
    side_header: str = ""
    side: list[StyleAndTextTuples] = field(default_factory=list)
    # (seat, piece) -> (row index, column) of the piece's glyph: the pane follows ours.
    spots: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    primary: tuple[int, int] | None = None  # the (seat, piece) that acts now, if one does
    head_rows: int = 0  # column labels on top, pinned when the board scrolls
    head_cols: int = 0  # row labels on the left, pinned likewise

    @property
    def width(self) -> int:
        return max((row_width(row) for row in self.rows), default=0)

    def spot(self, seat: int, piece: int, row: StyleAndTextTuples, extra: int = 0) -> None:
        """Record that (seat, piece) is drawn where ``row`` (being built) ends, plus ``extra``."""
        self.spots.setdefault((seat, piece), (len(self.rows), row_width(row) + extra))

    def finish(self, v: dict[str, Any]) -> Painted:
        """Take the parts every view dict may carry: the last facts and the warnings."""
        self.extra += events_line(v)
        self.warnings = [str(w) for w in v.get("warnings") or []]
        return self


def row_width(row: StyleAndTextTuples) -> int:
    return sum(len(f[1]) for f in row)


def plain(text: str, style: str = "") -> StyleAndTextTuples:
    return [(style, text)]


def seat_tag(engine: str, seat: int) -> str:
    """How a seat is named on its board: by its game's letters (Board Tag and Tag 'em: A, B,
    ...; ``GameEntry.seat_letters``), else by its number."""
    entry = find_entry(engine)
    letters = entry.seat_letters if entry is not None else ""
    return letters[seat] if 0 <= seat < len(letters) else str(seat)


def seat_legend(engine: str, names: Sequence[str]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for seat, name in enumerate(names):
        out.append((seat_class(seat), seat_tag(engine, seat)))
        out.append(("", f" {name}  "))
    return out


def events_line(v: dict[str, Any], keep: int = 3) -> list[StyleAndTextTuples]:
    """The last input's facts in the view's words (the feed's, with plain seat names)."""
    events = v.get("events") or []
    texts = [e["text"] if isinstance(e, dict) else str(e) for e in events][-keep:]
    return [plain("last: " + "; ".join(texts), "class:dim")] if texts else []
