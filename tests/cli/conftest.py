from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.helpers import Home, make_home, make_log


@pytest.fixture
def home(tmp_path: Path) -> Home:
    """A fresh user: empty XDG config and data directories."""
    return make_home(tmp_path / "home")


@pytest.fixture(scope="session")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    return make_home(tmp_path_factory.mktemp("shared-home"))


@pytest.fixture(scope="session")
def logs(shared_home: Home) -> Callable[[str], Path]:
    """``logs(game)``: a finished game of that engine (you + two bot peers) logged by
    ``lantag play --headless``, made once per session.  Read-only: copy before bending."""
    made: dict[str, Path] = {}

    def get(game: str = "prototag") -> Path:
        if game not in made:
            made[game] = make_log(shared_home, shared_home.root / f"{game}.lantag", game=game)
        return made[game]

    return get


@pytest.fixture(scope="session")
def game_log(logs: Callable[[str], Path]) -> Path:
    """A finished prototag game (3 seats; it has rolls and rock-paper-scissors rounds)."""
    return logs("prototag")
