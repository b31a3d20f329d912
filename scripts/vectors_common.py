"""Helpers shared by the vector generators (scripts/gen_vectors.py and its vectors_*.py):
fixed inputs from labels, and the typed JSON form of msgpack values."""

from __future__ import annotations

import hashlib
from typing import Any


def h(label: str) -> bytes:
    """32 fixed bytes for a label."""
    return hashlib.sha256(b"lanTag/vectors/" + label.encode()).digest()


def typed(value: object) -> Any:
    if value is None:
        return ["nil"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, bytes):
        return ["bin", value.hex()]
    if isinstance(value, list | tuple):
        return ["array", [typed(v) for v in value]]
    raise TypeError(f"cannot write {type(value).__name__}")
