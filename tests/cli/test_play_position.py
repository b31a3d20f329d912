"""`lantag play/host --position FILE` (#26 item 3): a game starts from a position written by
`lantag position LOG --step N`, every peer starts from it, its log verifies and says so; a
position file that is no position of its game is refused in one line, exit 2.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from lanTag.cli.entry import main
from lanTag.cli.position_command import position_text
from lanTag.log.entries import parse_log
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game
from lanTag.session.lobby_record import LobbyRecord
from tests.cli.helpers import (
    HANG_GUARD,
    announced_port,
    lantag,
    lantag_process,
    make_home,
    make_log,
    user_error,
)


def _position_at(home_root: Path, log: Path, step: int) -> Path:
    home = make_home(home_root)
    written = lantag(home, "position", str(log), "--step", str(step))
    assert written.returncode == 0, written.stderr
    path = log.with_suffix(f".step{step}.json")
    path.write_text(written.stdout, encoding="utf-8")
    return path


def _verified_start(home_root: Path, log: Path) -> str:
    """The log verifies; the start position digest it reports."""
    home = make_home(home_root)
    done = lantag(home, "verify", str(log))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "VALID, complete" in " ".join(done.stdout.split())
    record = LobbyRecord.decode(parse_log(log.read_bytes()).entries[0].data[1])
    digest = hashlib.sha256(record.start_position).hexdigest()
    assert f"  started from position {digest[:16]}\n" in done.stdout
    return digest


def test_play_from_a_logged_position_plays_to_the_end_and_verifies(tmp_path: Path) -> None:
    home = make_home(tmp_path / "me")
    first = make_log(home, tmp_path / "first.lantag")
    position = _position_at(tmp_path / "me", first, 10)
    second = tmp_path / "second.lantag"
    played = lantag(
        home, "play", "--game", "prototag", "--position", str(position), "--headless",
        "--log", str(second),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    digest = _verified_start(tmp_path / "me", second)
    # The game names where it started as verify does.
    assert f"started: prototag, you are seat 0 (tester), from position {digest[:16]}\n" in (
        played.stdout
    )
    # The game started exactly there: its step 0 is the position file, field for field.
    again = lantag(home, "position", str(second), "--step", "0")
    written = json.loads(position.read_text(encoding="utf-8"))
    assert json.loads(again.stdout) == written
    # The replay starts there too: its start board has the position's tagged seat.
    replayed = lantag(home, "replay", "--headless", str(second))
    assert replayed.returncode == 0, replayed.stderr
    start_board = replayed.stdout.split("## step 1:")[0]
    assert start_board.startswith("## step 0: start\n")
    assert f"tagged: seat {written['tagged']} | tagged steps {written['tagged_steps']}/" in (
        start_board
    )


def test_a_hand_edited_illegal_position_is_refused_in_one_line(tmp_path: Path) -> None:
    home = make_home(tmp_path / "me")
    start = get_game("prototag").new_state(3)
    position = get_game("prototag").position(start)
    position["pieces"] = [position["pieces"][0]] * 3  # three seats on one tile
    path = tmp_path / "bad.json"
    path.write_text(position_text(position), encoding="utf-8")
    line = user_error(lantag(home, "play", "--position", str(path), "--headless"))
    assert line.startswith(f"lantag: {path}: ") and "share a tile" in line


def _position_file(tmp_path: Path, engine: str, seats: int) -> Path:
    game = get_game(engine)
    rng = random.Random(engine)
    state = game.new_state(seats)
    for _ in range(6):
        state = state.apply(random_input(state, rng.randrange))
    path = tmp_path / f"{engine}.json"
    path.write_text(position_text(game.position(state)), encoding="utf-8")
    return path


ENGINES = ("prototag", "assassination", "boardtag", "stomptag", "tagem")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_position_that_does_not_fit_the_command_is_refused_in_one_line(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _position_file(tmp_path, engine, 3)
    other = "tagem" if engine != "tagem" else "prototag"
    cases = [
        (["--game", other], f"{path} is a {engine} position, not {other}: say --game {engine}"),
        (["--game", engine, "--bots", "1"], "the position is for 3 seats: --bots 2"),
        # No --game: the file names its game (the seat check comes after the game's).
        (["--bots", "1"], "the position is for 3 seats: --bots 2"),
        (["--game", engine, "--option", "x=1"], "--position carries the game's options"),
        (["--game", engine, "--map", str(path)], "--position carries the board"),
    ]
    for extra, message in cases:
        assert main(["play", "--position", str(path), "--headless", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, (extra, err)
    edited = json.loads(path.read_text(encoding="utf-8"))
    edited["seats"] = 99
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert main(["host", "--position", str(path), "--headless"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"lantag: {path}: " in err and "99" in err, err


def test_a_hosted_game_from_a_position_starts_there_for_the_joiner_too(tmp_path: Path) -> None:
    host_home, joiner_home = make_home(tmp_path / "host"), make_home(tmp_path / "joiner")
    first = make_log(host_home, tmp_path / "first.lantag", bots=1)
    position = _position_at(tmp_path / "host", first, 8)
    host_log, joiner_log = tmp_path / "host.lantag", tmp_path / "joiner.lantag"
    hosting = ["host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0"]
    host = lantag_process(
        host_home, *hosting, "--position", str(position), "--seats", "2", "--bot", "random",
        "--log", str(host_log),
    )  # fmt: skip
    try:
        port = announced_port(host)
        joined = lantag(
            joiner_home, "join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1",
            "--bot", "random", "--log", str(joiner_log),
        )  # fmt: skip
        assert joined.returncode == 0, joined.stderr
        host_out, host_err = host.communicate(timeout=HANG_GUARD)
    finally:
        host.kill()
    assert host.returncode == 0, host_err
    digests = {_verified_start(tmp_path / "host", log) for log in (host_log, joiner_log)}
    for out in (host_out, joined.stdout):
        assert re.search(rf"^started: prototag, .*, from position {min(digests)[:16]}$", out, re.M)
    record = LobbyRecord.decode(parse_log(host_log.read_bytes()).entries[0].data[1])
    start = get_game("prototag").from_position(json.loads(position.read_text(encoding="utf-8")))
    assert digests == {hashlib.sha256(start.encode()).hexdigest()}
    assert record.start_position == start.encode()


@pytest.mark.parametrize("engine", ["tagem", "stomptag"])
def test_play_takes_the_game_from_the_position_file(engine: str, tmp_path: Path) -> None:
    # The file names its game: no --game needed (it used to refuse anything but prototag).
    home = make_home(tmp_path / "me")
    path = _position_file(tmp_path, engine, 3)
    log = tmp_path / "from-file.lantag"
    played = lantag(home, "play", "--position", str(path), "--headless", "--log", str(log))
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith(f"started: {engine}, you are seat 0 (tester), from position")
    _verified_start(tmp_path / "me", log)
