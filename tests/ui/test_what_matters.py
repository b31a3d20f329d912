"""What matters stays on screen (issue #34, item 7): lines about us are never folded away
behind "(N more in the log)", every "act or lose" rule warns the player it threatens, and
every badge of the players panel has a legend line."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import tests.rules.test_positions as positions
from lanTag.games.tagem.engine import Tagem
from lanTag.rules.base import Action, Move, Roll
from lanTag.rules.registry import engine_ids, get_game
from lanTag.ui import game_commands as commands
from lanTag.ui.boards import badge, badge_key
from lanTag.ui.feed_panel import FEED_SHOWN, feed_fragments
from lanTag.ui.game_lines import LogLine
from lanTag.ui.game_screen import GameApp
from lanTag.ui.model import OUTCOMES_KEEP, GameModel
from lanTag.ui.snapshot import screen_text
from lanTag.views.registry import game_view
from tests.ui.fakes import FakeHandle, solo_handle

# --------------------------------------------------------------------------- the feed


def _caught_then_waiting(model: GameModel) -> None:
    """Assassination, four players (seed "catch2"): we play random legal moves through the
    screen's commands until a bot catches us and our next decision comes, eight outcome
    lines later."""
    rng = random.Random("catch2")
    session = model.session
    assert session is not None
    for _ in range(400):
        caught = any("catches seat 0 (you)" in x.text for x in model.outcomes)
        if caught and session.my_turn() is not None:
            return
        if session.my_turn() is not None:
            legal = list(model.legal())
            commands.run(model, "submit", model.action_text(legal[rng.randrange(len(legal))]))
        model.poll()
    raise AssertionError("no catch of seat 0 in this game")


@pytest.mark.parametrize("size", [(80, 24), (60, 16)])
async def test_being_caught_is_never_folded_away(size: tuple[int, int]) -> None:
    # The issue: "the catch of you is hidden behind two null-roll lines as (2 more in the
    # log)".
    handle = solo_handle("assassination", 3, seed="catch2")
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        _caught_then_waiting(game.model)
        others = [x for x in game.model.outcomes if not x.mine]
        assert len(others) > FEED_SHOWN  # enough to fold
        text = screen_text(game.app, *size)
    side = _side(text)
    assert "catches seat 0 (you) on" in side, text
    assert re.search(r"since your last move \(\d+ more in the log\)", side), text


def _side(text: str) -> str:
    """The side panel (right of the bar) of a screen, as one line of words."""
    rows = [row.split("│", 1)[1] for row in text.splitlines() if "│" in row]
    return " ".join(" ".join(rows).split())


def test_lines_about_us_outlast_any_number_of_others() -> None:
    model = GameModel(solo_handle("prototag", 1))
    model.add_outcome(LogLine("class:warn", "seat 1 tags you", mine=True))
    for n in range(3 * OUTCOMES_KEEP):
        model.add_outcome(LogLine("class:warn", f"other {n}"))
    texts = [x.text for x in model.outcomes]
    assert texts[0] == "seat 1 tags you" and len(texts) == OUTCOMES_KEEP + 1
    assert texts[-1] == f"other {3 * OUTCOMES_KEEP - 1}"
    # Drawn in a panel with room for only three rows: ours, then the newest other.
    shown = "".join(f[1] for f in feed_fragments(model.outcomes, 40, 3))
    assert "seat 1 tags you" in shown and f"other {3 * OUTCOMES_KEEP - 1}" in shown
    assert f"({OUTCOMES_KEEP - 1} more in the log)" in shown


def test_tagem_facts_that_hit_a_team() -> None:
    # A0 attacks B0 (on cover, from the west) and wins the roll: the attack, the roll and
    # B0's defeat happen to B, none of them to nobody-else.
    start = Tagem.from_position(positions._tagem(pawns=[["k9", "l10"], ["l9", "l4"]]))
    attacked = start.apply(Move(0, Action("attack", (0, "e"))))
    after = attacked.apply(Roll(((6, 1),)))  # the attacker 6, the defender 1
    shown = game_view("tagem")
    assert shown.events_about(attacked, 1) == [True] and shown.events_about(attacked, 0) == [False]
    codes = [fact[0] for fact in after.events]
    about_b = dict(zip(codes, shown.events_about(after, 1), strict=True))
    assert about_b["rolls"] and (about_b.get("respawns") or about_b.get("eliminated"))


# --------------------------------------------------------------------------- act or lose

_BOARDTAG_DICE = [
    {"owner": 0, "score": 1, "square": "h7"},
    {"owner": 0, "score": 1, "square": "f8"},
    {"owner": 0, "score": 2, "square": None},
    {"owner": 1, "score": 6, "square": "e7"},
    {"owner": 1, "score": 6, "square": "h4"},
    {"owner": 1, "score": 6, "square": "a1"},
]
_STOMPTAG_PLAYERS = [
    {"cell": "c2", "minimum": 2, "bid": 7, "points": 3},
    {"cell": "c3", "minimum": 3, "bid": 26, "points": 10},
    {"cell": "e1", "minimum": 1, "bid": 11, "points": 21},
]
# (engine, the position where seat 0 must act or lose, the same position without the
# threat, the warning's words)
WARNINGS: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "prototag",
        positions._prototag(tagged=0, tagged_steps=37),
        positions._prototag(tagged=0, tagged_steps=20),
        "tagged steps 37/40: tag someone within 3 step(s) or you lose",
    ),
    (
        "assassination",
        positions._assassination(
            victim=1,
            mover=0,
            pieces=["a2", "b2", "e5"],
            bases_touched=[[], ["n", "e", "s"], []],
            last_assassin=0,
        ),
        positions._assassination(
            victim=1, mover=0, pieces=["a2", "b2", "e5"], bases_touched=[[], ["n"], []]
        ),
        "seat 1 has touched 3 of 4 bases: catch them before they land on a3 or they win",
    ),
    (
        "boardtag",
        positions._boardtag(
            dice=_BOARDTAG_DICE, it_seat=0, it_die=2, mover=0, finished=[0, 1, 3, 4, 5]
        ),
        positions._boardtag(),
        "seat 1 shows 6 6 6: tag one of its dice before your IT Phase ends, or you lose",
    ),
    (
        "stomptag",
        positions._stomptag(players=_STOMPTAG_PLAYERS),
        positions._stomptag(),
        "you are it with 3 point(s) and pay 4 at the round's end: tag someone this round "
        "or you are out",
    ),
    (
        "tagem",
        positions._tagem(
            flags=[
                {"owner": 0, "cell": None, "carrier": "B0"},
                {"owner": 1, "cell": "m3", "carrier": None},
            ],
            pawns=[["c9", "b10"], ["l3", "l4"]],
        ),
        positions._tagem(),
        "B0 carries your flag: stop it before it reaches m3 or you are out",
    ),
]


def _from_position(engine: str, position: dict[str, Any]) -> FakeHandle:
    game = get_game(engine)
    state = game.from_position(position)
    options = tuple(sorted(game.position(state)["options"].items()))
    return solo_handle(engine, state.seats - 1, options=options, start_position=state.encode())


@pytest.mark.parametrize(("engine", "threat", "calm", "words"), WARNINGS)
@pytest.mark.parametrize("size", [(80, 24), (60, 16)])
async def test_every_act_or_lose_rule_warns_the_player_it_threatens(
    engine: str, threat: dict[str, Any], calm: dict[str, Any], words: str, size: tuple[int, int]
) -> None:
    handle = _from_position(engine, threat)
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        assert game.model.view()["warnings"] == [words]
        screen_text(game.app, *size)
        text = screen_text(game.app, *size)
    pane = " ".join(" ".join(row.split("│")[0] for row in text.splitlines()[1:]).split())
    assert "! " + words in pane, text
    # Nobody else is warned of it, and without the threat nothing is said.
    session = handle.machine.session
    assert session is not None
    assert game_view(engine).view(session.state, 1)["warnings"] == []
    calm_handle = _from_position(engine, calm)
    calm_session = calm_handle.machine.session
    assert calm_session is not None
    assert game_view(engine).view(calm_session.state, 0)["warnings"] == []


# --------------------------------------------------------------------------- badges


@pytest.mark.parametrize("engine", engine_ids())
async def test_every_badge_has_its_legend_on_screen(engine: str) -> None:
    handle = solo_handle(engine, seed="ui1" if engine == "stomptag" else "ui")
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        view = game.model.view()
        text = screen_text(game.app, 80, 24)
    assert badge_key(engine) and badge_key(engine) in _side(text), text
    # Every word a badge shows is in its legend line: a number's unit right after a
    # number ("2c"), a word as a word ("victim").
    key = badge_key(engine)
    shown = [
        part
        for seat in range(len(game.model.names()))
        for part in badge(engine, view, seat).split()
    ]
    assert shown
    for part in shown:
        unit = re.sub(r"^-?\d+", "", part)
        pattern = rf"\d{unit}\b" if unit != part else rf"\b{part}\b"
        assert re.search(pattern, key), (part, key)


def test_a_battle_that_tags_us_stays_and_one_that_does_not_folds() -> None:
    # Prototag, two players, at our battle (seed "ui0"): the bot's choice is drawn, so
    # which of our three choices gets us tagged is fixed; each is tried on a fresh table.
    from tests.ui.test_hints import _battle

    seen = set()
    for choice in ("rock", "paper", "scissors"):
        model = GameModel(_battle())
        model.poll()
        commands.run(model, "submit", f"rps {choice}")
        model.poll()
        line = next(x for x in model.outcomes if x.text.startswith("rock-paper-scissors:"))
        tagged = line.text.endswith("you are tagged")
        assert line.mine == tagged, line
        seen.add(line.mine)
    assert seen == {True, False}, "no choice both ways: pick another seed"
