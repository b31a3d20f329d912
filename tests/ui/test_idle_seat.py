"""Idle is not leaving (issue 34 item 1), on the game screen over the simulated network:
the turn clock on our own row and the turn line from the start, a warning (message line
and bell) at 30 s and 10 s before the limit, the seat a bot took at the limit given back
with one key (Enter: the hand-back of a resume, without restarting), and the limit on the
help screen.  Virtual time: the screen's clock is the network's."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.peer.machine import PacedBotDriver
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.ui import game_commands as commands
from lanTag.ui.game_screen import GameApp
from lanTag.ui.snapshot import screen_text
from tests.support.table import Table
from tests.ui.fakes import NetHandle

LIMIT = 60


def _table(seed: int) -> Table:
    # `lantag play --bots 1`: our peer is played through the screen, the bot's by its driver.
    # A long game (end_steps): the bots must not finish it while we are away.
    table = Table(
        "prototag",
        2,
        seed=seed,
        timeouts=Timeouts(turn_ms=LIMIT * 1000),
        options=(("end_steps", 1000),),
    )
    table.peers[0].driver = None
    # As `lantag play`'s bots: paced while our seat is out, so the game is still on when
    # we come back (a table of bots alone would end it in a blink).
    table.peers[1].driver = PacedBotDriver(table.bot)
    table.net.run_for(30.0)
    table.start()
    return table


def _line(screen: str, needle: str) -> str:
    found = [row for row in screen.splitlines()[1:] if needle in row]  # (not the title)
    assert found, f"{needle!r} not on screen:\n{screen}"
    return found[0]


async def test_an_idle_player_is_warned_loses_the_seat_and_takes_it_back_with_enter() -> None:
    table = _table(seed=11)
    handle = NetHandle(table)  # type: ignore[arg-type]
    with create_pipe_input() as inp:
        app = GameApp(handle, input=inp, output=DummyOutput(), clock=lambda: table.net.now)
        model = app.model
        session = model.session
        assert session is not None and model.seat == 0

        def run_until(pred: object, limit: float = 600.0) -> None:
            assert callable(pred)
            end = table.net.now + limit
            while not pred():
                assert table.net.now < end, screen_text(app.app, 100, 30)
                table.net.run_for(0.5)
                model.poll()

        # Our turn (a secret choice first, maybe): the clock is on our row from its start.
        run_until(lambda: session.my_turn() is not None)
        screen = screen_text(app.app, 100, 30)
        assert "you 0/60s" in _line(screen, " host ")
        assert f"· 0/{LIMIT}s" in _line(screen, "turn ")
        assert not model.bell and "left" not in model.message
        # Nothing pressed: 30 s before the limit, a warning and a bell.
        run_until(lambda: model.seconds_left() is not None and model.seconds_left() <= 30)  # type: ignore[operator]
        assert model.bell
        model.bell = False
        assert model.message.startswith("30 s left to ") and "a bot plays it" in model.message
        screen = screen_text(app.app, 100, 30)
        assert "s left!" in _line(screen, "turn ") and "30 s left to" in screen
        run_until(lambda: model.seconds_left() is not None and model.seconds_left() <= 10)  # type: ignore[operator]
        assert model.bell and model.message.startswith("10 s left to ")
        model.bell = False
        # At the limit the bot's peer votes our seat out: a bot plays it, we are told why.
        run_until(lambda: model.seat_taken_over())
        assert model.idle_dropped and model.bell
        screen = screen_text(app.app, 100, 30)
        assert "watching: bot in your seat 0" in screen
        hint = model.prompt_hint()
        assert "press Enter to play it again" in hint and f"idle past the {LIMIT} s limit" in hint
        assert any("you were idle past the 60 s turn limit" in line.text for line in model.log)
        # One key: Enter on the empty command line asks the table for the seat back.
        commands.run(model, "submit")
        assert model.message == "asking the table for your seat back…"
        assert session.rejoin.asking_back and not model.can_take_back()
        run_until(lambda: 0 in session.live)
        backs = [e for e in table.peers[1].events if isinstance(e, ev.SeatsBack)]
        assert [b.seats for b in backs] == [(0,)]  # the other peer let it in too
        assert model.message.startswith("you are back in seat 0 from step")
        assert "watching" not in screen_text(app.app, 100, 30).splitlines()[0]
        # ... and we play again: our next decision is ours, not the bot's.
        run_until(lambda: session.my_turn() is not None)
        step = session.step
        commands.run(model, "cycle-action", "+1")
        commands.run(model, "submit")
        assert model.message.startswith(("played ", "committed ")), model.message
        run_until(lambda: session.step > step)
        assert 0 in session.live and 0 in table.peers[1].session.live  # type: ignore[union-attr]


async def test_the_help_screen_says_the_limit_and_what_happens_at_it() -> None:
    table = _table(seed=12)
    with create_pipe_input() as inp:
        app = GameApp(NetHandle(table), input=inp, output=DummyOutput())  # type: ignore[arg-type]
        commands.run(app.model, "toggle-help")
        text = " ".join(screen_text(app.app, 100, 60).split())
    assert f"each move or secret choice has {LIMIT} s" in text
    assert "At 30 s and 10 s left the message line warns you" in text
    assert "a bot plays it" in text and "press Enter to play it again" in text
