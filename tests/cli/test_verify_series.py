"""`lantag verify DIR` on series directories built from the corpus' single games.

Whole multi-game series, played by real peers: tests/cli/test_series.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lanTag.cli.entry import main

CORPUS = Path(__file__).parent.parent / "corpus" / "protocol2"


def _series(tmp_path: Path, *names: str) -> Path:
    directory = tmp_path / "night"
    directory.mkdir()
    for index, name in enumerate(names, start=1):
        shutil.copy(CORPUS / name, directory / f"{index:02d}-{name}".replace(".log", ".lantag"))
    return directory


def test_a_one_game_series_is_valid_with_its_standings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _series(tmp_path, "prototag.log")
    assert main(["verify", str(directory)]) == 0
    out = capsys.readouterr().out
    assert "game 1: 01-prototag.lantag: prototag" in out and "VALID series of 1 game" in out
    assert "standings" in out and " 3 points" in out
    assert main(["verify", "--json", str(directory)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is True and report["complete"] is True and report["links"] == []
    (game,) = report["games"]
    assert game["valid"] and game["complete"] and game["file"] == "01-prototag.lantag"
    assert game["previous_game"] == ""
    assert report["standings"][0]["points"] == 3 and report["standings"][0]["place"] == 1


def test_two_first_games_in_one_directory_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _series(tmp_path, "prototag.log", "boardtag.log")
    assert main(["verify", str(directory)]) == 1
    out = capsys.readouterr().out
    assert "BROKEN SERIES" in out and "INVALID series" in out


def test_an_edited_log_in_a_series_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _series(tmp_path, "prototag.log")
    log = directory / "01-prototag.lantag"
    data = bytearray(log.read_bytes())
    data[-5] ^= 0x01  # inside the last entry: it no longer matches its hash or signature
    log.write_bytes(bytes(data))
    assert main(["verify", str(directory)]) == 1
    assert "INVALID" in capsys.readouterr().out


def test_a_foreign_file_exits_2_and_an_empty_directory_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _series(tmp_path, "prototag.log")
    (directory / "02-notes.lantag").write_text("not a log\n", encoding="utf-8")
    assert main(["verify", str(directory)]) == 2
    assert "NOT A LANTAG LOG" in capsys.readouterr().out
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["verify", str(empty)]) == 2
    assert "holds no game logs" in capsys.readouterr().err


def test_verify_help_names_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for code in ("0 valid", "1 invalid", "2 not a lanTag log", "3 authentic but not replayed"):
        assert code in text
    assert "out of order or from another table" in text


def test_replay_steps_across_a_series(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = _series(tmp_path, "prototag.log", "boardtag.log")  # two first games: broken
    assert main(["replay", "--headless", str(directory)]) == 2
    assert "is not a whole series" in capsys.readouterr().err
    assert main(["replay", "--headless", "--force", str(directory)]) == 0
    out = capsys.readouterr().out
    first = out.index("=== game 1 of 2: 01-prototag.lantag ===")
    second = out.index("=== game 2 of 2: 02-boardtag.lantag ===")
    assert first < second and "## step 1" in out[first:second] and "## step 1" in out[second:]
    assert "standings" in out[second:]


def test_resume_from_a_series_directory_takes_its_last_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    directory = _series(tmp_path, "prototag.log", "boardtag.log")
    assert main(["join", "--resume", str(directory), "--headless"]) == 0
    out = capsys.readouterr().out
    assert "resuming game 2 of the series" in out and "02-boardtag.lantag" in out
    assert "game over already" in out  # the corpus game is finished: nothing to resume
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["join", "--resume", str(empty), "--headless"]) == 2
    assert "holds no game logs to resume" in capsys.readouterr().err
