"""A game night, as real processes on loopback: `lantag host --games 3` and a headless
joiner that follows it; `lantag verify DIR` checks the series and prints the standings.

Bounded: Prototag on a small board ending after a few steps, bots on both seats.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanTag.cli.entry import main
from tests.cli.helpers import (
    HANG_GUARD,
    Home,
    announced_port,
    lantag,
    lantag_process,
    make_home,
    patient_env,
)

SMALL = ["--option", "board_size=5", "--option", "end_steps=3"]


def _play_series(
    tmp_path: Path,
    games: int,
    *host_args: str,
    joiner_args: tuple[str, ...] = (),
    joiner_log: str | None = "{}/",
) -> tuple[Home, Path, Path, str, str]:
    """``joiner_log``: the joiner's --log, "{}" standing for its night directory (None: no
    --log)."""
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    host_dir, joiner_dir = tmp_path / "host-night", tmp_path / "joiner-night"
    env = patient_env(tmp_path / "patient")  # nobody voted out for a starved second or four
    host = lantag_process(
        host_home,
        "host",
        "--headless",
        "--no-advertise",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--games",
        str(games),
        "--log",
        str(host_dir),
        *SMALL,
        *host_args,
        env=env,
    )
    try:
        port = announced_port(host)
        joined = lantag(
            joiner_home,
            "join",
            f"127.0.0.1:{port}",
            "--headless",
            "--bind",
            "127.0.0.1",
            *(["--log", joiner_log.format(joiner_dir)] if joiner_log is not None else []),
            *joiner_args,
            env=env,
        )
        host_out, host_err = host.communicate(timeout=HANG_GUARD)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate(timeout=HANG_GUARD)
    assert host.returncode == 0, host_err
    assert joined.returncode == 0, joined.stderr
    return host_home, host_dir, joiner_dir, host_out, joined.stdout


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``lantag ARGS`` in this process (the peers above are real processes)."""
    code = main(list(args))
    return code, capsys.readouterr().out


def test_a_three_game_series_finishes_on_both_peers_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, host_dir, joiner_dir, host_out, joiner_out = _play_series(tmp_path, 3)
    assert host_out.count("game over after") == 3 and joiner_out.count("game over after") == 3
    for directory in (host_dir, joiner_dir):
        names = sorted(p.name for p in directory.glob("*.lantag"))
        assert names == ["01-prototag.lantag", "02-prototag.lantag", "03-prototag.lantag"]
    result = lantag(home, "verify", str(host_dir))  # the real command, once
    assert result.returncode == 0, result.stdout + result.stderr
    assert "VALID series of 3 game(s)" in result.stdout and "standings" in result.stdout
    assert _main(capsys, "verify", str(joiner_dir))[0] == 0
    report = json.loads(_main(capsys, "verify", "--json", str(host_dir))[1])
    games = report["games"]
    assert [g["complete"] for g in games] == [True] * 3
    assert games[0]["previous_game"] == ""
    assert [g["previous_game"] for g in games[1:]] == [g["game_id"] for g in games[:2]]
    # Both peers logged the same games.
    joiner = json.loads(_main(capsys, "verify", "--json", str(joiner_dir))[1])
    assert [g["game_id"] for g in joiner["games"]] == [g["game_id"] for g in games]
    # Two players, three games: 3 + 2 points a game, 15 in all.
    assert sum(s["points"] for s in report["standings"]) == 15
    assert sum(s["games"] for s in report["standings"]) == 6

    code, replayed = _main(capsys, "replay", "--headless", str(host_dir))
    assert code == 0 and replayed.index("=== game 2 of 3") < replayed.index("=== game 3 of 3")

    # The same series without its second game: the break is named, exit 1.
    (host_dir / "02-prototag.lantag").unlink()
    result = lantag(home, "verify", str(host_dir))
    assert result.returncode == 1, result.stdout
    assert "BROKEN SERIES: game 2 (03-prototag.lantag) follows game" in result.stdout
    assert "a game is missing" in result.stdout


def test_a_joiner_leaving_between_games_does_not_block_the_next_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The host would wait an hour for a player who just vanished; one who says it leaves
    # is not waited for: a bot takes the seat and the second game is played at once.
    _home, host_dir, joiner_dir, host_out, joiner_out = _play_series(
        tmp_path, 2, "--rematch-wait", "3600", joiner_args=("--games", "1")
    )
    assert joiner_out.count("game over after") == 1 and host_out.count("game over after") == 2
    assert [p.name for p in joiner_dir.glob("*.lantag")] == ["01-prototag.lantag"]
    report = json.loads(_main(capsys, "verify", "--json", str(host_dir))[1])
    assert report["valid"] and len(report["games"]) == 2
    assert [p["bot"] for p in report["games"][1]["players"]] == ["", "heuristic2"]


@pytest.mark.parametrize("joiner_log", ["{}", None])
def test_a_joiners_night_goes_to_one_directory_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], joiner_log: str | None
) -> None:
    # --log DIR on the joiner's side (no slash: a name without a suffix is a directory),
    # or no --log at all: one directory of NN-ENGINE.lantag, as the host's, which verify,
    # replay and join --resume take (it used to write DIR, DIR-2 or scattered files).
    _play_series(tmp_path, 2, joiner_log=joiner_log)
    joiner_home = Home(tmp_path / "joiner")
    if joiner_log is None:
        logs = joiner_home.data / "lantag" / "logs"
        (night,) = [p for p in logs.iterdir() if p.is_dir()]
        assert [p for p in logs.iterdir() if p.is_file()] == []  # game 1 moved in
    else:
        night = tmp_path / "joiner-night"
    names = sorted(p.name for p in night.iterdir())
    assert names == [
        "01-prototag.lantag",
        "01-prototag.lantag.secret",
        "02-prototag.lantag",
        "02-prototag.lantag.secret",
    ]
    verified = lantag(joiner_home, "verify", str(night))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "VALID series of 2 game(s)" in verified.stdout and "standings" in verified.stdout
    replayed = lantag(joiner_home, "replay", "--headless", str(night))
    assert replayed.returncode == 0 and "=== game 2 of 2" in replayed.stdout
    resumed = lantag(joiner_home, "join", "--resume", str(night), "--headless")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming game 2 of the series" in resumed.stdout and "game over already" in (
        resumed.stdout
    )


def test_a_night_directory_that_holds_logs_is_refused(tmp_path: Path) -> None:
    old = tmp_path / "old-night"
    old.mkdir()
    (old / "01-prototag.lantag").write_bytes(b"an earlier night")
    home = make_home(tmp_path / "joiner")
    result = lantag(home, "join", "127.0.0.1:9", "--headless", "--log", str(old))
    assert result.returncode == 2, result.stderr
    assert f"{old} already holds game logs (01-prototag.lantag, ...)" in result.stderr
