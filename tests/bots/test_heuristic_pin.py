"""The ``heuristic`` bot plays exactly as it always has.

A log replays its bot seats by bot name (lanTag/session/referee.py ``bot_turn_action``), so
a change to what ``heuristic`` chooses would make every logged game with a heuristic seat
fail to verify.  Better play goes under a new name (``heuristic2``, docs/bots.md).  The
digests below were taken with the first-version modules as they were before heuristic2
(commit 391c302); a change to what any of them chooses changes its digest.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from lanTag.bots import BOTS
from lanTag.rules.base import Chance, Input, Joint, Move, Over, Turn
from lanTag.rules.playout import random_roll
from lanTag.rules.registry import get_game

# case -> (engine, seats, options, digest of every input of two seeded games)
PINS: dict[str, tuple[str, int, dict[str, object], str]] = {
    "prototag": (
        "prototag",
        3,
        {},
        "0188ce437cf7b7cfadeba953027d85bca0c63192fa05b0a11f3686bdade049a6",
    ),
    "assassination": (
        "assassination",
        3,
        {},
        "cc269d4df7fd4b4eaf836ea86fd00a798c616ebd82385cee14a04954e8614fbb",
    ),
    "boardtag": (
        "boardtag",
        2,
        {},
        "7d005b39cfd78f1a1db918d21a6c3d9f8feceda88af4ddc2c12165f1253b04d1",
    ),
    "stomptag": (
        "stomptag",
        3,
        {},
        "876b8899eea58a5aa133c5360a35b24167723d66fd30392c21dcee465790c9ee",
    ),
    "tagem": (
        "tagem",
        2,
        {},
        "3cf39a3e4d0df4c36f3b1b10b597b802383082e8fee590dcaac2f74fd23f9a97",
    ),
    "tagem-ctf": (
        "tagem",
        3,
        {"mode": "ctf", "max_turns": 4},
        "0d8c9a2547a8c691265d28503651b61594aff93ea71de108b26dc4021cbd2f52",
    ),
}


def _digest(engine: str, seats: int, options: dict[str, object]) -> str:
    bot = BOTS["heuristic"]
    h = hashlib.sha256()
    for game in range(2):
        rng = random.Random(f"heuristic-pin/{engine}/{game}")
        state = get_game(engine).new_state(seats, options)
        while not isinstance(d := state.decision(), Over):
            if isinstance(d, Chance):
                inp: Input = random_roll(d, rng.randrange)
            elif isinstance(d, Turn):
                inp = Move(d.seat, bot(state, d.seat, rng.randrange))
            else:
                inp = Joint(tuple((s, bot(state, s, rng.randrange)) for s in sorted(d.seats)))
            h.update(repr(inp).encode())
            state = state.apply(inp)
    return h.hexdigest()


@pytest.mark.parametrize("case", sorted(PINS))
def test_heuristic_choices_are_pinned(case: str) -> None:
    engine, seats, options, pin = PINS[case]
    assert _digest(engine, seats, options) == pin
