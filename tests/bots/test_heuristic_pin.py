"""Every bot plays exactly as it always has.

A log replays its bot seats by bot name (lanTag/session/referee.py ``bot_turn_action``), and
a dropped seat's turns by ``random`` (SPEC §5.5), so a change to what a named bot chooses
would make every logged game with such a seat fail to verify.  Better play goes under a new
name (docs/bots.md).  The ``heuristic`` digests were taken with the first-version modules as
they were before heuristic2 (commit 391c302); the ``heuristic2`` and ``random`` ones from the
code of 2026-11-29 (four games' ``heuristic2`` is their ``heuristic``: a change to one of
those ``bot.py`` changes both names).  A change to what any of them chooses changes its
digest.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from lanTag.bots import BOTS
from lanTag.rules.base import Chance, Input, Joint, Move, Over, Turn
from lanTag.rules.playout import random_roll
from lanTag.rules.registry import get_game

# case -> (engine, seats, options, bot name -> digest of every input of two seeded games)
PINS: dict[str, tuple[str, int, dict[str, object], dict[str, str]]] = {
    "prototag": (
        "prototag",
        3,
        {},
        {
            "heuristic": "0188ce437cf7b7cfadeba953027d85bca0c63192fa05b0a11f3686bdade049a6",
            "heuristic2": "0188ce437cf7b7cfadeba953027d85bca0c63192fa05b0a11f3686bdade049a6",
            "random": "0ec9fc47ee7a137fd6f0f309941b531fc390f445eec11ca0666cc011149eaded",
        },
    ),
    "assassination": (
        "assassination",
        3,
        {},
        {
            "heuristic": "cc269d4df7fd4b4eaf836ea86fd00a798c616ebd82385cee14a04954e8614fbb",
            "heuristic2": "cc269d4df7fd4b4eaf836ea86fd00a798c616ebd82385cee14a04954e8614fbb",
            "random": "f2efebd37d3716ce9118a762abfb8d17e11e6f5b563c2aac1ee5ca1474cafbe7",
        },
    ),
    "boardtag": (
        "boardtag",
        2,
        {},
        {
            "heuristic": "7d005b39cfd78f1a1db918d21a6c3d9f8feceda88af4ddc2c12165f1253b04d1",
            "heuristic2": "7d005b39cfd78f1a1db918d21a6c3d9f8feceda88af4ddc2c12165f1253b04d1",
            "random": "4ad998958af63fb0633387f1cbf2eeb6c0738fdfaddc28de2b99a5c4523a0f82",
        },
    ),
    "stomptag": (
        "stomptag",
        3,
        {},
        {
            "heuristic": "876b8899eea58a5aa133c5360a35b24167723d66fd30392c21dcee465790c9ee",
            "heuristic2": "876b8899eea58a5aa133c5360a35b24167723d66fd30392c21dcee465790c9ee",
            "random": "a177380ac88f6f77dd4daffca3f6a15a606831269d88e511f09f79b4228be589",
        },
    ),
    "tagem": (
        "tagem",
        2,
        {},
        {
            "heuristic": "3cf39a3e4d0df4c36f3b1b10b597b802383082e8fee590dcaac2f74fd23f9a97",
            "heuristic2": "7ad7863364313458c9df13028172dc564fb70b7f62a4d465ebf491121d34dd51",
            "random": "2a3647a794f43108aad3b0600bad71a4dd4622e5a01ca669eb7caf84f9bb559e",
        },
    ),
    "tagem-ctf": (
        "tagem",
        3,
        {"mode": "ctf", "max_turns": 4},
        {
            "heuristic": "0d8c9a2547a8c691265d28503651b61594aff93ea71de108b26dc4021cbd2f52",
            "heuristic2": "c1925fc3507bdda5ff67a3a0d5dbfce9c6987f267b47004309dab6739230e11b",
            "random": "4e4bed8ecdef0f96d173949d9aa99aa8b5e3292eb48a03a17058739f76296502",
        },
    ),
}


def _digest(name: str, engine: str, seats: int, options: dict[str, object]) -> str:
    bot = BOTS[name]
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
@pytest.mark.parametrize("name", sorted(BOTS))
def test_every_bots_choices_are_pinned(case: str, name: str) -> None:
    engine, seats, options, pins = PINS[case]
    assert _digest(name, engine, seats, options) == pins[name]


def test_every_bot_name_has_its_pins() -> None:
    assert all(sorted(pins) == sorted(BOTS) for *_, pins in PINS.values())
