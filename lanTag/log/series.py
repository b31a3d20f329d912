"""Verifying a series: every game's log, the links between the games, the standings.

A series is the games one table played back to back (``lantag host --games N``, a
rematch).  Each game's lobby record names the game it follows (``previous_game``,
protocol/SPEC.md §2), so the logs of a series form a hash-linked chain: the first game
names none, game k names game k-1.  Given the logs in their order (the caller reads a
directory, sorted by file name), this checks each log as ``verify_log`` does, then the
chain, and scores the complete games (lanTag.log.standings).

Pure: the caller reads the files; ``verify_series`` gets their names and bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lanTag.log.entries import LogFormatError
from lanTag.log.report import VerifyReport
from lanTag.log.standings import SeatOfGame, Standing, standings
from lanTag.log.verify import verify_log


@dataclass(frozen=True, slots=True)
class SeriesGame:
    number: int  # 1-based position in the series, as given
    name: str  # the log's file name
    report: VerifyReport | None  # None: not a lanTag log at all (``error`` says why)
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        base: dict[str, Any] = (
            {"valid": False, "log": False, "error": self.error}
            if self.report is None
            else self.report.to_json()
        )
        previous = "" if self.report is None else self.report.previous_game
        return {**base, "number": self.number, "file": self.name, "previous_game": previous}


@dataclass
class SeriesReport:
    games: list[SeriesGame] = field(default_factory=list)
    # Why the series is not whole: a game missing, out of order, from another table.
    links: list[str] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)

    @property
    def not_logs(self) -> list[SeriesGame]:
        return [g for g in self.games if g.report is None]

    @property
    def invalid(self) -> list[SeriesGame]:
        return [g for g in self.games if g.report is not None and not g.report.valid]

    @property
    def valid(self) -> bool:
        return bool(self.games) and not (self.not_logs or self.invalid or self.links)

    @property
    def replayed(self) -> bool:
        return all(g.report is not None and g.report.replayed for g in self.games)

    @property
    def complete(self) -> bool:
        """Every game played to its end."""
        return bool(self.games) and all(
            g.report is not None and g.report.complete for g in self.games
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "complete": self.complete,
            "replayed": self.replayed,
            "games": [g.to_json() for g in self.games],
            "links": list(self.links),
            "standings": [s.to_json() for s in self.standings],
        }


def verify_series(logs: Sequence[tuple[str, bytes]]) -> SeriesReport:
    """Check the logs of one series, given in series order as (file name, bytes)."""
    out = SeriesReport()
    for number, (name, data) in enumerate(logs, start=1):
        try:
            out.games.append(SeriesGame(number, name, verify_log(data)))
        except LogFormatError as exc:
            out.games.append(SeriesGame(number, name, None, str(exc)))
    out.links = link_problems(out.games)
    scored = [
        (_seats(g.report), g.report.ranking if g.report.complete and g.report.valid else None)
        for g in out.games
        if g.report is not None
    ]
    out.standings = standings(scored)
    return out


def link_problems(games: Sequence[SeriesGame]) -> list[str]:
    """Why the games do not form one chain, one line each (empty: they do)."""
    problems: list[str] = []
    reports = [(g, g.report) for g in games if g.report is not None]
    ids = {r.game_id: g for g, r in reports}
    host = reports[0][1].players[0].fingerprint if reports and reports[0][1].players else ""
    previous: SeriesGame | None = None
    for game, report in reports:
        expected = "" if previous is None or previous.report is None else previous.report.game_id
        where = f"game {game.number} ({game.name})"
        if report.players and report.players[0].fingerprint != host:
            problems.append(
                f"{where} was hosted by {report.players[0].fingerprint}, the series by "
                f"{host}: it is from another table"
            )
        elif report.previous_game != expected:
            problems.append(_broken_link(where, report.previous_game, expected, previous, ids))
        previous = game
    return problems


def _broken_link(
    where: str,
    named: str,
    expected: str,
    previous: SeriesGame | None,
    ids: dict[str, SeriesGame],
) -> str:
    if previous is None:
        return f"{where} follows game {named[:16]}, which is not here: the series' start is missing"
    before = f"game {previous.number} ({previous.name})"
    if not named:
        return f"{where} is the first game of a series, yet it comes after {before}"
    if named in ids:
        return (
            f"{where} follows game {ids[named].number} ({ids[named].name}), not {before}: "
            "the games are out of order"
        )
    return (
        f"{where} follows game {named[:16]}, which is not here (expected {before}, "
        f"{expected[:16]}): a game is missing, or this one is from another table"
    )


def _seats(report: VerifyReport) -> list[SeatOfGame]:
    return [
        SeatOfGame(f"bot:{p.nickname}" if p.bot else p.fingerprint, p.nickname)
        for p in report.players
    ]
