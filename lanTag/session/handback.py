"""The hand-back of dropped seats (protocol 5, protocol/SPEC.md §5.6): what this peer holds
of it.

A dropped seat signs a REJOIN; a live seat carries those very bytes in its next MOVE,
ENTROPY or COMMIT (an *admission*), and every peer, finding it in a decided step's
contributions, makes the seat live from the next step on.  Which admission counts is the
session's rule (lanTag.session.recovery, and the price of coming back in absence.py); this
book keeps what that rule reads and writes.  Pure: ``now`` is passed in.
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag.session.features import Features
from lanTag.session.messages import Signed

# How often one seat may be given back in one game (protocol 6).  Two: a seat a bot took
# while its person was away (the console's one key) and a crash or a Ctrl-Q by mistake
# (`join --resume`) are both everyday at a game night; every further hand-back would buy a
# seat that withholds one more re-drawn roll and the table one more stall (SPEC §5.6).
HANDBACK_LIMIT = 2


class Handback:
    """seat -> its latest REJOIN we hold (``rejoins``: our next contribution may carry it),
    seat -> the steps whose decisions admitted it, in order (``admitted``: it is live from
    the step after each), and our own seat's asking: ``want_back`` (our dropped seat asks to
    be given back), ``back_once`` (it asks until it is let in and dropped again, not after
    every drop) and ``sent_at`` (when we last sent our REJOIN; None: never since our seat
    was last let back in).  Also seat -> the step of its signed LEAVE (``leaves``: voted
    silent at once, SPEC §5.4), forgotten when the seat is given back."""

    def __init__(self, features: Features) -> None:
        self.leaves: dict[int, int] = {}
        self.rejoins: dict[int, Signed] = {}
        self.admitted: dict[int, list[int]] = {}
        self.want_back = False
        self.back_once = False
        self.sent_at: float | None = None
        self._priced = features.withheld  # protocol 6: the price of coming back (§5.6)

    def ask(self, *, once: bool) -> None:
        """Our seat asks back: whenever it is dropped, or (``once``) until it is let in."""
        self.want_back = True
        self.back_once = once

    def dropped_again(self, seat: int) -> None:
        """Our seat ``seat`` was dropped: asked back once and let in since, it stays out.
        (An admission a rollback undid is not in ``admitted``: it keeps asking.)"""
        if self.back_once and seat in self.admitted:
            self.want_back = self.back_once = False

    def take_leave(self, seat: int, step: int) -> bool:
        """A seat's LEAVE signed at ``step``: the first counts; a copy changes nothing, and
        neither does one from before the seat was last given back (it plays again, §5.6).
        True when it counts."""
        if seat in self.leaves or step <= self.last_back(seat):
            return False
        self.leaves[seat] = step
        return True

    def say_leave(self, seat: int, step: int) -> None:
        """Our own seat signed its LEAVE at ``step`` (it leaves from our latest one)."""
        self.leaves[seat] = step

    def keep(self, msg: Signed) -> None:
        """A seat's REJOIN (its signature checked): the latest of each seat is kept."""
        kept = self.rejoins.get(msg.seat)
        if kept is None or kept.step <= msg.step:
            self.rejoins[msg.seat] = msg

    def admit(self, seat: int, decided: int, ours: bool) -> None:
        """The decision of step ``decided`` admitted ``seat`` (``ours``: our own seat, which
        asks back at once when it is dropped again)."""
        self.admitted.setdefault(seat, []).append(decided)
        self.rejoins.pop(seat, None)
        self.leaves.pop(seat, None)  # a seat that had left is back: no longer leaving
        if ours:
            self.sent_at = None

    def may_return(
        self, seat: int, dropped: int, step: int, turn_starts: Callable[[int], bool]
    ) -> bool:
        """Protocol 6: whether a contribution at ``step`` may give ``seat`` back, which was
        last dropped at ``dropped``: it was given back fewer than HANDBACK_LIMIT times, and
        the turn it was dropped in has ended (a step after ``dropped``, up to ``step``,
        starts a turn, ``turn_starts``: the bot played the rest of that turn).  Both are
        facts of the agreed history, the same at every peer."""
        if not self._priced:
            return True
        if self.times(seat) >= HANDBACK_LIMIT:
            return False
        return any(turn_starts(k) for k in range(dropped + 1, step + 1))

    def left(self, seat: int) -> int | None:
        """How many more times ``seat`` may be given back this game (None: no limit, a game
        older than protocol 6)."""
        if not self._priced:
            return None
        return max(0, HANDBACK_LIMIT - self.times(seat))

    def times(self, seat: int) -> int:
        """How often ``seat`` was given back this game."""
        return len(self.admitted.get(seat, ()))

    def last_back(self, seat: int) -> int:
        """The step of the decision that last admitted ``seat`` (-1: never)."""
        return self.admitted.get(seat, [-1])[-1]

    def admissions(self) -> list[tuple[int, int]]:
        """(step, seat) of every admission applied, in step order."""
        return sorted((k, seat) for seat, steps in self.admitted.items() for k in steps)

    def forget_from(self, step: int) -> None:
        """A rollback to ``step``: the admissions of its decision and later are decided
        again from the messages, like the rest."""
        for seat in list(self.admitted):
            kept = [k for k in self.admitted[seat] if k < step]
            if kept:
                self.admitted[seat] = kept
            else:
                del self.admitted[seat]
