"""The heuristic bot clearly beats random play in every engine it knows.

Bounded: 40 seeded games per engine, the heuristic rotating through the seats against
random seats, compared with a random bot in the same seats of all-random games with the
same seeds.  The measure is the edge: the mean over games of (seats ranked below - seats
ranked above) / (seats - 1), which is 0 for an average seat and +1 for always winning
alone.  The full 200-game measurement is scripts/bench/bot_strength.py (results in
docs/bots.md).
"""

from __future__ import annotations

import pytest

from lanTag.bots.heuristic import heuristic_ids
from lanTag.sim.bot_strength import matchup

GAMES = 40
MARGIN = 0.2  # edge points over the random bot in the same seats
# Tag 'em with 3+ teams: random teams hardly ever meet in 10 rounds, so nearly every game
# is a shared first place whoever plays; the heuristic (which holds when level) cannot
# show an edge there.  Two teams must meet.  docs/bots.md has the 4-seat figures.
SEATS: dict[str, int] = {"tagem": 2}


@pytest.mark.parametrize("engine", sorted(heuristic_ids()))
def test_heuristic_beats_random(engine: str) -> None:
    m = matchup(engine, GAMES, seed=0, seats=SEATS.get(engine), workers=1)
    summary = (
        f"{engine} ({m.seats} seats): heuristic edge {m.edge:+.2f} (wins {m.win_rate:.0%}, "
        f"last {m.last_rate:.0%}); random in the same seats edge {m.base_edge:+.2f} "
        f"(wins {m.base_win_rate:.0%}, last {m.base_last_rate:.0%})"
    )
    # Only the edge is asserted: random games of Tag 'em are mostly shared first places,
    # so a bot that plays for the win finishes last more often than random does there.
    assert m.edge >= m.base_edge + MARGIN, summary


def test_prototag_heuristic_beats_random_head_to_head() -> None:
    """Two seats: the heuristic should almost never be the one left tagged."""
    m = matchup("prototag", GAMES, seed=1, seats=2, workers=1)
    assert m.last_rate <= 0.15 < 0.35 <= m.base_last_rate


def test_tagem_flag_modes() -> None:
    for mode in ("ctf", "ctcf"):
        m = matchup("tagem", 20, seed=2, seats=2, options={"mode": mode}, workers=1)
        assert m.edge >= m.base_edge + MARGIN, (mode, m)
