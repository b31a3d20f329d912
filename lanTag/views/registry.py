"""Each game's view by engine id, from its entry in the game registry (lanTag/rules/registry.py).

``game_view(engine_id)`` gives the :class:`GameView` that UIs, the replay screen and the
tests draw a state with: the module its ``GameEntry.view`` names (``view``, ``render``,
``purpose_text`` and, optionally, ``events_texts``, ``events_hit``, ``roll_text``,
``roll_values``, ``choice_words`` and ``typed_hint``).  An engine without a view module of
its own (a plugin, a bench or test engine, a game this build does not know) gets the
generic view: who acts, what they may do, nothing more.  Modules are imported on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from lanTag.rules.base import Action, Chance, Over, Simultaneous, State, Turn
from lanTag.rules.registry import engine_ids, find_entry
from lanTag.views.naming import Namer, plain_namer


def view_ids() -> tuple[str, ...]:
    """The registered engine ids that have a view module of their own."""
    return tuple(e for e in engine_ids() if (entry := find_entry(e)) and entry.view is not None)


@dataclass(frozen=True, slots=True)
class GameView:
    """One engine's presentation: reads a state, never changes it.

    ``module`` is the engine's view module, or None for the generic view.  Its functions
    are looked up on every call, so a test that rewords a module sees its own words.
    """

    engine: str
    module: ModuleType | None = None

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may see, for UIs and tests."""
        if self.module is None:
            return generic_view(state, seat)
        shown: dict[str, Any] = self.module.view(state, seat)
        return shown

    def render(self, state: State) -> str:
        """A plain-text board for transcripts, the replay screen and headless play."""
        if self.module is None:
            return generic_render(state)
        text: str = self.module.render(state)
        return text

    def purpose_text(self, purpose: str) -> str:
        """A chance or secret purpose (a fact code) in words; the code itself by default."""
        if self.module is None:
            return purpose
        text: str = self.module.purpose_text(purpose)
        return text

    def roll_text(
        self, purpose: str, values: Sequence[Sequence[int]], name: Namer = plain_namer
    ) -> str | None:
        """A roll's values as the game reads them where they are no plain numbers (a seat
        drawn: ``seat 2``, a turn order by the board's letters), seats named by ``name``;
        None: the numbers as drawn (dice) or a view without such words."""
        words = getattr(self.module, "roll_text", None)
        if words is None:
            return None
        text: str | None = words(purpose, values, name)
        return text

    def roll_values(self, after: dict[str, Any], name: Namer = plain_namer) -> str | None:
        """What a roll came to, read from ``after`` (this view's dict after the roll), where
        the draw itself is an index (Stomptag's minimum bids, its teleport landings), seats
        named by ``name``; None: the values as drawn.  The view module's ``roll_values``."""
        words = getattr(self.module, "roll_values", None)
        if words is None:
            return None
        text: str | None = words(after, name)
        return text

    def choice_words(self, kind: str, text: str) -> str | None:
        """One seat's revealed secret choice of ``kind`` (``text``: as typed,
        ``Game.action_text``) as the game reads it (Stomptag's orders: ``stomp n ne +
        upgrade``); None: its arguments as typed.  The view module's ``choice_words``."""
        words = getattr(self.module, "choice_words", None)
        if words is None:
            return None
        worded: str | None = words(kind, text)
        return worded

    def events_about(self, state: State, seat: int | None) -> list[bool]:
        """For each fact of ``state.events``: does it happen to ``seat`` (caught, tagged, a
        pawn lost)?  The view module's ``events_hit`` says; a view without one: the fact's
        words name that seat (worded once more with a marker for it)."""
        facts = len(getattr(state, "events", ()))
        if seat is None:
            return [False] * facts
        hit = getattr(self.module, "events_hit", None)
        if hit is not None:
            return [seat in seats for seats in hit(state)]
        marker = "\x00"

        def marked(other: int) -> str:
            return marker if other == seat else plain_namer(other)

        texts = self.events_texts(state, marked)
        return [marker in text for text in texts] if texts else [False] * facts

    def typed_hint(self, state: State, seat: int, action: Action) -> str | None:
        """A better answer than the rules' refusal for ``action`` typed by ``seat`` now
        (Board Tag's ``pick`` of the die the rules already picked), or None: the view
        module's optional ``typed_hint``."""
        words = getattr(self.module, "typed_hint", None)
        if words is None:
            return None
        text: str | None = words(state, seat, action)
        return text

    def events_texts(self, state: State, name: Namer = plain_namer) -> list[str]:
        """What the input that led to ``state`` did, one phrase per fact of
        ``state.events``, seats named by ``name`` (the feed's and the board's words); none
        for a view without words for its facts (the generic view, a plugin's)."""
        words = getattr(self.module, "events_texts", None)
        if words is None:
            return []
        texts: list[str] = words(state, name)
        return texts


def game_view(engine_id: str) -> GameView:
    """The view of ``engine_id``: its own module, else the generic view."""
    entry = find_entry(engine_id)
    return GameView(engine_id, entry.module(entry.view) if entry is not None else None)


def _acting(state: State) -> list[int]:
    decision = state.decision()
    if isinstance(decision, Turn):
        return [decision.seat]
    if isinstance(decision, Simultaneous):
        return list(decision.seats)
    return []


def generic_view(state: State, seat: int | None) -> dict[str, Any]:
    """What any engine can say through the engine API alone."""
    decision = state.decision()
    return {
        "game": state.game.id,
        "you": seat,
        "acting": _acting(state),
        "legal": [str(a) for a in state.legal_actions(seat)] if seat is not None else [],
        "chance": decision.purpose if isinstance(decision, Chance) else None,
        "outcome": (
            {
                "ranking": [list(group) for group in decision.outcome.ranking],
                "summary": decision.outcome.summary,
            }
            if isinstance(decision, Over)
            else None
        ),
    }


def generic_render(state: State) -> str:
    """One line: the game and who it waits for (the generic view has no board)."""
    decision = state.decision()
    if isinstance(decision, Over):
        waits = f"over: {decision.outcome.summary}"
    elif isinstance(decision, Chance):
        waits = f"waiting for a roll ({decision.purpose})"
    else:
        waits = "waiting for seat(s) " + ", ".join(map(str, _acting(state)))
    return f"{state.game.display_name}: {waits}"
