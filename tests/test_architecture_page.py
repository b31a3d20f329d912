"""docs/ARCHITECTURE.md's folder table names modules that exist: a renamed module (the
game screen's `app.py` stayed named there after it became `game_screen.py`) fails here."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_architecture import ARCHITECTURE_PAGE, PACKAGE_ROOT

_ROW = re.compile(r"^\| `(lanTag/(?:[a-z_]+/)?)`(?: \(root\))? \| (.*?) \|", re.MULTILINE)
_MODULE = re.compile(r"`([a-z_0-9]+\.py)`")


def modules_named_but_missing(page: str, root: Path) -> list[str]:
    """``folder/name.py`` for each module a folder's row names that is neither in that
    folder (or below it) nor in a game's package (a row may name a role every game has)."""
    missing = []
    for folder, text in _ROW.findall(page):
        where = root.parent / folder
        for name in _MODULE.findall(text):
            if not any(where.rglob(name)) and not any((root / "games").glob(f"*/{name}")):
                missing.append(folder + name)
    return missing


def test_the_folder_table_names_only_modules_that_exist() -> None:
    page = ARCHITECTURE_PAGE.read_text(encoding="utf-8")
    assert modules_named_but_missing(page, PACKAGE_ROOT) == []


def test_the_named_module_check_sees_a_missing_one(tmp_path: Path) -> None:
    root = tmp_path / "lanTag"
    for relative in ("ui/screen.py", "ui/deep/pane.py", "games/x/paint.py"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("", encoding="utf-8")
    page = "| `lanTag/ui/` | `screen.py`, `pane.py`, each game's `paint.py`, `app.py` | core |\n"
    page += "| `lanTag/` (root) | `wire.py` (msgpack) | base |\n"
    assert modules_named_but_missing(page, root) == ["lanTag/ui/app.py", "lanTag/wire.py"]
