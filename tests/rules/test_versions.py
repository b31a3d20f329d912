"""Rules versions: every engine states its own, and ``lantag --version`` reports them."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from lanTag import versions
from lanTag.rules.base import Game
from lanTag.rules.registry import engine_ids, get_game, rules_versions
from lanTag.session.messages import PROTOCOL_VERSION


@pytest.mark.parametrize("engine", engine_ids())
def test_every_engine_sets_its_own_rules_version(engine: str) -> None:
    game = get_game(engine)
    # In the class's own namespace: never inherited from Game or another engine.
    version = vars(game).get("rules_version")
    assert type(version) is int and version >= 1


def test_game_base_declares_no_rules_version_to_inherit() -> None:
    assert "rules_version" not in vars(Game)
    assert "rules_version" in Game.__annotations__


def test_rules_versions_maps_every_engine_in_registry_order() -> None:
    assert rules_versions() == {e: vars(get_game(e))["rules_version"] for e in engine_ids()}
    assert tuple(rules_versions()) == engine_ids()


def test_version_lines_name_release_protocol_and_each_engine() -> None:
    lines = versions.version_lines()
    assert lines[0] == f"lanTag {versions.lantag_version()}"
    assert lines[1] == f"protocol {PROTOCOL_VERSION}"
    assert lines[2:] == [f"{e} rules {v}" for e, v in rules_versions().items()]


def test_lantag_version_falls_back_to_pyproject(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(versions.metadata, "version", not_installed)
    pyproject = Path(versions.__file__).resolve().parent.parent / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    expected = next(
        line.split('"')[1] for line in text.splitlines() if line.startswith("version = ")
    )
    assert versions.lantag_version() == expected


def test_lantag_version_prefers_installed_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(versions.metadata, "version", lambda name: "9.8.7")
    assert versions.lantag_version() == "9.8.7"
