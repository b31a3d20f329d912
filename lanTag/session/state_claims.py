"""What the peers' signed state hashes said (SPEC §5.8): a state hash is a claim, and two
different ones of a seat for one step convict it (``desync``) unless a rollback explains
them.  Pure: the session asks and files."""

from __future__ import annotations

from lanTag.session.messages import Signed


class StateClaims:
    """Each seat's first message carrying a state hash, per step (a second with another
    hash is the proof), and ``desynced``: the seats whose latest message at our step
    carried another state hash than ours (cleared by one that matches, and by a
    rollback)."""

    __slots__ = ("_first", "desynced")

    def __init__(self) -> None:
        self._first: dict[tuple[int, int], Signed] = {}
        self.desynced: set[int] = set()

    def first(self, msg: Signed) -> Signed:
        """The first claim of ``msg``'s seat for ``msg``'s step (``msg`` itself if none)."""
        return self._first.setdefault((msg.seat, msg.step), msg)

    def agrees(self, seat: int) -> None:
        """``seat``'s latest message at our step carried our state hash."""
        self.desynced.discard(seat)

    def differs(self, seat: int) -> bool:
        """``seat``'s latest message at our step carried another state hash: True when that
        is news (it agreed until now)."""
        if seat in self.desynced:
            return False
        self.desynced.add(seat)
        return True

    def forget_desyncs(self) -> None:
        """A rollback: hashes from the abandoned history said nothing about anyone."""
        self.desynced.clear()
