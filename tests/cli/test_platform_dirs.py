"""Config and data folders by each OS's convention (platformdirs), the identity moved
from the old place without ever being lost, and the default nickname (issue #23)."""

from __future__ import annotations

import getpass
import os
import stat
import sys
from pathlib import Path

import pytest

from lanTag.peer import runtime
from lanTag.peer.runtime import config_dir, data_dir, default_nickname, load_identity


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder, no XDG variables, and platformdirs answering like macOS would."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    support = home / "Library" / "Application Support" / "lantag"
    monkeypatch.setattr(runtime.platformdirs, "user_config_dir", lambda *a, **k: str(support))
    monkeypatch.setattr(runtime.platformdirs, "user_data_dir", lambda *a, **k: str(support))
    return home


def old_identity(home: Path) -> Path:
    """An identity where lanTag kept it before (``~/.config/lantag``), made by lanTag."""
    os.environ["XDG_CONFIG_HOME"] = str(home / ".config")
    try:
        load_identity(nickname="old")
    finally:
        del os.environ["XDG_CONFIG_HOME"]
    return home / ".config" / "lantag" / "identity"


def test_an_identity_in_the_old_place_is_moved(user: Path) -> None:
    legacy = old_identity(user)
    data = legacy.read_bytes()
    me = load_identity()
    moved = user / "Library" / "Application Support" / "lantag" / "identity"
    assert moved.read_bytes() == data and not legacy.exists()
    assert me.nickname == "old" and config_dir() == moved.parent
    if os.name == "posix":
        assert stat.S_IMODE(moved.stat().st_mode) == 0o600
    assert load_identity().identity.public_key == me.identity.public_key


def test_a_failed_move_keeps_using_the_old_file(
    user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    legacy = old_identity(user)
    data = legacy.read_bytes()

    def full_disk(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(runtime, "write_atomic", full_disk)
        me = load_identity()
    assert legacy.read_bytes() == data and me.nickname == "old"
    assert not (user / "Library" / "Application Support" / "lantag" / "identity").exists()
    assert load_identity().identity.public_key == me.identity.public_key  # moved now


def test_an_identity_already_in_the_new_place_wins(user: Path) -> None:
    legacy = old_identity(user)
    new = load_identity()  # moves it
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text("not a key\n", encoding="utf-8")  # something left behind later
    assert load_identity().identity.public_key == new.identity.public_key
    assert legacy.exists()  # not touched


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG defaults are Linux's")
def test_linux_keeps_the_xdg_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert config_dir() == tmp_path / ".config" / "lantag"
    assert data_dir() == tmp_path / ".local" / "share" / "lantag"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert config_dir() == tmp_path / "cfg" / "lantag"
    assert data_dir() == tmp_path / "data" / "lantag"


def test_default_nickname_from_user_username_or_login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "ana")
    monkeypatch.setenv("USERNAME", "winuser")
    assert default_nickname() == "ana"
    monkeypatch.delenv("USER")
    assert default_nickname() == "winuser"  # Windows has no USER
    monkeypatch.delenv("USERNAME")
    monkeypatch.setattr(getpass, "getuser", lambda: "login")
    assert default_nickname() == "login"

    def no_login() -> str:
        raise OSError("no login name")

    monkeypatch.setattr(getpass, "getuser", no_login)
    assert default_nickname() == "player"
