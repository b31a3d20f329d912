"""The types say who owns the session's state (issue #37 item 2): every piece of state that
changes lives in a part (an object of its own class, with its own API), never in a bare
attribute of the session's layers.

* The Session and its SessionCore set attributes only while they are made; after that,
  only their caches of pure functions change (``CACHES``).
* A session's mutable containers are its parts' own: a dict, list or set on the session is
  the very object a part holds (e.g. ``peers``, read by the Journal at each broadcast).
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path
from typing import Any

import lanTag.session
from tests.session.harness import make_record, make_sessions

LAYERS = ("SessionCore", "Session")
CACHES = {"_needs_cache", "_hash_cache"}  # last answer of a pure function
CONTAINERS = (dict, list, set, bytearray, deque)


def stored_after_init(source: str) -> set[str]:
    """Attributes a layer class stores on ``self`` outside ``__init__``."""
    found: set[str] = set()
    for cls in ast.walk(ast.parse(source)):
        if not isinstance(cls, ast.ClassDef) or cls.name not in LAYERS:
            continue
        for method in cls.body:
            if not isinstance(method, ast.FunctionDef) or method.name == "__init__":
                continue
            for node in ast.walk(method):
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                    targets = [node.target]
                for target in targets:
                    if isinstance(target, ast.Subscript):
                        target = target.value  # self.x[k] = v changes self.x too
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        found.add(target.attr)
    return found


def unowned_containers(obj: object) -> list[str]:
    """The names of ``obj``'s dict/list/set attributes that no lanTag part of it holds."""
    values: dict[str, Any] = vars(obj)
    parts = [
        v
        for v in values.values()
        if type(v).__module__.startswith("lanTag.") and not isinstance(v, CONTAINERS)
    ]
    held = {
        id(inner)
        for part in parts
        for inner in (
            [getattr(part, n) for n in getattr(type(part), "__slots__", ())]
            + list(getattr(part, "__dict__", {}).values())
        )
    }
    return sorted(
        name
        for name, value in values.items()
        if isinstance(value, CONTAINERS) and id(value) not in held
    )


def test_the_layers_store_nothing_after_they_are_made_but_caches() -> None:
    stored: set[str] = set()
    for path in sorted(Path(lanTag.session.__path__[0]).glob("*.py")):
        stored |= stored_after_init(path.read_text(encoding="utf-8"))
    assert stored & CACHES, "the scan found none of the caches: it sees nothing"
    assert stored <= CACHES, f"state of a layer, not of a part: {sorted(stored - CACHES)}"


def test_every_container_of_a_session_is_a_parts_own() -> None:
    record, ids, secrets = make_record("prototag", 3, 1)
    for session in make_sessions(record, ids, secrets):
        assert "inbox" in vars(session) and "peers" in vars(session)  # the real attributes
        assert unowned_containers(session) == []


def test_the_checks_can_fail() -> None:
    source = (
        "class Session:\n"
        "    def __init__(self):\n"
        "        self.made = 1\n"
        "    def f(self):\n"
        "        self.votes = {}\n"
        "        self.count += 1\n"
        "        self.book[3] = 1\n"
        "        self._needs_cache = None\n"
        "        other.x = 1\n"
        "class Unrelated:\n"
        "    def g(self):\n"
        "        self.nope = 1\n"
    )
    assert stored_after_init(source) == {"votes", "count", "book", "_needs_cache"}

    class Part:
        def __init__(self, shared: dict[int, int]) -> None:
            self.shared = shared

    Part.__module__ = "lanTag.session.example"

    class Layer:
        def __init__(self) -> None:
            self.given: dict[int, int] = {}
            self.part = Part(self.given)
            self.loose: set[int] = set()

    assert unowned_containers(Layer()) == ["loose"]
