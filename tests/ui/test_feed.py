"""Feed lines: every resolved roll, collision, battle and tag said in words, with the board's
own places and no internal notation, and kept under the board until our next decision."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.games.boardtag import board as bb
from lanTag.games.stomptag.rounds import Event
from lanTag.rules.registry import get_game
from lanTag.ui import game_commands as commands
from lanTag.ui.feed import seat_namer, step_lines
from lanTag.ui.game_screen import GameApp
from lanTag.ui.snapshot import screen_text
from lanTag.views.registry import game_view
from tests.ui.fakes import advance, solo_handle

NAME = seat_namer(["me", "bot-1", "bot-2"], 0)


def _state(engine: str, *events: Any) -> Any:
    """A 3-seat state of ``engine`` whose last input left these facts (events)."""
    return replace(get_game(engine).new_state(3, {}), events=tuple(events))


def test_stomptag_tags_and_collisions_read_as_moves_and_board_places() -> None:
    tag = Event("tag", 2, (0, 2), (), -1)
    meet = Event("meet", 1, (1, 2), (2, -6), 7)  # side 5: cell 7 is row 1 (from 0, north), c4
    lines = step_lines("stomptag", _state("stomptag", meet, tag), NAME)
    assert [line.text for line in lines] == [
        "move 1: seat 1 bot-1 and seat 2 bot-2 meet at c4 (collision):"
        " seat 1 bot-1 +2, seat 2 bot-2 -6",
        "move 2: seat 0 (you), the it, tags seat 2 bot-2",
    ]
    assert all(line.notable for line in lines)
    # The plain-text board words them the same way, with plain seat names (one table).
    shown = game_view("stomptag").view(_state("stomptag", meet, tag), None)["events"]
    assert shown[1]["text"] == "move 2: seat 0, the it, tags seat 2"


def test_tagem_places_are_the_board_columns_and_rows() -> None:
    state = _state("tagem", ("moves", 0, 1, "n", 6 * 19 + 5, 1, False), ("attacks", 0, 1, 1, 0))
    assert state.board.width == 19
    lines = step_lines("tagem", state, NAME)
    assert [line.text for line in lines] == [
        "A1 moves n to f9 (1 PoM)",  # row 6 of 15 from the top, column 5: rank 9, file f
        "A1 attacks B0",
    ]
    assert [line.notable for line in lines] == [False, True]  # moves only go to the log


def test_boardtag_points_and_gains_name_the_place_and_the_die() -> None:
    point = 2 + bb.LATTICE * 1
    stays = ("stays", 4, 3, 10)  # die 4 is seat 1's, on square 10 (c2)
    state = _state("boardtag", ("jumps", "ffl", point, 0), stays, ("gains-staying",))
    texts = [line.text for line in step_lines("boardtag", state, NAME)]
    assert texts[0] == "IT jumps ffl to point c2 (free)"  # the lines c and 2: c2's corner
    assert texts[2] == "seat 1 bot-1's die on c2 gains a point: it stayed"
    assert game_view("boardtag").view(state, None)["events"][2] == (
        "seat 1's die on c2 gains a point: it stayed"
    )


def test_prototag_and_assassination_name_seats_with_the_namer_passed_in() -> None:
    rps = step_lines("prototag", _state("prototag", ("rps-tags", 0, "rock", 2, "scissors")), NAME)
    assert [line.text for line in rps] == [
        "rock-paper-scissors: seat 0 (you) rock, seat 2 bot-2 scissors: seat 2 bot-2 is tagged"
    ]
    caught = _state("assassination", ("first-victim", 1))
    assert [line.text for line in step_lines("assassination", caught, NAME)] == [
        "seat 1 bot-1 is the first victim"
    ]
    assert game_view("assassination").view(caught, None)["events"] == [
        "seat 1 is the first victim"
    ]


def test_facts_an_engine_carries_over_are_told_once() -> None:
    tags = ("tags", 0, 29, 1)
    before = _state("boardtag", tags)
    after = _state("boardtag", tags, ("returns", 0, 62))
    texts = [line.text for line in step_lines("boardtag", after, NAME, before)]
    assert texts == ["seat 0 (you)'s old IT die returns on g8"]
    assert len(step_lines("boardtag", after, NAME)) == 2  # without ``before``: both


# Something each engine's feed says within its first moves against bots.
FIRST_OUTCOME = {
    "prototag": re.compile(r"^start roll: .*(starts|tie and throw again)"),
    "assassination": re.compile(r"^seat \d .*(is the first victim|rolled)"),
    "boardtag": re.compile(r"^seat \d .*is IT$"),
    "stomptag": re.compile(r"^(bids|minimum bids|starting cells): "),
    "tagem": re.compile(r"^turn order: [A-Z]( [A-Z])*$"),  # by the board's letters
}
# The solo game's seed per engine (default "ui"): one whose opening outcomes fit the panel
# beside the board (prototag: since protocol 5's game ids, "ui" opens with a tie whose
# re-roll lines push the outcome header off a 40-row screen).
SEEDS = {"stomptag": "ui1", "prototag": "ui2"}
INTERNAL = re.compile(r"\bm\d+ \d|\br\d+c\d+\b|cells?: \d+ \|")


@pytest.mark.parametrize("engine", list(FIRST_OUTCOME))
async def test_every_engine_keeps_its_outcomes_in_words_until_our_decision(engine: str) -> None:
    handle = solo_handle(engine, seed=SEEDS.get(engine, "ui"))
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput())
        model = game.model
        for n in range(6):
            advance(handle, 1, seed=n)
            model.poll()
        kept = [line.text for line in model.outcomes]
        logged = [line.text.split(": ", 1)[1] for line in model.log if ": " in line.text]
        assert any(FIRST_OUTCOME[engine].search(t) for t in logged), logged
        for text in kept + logged:
            assert not INTERNAL.search(text), text
        if not kept or model.is_over():
            return
        assert "» " + kept[-1][:30] in screen_text(game.app, 120, 40)
        # Our next decision: the outcomes we have read go.
        session = model.session
        assert session is not None
        assert session.my_turn() is not None  # advance stops at our turn
        commands.run(model, "submit", model.action_text(next(iter(model.legal()))))
        assert not model.outcomes  # cleared by the decision (the poll adds what came after)


@pytest.mark.parametrize("engine", list(FIRST_OUTCOME))
async def test_the_running_console_keeps_the_opening_outcome_until_our_keys_decide(
    engine: str,
) -> None:
    """The real app on a pipe input and a vt100 output: the opening roll's outcome stands
    under the board; Tab puts the first legal action on the line and Enter plays it, which
    is our decision: the outcomes read before it leave the screen."""
    import asyncio
    import io

    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output.vt100 import Vt100_Output

    from tests.ui.fakes import eventually

    handle = solo_handle(engine, seed=SEEDS.get(engine, "ui"))
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=output, color=False)
        model = game.model
        task = asyncio.create_task(game.run())
        session = model.session
        assert session is not None and model.outcomes
        opening = model.outcomes[0].text
        assert FIRST_OUTCOME[engine].search(opening), opening
        read = list(model.outcomes)
        text = screen_text(game.app, 120, 40)
        assert "since your last move" in text and "» " + read[-1].text[:30] in text, text
        step = session.step
        inp.send_text("\t")
        await eventually(lambda: model.line.text != "")
        inp.send_text("\r")
        await eventually(lambda: session.step > step)
        # Every line read before our decision is gone (what follows it is new).
        assert not any(new is old for new in model.outcomes for old in read)
        model.exit_code = 1
        await asyncio.wait_for(task, 30)


@pytest.mark.parametrize("engine", list(FIRST_OUTCOME))
async def test_the_newest_outcome_is_seen_at_80x24(engine: str) -> None:
    # Board Tag's and Tag 'em's boards fill the pane's height at 80x24: the outcome lines
    # live in the side panel so they are still seen there.
    handle = solo_handle(engine, seed=SEEDS.get(engine, "ui"))
    with create_pipe_input() as inp:
        game = GameApp(handle, input=inp, output=DummyOutput(), color=False)
        assert game.model.outcomes
        newest = game.model.outcomes[-1].text
        text = screen_text(game.app, 80, 24)
    assert "» " + newest[:20] in text, text
