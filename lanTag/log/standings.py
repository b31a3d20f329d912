"""Standings of a game night: "master of games" points per game, summed across a series.

The forum game's own text (TAG, the forum game, round 5) scores across games: "first place
gets 3 points, second and third place gets 2 points, and 4th to 6th place gets 1 point".
Decisions where the text is silent (docs/series.md):

* Places come from each game's ranking (groups of tied seats, best first).  A seat's place
  is 1 + the number of seats ranked above it, so tied players share the best place of
  their group and its points, and the next group's place skips past them (3 tied for
  first: all get 3, the fourth seat is 4th and gets 1).
* A two-player game is scored like any other: 3 for the winner, 2 for second place.
* Places past 6 get 0 points; a seat missing from a ranking gets 0.
* Only complete games score; a player is the same player across games by their public
  key (a bot seat by its nickname), never by a nickname that two people may share.

Pure: no I/O; the verifier of a series (lanTag.log.series) feeds it the rankings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

POINTS_BY_PLACE = (3, 2, 2, 1, 1, 1)


def place_points(place: int) -> int:
    """The "master of games" points of ``place`` (1 = first); 0 past the sixth place."""
    if place < 1:
        raise ValueError(f"a place is 1 or more, not {place}")
    return POINTS_BY_PLACE[place - 1] if place <= len(POINTS_BY_PLACE) else 0


def places(ranking: Sequence[Sequence[int]]) -> dict[int, int]:
    """Each seat's place in ``ranking`` (groups of tied seats, best first)."""
    out: dict[int, int] = {}
    place = 1
    for group in ranking:
        for seat in group:
            if seat in out:
                raise ValueError(f"seat {seat} is ranked twice")
            out[seat] = place
        place += len(group)
    return out


def game_points(ranking: Sequence[Sequence[int]]) -> dict[int, int]:
    """Each ranked seat's points for one game."""
    return {seat: place_points(place) for seat, place in places(ranking).items()}


@dataclass(frozen=True, slots=True)
class SeatOfGame:
    """Who played one seat of one game: ``key`` tells players apart across games."""

    key: str  # a person's fingerprint, or "bot:<nickname>" for a replicated bot seat
    nickname: str


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    key: str
    nickname: str  # the nickname of the player's latest game
    points: int
    wins: int  # games in which the player shared first place
    games: int  # complete games the player sat in
    per_game: tuple[int | None, ...]  # points in each game of the series (None: not seated)

    def to_json(self) -> dict[str, object]:
        return {
            "place": self.place,
            "key": self.key,
            "nickname": self.nickname,
            "points": self.points,
            "wins": self.wins,
            "games": self.games,
            "per_game": list(self.per_game),
        }


def standings(
    games: Sequence[tuple[Sequence[SeatOfGame], Sequence[Sequence[int]] | None]],
) -> list[Standing]:
    """The table after ``games``: each game's seats and its ranking (None: not complete,
    scores nothing).  Ordered by points, then wins, then nickname; equal points and wins
    share a place."""
    totals: dict[str, list[int | None]] = {}
    names: dict[str, str] = {}
    wins: dict[str, int] = {}
    for index, (seats, ranking) in enumerate(games):
        points = game_points(ranking) if ranking is not None else {}
        firsts = set(ranking[0]) if ranking else set()
        for seat, who in enumerate(seats):
            row = totals.setdefault(who.key, [None] * len(games))
            names[who.key] = who.nickname
            if ranking is None:
                continue
            row[index] = (row[index] or 0) + points.get(seat, 0)
            wins[who.key] = wins.get(who.key, 0) + (seat in firsts)
    rows = sorted(
        totals.items(),
        key=lambda kv: (-sum(p or 0 for p in kv[1]), -wins.get(kv[0], 0), names[kv[0]], kv[0]),
    )
    out: list[Standing] = []
    for position, (key, per_game) in enumerate(rows, start=1):
        total = sum(p or 0 for p in per_game)
        won = wins.get(key, 0)
        place = position
        if out and (out[-1].points, out[-1].wins) == (total, won):
            place = out[-1].place
        played = sum(1 for p in per_game if p is not None)
        out.append(Standing(place, key, names[key], total, won, played, tuple(per_game)))
    return out


def distinct_names(nicknames: dict[str, str]) -> dict[str, str]:
    """The name to show for each key: its nickname, followed by the key's first four
    characters when another key has the same nickname (two "alex" at one table)."""
    count: dict[str, int] = {}
    for nickname in nicknames.values():
        count[nickname] = count.get(nickname, 0) + 1
    return {
        key: f"{nick} ({key.removeprefix('bot:')[:4]})" if count[nick] > 1 else nick
        for key, nick in nicknames.items()
    }


def format_standings(table: Sequence[Standing]) -> list[str]:
    """The standings as lines for a terminal, one player a line."""
    shown = distinct_names({s.key: s.nickname for s in table})
    width = max((len(shown[s.key]) for s in table), default=8)
    lines = []
    for s in table:
        per = " ".join("-" if p is None else str(p) for p in s.per_game)
        lines.append(
            f"  {s.place:>2}. {shown[s.key]:<{width}}  {s.points:>3} points  "
            f"{s.wins} won of {s.games}  ({per})"
        )
    return lines
