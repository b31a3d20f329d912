"""One digest over N seeded random games of an engine: what its rules version pins.

For each seed: a random seat count and random option values (within each option's
range), random legal inputs (``lanTag.rules.playout.random_input``), up to ``max_steps``
steps.  Every state's canonical bytes and every decision (who acts; a chance step's
purpose and draws; a secret round's kind; the final ranking) go into the digest, so a
change to legality, transitions, option meaning, state encoding or chance purposes
changes it, and view wording does not (docs/rules/VERSIONS.md).  Pure: the seeded
``random.Random`` is the caller's input, not this module's own randomness.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

from lanTag.rules.base import Chance, Decision, Die, Draw, Pick, Simultaneous, Turn, canonical_pack
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game

__all__ = ["DIGEST_GAMES", "MAX_STEPS", "decision_obj", "engine_digest"]

MAX_STEPS = 400
DIGEST_GAMES = 100  # the games the pinned digests of tests/rules/test_digest_pins.py cover


def _draw_obj(draw: Draw) -> list[Any]:
    if isinstance(draw, Die):
        return ["die", list(draw.faces), draw.count]
    if isinstance(draw, Pick):
        return ["pick", draw.n, draw.count]
    return ["shuffle", draw.n]


def decision_obj(decision: Decision) -> list[Any]:
    """The facts of a decision as a msgpack-ready list (an Over's summary is prose: left out)."""
    if isinstance(decision, Turn):
        return ["turn", decision.seat]
    if isinstance(decision, Simultaneous):
        return ["simultaneous", decision.kind, list(decision.seats)]
    if isinstance(decision, Chance):
        return ["chance", decision.purpose, [_draw_obj(d) for d in decision.draws]]
    outcome = decision.outcome
    return ["over", [list(group) for group in outcome.ranking], list(outcome.scores)]


def engine_digest(
    engine: str,
    games: int = DIGEST_GAMES,
    *,
    with_decisions: bool = True,
    max_steps: int = MAX_STEPS,
) -> str:
    """sha256 hex over the states (and decisions) of ``games`` seeded random games.

    ``with_decisions=False`` is the states-only digest that scripts/engine_digest.py
    printed before the decisions were added (to compare with older trees).
    """
    game = get_game(engine)
    total = hashlib.sha256()
    for seed in range(games):
        rng = random.Random(seed)
        seats = rng.randint(game.min_seats, min(game.max_seats, 12))
        options: dict[str, object] = {}
        for spec in game.option_specs:
            if isinstance(spec.default, bool):
                options[spec.name] = rng.random() < 0.5
            elif isinstance(spec.default, int) and spec.min is not None and spec.max is not None:
                options[spec.name] = rng.randint(spec.min, min(spec.max, 30))
        try:
            state = game.new_state(seats, options)
        except ValueError:  # options or a map it refuses (OptionError, MapError): defaults
            state = game.new_state(seats, {})
        for _ in range(max_steps):
            total.update(state.encode())
            decision = state.decision()
            if with_decisions:
                total.update(canonical_pack(decision_obj(decision)))
            if state.is_over:
                break
            state = state.apply(random_input(state, rng.randrange))
    return total.hexdigest()
