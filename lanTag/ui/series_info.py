"""A game of a series on the game screen: what the game-over box knows of the night, and
the exit codes the screen ends with after it (read by lanTag.cli.series_console)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lanTag.log.standings import SeatOfGame, Standing, standings
from lanTag.peer.series_events import NextGame
from lanTag.session.lockstep import Session

REMATCH_SAME = 10  # host: the same game again, with the same table
REMATCH_SETUP = 11  # host: another game or options, through the setup form
ACCEPT_NEXT = 12  # joiner: play the game the host proposes
DECLINE_NEXT = 13  # joiner: leave instead (the host is told)


@dataclass
class SeriesInfo:
    """What the game-over box knows of the night: this game's number, whether we may
    propose the next game (the host), and the earlier games' seats and rankings."""

    number: int = 1
    can_propose: bool = False
    history: list[tuple[list[SeatOfGame], list[list[int]] | None]] = field(default_factory=list)
    proposed: NextGame | None = None  # what the host proposed after this game (joiner)

    def table(self, session: Session, ranking: list[list[int]] | None) -> list[Standing]:
        """The standings with this game (``ranking``, None while it is not over) counted."""
        return standings([*self.history, (seats_of(session), ranking)])


def seats_of(session: Session) -> list[SeatOfGame]:
    """Who played each seat, as the standings tell players apart (key, not nickname)."""
    return [
        SeatOfGame(f"bot:{s.nickname}" if s.is_bot else s.fingerprint, s.nickname)
        for s in session.record.seats
    ]
