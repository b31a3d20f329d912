"""Every exception lanTag defines derives from LanTagError (lanTag/errors.py).

A caller can then catch "anything lanTag refused" in one clause, and each class still
refines the builtin it means (a ValueError stays a ValueError)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import lanTag
from lanTag.errors import LanTagError


def _lantag_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(lanTag.__path__, "lanTag."):
        if info.name.endswith("__main__"):
            continue  # importing it runs the CLI
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__.startswith("lanTag."):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


def test_every_lantag_exception_is_a_lantag_error() -> None:
    classes = _lantag_exceptions()
    assert len(classes) >= 25  # the walk really found the product's exceptions
    outside = [
        f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, LanTagError)
    ]
    assert outside == []


def test_refined_builtins_are_kept() -> None:
    # The builtin each one refined before it joined the hierarchy: callers catch these.
    from lanTag.files import FileHeldOpen
    from lanTag.log.entries import LogFormatError
    from lanTag.net.frame import MalformedFrame
    from lanTag.rules.base import IllegalAction, MalformedAction, OptionError, PositionError

    for cls, builtin in (
        (IllegalAction, ValueError),
        (MalformedAction, IllegalAction),
        (OptionError, ValueError),
        (PositionError, ValueError),
        (LogFormatError, ValueError),
        (MalformedFrame, ValueError),
        (FileHeldOpen, PermissionError),
    ):
        assert issubclass(cls, builtin) and issubclass(cls, LanTagError), cls
