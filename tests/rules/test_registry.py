"""The game registry: one GameEntry per game, found by id by every layer."""

from __future__ import annotations

import importlib

import pytest

from lanTag.games import SHIPPED
from lanTag.rules.base import Game, OptionError
from lanTag.rules.registry import (
    GameEntry,
    engine_ids,
    find_entry,
    game_entry,
    get_game,
    register_engine,
    register_entry,
    register_game,
    unregister_engine,
)


def test_the_shipped_games_are_the_registry_in_its_order() -> None:
    assert engine_ids() == ("prototag", "assassination", "boardtag", "stomptag", "tagem")
    assert [f"lanTag.games.{engine}" for engine in engine_ids()] == list(SHIPPED)


@pytest.mark.parametrize("engine", engine_ids())
def test_each_entry_names_parts_that_exist(engine: str) -> None:
    entry = game_entry(engine)
    game = entry.game()
    assert entry.id == game.id == engine and issubclass(game, Game)
    assert game.__module__ == f"lanTag.games.{engine}.engine"
    for part in (entry.view, entry.paint, entry.heuristic, entry.heuristic2):
        if part is not None:
            assert part.startswith(f"lanTag.games.{engine}.")
            assert entry.module(part) is importlib.import_module(part)
    assert None not in (entry.view, entry.paint, entry.heuristic, entry.metrics)
    assert entry.metrics is not None
    tracker = entry.attribute(entry.metrics)
    assert tracker.__module__ == f"lanTag.games.{engine}.metrics" and tracker.figures
    assert entry.read_rules_text().startswith("#")


def test_seat_letters_are_the_engines_own() -> None:
    from lanTag.games.tagem.pieces import LETTERS

    assert game_entry("tagem").seat_letters == LETTERS
    assert len(game_entry("boardtag").seat_letters) == get_game("boardtag").max_seats
    assert [e for e in engine_ids() if game_entry(e).takes_map] == ["tagem"]


def test_an_unknown_game_is_named_with_the_known_ones() -> None:
    assert find_entry("chess") is None
    with pytest.raises(OptionError, match=r"unknown game 'chess' \(games: prototag, "):
        game_entry("chess")
    with pytest.raises(OptionError, match="unknown game"):
        get_game("chess")


def test_register_and_unregister() -> None:
    register_engine("toy", "tests.session.toygame", "Toy")
    try:
        entry = game_entry("toy")
        assert entry == GameEntry("toy", "tests.session.toygame:Toy")
        assert get_game("toy").id == "toy" and entry.read_rules_text() == ""
        assert engine_ids()[-1] == "toy"
    finally:
        unregister_engine("toy")
    assert find_entry("toy") is None
    # A package's ENTRY replaces the entry of its id.
    before = game_entry("prototag")
    register_entry(GameEntry("prototag", "tests.session.toygame:Toy"))
    try:
        assert register_game("lanTag.games.prototag") == before
        assert game_entry("prototag") is before
    finally:
        register_entry(before)


def test_a_package_without_an_entry_is_refused() -> None:
    with pytest.raises(TypeError, match="defines no ENTRY"):
        register_game("lanTag.games")
    not_a_game = GameEntry("toy", "lanTag.rules.base:Action")
    with pytest.raises(TypeError, match="is not a Game class"):
        not_a_game.game()
