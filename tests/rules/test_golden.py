"""Golden playthroughs: one seeded full game per engine, compared to a text transcript.

The transcripts live in tests/rules/golden/<engine>.txt.  A change of rules
that alters them must be deliberate: regenerate with LANTAG_REGEN_GOLDEN=1 and
read the diff.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from lanTag.rules.base import Over, input_text
from lanTag.rules.playout import random_input
from lanTag.rules.registry import engine_ids, get_game
from lanTag.views.registry import game_view

GOLDEN = Path(__file__).parent / "golden"


def transcript(engine: str) -> str:
    game = get_game(engine)
    seats = min(game.max_seats, max(game.min_seats, 3))
    rng = random.Random(f"golden-{engine}")
    state = game.new_state(seats)
    lines = [f"# {game.display_name}: golden playthrough, {seats} seats, seed golden-{engine}", ""]
    render = game_view(engine).render
    lines += [render(state), ""]
    step = 0
    while not isinstance(d := state.decision(), Over):
        inp = random_input(state, rng.randrange)
        state = state.apply(inp)
        step += 1
        lines += [f"## step {step}: {input_text(inp)}", render(state), ""]
    lines.append(f"# over: {d.outcome.summary}; ranking {list(map(list, d.outcome.ranking))}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("engine", engine_ids())
def test_golden_playthrough(engine: str) -> None:
    path = GOLDEN / f"{engine}.txt"
    text = transcript(engine)
    if os.environ.get("LANTAG_REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert path.exists(), f"missing {path}; run with LANTAG_REGEN_GOLDEN=1 to create it"
    assert text == path.read_text()
