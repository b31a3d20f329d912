"""The command line completes exactly the legal actions (and the slash commands)."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from lanTag.rules.base import Action
from lanTag.ui.model import GameModel
from tests.ui.fakes import advance, solo_handle

ENGINES = ["prototag", "assassination", "boardtag", "stomptag", "tagem"]


def _offers(model: GameModel, text: str) -> list[str]:
    completer = model.line.completer
    assert completer is not None
    doc = Document(text, len(text))
    # An empty line is completed when asked (Tab), never while typing.
    event = CompleteEvent(text_inserted=bool(text), completion_requested=not text)
    return [c.text for c in completer.get_completions(doc, event)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("moves", [0, 3, 7])
def test_completion_offers_exactly_the_legal_actions(engine: str, moves: int) -> None:
    handle = solo_handle(engine)
    advance(handle, moves, seed=moves)
    model = GameModel(handle)
    s = model.session
    assert s is not None and s.seat is not None
    if s.my_turn() is None:
        assert _offers(model, "") == []
        return
    # offered as players read them (stomptag orders in words), each typing back to the action
    actions = list(s.state.legal_actions(s.seat))
    legal = [s.game.action_text(a) for a in actions]
    assert _offers(model, "") == legal
    typed = [s.state.typed_action(s.seat, Action.parse(text)) for text in legal]
    assert typed == actions
    verb = legal[0].split()[0]
    assert _offers(model, verb) == [a for a in legal if a.startswith(verb)]
    assert _offers(model, "zzz") == []


def _stomptag_at_our_orders() -> GameModel:
    """A solo Stomptag table at our secret orders (the first seed whose play gets there:
    which seed does depends on the dice, and the dice on the protocol's draw inputs)."""
    for seed in range(1, 40):
        handle = solo_handle("stomptag")
        for _ in range(12):
            s = handle.machine.session
            assert s is not None
            decision = s.state.decision()
            if s.my_turn() == "secret" and getattr(decision, "kind", None) == "orders":
                return GameModel(handle)
            advance(handle, 1, seed=seed)
    raise AssertionError("no seed reached our Stomptag orders")


def test_stomptag_orders_complete_in_words() -> None:
    model = _stomptag_at_our_orders()
    s = model.session
    assert s is not None and s.seat is not None and s.my_turn() == "secret"
    offers = _offers(model, "orders stomp n")
    assert offers and all(o.startswith("orders stomp n") for o in offers)
    assert "orders stomp nothing" in offers and "orders stomp nw" in offers
    assert _offers(model, "orders stomp x") == []  # the wire's letters are not offered


def test_no_completions_when_it_is_not_our_turn() -> None:
    handle = solo_handle("stomptag")
    advance(handle, 100)
    model = GameModel(handle)
    assert model.is_over()
    assert _offers(model, "") == []


def test_slash_commands_complete() -> None:
    model = GameModel(solo_handle("prototag"))
    assert _offers(model, "/") == ["/say ", "/end", "/help", "/quit"]
    assert _offers(model, "/s") == ["/say "]


def test_an_emptied_line_pops_up_nothing_while_typing() -> None:
    # Enter plays and empties the line before completion-while-typing runs: it used to
    # open a menu of every legal action over the message line.
    model = GameModel(solo_handle("tagem", 1))
    completer = model.line.completer
    assert completer is not None
    doc = Document("", 0)
    assert list(completer.get_completions(doc, CompleteEvent(text_inserted=True))) == []
    assert list(completer.get_completions(doc, CompleteEvent(completion_requested=True)))
