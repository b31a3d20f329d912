"""What a session says: its log, the events for its caller, the drop counters and the signed
messages waiting to be sent.  Every part of the session writes here, through this one narrow
object, instead of reaching into the session.  Pure: nothing leaves until the caller asks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping

from lanTag.log.entries import EntryKind, LogChain
from lanTag.session import events as ev
from lanTag.session.transport import Addr


class Journal:
    """The log (``log``: replaced by a caller that keeps no copy), the events not yet drained
    (``events``), reason code -> messages dropped for it (``counters``), and address -> the
    signed messages not yet sent (``outbox``) to the other seats' peers and the watchers."""

    def __init__(
        self,
        seat: int | None,
        peers: Mapping[int, Addr],
        watchers: tuple[Addr, ...],
        step: Callable[[], int],
    ) -> None:
        """``peers`` is the session's own map (read at each broadcast); ``step`` says our
        current step, the step a NOTE is logged at."""
        self.log = LogChain()
        self.events: deque[ev.Event] = deque()
        self.counters: dict[str, int] = {}
        self.outbox: dict[Addr, list[bytes]] = {}
        self._seat = seat
        self._peers = peers
        self._watchers = watchers
        self._step = step

    def count(self, code: str) -> None:
        self.counters[code] = self.counters.get(code, 0) + 1

    def reject(self, code: str, reason: str) -> None:
        self.count(code)
        self.events.append(ev.Rejected(code, reason))

    def blame(self, seat: int, code: str, reason: str, at: int | None = None) -> None:
        """``at``: the step of the message that proves it (SPEC §7), our step by default.
        The NOTE keeps our step as its entry's step: the log's bytes are what they were."""
        step = self._step()
        self.events.append(ev.Blame(seat, step if at is None else at, code, reason))
        self.log.append(step, EntryKind.NOTE, [code, [seat], reason])

    def broadcast(self, raws: list[bytes]) -> None:
        for seat, addr in self._peers.items():
            if seat != self._seat:
                self.outbox.setdefault(addr, []).extend(raws)
        for addr in self._watchers:
            self.outbox.setdefault(addr, []).extend(raws)
