"""Outcome lines: every resolved secret round says who did what, in words, and stays on
screen until our next decision; stale "waiting for" lines go; rolls read as the rules."""

from __future__ import annotations

import re

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.games.assassination.engine import AssassinationState
from lanTag.games.boardtag.engine import BoardTagState
from lanTag.games.tagem.engine import TagemState
from lanTag.rules.base import FORFEIT, Action, Joint
from lanTag.ui import game_commands as commands
from lanTag.ui.game_screen import GameApp
from lanTag.ui.model import GameModel
from lanTag.ui.outcomes import secret_line, who_namer
from lanTag.ui.snapshot import screen_text
from lanTag.views.registry import game_view
from tests.ui.fakes import solo_handle

VIEW = game_view("stomptag")

NAMES = ["me", "bot-1", "bot-2"]


def _rps(a: str, b: str, tagged: int) -> str:
    joint = Joint(((0, Action("rps", (a,))), (2, Action("rps", (b,)))))
    return secret_line("prototag", "rps", joint, {"tagged": tagged}, who_namer(NAMES, 0), str)


def test_rock_paper_scissors_names_the_winner_and_who_is_tagged() -> None:
    assert _rps("scissors", "paper", 2) == (
        "rock-paper-scissors: you (scissors) beat seat 2 bot-2 (paper): seat 2 bot-2 is tagged"
    )
    assert _rps("rock", "paper", 0) == (
        "rock-paper-scissors: seat 2 bot-2 (paper) beats you (rock): you are tagged"
    )
    assert _rps("paper", "paper", 0) == (
        "rock-paper-scissors: you and seat 2 bot-2 both chose paper: a draw, play again"
    )


def _stomptag_app() -> GameApp:
    handle = solo_handle("stomptag")
    return GameApp(handle, input=create_pipe_input(), output=DummyOutput())



def test_a_forfeit_in_a_battle_is_said_not_crashed_on() -> None:
    # A convicted seat's share of a battle is the forfeit, an action without args (SPEC §4.4):
    # the line names it (the real-process two-commits table's host printed a traceback).
    joint = Joint(((0, Action("rps", ("rock",))), (2, FORFEIT)))
    line = secret_line("prototag", "rps", joint, {"tagged": 2}, who_namer(NAMES, 0), str)
    assert line == (
        "rock-paper-scissors: you rock; seat 2 bot-2 forfeits (convicted of cheating):"
        " seat 2 bot-2 is tagged"
    )


async def test_stomptag_minimum_bids_are_the_real_minimums() -> None:
    # The draw is a permutation of 0..n-1; the panel used to show it raw ("1 0 2").
    game = _stomptag_app()
    session = game.model.session
    assert session is not None and game.model.last_roll is not None
    view = VIEW.view(session.state, 0)
    mins = {p["seat"]: p["minimum"] for p in view["players"]}
    assert sorted(mins.values()) == [1, 2, 3]
    # The minimum shown is the one the rules enforce: our lowest legal bid.
    assert min(int(a.args[0]) for a in session.state.legal_actions(0)) == mins[0]
    expected = f"you {mins[0]}, seat 1 bot-1 {mins[1]}, seat 2 bot-2 {mins[2]}"
    assert game.model.last_roll.values == expected
    assert f"minimum bids: {expected}" in "".join(text for _, text, *_ in game._turn_text())
    assert "minimum bids: you" in screen_text(game.app, 120, 40)


async def test_a_resolved_secret_round_stays_until_our_next_decision() -> None:
    game = _stomptag_app()
    model, session = game.model, game.model.session
    assert session is not None and session.my_turn() == "secret"
    bid = str(next(iter(model.legal())))
    commands.run(model, "submit", bid)
    model.poll()
    assert VIEW.view(session.state, 0)["phase"] == "orders"  # the bids resolved at once (bots)
    # The stale "committed ... waiting for N other(s)" is gone; the outcome is shown.
    assert "waiting for" not in model.message
    kept = [line.text for line in model.outcomes]
    assert any(text.startswith(f"bids: you {bid.split()[1]}; ") for text in kept), kept
    # The bids paid and the starting cells (a roll) are told too, in words.
    assert any(text.startswith("bids paid: seat 0 (you) -") for text in kept), kept
    assert any(re.match(r"starting cells: you at [a-e][1-5], ", text) for text in kept), kept
    text = screen_text(game.app, 80, 24)
    newest = model.outcomes[-1].text
    assert "waiting for" not in text
    assert "» " + newest[: newest.index(":") + 1] in text, text
    # The starting cells read as board places, never as cell indices.
    assert model.last_roll is not None
    places = model.last_roll.values.split(", ")
    assert len(places) == 3 and all(re.fullmatch(r".+ at [a-e][1-5]", p) for p in places)
    # Our next decision clears the outcomes we have seen.
    commands.run(model, "submit", str(next(iter(model.legal()))))
    model.poll()
    assert all(not line.text.startswith("bids:") for line in model.outcomes)


def test_a_roll_that_draws_seats_names_them_on_the_dice_line() -> None:
    # Tag 'em's turn order by the board's letters, Board Tag's first IT by the seat's name:
    # the numbers drawn ("2 1 0", "2") are seat indices, which nothing else on screen shows.
    tagem = GameModel(solo_handle("tagem", 2))
    tagem.poll()
    session = tagem.session
    assert session is not None and tagem.last_roll is not None
    rolled = session.state_at(1)
    assert isinstance(rolled, TagemState)
    letters = " ".join("ABC"[seat] for seat in rolled.order)
    assert tagem.last_roll.purpose == "turn order" and tagem.last_roll.values == letters
    boardtag = GameModel(solo_handle("boardtag", 2))
    boardtag.poll()
    assert boardtag.session is not None and boardtag.last_roll is not None
    started = boardtag.session.state_at(1)
    assert isinstance(started, BoardTagState)
    it = started.it_seat
    named = "you" if it == 0 else f"seat {it} bot-{it}"
    assert (boardtag.last_roll.purpose, boardtag.last_roll.values) == ("who starts as IT", named)
    assassination = GameModel(solo_handle("assassination", 2))
    assassination.poll()
    assert assassination.session is not None
    picked = assassination.session.state_at(1)
    assert isinstance(picked, AssassinationState)
    named = "you" if picked.victim == 0 else f"seat {picked.victim} bot-{picked.victim}"
    first = assassination.log[0].text  # its own dice may have rolled since
    assert first.startswith(f"0: roll-off for the first victim: {named} — "), first
    # Prototag draws its first tagged seat only with an option: its view words it alike.
    assert game_view("prototag").roll_text("first-tagged", ((1,),)) == "seat 1"
    assert game_view("prototag").roll_text("roll/1/d6", ((4,),)) is None  # dice stay numbers


def test_orders_read_as_moves_and_the_upgrade_bought() -> None:
    from lanTag.games.stomptag.engine import Stomptag

    joint = Joint(
        ((0, Action("orders", ("stride", "xt"))), (2, Action("orders+up", ("stomp", "np"))))
    )
    line = secret_line("stomptag", "orders", joint, {}, who_namer(NAMES, 0), Stomptag.action_text)
    assert line == "orders: you stride nothing teleport; seat 2 bot-2 stomp n ne + upgrade"


def test_the_turn_line_names_a_secret_round_in_words() -> None:
    model = GameModel(solo_handle("stomptag", 2))  # the minimum bids are drawn at once
    model.poll()
    assert model.turn_text() == "secret bids: seats 0 1 2"  # not the fact code "bid"
