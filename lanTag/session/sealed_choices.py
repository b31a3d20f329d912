"""Our own sealed choices (SPEC §4.4): what each of our COMMITs sealed, so we can reveal it.

A rollback reopens the steps after it; a choice sealed there is kept aside until our COMMIT
of that step is taken again on the new history (it reached the same state): then it is
ours again, and revealed, never sealed a second time (two COMMITs of one slot would convict
an honest seat of equivocation)."""

from __future__ import annotations

from collections.abc import Callable

from lanTag.rules.base import Action

Choice = tuple[Action, bytes]  # (the action, the nonce its commitment was made with)


class SealedChoices:
    """step -> the choice our COMMIT there sealed, and the ones a rollback reopened."""

    def __init__(self) -> None:
        self._sealed: dict[int, Choice] = {}
        self._reopened: dict[int, Choice] = {}

    def holds(self, step: int) -> bool:
        return step in self._sealed

    def at(self, step: int) -> Choice:
        return self._sealed[step]

    def seal(self, step: int, action: Action, nonce: bytes) -> None:
        self._sealed[step] = (action, nonce)

    def reopen_after(self, step: int) -> None:
        """A rollback to ``step``: the choices sealed after it wait for our COMMIT again."""
        for k in [k for k in self._sealed if k > step]:
            self._reopened[k] = self._sealed.pop(k)

    def take_back(self, step: int, opens: Callable[[Choice], bool]) -> None:
        """Our COMMIT of ``step`` was taken again: the choice reopened there is ours again
        if it ``opens`` that COMMIT.  (A choice sealed there since is that COMMIT's only when
        it is the same action with the same derived nonce: the same choice.)"""
        old = self._reopened.pop(step, None)
        if old is not None and opens(old):
            self._sealed[step] = old
