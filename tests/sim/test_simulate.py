"""The simulator: reports for every engine, argument checks, progress, the step cap, the
PNG plot and the ``python -m lanTag.sim.simulate`` entry point.  (Reproducibility across
worker counts is in test_legal.py.)"""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

import pytest

from lanTag.bots import BOTS
from lanTag.rules.base import OptionError
from lanTag.rules.registry import engine_ids
from lanTag.sim.simulate import main, play_game, simulate


@pytest.mark.parametrize("engine", engine_ids())
def test_simulate_reports_every_engine(engine: str) -> None:
    report = simulate(engine, 3, seed=5, workers=1, bots="random")
    data = report.to_json()
    assert data["finished"] + data["capped"] == 3
    assert len(data["by_seat"]) == report.seats
    assert {f["name"] for f in data["figures"]} == {f.name for f in report.figures}
    assert sum(n for n, _, _ in report.by_role().values()) == 3 * report.seats
    assert abs(sum(report.edge_by_seat())) < 1e-9  # every place above someone is below another
    assert "game length" in report.text()


def test_simulate_checks_its_arguments_and_parses_option_strings() -> None:
    report = simulate("prototag", 2, seed=1, workers=1, options={"end_steps": "10"}, seats=2)
    assert report.options["end_steps"] == 10
    with pytest.raises(OptionError):
        simulate("prototag", 2, options={"no_such_option": "1"}, workers=1)
    with pytest.raises(OptionError):
        simulate("prototag", 2, bots=["heuristic"], seats=2, workers=1)
    with pytest.raises(OptionError):
        simulate("prototag", 2, bots="nobody", workers=1)
    with pytest.raises(OptionError):
        simulate("prototag", 2, seats=1, workers=1)
    with pytest.raises(OptionError):
        simulate("prototag", 0, workers=1)


def test_progress_step_cap_and_plot(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    report = simulate("prototag", 4, seed=2, workers=1, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)
    capped = play_game("prototag", 2, {}, [BOTS["random"]] * 2, random.Random(1), max_steps=5)
    assert capped.capped and capped.steps == 5
    png = tmp_path / "lengths.png"
    report.plot(str(png))
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    # IHDR says 720x400 RGB; the IDAT chunk inflates to one filter byte + 3 bytes a pixel a row.
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    length = int.from_bytes(data[33:37], "big")
    assert data[37:41] == b"IDAT"
    assert len(zlib.decompress(data[41 : 41 + length])) == height * (1 + 3 * width)


def test_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "p.png"
    argv = ["--game", "prototag", "--games", "3", "--workers", "1", "--json", "--plot", str(png)]
    assert (
        main([*argv, "--option", "end_steps=12", "--bots", "heuristic,random,random,random"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["options"]["end_steps"] == 12 and data["bots"][1] == "random"
    assert png.exists()
    assert main(["--game", "nogame", "--games", "1"]) == 2


@pytest.mark.parametrize("engine", engine_ids())
def test_every_game_has_an_ending_and_the_report_names_them(engine: str) -> None:
    report = simulate(engine, 3, seed=5, workers=1, bots="random")
    endings = report.endings()
    assert sum(endings.values()) == 3
    assert report.to_json()["endings"] == endings
    assert "how games end: " in report.text()


def test_tagem_endings_tell_a_goal_from_the_turn_limit() -> None:
    from lanTag.sim.metrics import LIMIT
    from lanTag.sim.simulate import CAPPED

    hunting = simulate("tagem", 3, seed=1, seats=2, workers=1)  # the default bot
    assert hunting.bots == ("heuristic2", "heuristic2")
    assert hunting.endings().get("last team standing", 0) >= 2
    holding = simulate("tagem", 2, seed=1, seats=3, workers=1, bots="heuristic")
    assert holding.endings() == {LIMIT: 2}
    flags = simulate("tagem", 2, seed=1, seats=2, workers=1, options={"mode": "ctf"})
    assert set(flags.endings()) <= {"flag brought home", LIMIT}
    assert "flag brought home" in flags.endings()
    capped = simulate("tagem", 1, seed=1, seats=2, workers=1, max_steps=3)
    assert capped.endings() == {CAPPED: 1}
