"""Completion of the command line: the legal actions now, and the slash commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from lanTag.rules.base import Action

SLASH_WORDS = ("/say ", "/end", "/help", "/quit")


class ActionCompleter(Completer):
    """Offers ``describe(a)`` for every legal action ``a`` (read lazily) that extends the text.

    ``describe`` is the game's ``action_text`` (stomptag orders in words, not the wire's
    letters); the console reads what was typed back with ``State.typed_action``.
    """

    def __init__(
        self, legal: Callable[[], Iterable[Action]], describe: Callable[[Action], str] = str
    ) -> None:
        self.legal = legal
        self.describe = describe

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor
        if not typed.strip() and not complete_event.completion_requested:
            # Completion while typing runs after the key that started it: once Enter has
            # played and emptied the line, it must not pop up every legal action.
            return
        text = typed.lstrip().lower()
        if text.startswith("/"):
            for word in SLASH_WORDS:
                if word.startswith(text):
                    yield Completion(word, start_position=-len(typed))
            return
        # Whole-action completions: replacing the typed text keeps "move 1 n" readable.
        for action in self.legal():
            option = self.describe(action)
            if option.startswith(text):
                yield Completion(option, start_position=-len(typed))
