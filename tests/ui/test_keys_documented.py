"""Every key the game screen binds is in its help (F1) and in docs/ui.md: a binding added
without its line there fails here (tried 2026-11-29: a new binding with neither passed
every other ui test).  Letters and marks (`q`, `.`, `:`...) are words or signs on the
command line and their rows are read by people; every other key has a spelling below."""

from __future__ import annotations

import re
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.output import DummyOutput

from lanTag.ui.game_screen import KEYS_HELP, GameApp
from tests.ui.fakes import solo_handle

UI_DOC = Path(__file__).resolve().parents[2] / "docs" / "ui.md"

# prompt_toolkit's key name -> (how the F1 help spells it, how docs/ui.md spells it)
NAMED = {
    "left": ("arrows", "←"),
    "right": ("arrows", "→"),
    "up": ("arrows", "↑"),
    "down": ("arrows", "↓"),
    "s-left": ("Shift+arrows", "Shift+arrows"),
    "s-right": ("Shift+arrows", "Shift+arrows"),
    "s-up": ("Shift+arrows", "Shift+arrows"),
    "s-down": ("Shift+arrows", "Shift+arrows"),
    "c-i": ("Tab", "Tab"),
    "s-tab": ("Shift-Tab", "Shift-Tab"),
    "c-m": ("Enter", "Enter"),
    "escape": ("Esc", "Esc"),
    "pageup": ("PgUp", "PgUp"),
    "pagedown": ("PgDn", "PgDn"),
    "c-u": ("Ctrl-U", "Ctrl-U"),
    "c-d": ("Ctrl-D", "Ctrl-D"),
    "f1": ("F1", "F1"),
    "c-g": ("Ctrl-G", "Ctrl-G"),
    "c-q": ("Ctrl-Q", "Ctrl-Q"),
    "c-c": ("Ctrl-C", "Ctrl-C"),
    "c-l": ("Ctrl-L", "Ctrl-L"),
    **{digit: ("0-9", "0-9") for digit in "0123456789"},
}
SIGNS = set(".?:qbrsa") | {"<any>"}


def bound_keys(kb: KeyBindings) -> set[str]:
    return {str(getattr(k, "value", k)) for b in kb.bindings for k in b.keys}


def game_screen_section(doc: str) -> str:
    start = doc.index("\n## Game screen")
    end = doc.find("\n## ", start + 1)
    return doc[start : end if end != -1 else len(doc)]


def spelled(name: str, text: str) -> bool:
    """``name`` stands in ``text`` as a key's whole name (``Tab`` is not in ``Shift-Tab``)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def undocumented(keys: set[str], help_text: str, doc: str) -> list[str]:
    """Keys with no spelling here, or whose spelling the help or the doc lacks."""
    missing = []
    for key in sorted(keys - SIGNS):
        if key not in NAMED:
            missing.append(f"{key}: no spelling in NAMED")
            continue
        in_help, in_doc = NAMED[key]
        if not spelled(in_help, help_text):
            missing.append(f"{key}: {in_help!r} not in the F1 help")
        if not spelled(in_doc, doc):
            missing.append(f"{key}: {in_doc!r} not in docs/ui.md's game screen")
    return missing


def test_every_key_of_the_game_screen_is_in_its_help_and_in_the_docs() -> None:
    with create_pipe_input() as inp:
        game = GameApp(solo_handle("prototag"), input=inp, output=DummyOutput())
        kb = game.app.key_bindings
        assert isinstance(kb, KeyBindings)
        keys = bound_keys(kb)
    assert {"c-q", "escape", "left", "f1"} <= keys  # the bindings were read
    doc = game_screen_section(UI_DOC.read_text(encoding="utf-8"))
    assert undocumented(keys, KEYS_HELP, doc) == []


def test_the_key_check_sees_a_key_missing_anywhere() -> None:
    help_text, doc = "  Ctrl-Q twice  leave\n  Esc  clear", "| Esc | clears |\n| Ctrl-Q | leave |"
    assert undocumented({"c-q", "escape", "q"}, help_text, doc) == []
    assert undocumented({"c-x", "c-l", "pageup"}, "PgUp", "| Ctrl-L |") == [
        "c-l: 'Ctrl-L' not in the F1 help",
        "c-x: no spelling in NAMED",
        "pageup: 'PgUp' not in docs/ui.md's game screen",
    ]
    assert undocumented({"s-tab"}, "Tab", "Shift-Tab") == ["s-tab: 'Shift-Tab' not in the F1 help"]
    assert undocumented({"c-i"}, "Tab", "Shift-Tab only") == [
        "c-i: 'Tab' not in docs/ui.md's game screen"
    ]
