"""The games lanTag plays, by engine id.  Modules are imported on first use."""

from __future__ import annotations

import importlib

from lanTag.rules.base import Game, OptionError

# engine id -> (module, class name); order is the order shown to users.
_ENGINES: dict[str, tuple[str, str]] = {
    "prototag": ("lanTag.games.prototag.engine", "Prototag"),
    "assassination": ("lanTag.games.assassination.engine", "Assassination"),
    "boardtag": ("lanTag.games.boardtag.engine", "BoardTag"),
    "stomptag": ("lanTag.games.stomptag.engine", "Stomptag"),
    "tagem": ("lanTag.games.tagem.engine", "Tagem"),
}


def register_engine(engine_id: str, module: str, class_name: str) -> None:
    """Add an engine (plugins, test doubles).  Re-registering an id replaces it."""
    _ENGINES[engine_id] = (module, class_name)


def unregister_engine(engine_id: str) -> None:
    _ENGINES.pop(engine_id, None)


def engine_ids() -> tuple[str, ...]:
    return tuple(_ENGINES)


def get_game(engine_id: str) -> type[Game]:
    """The Game class for ``engine_id``; OptionError names the known ids otherwise."""
    try:
        module_name, class_name = _ENGINES[engine_id]
    except KeyError:
        raise OptionError(f"unknown game {engine_id!r} (games: {', '.join(_ENGINES)})") from None
    game: type[Game] = getattr(importlib.import_module(module_name), class_name)
    return game


def display_name(engine_id: str) -> str:
    """The game's name for people; the id itself for an engine this build does not know
    (shown, not playable: an advert or a log from another release)."""
    try:
        return get_game(engine_id).display_name
    except OptionError:
        return engine_id


def rules_versions() -> dict[str, int]:
    """Each registered engine's ``rules_version``, in registry order (loads every engine)."""
    return {engine_id: get_game(engine_id).rules_version for engine_id in _ENGINES}
