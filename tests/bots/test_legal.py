"""Bots only choose legal actions, are deterministic, and the simulator is reproducible.

Every engine with a heuristic plays a few seeded games (all heuristic seats, and a mix
with random seats) at several table sizes; before each bot move the action is checked
against the engine, and the same state with the same integer stream must give the same
action twice.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from lanTag.bots import BOTS, DEFAULT_BOT, bot_names, choose_action, random_legal
from lanTag.bots.heuristic import heuristic2_ids, heuristic_for, heuristic_ids
from lanTag.rules.base import (
    Action,
    Chance,
    Input,
    Joint,
    Move,
    Over,
    State,
    Turn,
)
from lanTag.rules.playout import random_roll
from lanTag.rules.registry import engine_ids, get_game
from lanTag.sim.simulate import simulate

PACKAGE = Path(__file__).resolve().parents[2] / "lanTag"
# The shared bot code and every game's bots (lanTag/games/<id>/bot*.py).
BOT_FILES = sorted([*(PACKAGE / "bots").glob("*.py"), *(PACKAGE / "games").glob("*/bot*.py")])
ENGINES = sorted(heuristic_ids())
# (engine, bot name): every engine's heuristic, and every second version there is.
CASES = [(e, "heuristic") for e in ENGINES] + [
    (e, "heuristic2") for e in sorted(heuristic2_ids())
]
GAMES_PER_ENGINE = 6
# Non-default options that change what the bots must get right (board size, immunity,
# re-rolls, the 6x6 board, run order); engines not listed play their defaults only.
OPTION_SETS: dict[str, list[dict[str, object]]] = {
    "prototag": [
        {"board_size": 3, "end_steps": 60},
        {"first_tagged": "random", "immunity_steps": 0},
    ],
    "assassination": [{"null_reroll": "once", "variation_a": True}],
    "boardtag": [{"run_order": "right", "max_rounds": 8}],
    "tagem": [{"mode": "ctf", "max_turns": 6}, {"mode": "ctcf", "max_turns": 6}],
}


def _seat_counts(engine: str) -> list[int]:
    game = get_game(engine)
    top = min(game.max_seats, 8)
    return sorted({game.min_seats, min(max(4, game.min_seats), top), top})


class _Recorder:
    """A seeded below() that remembers what it returned, to replay the same stream."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.drawn: list[tuple[int, int]] = []

    def __call__(self, n: int) -> int:
        value = self.rng.randrange(n)
        self.drawn.append((n, value))
        return value


def _replay(drawn: list[tuple[int, int]]) -> Callable[[int], int]:
    stream = iter(drawn)

    def below(n: int) -> int:
        asked, value = next(stream)
        assert asked == n, "the bot asked for a different range on the same state"
        return value

    return below


def _checked(state: State, seat: int, rng: random.Random, name: str) -> Action:
    bot = BOTS[name]
    rec = _Recorder(rng)
    action = bot(state, seat, rec)
    state.check_action(seat, action)  # raises IllegalAction if the bot cheated
    assert action in state.legal_actions(seat)
    again = bot(state, seat, _replay(rec.drawn))
    assert again == action, f"{state.game.id}: not deterministic for seat {seat}"
    return action


@pytest.mark.parametrize(("engine", "bot"), CASES)
def test_heuristic_only_chooses_legal_actions_and_is_deterministic(engine: str, bot: str) -> None:
    game = get_game(engine)
    option_sets: list[dict[str, object]] = [{}, *OPTION_SETS.get(engine, [])]
    for n in range(GAMES_PER_ENGINE):
        for seats in _seat_counts(engine):
            rng = random.Random(f"legal/{engine}/{seats}/{n}")
            state = game.new_state(seats, option_sets[n % len(option_sets)])
            heuristic_seats = set(range(seats)) if n % 2 == 0 else {n % seats}
            names = [bot if s in heuristic_seats else "random" for s in range(seats)]
            steps = 0
            while not isinstance(d := state.decision(), Over):
                if isinstance(d, Chance):
                    inp: Input = random_roll(d, rng.randrange)
                elif isinstance(d, Turn):
                    inp = Move(d.seat, _checked(state, d.seat, rng, names[d.seat]))
                else:
                    inp = Joint(
                        tuple((s, _checked(state, s, rng, names[s])) for s in sorted(d.seats))
                    )
                state = state.apply(inp)
                steps += 1
                assert steps < 20_000, f"{engine} game did not end"


def test_registry_api() -> None:
    assert "random" in bot_names() and "heuristic" in bot_names()
    assert DEFAULT_BOT in BOTS
    with pytest.raises(ValueError, match="unknown bot"):
        choose_action("nobody", get_game("prototag").new_state(2), 0, lambda n: 0)


def test_heuristic_falls_back_to_random_for_engines_without_one() -> None:
    for engine in engine_ids():
        if engine not in heuristic_ids():
            assert heuristic_for(engine) is random_legal


def test_bots_use_no_randomness_clock_or_global_state() -> None:
    """The lockstep contract: below() is a bot's only input besides the state."""
    banned = {"random", "time", "datetime", "secrets", "os", "uuid"}
    assert {f"{e}/bot.py" for e in ENGINES} <= {f"{p.parent.name}/{p.name}" for p in BOT_FILES}
    for path in BOT_FILES:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                names = {(node.module or "").split(".")[0]}
            else:
                if isinstance(node, ast.Global | ast.Nonlocal):
                    pytest.fail(f"{path.name}: {type(node).__name__} statement")
                continue
            assert not names & banned, f"{path.name} imports {names & banned}"


def test_simulate_is_reproducible_and_independent_of_worker_count() -> None:
    one = simulate("prototag", 6, seed=11, workers=1, seats=3)
    two = simulate("prototag", 6, seed=11, workers=2, seats=3)
    assert one == two
    assert one.to_json() == two.to_json()
    other = simulate("prototag", 6, seed=12, workers=1, seats=3)
    assert other.results != one.results
    # Simultaneous choices and a mix of bots, across processes too.
    lineup = ["heuristic", "random", "heuristic"]
    assert simulate("stomptag", 4, seed=3, bots=lineup, seats=3, workers=1) == simulate(
        "stomptag", 4, seed=3, bots=lineup, seats=3, workers=2
    )
