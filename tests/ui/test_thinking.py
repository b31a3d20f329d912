"""A person choosing is shown as thinking, with the turn clock; not as lagging."""

from __future__ import annotations

import dataclasses

from lanTag.rules.base import Turn
from lanTag.session.lobby_record import Timeouts
from lanTag.ui.model import GameModel
from tests.session.harness import SimNet, make_record, make_sessions
from tests.ui.fakes import FakeHandle, FakeMachine


def test_the_seat_on_its_turn_is_thinking_with_the_turn_clock() -> None:
    record, ids, secrets = make_record("prototag", 2, seed="thinking")
    record = dataclasses.replace(record, timeouts=Timeouts(turn_ms=90_000))
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=2)
    net.hold.add(1)  # seat 1's player takes their time

    def seat_1_to_move() -> bool:
        d = sessions[0].state.decision()
        return isinstance(d, Turn) and d.seat == 1

    for _ in range(100_000):
        if seat_1_to_move():
            break
        assert net.step()
    handle = FakeHandle(FakeMachine(sessions[0]))
    clock = [500.0]
    model = GameModel(handle, clock=lambda: clock[0])  # type: ignore[arg-type]
    model.poll()
    clock[0] += 12.0
    assert model.seat_status(1) == "thinking 12/90s"
    assert model.seat_status(0) == "live"
    model.lagging[1] = 4.0  # the session said its address went silent: that is lag
    assert model.seat_status(1) == "lag 4s"
