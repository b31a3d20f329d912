"""The games lanTag plays, by engine id: one :class:`GameEntry` each.

A game is one package, ``lanTag/games/<id>/``, whose ``__init__.py`` defines ``ENTRY``: the
game's parts named by module (its engine, view, painter, bots, simulator figures, rules
text) and the few facts the screens ask of every game.  The games this build ships are
listed once, in :data:`lanTag.games.SHIPPED`; a test or a plugin adds one with
:func:`register_game`.  Every layer finds a game's part here by id: the session loads its
engine, the screens its view and painter, the simulator its figures.  Parts are imported
on first use, by the layer asking for them, so this module (in the rules layer) never
imports a view or a painter itself.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import resources
from types import ModuleType
from typing import Any

from lanTag.games import SHIPPED
from lanTag.rules.base import Game, OptionError

__all__ = [
    "GameEntry",
    "display_name",
    "engine_ids",
    "find_entry",
    "game_entry",
    "get_game",
    "register_engine",
    "register_entry",
    "register_game",
    "rules_versions",
    "unregister_engine",
]


@dataclass(frozen=True, slots=True)
class GameEntry:
    """One game as every layer finds it.  Parts are dotted module names (``module:name``
    for a class in one); None: the game has no such part and gets the generic one (the
    generic view, the plain ``render()`` board, the random bot, the simulator's generic
    figures, no rules text)."""

    id: str  # the engine id: the Game class's ``id``
    engine: str  # "lanTag.games.boardtag.engine:BoardTag", the Game class
    view: str | None = None  # view(state, seat), render(state), purpose_text(...), ...
    paint: str | None = None  # the console's coloured board (ui layer): see lanTag/ui/boards.py
    heuristic: str | None = None  # choose(state, seat, below): the "heuristic" bot
    # The "heuristic2" bot where the game has a second version (old logs replay the first).
    heuristic2: str | None = None
    metrics: str | None = None  # "module:Tracker", the simulator's figures (sim layer)
    rules_text: str | None = None  # the package holding rules.md, the `lantag rules` text
    # Fact codes the board shows by itself: logged, not kept in view under the board.
    routine: frozenset[str] = frozenset()
    seat_letters: str = ""  # how the board names seats ("ABCDEF"); seat numbers otherwise
    takes_map: bool = False  # new_state reads a map file (--map)

    def game(self) -> type[Game]:
        found = self.attribute(self.engine)
        if not (isinstance(found, type) and issubclass(found, Game)):
            raise TypeError(f"{self.engine} is not a Game class")
        return found

    @staticmethod
    def module(name: str | None) -> ModuleType | None:
        """The part module ``name`` (imported on first use), None for a part not given."""
        return None if name is None else importlib.import_module(name)

    @staticmethod
    def attribute(reference: str) -> Any:
        """The object a ``module:name`` reference names."""
        module, _, name = reference.partition(":")
        return getattr(importlib.import_module(module), name)

    def read_rules_text(self) -> str:
        """The shipped rules.md ("" for a game without one)."""
        if self.rules_text is None:
            return ""
        return (resources.files(self.rules_text) / "rules.md").read_text(encoding="utf-8")


# engine id -> entry; filled from SHIPPED on first use, in that order (the order shown).
_ENTRIES: dict[str, GameEntry] = {}
_loaded = False


def _entries() -> dict[str, GameEntry]:
    global _loaded
    if not _loaded:
        _loaded = True
        for package in SHIPPED:
            entry = _package_entry(package)
            _ENTRIES.setdefault(entry.id, entry)
    return _ENTRIES


def _package_entry(package: str) -> GameEntry:
    entry = getattr(importlib.import_module(package), "ENTRY", None)
    if not isinstance(entry, GameEntry):
        raise TypeError(f"{package} defines no ENTRY (a GameEntry)")
    return entry


def register_game(package: str) -> GameEntry:
    """Add the game whose package defines ``ENTRY`` (tests, plugins); its id's entry is
    replaced if there was one."""
    return register_entry(_package_entry(package))


def register_entry(entry: GameEntry) -> GameEntry:
    _entries()[entry.id] = entry
    return entry


def register_engine(engine_id: str, module: str, class_name: str) -> None:
    """Add an engine alone (test doubles, bench engines): every other part is generic."""
    register_entry(GameEntry(engine_id, f"{module}:{class_name}"))


def unregister_engine(engine_id: str) -> None:
    _entries().pop(engine_id, None)


def engine_ids() -> tuple[str, ...]:
    return tuple(_entries())


def find_entry(engine_id: str) -> GameEntry | None:
    """The entry of ``engine_id``; None for a game this build does not know (an advert or
    a log from another release, shown with the generic parts)."""
    return _entries().get(engine_id)


def game_entry(engine_id: str) -> GameEntry:
    """The entry of ``engine_id``; OptionError names the known ids otherwise."""
    entry = find_entry(engine_id)
    if entry is None:
        raise OptionError(f"unknown game {engine_id!r} (games: {', '.join(_entries())})")
    return entry


def get_game(engine_id: str) -> type[Game]:
    """The Game class for ``engine_id``; OptionError names the known ids otherwise."""
    return game_entry(engine_id).game()


def display_name(engine_id: str) -> str:
    """The game's name for people; the id itself for an engine this build does not know
    (shown, not playable: an advert or a log from another release)."""
    try:
        return get_game(engine_id).display_name
    except OptionError:
        return engine_id


def rules_versions() -> dict[str, int]:
    """Each registered engine's ``rules_version``, in registry order (loads every engine)."""
    return {engine_id: get_game(engine_id).rules_version for engine_id in _entries()}
