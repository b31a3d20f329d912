"""The suite has a per-test timeout: a hanging test fails instead of stalling CI (issue #27)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HANGING_TEST = """
import time

def test_hangs():
    time.sleep(120)  # far beyond the timeout below: only pytest-timeout ends it early
"""


def test_the_project_config_sets_a_per_test_timeout(pytestconfig: pytest.Config) -> None:
    timeout = float(pytestconfig.getini("timeout"))
    assert 60 <= timeout <= 900  # set, and generous enough for a loaded 2-core machine


def test_a_hanging_test_fails_by_timeout(tmp_path: Path) -> None:
    (tmp_path / "test_hang.py").write_text(HANGING_TEST, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # not the project's
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--timeout=1", "test_hang.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=110,  # below the sleep: a run the plugin did not stop fails here, not later
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "Timeout" in out and "1 failed" in out, out
