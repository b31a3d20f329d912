"""Fixtures for the real-UDP tables (tests/net/real_table.py)."""

from __future__ import annotations

import pytest

from lanTag.session import silence


@pytest.fixture
def patient_peers(monkeypatch: pytest.MonkeyPatch) -> None:
    """No seat voted out as a dead process before the step timeout.

    A seat that sent nothing at all for DEAD_AFTER_LAGS lag warnings is voted out early;
    with these tables' 0.5 s lag warning (real_table.TIMEOUTS) that is 1 s.  All peers
    share one event loop: on a loaded 2-core machine the loop stalls, and with injected
    loss a live seat can go unheard for a second (seen: "a seat was dropped" in the faulty
    tagem table).  These games assert that nobody is dropped; 20 lag warnings is the step
    timeout (10 s), the bound the table was meant to have.
    """
    monkeypatch.setattr(silence, "DEAD_AFTER_LAGS", 20)
