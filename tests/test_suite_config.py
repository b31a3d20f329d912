"""The suite's own lists (tests/conftest.py) name tests and modules that exist: a renamed
test would silently leave the fast subset or run beside another test's mDNS."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ONE_WORKER_MODULES, SLOW_DIRS, SLOW_TESTS, is_slow, on_one_worker

ROOT = Path(__file__).parents[1]


def test_every_slow_test_named_exists() -> None:
    missing = []
    for nodeid in SLOW_TESTS:
        path, name = nodeid.split("::", 1)
        source = ROOT / path
        if not source.is_file() or f"def {name}(" not in source.read_text("utf-8"):
            missing.append(nodeid)
    assert missing == []
    assert all((ROOT / d).is_dir() for d in SLOW_DIRS), SLOW_DIRS
    assert is_slow(f"{sorted(SLOW_TESTS)[0]}[3-x]")  # parameters do not hide it


def test_every_mdns_module_exists_and_shares_one_worker() -> None:
    assert [m for m in ONE_WORKER_MODULES if not (ROOT / m).is_file()] == []
    assert on_one_worker("tests/net/test_discovery.py::test_browse_lists_a_running_advert")
    assert not on_one_worker("tests/netns/test_lan.py::test_x")  # namespaces of its own
