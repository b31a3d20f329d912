"""`lantag verify DIR`: every game of a series, the links between them, the standings.

A series directory (``lantag host --games N --log DIR``) holds one log per game, named so
that sorting the names gives the series' order (``01-prototag.lantag``, ...).
"""

from __future__ import annotations

from pathlib import Path

from lanTag.cli.entry import UserError, print_json
from lanTag.log.series import SeriesGame, SeriesReport, verify_series
from lanTag.log.standings import distinct_names, format_standings

LOG_SUFFIX = ".lantag"


def series_logs(directory: Path) -> list[Path]:
    """The logs of a series directory, in series order (by file name)."""
    try:
        return sorted(p for p in directory.iterdir() if p.suffix == LOG_SUFFIX and p.is_file())
    except OSError as exc:
        raise UserError(f"cannot read directory {directory}: {exc.strerror}") from None


def verify_series_dir(directory: Path, as_json: bool) -> int:
    paths = series_logs(directory)
    if not paths:
        raise UserError(f"{directory} holds no game logs (*{LOG_SUFFIX})")
    logs = []
    for path in paths:
        try:
            logs.append((path.name, path.read_bytes()))
        except OSError as exc:
            raise UserError(f"cannot read log {path}: {exc.strerror}") from None
    report = verify_series(logs)
    if as_json:
        print_json(report.to_json())
    else:
        print("\n".join(format_series(str(directory), report)))
    return series_exit_code(report)


def series_exit_code(report: SeriesReport) -> int:
    """0 every game valid and linked; 1 a game invalid, missing, out of order or from
    another table; 2 a file that is no lanTag log; 3 valid and linked, but some game
    not replayed (this lanTag lacks its rules version)."""
    if report.not_logs:
        return 2
    if not report.valid:
        return 1
    return 0 if report.replayed else 3


def format_series(path: str, report: SeriesReport) -> list[str]:
    lines = [f"{path}: a series of {len(report.games)} game(s)"]
    nicknames = {s.key: s.nickname for s in report.standings}
    shown = distinct_names(nicknames)
    for game in report.games:
        lines.append(f"  game {game.number}: {game.name}: {_game_line(game, shown)}")
    lines.extend(f"  BROKEN SERIES: {problem}" for problem in report.links)
    if report.standings:
        lines.append("standings (master of games: 3/2/2/1/1/1 points for places 1-6):")
        lines.extend(format_standings(report.standings))
    if report.not_logs or not report.valid:
        bad = len(report.invalid) + len(report.not_logs)
        lines.append(f"INVALID series: {bad} game(s) fail, {len(report.links)} broken link(s)")
    elif not report.replayed:
        lines.append("AUTHENTIC series, NOT every game REPLAYED (this lanTag lacks some rules)")
    else:
        lines.append(f"VALID series of {len(report.games)} game(s), linked game to game")
    return lines


def _game_line(game: SeriesGame, shown: dict[str, str]) -> str:
    report = game.report
    if report is None:
        return f"NOT A LANTAG LOG: {game.error}"
    if report.failure is not None:
        return f"INVALID at entry {report.failure.entry}: {report.failure.reason}"
    head = f"{report.engine}, game {report.game_id[:16]}"
    if not report.replayed:
        return f"{head}: AUTHENTIC, NOT REPLAYED: {report.needs}"
    if not report.complete:
        return f"{head}: VALID but incomplete (step {report.steps})"
    keys = {p.seat: f"bot:{p.nickname}" if p.bot else p.fingerprint for p in report.players}
    names = {seat: shown.get(key, key) for seat, key in keys.items()}
    ranking = " > ".join(" = ".join(names.get(s, str(s)) for s in g) for g in report.ranking)
    return f"{head}: VALID, {ranking}"


async def replay_series_dir(directory: Path, headless: bool, force: bool) -> int:
    """`lantag replay DIR`: every game of a series in order (each viewer closed with q opens
    the next game, Ctrl-C stops; --headless prints them one after the other, then the
    standings)."""
    paths = series_logs(directory)
    if not paths:
        raise UserError(f"{directory} holds no game logs (*{LOG_SUFFIX})")
    logs = [(path.name, path.read_bytes()) for path in paths]
    report = verify_series(logs)
    if not report.valid and not force:
        why = (report.links or [_game_line(g, {}) for g in report.invalid + report.not_logs])[0]
        raise UserError(f"{directory} is not a whole series: {why} (--force to look anyway)")
    total = len(report.games)
    table = tuple(format_standings(report.standings)) if report.standings else ()
    for game, (_name, data) in zip(report.games, logs, strict=True):
        if game.report is None or not game.report.replayed:
            print(f"=== game {game.number} of {total}: {game.name}: cannot replay it here ===")
            continue
        if headless:
            from lanTag.ui.replay_model import headless_replay

            print(f"=== game {game.number} of {total}: {game.name} ===")
            for block in headless_replay(data, game.report):
                print(block)
        else:
            from lanTag.ui.replay import STOP_SERIES, SeriesPlace, run_replay_app

            place = SeriesPlace(game.number, total, table)
            if await run_replay_app(data, game.report, series=place) == STOP_SERIES:
                break  # Ctrl-C in a game's viewer: no further game (the standings follow)
    if table:  # (after the last viewer closed, too: the night's result stays on the terminal)
        print("standings (master of games: 3/2/2/1/1/1 points for places 1-6):")
        print("\n".join(table))
    return 0
