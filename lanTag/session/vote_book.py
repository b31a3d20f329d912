"""The bookkeeping of votes and nudges (protocol/SPEC.md §5.3, §5.4): what the session needs
to bound them, to stay bound by its own votes, and to decide drops at the steps they name.
The rules that read it are the session's (lanTag.session.agreement).
"""

from __future__ import annotations

from lanTag.session.messages import MsgType
from lanTag.session.steps import REQUEST_LIMITS


class VoteBook:
    """``request_steps``: the steps holding votes or nudges (the only ones scanned);
    ``kept``: (seat, step, type) -> the VOTEs or NUDGEs kept (the flood bound; our own
    seat's: the ones we sent); ``bound``: step -> the seat sets of my votes there (they bind
    me); ``seq``: step -> the sequence number of my latest vote there; ``left_out``
    (protocol 6): step -> a drop there that left seats that never played out of the
    half-the-table count (the seats, the seats that stayed, the live seats before);
    ``rule_off``: the steps where the seats left out were found voting us out (no seat is
    left out there again)."""

    def __init__(self) -> None:
        self.request_steps: set[int] = set()
        self.kept: dict[tuple[int, int, MsgType], int] = {}
        self.bound: dict[int, set[frozenset[int]]] = {}
        self.seq: dict[int, int] = {}
        self.left_out: dict[int, tuple[frozenset[int], frozenset[int], frozenset[int]]] = {}
        self.rule_off: set[int] = set()

    def count(self, seat: int, step: int, kind: MsgType) -> bool:
        """One more VOTE or NUDGE of ``seat`` for ``step``: counted when it stays within
        REQUEST_LIMITS (SPEC §5.3), refused (False, not counted) past it."""
        key = (seat, step, kind)
        kept = self.kept.get(key, 0)
        if kept >= REQUEST_LIMITS[kind]:
            return False
        self.kept[key] = kept + 1
        return True

    def forget_from(self, step: int) -> None:
        """A rollback to ``step``: my votes after it, and the drops leaving seats out from
        it on, are decided again."""
        for k in [k for k in self.seq if k > step]:
            del self.seq[k]
        for k in [k for k in self.left_out if k >= step]:
            del self.left_out[k]
