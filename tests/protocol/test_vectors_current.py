"""The golden vectors in protocol/vectors are what today's code writes.

A change to a message, record, log or engine that alters bytes must come with
regenerated vectors (and a version bump, docs/rules/VERSIONS.md); otherwise a
second implementation would be tested against bytes this one no longer makes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["gen_vectors.py", "gen_must_fail.py"])
def test_the_stored_vectors_are_what_the_generator_writes(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=240,
    )
    assert done.returncode == 0, (
        f"protocol/vectors is stale; run `python scripts/{script}`:\n{done.stdout}{done.stderr}"
    )


def test_the_spec_table_lists_every_must_fail_vector() -> None:
    table = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_must_fail.py"), "--spec-table"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=240,
        check=True,
    ).stdout.strip()
    spec = (ROOT / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    assert table in spec, "SPEC §9.1's table is not `python -m scripts.gen_must_fail --spec-table`"
