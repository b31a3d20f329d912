"""Leaving is a message: Ctrl-Q twice sends a signed LEAVE; the others read "NAME left; a
bot plays seat N" (no timeout blame) and the seat shows "left", never "live"."""

from __future__ import annotations

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.session.lobby import Timeouts
from lanTag.testing.table import Table, addr
from lanTag.ui import commands
from lanTag.ui.app import GameApp
from lanTag.ui.snapshot import screen_text
from tests.ui.fakes import NetHandle


async def test_the_others_read_that_a_player_left() -> None:
    table = Table("prototag", 3, seed=5, timeouts=Timeouts())
    table.peers[0].driver = None  # the host is played through the screen
    table.net.run_for(30.0)
    table.start()
    table.peers[1].driver = None  # a person, at the keyboard of peer 1
    host, leaver = NetHandle(table), NetHandle(table, index=1)  # type: ignore[arg-type]
    seat = table.seat_of(1)
    assert seat is not None
    with create_pipe_input() as a, create_pipe_input() as b:
        mine = GameApp(host, input=a, output=DummyOutput())
        theirs = GameApp(leaver, input=b, output=DummyOutput())
        commands.run(theirs.model, "quit")  # asks first...
        assert theirs.model.exit_code is None and "Ctrl-Q again" in theirs.model.message
        commands.run(theirs.model, "quit")  # ...then leaves, saying so
        assert theirs.model.exit_code == 1
        table.net.run_for(0.2)
        others = [addr(j) for j in (0, 2)]
        table.net.cut([addr(1)], others)  # the process is gone
        del table.net.machines[addr(1)]
        # The host plays on (Tab+Enter when asked) until the seat is dropped as left.
        for _ in range(200):
            if seat in mine.model.left:
                break
            mine.model.poll()
            if mine.model.session is not None and mine.model.session.my_turn() is not None:
                commands.run(mine.model, "cycle-action", "+1")
                commands.run(mine.model, "submit")
            table.net.run_for(0.5)
            mine.model.poll()
        name = table.peers[1].session.record.seats[seat].nickname  # type: ignore[union-attr]
        logged = [line.text for line in mine.model.log]
        assert f"{name} left; a bot plays seat {seat}" in logged, logged[-8:]
        assert not any("blamed" in line for line in logged), logged
        assert mine.model.seat_status(seat) == "left"
        assert "left" in screen_text(mine.app, 80, 24)
