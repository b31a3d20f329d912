"""Bounded soak: whole peers on the simulated faulty network, several engines.

The long run (``python -m scripts.soak --budget 900 --workers 2``) and its
results are in docs/RELIABILITY.md.  Here: 10 games over 3 engines under the
issue's faults, each game with its own seed; no desync, no stall, every log
valid and complete, and all logs of a game agree on every decided step.
"""

from __future__ import annotations

import pytest

from scripts import soak

FAULTS = "loss=0.2,dup=0.05,reorder=0.1,delay=30ms,jitter=20ms"
GAMES = [(k, ("prototag", "boardtag", "tagem")[k % 3]) for k in range(10)]


@pytest.mark.parametrize(("k", "engine"), GAMES)
def test_bot_games_under_faults_agree_and_verify(k: int, engine: str) -> None:
    result = soak.play_sim(k, engine, 5000 + k, FAULTS, "heuristic")
    assert result.ok, result.problems
    assert result.steps > 0
