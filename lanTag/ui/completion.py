"""Completion of the command line: the legal actions now, and the slash commands."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from lanTag.rules.base import Action

SLASH_WORDS = ("/say ", "/end", "/help", "/quit")


class ActionCompleter(Completer):
    """Offers ``str(a)`` for every legal action ``a`` (read lazily) that extends the text."""

    def __init__(self, legal: Callable[[], Iterable[Action]]) -> None:
        self.legal = legal

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor
        text = typed.lstrip().lower()
        if text.startswith("/"):
            for word in SLASH_WORDS:
                if word.startswith(text):
                    yield Completion(word, start_position=-len(typed))
            return
        # Whole-action completions: replacing the typed text keeps "move 1 n" readable.
        for action in self.legal():
            option = str(action)
            if option.startswith(text):
                yield Completion(option, start_position=-len(typed))
