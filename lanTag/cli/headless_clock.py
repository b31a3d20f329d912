"""The turn clock in plain lines (`--headless`): what the console shows as a running clock
and warnings (lanTag.ui.turn_clock), said once at each moment instead.

While the table waits for a person's decision (a move, or a secret choice), one line at
30 s and at 10 s before the turn limit (``WARN_LEFT``), and one when the seat awaited is
voted out and a bot takes it; never a line a second.  With ``--headless`` our own seat is
played by ``--bot``, so it is the others' seats that are awaited, unless this peer is cut
off; when the table drops our seat anyway, the line says how to get it back in headless
mode (no key does: the console's Enter has no headless twin) or that nothing can.
Pure: the session and ``now`` come in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lanTag.peer.resume import dropped_seat_line, watch_reason
from lanTag.rules.base import Simultaneous, Turn
from lanTag.session import events as ev
from lanTag.session.lobby_record import seat_names
from lanTag.session.lockstep import Session
from lanTag.ui.turn_clock import WARN_LEFT, turn_limit

PREFIX = "turn clock: "
# `lantag play`'s bots are peers of this process: once it stops nobody is left to let the
# seat back in, so a resume has no table to ask.
PLAY_NO_WAY_BACK = (
    "in headless `lantag play` nothing gives it back (its bots stop with this process): "
    "a bot plays it to the end"
)


def resume_way_back(log_path: Path | None) -> str:
    """How a headless host's or joiner's dropped seat comes back: a resume (SPEC §5.6)."""
    log = str(log_path) if log_path is not None else "LOG"
    return (
        "in headless mode no key gives it back: stop this peer (Ctrl-C) and run "
        f"`lantag join --resume {log} --headless`, which asks the table for it"
    )


def awaited(session: Session) -> tuple[int, ...]:
    """The human seats whose decision the table waits for now (a move or a secret choice):
    the seat to move, or the live human seats of a secret round (ours only while it is
    not sealed; the others' seals are not seen here, as on the console)."""
    decision = session.state.decision()
    if not isinstance(decision, Turn | Simultaneous):
        return ()
    mine = session.seat
    seats = session.needs().humans
    return tuple(s for s in seats if s != mine or session.my_turn() is not None)


@dataclass
class IdleLines:
    """The clock of the step being decided, and the lines already said about it."""

    way_back: str  # how our own dropped seat comes back (resume_way_back / PLAY_NO_WAY_BACK)
    step: int = -1
    started: float = 0.0
    warned: set[int] = field(default_factory=set)
    waiting: tuple[int, ...] = ()  # the seats awaited at the last look (of ``step``)

    def tick(self, session: Session, now: float) -> list[str]:
        """The warning to print now: one line per mark of WARN_LEFT crossed (a late first
        look says the nearest mark only), none between marks."""
        if session.step != self.step:
            self.step, self.started, self.warned = session.step, now, set()
        self.waiting = awaited(session)
        if not self.waiting:
            return []
        limit = turn_limit(session)
        left = limit - (now - self.started)
        crossed = {mark for mark in WARN_LEFT if mark < limit and left <= mark}
        if not crossed - self.warned:
            return []
        self.warned |= crossed
        return [PREFIX + self._warning(session, max(0.0, left), limit)]

    def _warning(self, session: Session, left: float, limit: float) -> str:
        names = seat_names(session.record.seats)
        if session.seat in self.waiting:
            what = "move" if session.my_turn() == "turn" else "choose"
            return (
                f"{left:.0f} s left for you to {what}: at {limit:.0f} s the others vote your "
                "seat out and a bot plays it"
            )
        if isinstance(session.state.decision(), Turn):
            seat = self.waiting[0]
            return (
                f"{left:.0f} s left for seat {seat} {names[seat]} to move: at {limit:.0f} s "
                "the others vote the seat out and a bot plays it"
            )
        who = ", ".join(f"{s} {names[s]}" for s in self.waiting)
        return (
            f"{left:.0f} s left for the secret choice of seats {who}: at {limit:.0f} s a seat "
            "that has not chosen is voted out and a bot plays it"
        )

    def dropped(self, session: Session, event: ev.SeatsDropped) -> list[str]:
        """A line for each other seat voted out while the table waited for its decision (a
        signed LEAVE is not idleness; our own seat: ``seat_lost``)."""
        if event.step != self.step:
            return []
        names = seat_names(session.record.seats)
        limit = turn_limit(session)
        return [
            f"{PREFIX}seat {seat} {names[seat]} did not decide within the {limit:.0f} s turn "
            "limit: a bot plays the seat now"
            for seat in event.seats
            if seat != session.seat and seat not in event.left and seat in self.waiting
        ]

    def seat_lost(self, session: Session, step: int) -> str:
        """Our seat was dropped, in one line: idle past the limit or not heard, and how (or
        whether) it comes back."""
        refusal = session.rejoin.refusal()
        final = not session.features.handback or refusal is not None
        if step == self.step and session.seat in self.waiting:
            if final:
                tail = watch_reason(session) or ""
            elif session.rejoin.wants_back:
                tail = "waiting for the table to let you back in…"
            else:
                tail = self.way_back
            return (
                f"{PREFIX}you did not decide within the {turn_limit(session):.0f} s turn "
                f"limit: a bot plays your seat {session.seat} now; {tail}"
            )
        if final or session.rejoin.wants_back:
            return dropped_seat_line(session, step)  # never back, or asking already
        return (
            f"watching only: your seat {session.seat} was dropped at step {step}; a bot plays "
            f"it ({self.way_back})"
        )
