"""The replay viewer over a real, verified log."""

from __future__ import annotations

import asyncio

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.games.stomptag.engine import Stomptag
from lanTag.log.verify import verify_log
from lanTag.rules.base import Joint, input_text
from lanTag.ui.replay import replay_screen, run_replay_app
from lanTag.ui.replay_model import ReplayModel
from lanTag.ui.snapshot import screen_text
from tests.peer.harness import Table


def _log() -> bytes:
    table = Table("prototag", 2, seed=8)
    table.start()
    table.net.run_until(table.over, max_time=3600)
    return bytes(table.logs[0])


async def test_replay_steps_through_every_position() -> None:
    data = _log()
    report = verify_log(data)
    assert report.valid
    with create_pipe_input() as inp:
        model, app = replay_screen(data, report, input=inp, output=DummyOutput())
        assert len(model.positions) == len(report.applied) + 1
        text = screen_text(app, 80, 24)
        assert "replay" in text and "verified" in text and "    a  b  c" in text
        inp.send_text("\x1b[C\x1b[C")  # two steps on
        inp.send_text("G")  # to the end
        inp.send_text("q")
        await asyncio.wait_for(app.run_async(), 30)
    assert model.index == len(model.positions) - 1
    assert model.positions[-1][2].is_over
    assert "result:" in screen_text(app, 80, 40)
    # Under the board: its status lines and the last input's facts ("last: ...").
    assert "tagged steps" in screen_text(app, 80, 40)
    assert "last: " in screen_text(app, 80, 40)


async def test_run_replay_app_returns_zero() -> None:
    data = _log()
    with create_pipe_input() as inp:
        inp.send_text("q")
        code = await asyncio.wait_for(
            run_replay_app(data, verify_log(data), input=inp, output=DummyOutput()), 30
        )
    assert code == 0


def test_replay_labels_show_stomptag_orders_in_words() -> None:
    table = Table("stomptag", 3, seed=4, options=(("max_rounds", 4),))
    table.start()
    table.net.run_until(table.over, max_time=3600)
    data = bytes(table.logs[0])
    report = verify_log(data)
    assert report.valid
    model = ReplayModel(data, report)
    labels = [label for _, label, _ in model.positions[1:]]
    joints = [a.input for a in report.applied if isinstance(a.input, Joint)]
    orders = [j for j in joints if j.choices[0][1].verb.startswith("orders")]
    assert orders
    for joint in orders:
        words = input_text(joint, Stomptag.action_text)
        assert words in labels
    # the log holds letters, the viewer shows words: at least one order reads differently
    assert any(input_text(j, Stomptag.action_text) != input_text(j) for j in orders)


async def test_a_game_of_a_series_says_which_and_the_last_one_ends_on_the_standings() -> None:
    from lanTag.ui.replay import SeriesPlace

    data = _log()
    report = verify_log(data)
    table = ("1. alice  2 games  6 points", "2. bob  2 games  4 points")
    with create_pipe_input() as inp:
        _model, app = replay_screen(
            data, report, input=inp, output=DummyOutput(), series=SeriesPlace(1, 2, table)
        )
        first = screen_text(app, 100, 40)
        inp.send_text("G")
        inp.send_text("q")
        await asyncio.wait_for(app.run_async(), 30)
        end_of_first = screen_text(app, 100, 40)
    assert "lanTag │ replay │ game 1/2 │ Prototag │ step 0/" in first
    assert "standings" not in end_of_first  # not before the series' last game
    with create_pipe_input() as inp:
        model, app = replay_screen(
            data, report, input=inp, output=DummyOutput(), series=SeriesPlace(2, 2, table)
        )
        start = screen_text(app, 100, 40)
        inp.send_text("G")
        inp.send_text("q")
        await asyncio.wait_for(app.run_async(), 30)
        end = screen_text(app, 100, 40)
    assert "│ replay │ game 2/2 │" in start and "standings" not in start
    assert model.index == len(model.positions) - 1
    assert "standings after 2 game(s)" in end
    assert "1. alice  2 games  6 points" in end and "2. bob  2 games  4 points" in end
