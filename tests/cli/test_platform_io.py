"""Files and consoles on other platforms (issue #23): atomic UTF-8 writes that never lose
the key, and output that never dies on a character the console's encoding lacks."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from lanTag import files
from lanTag.peer.runtime import load_identity
from tests.cli.helpers import HANG_GUARD, LANTAG, Home, lantag, make_log

DICE = "Zoë 🎲"
# A non-UTF-8 locale on a machine that has only C and C.UTF-8: the C locale, with
# Python's locale coercion and UTF-8 mode off (what Windows' cp1252 is to "🎲").
ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
CP1252 = {"PYTHONIOENCODING": "cp1252", "PYTHONUTF8": "0"}


def run_bytes(home: Home, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """``lantag ARGS`` with its output kept as bytes (it is not UTF-8 here)."""
    return subprocess.run(
        [*LANTAG, *args],
        env=home.env(**env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=HANG_GUARD,
        cwd=home.root,
        check=False,
    )


@pytest.fixture
def xdg(home: Home, monkeypatch: pytest.MonkeyPatch) -> Home:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.config))
    monkeypatch.setenv("XDG_DATA_HOME", str(home.data))
    return home


@pytest.mark.parametrize("fail", ["replace", "fsync", "encode"])
def test_a_failed_identity_write_leaves_the_old_key(
    xdg: Home, monkeypatch: pytest.MonkeyPatch, fail: str
) -> None:
    before = load_identity(nickname="alice")
    old_bytes = xdg.identity.read_bytes()

    def boom(*args: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        if fail == "replace":  # the temp file is written and synced, the swap fails
            patch.setattr(files.os, "replace", boom)
            with pytest.raises(OSError, match="No space"):
                load_identity(nickname="bob")
        elif fail == "fsync":  # midway: the temp file is written, not yet synced
            patch.setattr(files.os, "fsync", boom)
            with pytest.raises(OSError, match="No space"):
                load_identity(nickname="bob")
        else:  # text that cannot be written at all (a lone surrogate) fails before any I/O
            with pytest.raises(UnicodeEncodeError):
                files.write_text_atomic(xdg.identity, "\udce9", private=True)
    assert xdg.identity.read_bytes() == old_bytes
    after = load_identity()
    assert after.identity.public_key == before.identity.public_key
    assert after.nickname == "alice"
    assert os.listdir(xdg.identity.parent) == ["identity"]  # no temp file left behind


def test_identity_is_utf8_and_private(xdg: Home) -> None:
    me = load_identity(nickname=DICE)
    assert xdg.identity.read_bytes().endswith(f"\n{DICE}\n".encode())
    if os.name == "posix":
        assert stat.S_IMODE(xdg.identity.stat().st_mode) == 0o600
    again = load_identity(nickname="李雷")
    assert again.identity.public_key == me.identity.public_key and again.nickname == "李雷"
    assert stat.S_IMODE(xdg.identity.stat().st_mode) == 0o600 or os.name != "posix"


def test_exclusive_create_never_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "identity"
    files.write_text_atomic(target, "first\n", private=True, exclusive=True)
    with pytest.raises(FileExistsError):
        files.write_text_atomic(target, "second\n", private=True, exclusive=True)
    assert target.read_text(encoding="utf-8") == "first\n"
    assert os.listdir(tmp_path) == ["identity"]


def test_chain_secret_sidecar_is_written_private(home: Home, tmp_path: Path) -> None:
    log = make_log(home, tmp_path / "game.lantag")
    secret = log.with_suffix(".lantag.secret")
    assert len(bytes.fromhex(secret.read_text(encoding="utf-8").strip())) == 32
    if os.name == "posix":
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_id_with_a_dice_nickname_under_a_non_utf8_locale_keeps_the_key(home: Home) -> None:
    first = lantag(home, "id")
    assert first.returncode == 0, first.stderr
    key = first.stdout.splitlines()[2]
    result = run_bytes(home, "id", "--nickname", DICE, env=ASCII_LOCALE)
    assert result.returncode == 0, result.stderr
    # the locale cannot show "ë🎲": replaced on the console, whole in the file
    assert result.stdout.splitlines()[0] == b"nickname:    Zo? ?"
    assert home.identity.read_bytes().endswith(f"\n{DICE}\n".encode())
    again = lantag(home, "id")
    assert again.stdout.splitlines() == [f"nickname:    {DICE}", *first.stdout.splitlines()[1:]]
    assert again.stdout.splitlines()[2] == key


@pytest.fixture(scope="module")
def dice_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Home, Path]:
    """A finished game whose human player is called "Zoë 🎲"."""
    from tests.cli.helpers import make_home

    home = make_home(tmp_path_factory.mktemp("dice-home"))
    assert lantag(home, "id", "--nickname", DICE).returncode == 0
    return home, make_log(home, home.root / "dice.lantag")


def lines_of(result: subprocess.CompletedProcess[bytes]) -> list[bytes]:
    return result.stdout.splitlines()


@pytest.mark.parametrize("command", [["replay", "--headless"], ["verify"]])
def test_piped_output_through_cp1252_prints_everything(
    dice_log: tuple[Home, Path], command: list[str]
) -> None:
    home, log = dice_log
    utf8 = run_bytes(home, *command, str(log), env={"PYTHONIOENCODING": "utf-8"})
    cp1252 = run_bytes(home, *command, str(log), env=CP1252)
    assert utf8.returncode == 0 and cp1252.returncode == 0, cp1252.stderr
    text = utf8.stdout.decode("utf-8")
    lacking = {c for c in text if c.encode("cp1252", errors="ignore") == b""}
    assert lacking & {"✓", "🎲"}  # the output holds characters cp1252 cannot show...
    assert len(lines_of(cp1252)) == len(lines_of(utf8)) > 3  # ...and every line still comes
    assert cp1252.stdout == text.encode("cp1252", errors="replace")  # each one as "?"
    if command == ["verify"]:
        assert b"Zo\xeb ?" in cp1252.stdout  # the nickname: "ë" kept, "🎲" replaced
