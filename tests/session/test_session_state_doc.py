"""The Session's state is documented in one place: the table in SessionCore's docstring.

Every attribute the session classes store on ``self`` (or declare at class level) must have
a row there naming its owner, and every row must still name a real attribute.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lanTag.session
from lanTag.session.core import SessionCore

PARTS = ("SessionCore", "Agreement", "Recovery", "Session")
ROW = re.compile(
    r"^\s*([a-z_]\w*)\s{2,}(SessionCore|Agreement|Recovery|Session)"
    r"\s{2,}\S",
    re.MULTILINE,
)


def stored_attributes(source: str) -> set[str]:
    """Attributes stored on self, or annotated at class level, inside the session parts."""
    found: set[str] = set()
    for cls in ast.walk(ast.parse(source)):
        if not isinstance(cls, ast.ClassDef) or cls.name not in PARTS:
            continue
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                found.add(stmt.target.id)
        for node in ast.walk(cls):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    found.add(target.attr)
    return found


def documented_attributes(doc: str) -> dict[str, str]:
    return {name: owner for name, owner in ROW.findall(doc) if name not in PARTS}


def session_sources() -> list[Path]:
    return sorted(Path(lanTag.session.__path__[0]).glob("*.py"))


def test_every_session_attribute_has_one_documented_owner() -> None:
    stored: set[str] = set()
    for path in session_sources():
        stored |= stored_attributes(path.read_text(encoding="utf-8"))
    documented = documented_attributes(SessionCore.__doc__ or "")
    assert len(stored) > 30  # the scan found the real state, not an empty set
    missing = sorted(stored - documented.keys())
    stale = sorted(documented.keys() - stored)
    assert not missing, f"add a row (attribute, owner, meaning) to SessionCore's doc: {missing}"
    assert not stale, f"SessionCore's docstring lists attributes no part stores: {stale}"


def test_the_scan_sees_self_stores_and_class_annotations() -> None:
    source = (
        "class Agreement:\n"
        "    _cache: int | None = None\n"
        "    def f(self):\n"
        "        self.votes = {}\n"
        "        self.count += 1\n"
        "        other.x = 1\n"
        "class Unrelated:\n"
        "    def g(self):\n"
        "        self.nope = 1\n"
    )
    assert stored_attributes(source) == {"_cache", "votes", "count"}
    assert documented_attributes("    votes   Agreement   a thing\n") == {"votes": "Agreement"}
