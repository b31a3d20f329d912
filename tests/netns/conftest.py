"""Fixtures for the multi-host tests: a fresh namespaced LAN per test, always torn down."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.netns.lab import Lan, netlab, netns_problem

_labs = itertools.count(1)


@pytest.fixture
def lan(tmp_path: Path) -> Iterator[Lan]:
    """Three hosts h1..h3 (10.77.0.1..3/24) on one bridge, each in its own netns.

    The lab name is unique per process and test, so parallel runs do not collide;
    teardown kills the test's processes and deletes every namespace of the lab.
    """
    problem = netns_problem()
    if problem is not None:
        pytest.skip(f"netns tests skipped: {problem}")
    name = f"lt{os.getpid() % 100_000}x{next(_labs)}"
    try:
        lab = netlab.up(3, name)
    except (netlab.NetlabError, OSError) as exc:
        pytest.skip(f"cannot build the namespaced LAN: {exc}")
    lan = Lan(lab, tmp_path)
    try:
        yield lan
    finally:
        lan.stop_all()
        netlab.down(name)
        assert not netlab.lab_namespaces(name), "namespaces left behind"
