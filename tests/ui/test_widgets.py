"""Small pieces: word wrapping, the plain-text fallback board, colour switches."""

from __future__ import annotations

import pytest
from prompt_toolkit.formatted_text import StyleAndTextTuples

from lanTag.ui.boards import badge, badge_key, paint, seat_tag, zooms
from lanTag.ui.style import colour_enabled, make_style
from lanTag.ui.widgets import word_wrap


def _lines(fragments: StyleAndTextTuples) -> list[str]:
    return "".join(f[1] for f in fragments).split("\n")


def test_word_wrap_breaks_at_spaces_and_keeps_styles() -> None:
    out = word_wrap([("a", "one two three"), ("b", " four five")], 9)
    assert _lines(out) == ["one two", "three", "four five"]
    assert ("b", "four") in out


def test_word_wrap_leaves_long_words_and_newlines_alone() -> None:
    # The window shows "abcde" "fghij" "kl x" "y": the short word joins the long one's tail.
    assert _lines(word_wrap([("", "abcdefghijkl x\ny")], 5)) == ["abcdefghijkl x", "y"]
    assert _lines(word_wrap([("", "abcdefghijkl xyzw")], 5)) == ["abcdefghijkl", "xyzw"]


def test_word_wrap_keeps_a_lines_indent_but_not_the_spaces_of_a_wrap() -> None:
    # The F1 help's columns: "  Esc  clear ..." and continuation lines indented under them.
    text = "keys\n  Esc    clear the line\n         and more"
    assert _lines(word_wrap([("", text)], 40)) == [
        "keys",
        "  Esc    clear the line",
        "         and more",
    ]
    assert _lines(word_wrap([("", "  one two three")], 9)) == ["  one two", "three"]


def test_unknown_engines_fall_back_to_their_text_render() -> None:
    painted = paint("toy", {}, ["a"], lambda: "row one\nrow two")
    assert ["".join(f[1] for f in row) for row in painted.rows] == ["row one", "row two"]
    # No painter: one width, no badge legend, the view's scores as badges if it has them.
    assert zooms("toy") == 1 and badge_key("toy") == ""
    assert badge("toy", {"scores": [3, 4]}, 1) == "4" and badge("toy", {}, 0) == ""
    assert zooms("tagem") == 3 and zooms("boardtag") == 2 and zooms("prototag") == 1


def test_seat_tags_follow_the_boards() -> None:
    assert [seat_tag("boardtag", s) for s in range(3)] == ["A", "B", "C"]
    assert seat_tag("tagem", 7) == "H" and seat_tag("prototag", 7) == "7"


def test_no_color_convention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_enabled(True) and not colour_enabled(False)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_enabled(True)
    plain = make_style(False)
    assert all("ansi" not in rule for _, rule in plain.style_rules)
