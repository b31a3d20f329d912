"""Files from other tools (issue #35): a UTF-8 BOM (Notepad, PowerShell 5's Out-File) and
CRLF line ends are read as lanTag's own files are; a replace Windows refuses because
another program holds the file open is tried again, then names the file."""

from __future__ import annotations

import errno
import json
import os
from importlib import resources
from pathlib import Path

import pytest

from lanTag import files
from lanTag.cli.entry import main
from lanTag.cli.game_setup import check_game
from lanTag.cli.known_hosts import load_known_hosts
from lanTag.cli.position_command import load_position
from lanTag.files import REPLACE_TRIES, FileHeldOpen, read_text, write_text_atomic
from lanTag.peer.runtime import load_identity
from tests.cli.helpers import Home

BOM = b"\xef\xbb\xbf"
LOG = Path(__file__).resolve().parent.parent / "corpus" / "protocol2" / "prototag.log"


def windows_text(text: str) -> bytes:
    """``text`` as Notepad saves it: a BOM, then UTF-8 with CRLF line ends."""
    return BOM + text.replace("\n", "\r\n").encode("utf-8")


def test_read_text_drops_the_bom_and_reads_crlf_and_cr_as_lf(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(windows_text("é one\ntwo\n") + b"three\rfour")
    assert read_text(path) == "é one\ntwo\nthree\nfour"
    path.write_bytes(b"no bom\n")
    assert read_text(path) == "no bom\n"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(UnicodeDecodeError):  # UTF-16 is still refused, as before
        read_text(path)


def test_a_map_saved_by_notepad_loads_as_the_original(tmp_path: Path) -> None:
    original = (resources.files("lanTag.games.tagem") / "maps" / "skirmish.map").read_text("utf-8")
    path = tmp_path / "skirmish.map"
    path.write_bytes(windows_text(original))
    _, _, map_text = check_game("tagem", {}, 2, str(path))
    assert map_text == original  # the same text every peer sees, so the same game


def test_a_position_saved_by_powershell_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["position", str(LOG), "--step", "10"]) == 0
    position = json.loads(capsys.readouterr().out)
    path = tmp_path / "p.json"
    path.write_bytes(windows_text(json.dumps(position, indent=2)))
    game, fields, _ = load_position(str(path))
    assert game.id == "prototag" and fields == position


def test_an_identity_and_known_hosts_edited_in_notepad_still_read(
    home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.config))
    monkeypatch.setenv("XDG_DATA_HOME", str(home.data))
    made = load_identity(nickname="alice")
    seed = home.identity.read_text(encoding="utf-8").split("\n")[0]
    home.identity.write_bytes(windows_text(f"{seed}\nalice\n"))
    again = load_identity()
    assert again.identity.public_key == made.identity.public_key and again.nickname == "alice"
    known = home.root / "known_hosts"
    known.write_bytes(windows_text("0123456789abcdef bob\nfedcba9876543210 carol\n"))
    assert load_known_hosts(known) == {"bob": "0123456789abcdef", "carol": "fedcba9876543210"}


class Refusing:
    """``os.replace`` refused with PermissionError ``times`` times, as Windows does while
    another process holds the target open; then the real one."""

    def __init__(self, times: int) -> None:
        self.times = times
        self.calls = 0
        self.real = os.replace

    def __call__(self, src: str, dst: object) -> None:
        self.calls += 1
        if self.calls <= self.times:
            raise PermissionError(errno.EACCES, "The process cannot access the file")
        self.real(src, dst)  # type: ignore[arg-type]


def test_a_replace_refused_for_a_moment_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "known_hosts"
    path.write_text("old\n", encoding="utf-8")
    refusing = Refusing(REPLACE_TRIES - 1)
    monkeypatch.setattr(files.os, "replace", refusing)
    waits: list[float] = []
    write_text_atomic(path, "new\n", sleep=waits.append)
    assert path.read_text(encoding="utf-8") == "new\n"
    assert refusing.calls == REPLACE_TRIES
    assert waits == [0.05, 0.1, 0.2, 0.4]  # short, growing; no real sleep in the test
    assert os.listdir(tmp_path) == ["known_hosts"]


def test_a_file_held_open_is_named_and_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.lantag.secret"
    path.write_text("old\n", encoding="utf-8")
    refusing = Refusing(REPLACE_TRIES)
    monkeypatch.setattr(files.os, "replace", refusing)
    waits: list[float] = []
    with pytest.raises(FileHeldOpen, match="another program holds it open") as caught:
        write_text_atomic(path, "new\n", private=True, sleep=waits.append)
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, PermissionError)  # callers catching OSError still do
    assert refusing.calls == REPLACE_TRIES and len(waits) == REPLACE_TRIES - 1
    assert path.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(tmp_path) == ["game.lantag.secret"]  # no temp file left behind


def test_other_replace_errors_are_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(src: str, dst: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full)
    waits: list[float] = []
    with pytest.raises(OSError, match="No space"):
        write_text_atomic(tmp_path / "x", "x", sleep=waits.append)
    assert waits == []
