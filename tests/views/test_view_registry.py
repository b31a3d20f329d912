"""The view registry: each engine's own view by id, the generic view for any other engine."""

from __future__ import annotations

import pytest

from lanTag.games.prototag import view as prototag_view
from lanTag.rules.base import Action, Joint, Move, Roll
from lanTag.rules.registry import (
    GameEntry,
    engine_ids,
    find_entry,
    get_game,
    register_entry,
    unregister_engine,
)
from lanTag.views.registry import game_view, generic_render, generic_view, view_ids
from tests.session.toygame import Toy


def test_each_engine_gets_its_own_view_module() -> None:
    for engine in engine_ids():
        shown = game_view(engine)
        assert shown.module is not None and shown.module.__name__ == f"lanTag.games.{engine}.view"
    state = get_game("prototag").new_state(2)
    assert game_view("prototag").render(state) == prototag_view.render(state)
    assert game_view("prototag").purpose_text("roll/1/d6") == "seat 1's D6 roll"
    # Each engine's facts in its view's words, seats named by the namer passed in.
    state = state.apply(Roll(((6,), (1,))))
    assert state.events and game_view("prototag").events_texts(state) == (
        prototag_view.events_texts(state)
    )
    named = game_view("prototag").events_texts(state, lambda seat: f"player {seat}")
    assert named == prototag_view.events_texts(state, lambda seat: f"player {seat}")
    assert any("player " in text for text in named), named


def test_an_engine_without_a_view_gets_the_generic_one() -> None:
    shown = game_view("toy")
    assert shown.module is None and shown.purpose_text("bonus") == "bonus"
    state = Toy.new_state(2, {"rounds": 1})
    assert shown.render(state) == "Toy: waiting for a roll (bonus)"
    assert shown.view(state, 0)["chance"] == "bonus" and shown.view(state, 0)["acting"] == []
    state = state.apply(Roll(((3,),)))
    guesses = Joint(((0, Action("guess", (1,))), (1, Action("guess", (2,)))))
    state = state.apply(guesses)
    assert shown.render(state) == "Toy: waiting for seat(s) 0"
    view = shown.view(state, 0)
    assert view["acting"] == [0] and view["legal"] == ["add 1", "add 2"]
    assert shown.view(state, None)["legal"] == [] and shown.view(state, 1)["legal"] == []
    state = state.apply(Move(0, Action("add", (2,)))).apply(Move(1, Action("add", (1,))))
    assert shown.render(state) == "Toy: over: done"
    assert shown.view(state, 0)["outcome"] == {"ranking": [[0], [1]], "summary": "done"}
    assert generic_view(state, 0) == shown.view(state, 0) and generic_render(state)


def test_a_registered_view_module_replaces_the_generic_view(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert find_entry("toy") is None
    register_entry(GameEntry("toy", "tests.session.toygame:Toy", view="tests.views.toy_view"))
    try:
        assert "toy" in view_ids()
        state = Toy.new_state(2, {"rounds": 1})
        assert game_view("toy").render(state) == "toy round 0 of 1"
        assert game_view("toy").view(state, 1) == {"you": 1, "scores": [0, 0]}
        assert game_view("toy").purpose_text("bonus") == "the bonus seat"
        # A module without words for its facts has none (the feed shows no line for them).
        assert game_view("toy").events_texts(state) == []
    finally:
        unregister_engine("toy")
    assert "toy" not in view_ids() and game_view("toy").module is None


def test_a_view_reads_its_module_on_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    # A rewording takes effect at once (tests/rules/test_no_prose.py relies on it).
    shown = game_view("prototag")
    monkeypatch.setattr(prototag_view, "purpose_text", lambda purpose: "REWORDED")
    assert shown.purpose_text("first-tagged") == "REWORDED"
