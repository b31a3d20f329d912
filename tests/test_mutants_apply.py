"""The hand-made mutants of scripts/mutants_*.py still name code that is in the tree,
exactly once: a refactor that moves a checked line must move its mutant with it (their
full runs live in scripts/, hours long; this is their bounded part)."""

from __future__ import annotations

import pytest

from scripts import mutants_colluders, mutants_round_acks, mutants_session
from scripts.mutants_runner import Mutant, times_found

SETS = {
    "session": mutants_session.MUTANTS,
    "colluders": mutants_colluders.MUTANTS,
    "round_acks": mutants_round_acks.MUTANTS,
}


def stale(mutants: list[Mutant]) -> list[str]:
    """What each mutant breaks, for those whose code is not in its file exactly once."""
    return [m.what for m in mutants if times_found(m) != 1]


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_mutant_still_applies(name: str) -> None:
    assert stale(SETS[name]) == []


def test_a_mutant_whose_code_moved_is_seen() -> None:
    gone = Mutant("lanTag/session/lockstep.py", "code that is nowhere\n", "x", "moved")
    twice = Mutant("lanTag/session/lockstep.py", "self", "x", "everywhere")
    assert stale([gone, twice, *mutants_round_acks.MUTANTS[:1]]) == ["moved", "everywhere"]
