"""Test support run as a process: ``python -m tests.support.NAME``.

``tests/`` is not installed (the wheel ships ``lanTag`` only), so a child process finds
``tests.support`` only with the repository root on its import path.  Whoever starts one
passes :func:`support_env`, which puts the root there whatever the working directory is.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def support_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with the repository root first on PYTHONPATH; what was there stays after it
    (a test's own sitecustomize folder, say)."""
    paths = [str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def support_argv(module: str, *args: str) -> list[str]:
    """The command line that runs ``tests/support/<module>.py`` as a process."""
    return [sys.executable, "-m", f"tests.support.{module}", *args]
