"""Fixtures for the multi-host tests: a fresh namespaced LAN per test, always torn down."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.netns.lab import Lan, built_lan


@pytest.fixture
def lan(tmp_path: Path) -> Iterator[Lan]:
    """Three hosts h1..h3 (10.77.0.1..3/24) on one bridge, each in its own netns.

    The lab name is unique per process and test, so parallel runs do not collide;
    teardown kills the test's processes and deletes every namespace of the lab.
    """
    yield from built_lan(tmp_path, 3, "lt")
