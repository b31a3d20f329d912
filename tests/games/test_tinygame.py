"""Issue #37's done-when: a sixth game is one new folder plus one registry line.

tests/games/tinygame/ is that folder (its engine, view, painter, bot, simulator figures,
rules text and the ENTRY naming them); the line is ``register_game("tests.games.tinygame")``
(a shipped game's line is its package in ``lanTag.games.SHIPPED``).  Nothing in lanTag
names the game, yet every layer finds it by id: it plays through the real session on the
simulated network and in real processes, and its logs verify.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanTag.bots.heuristic import heuristic_for
from lanTag.rules.base import Move, Roll
from lanTag.rules.registry import (
    GameEntry,
    engine_ids,
    find_entry,
    get_game,
    register_game,
    unregister_engine,
)
from lanTag.sim.metrics import tracker_for
from lanTag.sim.simulate import simulate
from lanTag.ui.boards import badge, badge_key, paint, zooms
from lanTag.ui.feed import step_lines
from lanTag.views.registry import game_view
from tests.cli.helpers import lantag, make_home
from tests.games.tinygame import bot, metrics
from tests.games.tinygame.engine import TAKES
from tests.support.table import Table, final_history

ROOT = Path(__file__).resolve().parents[2]
# The one registry line, for a lantag process: a sitecustomize module that runs it.
REGISTER = (
    "from lanTag.rules.registry import register_game\n"
    'register_game("tests.games.tinygame")\n'
)


@pytest.fixture
def tinygame() -> Iterator[GameEntry]:
    assert find_entry("tinygame") is None  # not shipped: only this line adds it
    entry = register_game("tests.games.tinygame")
    try:
        yield entry
    finally:
        unregister_engine("tinygame")


def test_every_layer_finds_the_new_game_by_id(tinygame: GameEntry) -> None:
    assert engine_ids()[-1] == "tinygame" and get_game("tinygame").display_name == "Countdown"
    state = get_game("tinygame").new_state(2, {"counters": 4})
    # The view, its words for a roll and the feed (the draw is routine, a take is not).
    shown = game_view("tinygame")
    assert shown.render(state) == "Countdown: 4 left, drawing who starts"
    assert shown.purpose_text("first-taker") == "who takes first"
    started = state.apply(Roll(((1,),)))
    taken = started.apply(Move(1, TAKES[0]))
    name = str
    assert [(line.text, line.notable) for line in step_lines("tinygame", started, name)] == [
        ("1 starts", False)
    ]
    assert [(line.text, line.notable) for line in step_lines("tinygame", taken, name)] == [
        ("1 takes 1 (3 left)", True)
    ]
    # The painter, its badges and their legend.
    view = shown.view(taken, 0)
    painted = paint("tinygame", view, ["me", "you"], lambda: "the plain board, unused")
    assert ["".join(text for _, text in row) for row in painted.rows] == ["o o o "]
    assert zooms("tinygame") == 1 and badge("tinygame", view, 0) == "next"
    assert badge_key("tinygame") in ["".join(t for _, t in row) for row in painted.legend]
    # Its heuristic, its figures, its rules text.
    assert heuristic_for("tinygame") is bot.choose
    assert isinstance(tracker_for("tinygame"), metrics.CountdownTracker)
    assert tinygame.read_rules_text().startswith("# Countdown")
    report = simulate("tinygame", 6, seed=2, bots="heuristic", seats=2, workers=1)
    assert report.unit == "takes" and [f.name for f in report.figures] == ["first_won"]
    assert len(report.finished) == 6


def test_a_bot_game_through_the_real_session_verifies(tinygame: GameEntry) -> None:
    # Whole peers (links, lobby, session, bot drivers) on the simulated network.
    table = Table("tinygame", 2, bots=("heuristic",), bot="heuristic", seed=3)
    table.start()
    table.run_to_end()
    histories = set()
    for i in range(len(table.peers)):
        report = table.report(i)
        assert report.valid and report.complete and report.replayed, report.failure
        assert report.engine == "tinygame" and report.blames == []
        assert report.outcome.endswith("took the last counter")
        histories.add(final_history(report))
    assert len(histories) == 1 and len(histories.pop()) >= 4  # the draw and three takes


def test_lantag_plays_and_verifies_the_new_game_in_real_processes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(REGISTER, encoding="utf-8")
    path = os.pathsep.join([str(site), str(ROOT)])
    home = make_home(tmp_path / "me")
    log = tmp_path / "countdown.lantag"
    played = lantag(
        home,
        *("play", "--game", "tinygame", "--bots", "2", "--bot", "heuristic", "--headless"),
        *("--log", str(log)),
        env={"PYTHONPATH": path},
    )
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith("started: tinygame, you are seat 0 (tester)")
    verified = lantag(home, "verify", str(log), env={"PYTHONPATH": path})
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "took the last counter" in verified.stdout
    rules = lantag(home, "rules", "tinygame", env={"PYTHONPATH": path})
    assert rules.returncode == 0 and rules.stdout.startswith("# Countdown"), rules.stderr
    # Without its registry line the same lanTag does not know the game.
    unknown = lantag(home, "rules", "tinygame", env={"PYTHONPATH": str(ROOT)})
    assert unknown.returncode != 0 and "unknown game 'tinygame'" in unknown.stderr
