"""What people read when a dropped seat is given back (protocol 5, SPEC §5.6): the seat's
own person "you are back in seat N from step K", the others "NAME is back in seat N", and
moves of the seat are "you:" again only from that step on."""

from __future__ import annotations

import pytest

from lanTag.rules.base import Outcome
from lanTag.session import events as ev
from lanTag.session.lobby_record import seat_names
from lanTag.ui.model import GameModel
from tests.ui.fakes import solo_handle

EVENTS = [
    ev.SeatsDropped(4, (2,), ()),
    ev.SeatsBack(7, (2,)),  # someone else given back
    ev.SeatsDropped(9, (0,), ()),
    ev.SeatsBack(12, (0,)),  # ours
]


async def test_headless_says_who_is_back_and_from_when(capsys: pytest.CaptureFixture[str]) -> None:
    from lanTag.cli.headless import play_headless

    handle = solo_handle("prototag")
    assert handle.machine.session is not None
    name = seat_names(handle.machine.session.record.seats)[2]
    handle.machine.events.clear()
    handle.machine.events.extend([*EVENTS, ev.GameOver(20, Outcome(((1,), (0, 2)), "done"))])
    assert await play_headless(handle) == 0  # type: ignore[arg-type]
    lines = capsys.readouterr().out.splitlines()
    assert f"{name} is back in seat 2" in lines
    assert "you are back in seat 0 from step 12" in lines


def test_the_game_screen_says_it_and_labels_our_moves_again_from_that_step() -> None:
    handle = solo_handle("prototag")
    model = GameModel(handle)  # type: ignore[arg-type]
    model.poll()
    handle.machine.events.extend(EVENTS)
    model.poll()
    texts = [line.text for line in model.log]
    names = model.names()
    assert f"{names[2]} is back in seat 2" in texts
    assert "you are back in seat 0 from step 12" in texts
    assert model.playing_at(8) and not model.playing_at(9) and not model.playing_at(11)
    assert model.playing_at(12)
    assert model._live_at(8) == model._humans()
    assert 0 not in model._live_at(10) and 0 in model._live_at(12)
