"""Crash safety: a log killed mid-write verifies up to its last whole entry."""

from __future__ import annotations

from scripts import crash_log


def test_sigkilled_writers_leave_valid_logs() -> None:
    assert crash_log.kills(3, seed=11, engine="tagem", quiet=True) == []


def test_a_log_torn_at_any_byte_verifies_up_to_the_last_whole_entry() -> None:
    assert crash_log.cuts(40, seed=12, engine="tagem") == []
