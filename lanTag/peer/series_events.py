"""What the host says to the table after a game of a series (lanTag.peer.series): the
events a joiner's peer queues, part of the lobby's events (lanTag.peer.join_handshake)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NextGame:
    """The host proposes the next game of a series, after ``previous_game``."""

    previous_game: bytes
    engine: str
    name: str


@dataclass(frozen=True, slots=True)
class SeriesDone:
    """The host ends the series after ``last_game``: no next game comes."""

    last_game: bytes
