"""A log file is one game's: `--log FILE` naming a file that already holds a log is
refused in one line before anything starts (the writer appends: a second game in the
same file made it fail verification at the second header, and lost the first game's
resume secret)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lanTag.cli.entry import main
from tests.cli.helpers import Home


@pytest.mark.parametrize(
    "command",
    [
        ["play", "--headless", "--bots", "1"],
        ["host", "--headless", "--game", "prototag", "--no-advertise", "--bind", "127.0.0.1"],
        ["join", "127.0.0.1:9", "--headless", "--bind", "127.0.0.1"],
    ],
)
def test_a_log_file_that_holds_a_game_is_not_appended_to(
    command: list[str],
    home: Home,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for key, value in home.env().items():
        monkeypatch.setenv(key, value)
    log = tmp_path / "game.lantag"
    log.write_bytes(b"an earlier game")
    assert main([*command, "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{log} already holds a game's log" in err, err
    assert log.read_bytes() == b"an earlier game"
