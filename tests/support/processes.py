"""Repository code run as a process: ``python -m tests.support.NAME``, ``python -m scripts.NAME``.

Neither ``tests`` nor ``scripts`` is installed (the wheel ships ``lanTag`` only), so a child
process finds them only with the repository root on its import path.  Whoever starts one
passes :func:`root_env`, which puts the root there whatever the working directory is.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]


def root_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with the repository root first on PYTHONPATH; what
    was there stays after it (a test's own sitecustomize folder, say)."""
    env = os.environ if env is None else env
    paths = [str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def support_argv(module: str, *args: str) -> list[str]:
    """The command line that runs ``tests/support/<module>.py`` as a process."""
    return [sys.executable, "-m", f"tests.support.{module}", *args]


def crowd_main(
    module: str,
    run: Callable[[tuple[str, int], int, float], Coroutine[Any, Any, dict[str, Any]]],
    argv: list[str] | None,
    hold_help: str,
) -> int:
    """The command line of a process that brings ``count`` identities to a host's door
    (tests.support.crowd, tests.support.squatters): ``run`` them, print its summary as JSON."""
    parser = argparse.ArgumentParser(prog=f"python -m tests.support.{module}")
    parser.add_argument("host", help="HOST:PORT of the host")
    parser.add_argument("count", type=int)
    parser.add_argument("--hold", type=float, default=600.0, help=hold_help)
    args = parser.parse_args(argv)
    name, _, port = args.host.rpartition(":")
    summary = asyncio.run(run((name, int(port)), args.count, args.hold))
    print(json.dumps(summary), flush=True)
    return 0
