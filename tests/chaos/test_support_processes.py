"""Test support run as a process (``python -m tests.support.NAME``) starts from any folder.

tests/ is not installed, so a child finds ``tests.support`` through the repository root
that :func:`~tests.support.processes.root_env` puts on its PYTHONPATH, not through its
working directory.  Timeouts are hang guards only.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.processes import REPO_ROOT, root_env, support_argv

HANG_GUARD = 60.0


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_GUARD, check=False
    )


@pytest.mark.parametrize(
    ("module", "says"),
    [("adversary", "--cheat"), ("crowd", "HOST:PORT"), ("squatters", "HOST:PORT")],
)
def test_a_support_process_starts_outside_the_repository(
    tmp_path: Path, module: str, says: str
) -> None:
    assert (REPO_ROOT / "tests" / "support" / f"{module}.py").is_file()
    bare = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    ran = _run(support_argv(module, "--help"), tmp_path, root_env(bare))
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert f"python -m tests.support.{module}" in ran.stdout and says in ran.stdout
    # Without it, a child outside the repository does not find the test support at all.
    lost = _run(support_argv(module, "--help"), tmp_path, bare)
    assert lost.returncode != 0 and "No module named 'tests'" in lost.stderr, lost.stderr
