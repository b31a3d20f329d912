"""Where the games of a night are logged (issue 34 item 2: one directory per night).

``--log DIR`` (an existing directory, a path ending in ``/``, or a name without a file
suffix) is a series directory on every side, host and joiner, console and headless:
one ``NN-ENGINE.lantag`` per game, so `lantag verify DIR`, `lantag replay DIR` and
`lantag join --resume DIR` work on every peer.  ``--log FILE.lantag`` logs the first game
there and the next ones as numbered siblings (``FILE-2.lantag``).  Without ``--log`` a
single game is one file named after it in the log folder; when a second game follows,
the night gets a directory named after the first game's log, which moves in as its
``01-ENGINE.lantag``.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from lanTag.cli.entry import UserError
from lanTag.peer.runtime import PeerHandle, default_log_dir, default_log_path, table_slug

LOG_SUFFIX = ".lantag"


@dataclass(frozen=True)
class SeriesLogs:
    """Where each game of a series is logged: a directory (one ``NN-ENGINE.lantag`` per
    game), a file for the first game and numbered siblings for the next ones, or (no
    --log) a file per game named after it, as for a single game."""

    base: Path | None
    directory: bool

    def path(self, number: int, engine: str, table: str = "") -> Path:
        if self.directory:
            assert self.base is not None
            return self.base / f"{number:02d}-{table_slug(engine) or 'game'}{LOG_SUFFIX}"
        if self.base is None:
            return default_log_path(engine, table)
        if number == 1:
            return self.base
        return self.base.with_name(f"{self.base.stem}-{number}{self.base.suffix}")


def names_directory(log: str) -> bool:
    """``--log`` names a series directory: an existing directory, a path ending in a
    slash, or a name without a file suffix (``--log night``)."""
    path = Path(log)
    return path.is_dir() or log.endswith(("/", "\\")) or not path.suffix


def series_directory(log: str) -> SeriesLogs:
    """``--log DIR`` for a night: a directory that holds no game logs yet (its games are
    appended to files named by number: an old night's would be written into).  Made when
    its first log is; only checked here."""
    directory = Path(log)
    if directory.exists() and not directory.is_dir():
        raise UserError(f"{directory} is a file, not a directory for the night's logs")
    if directory.is_dir():
        try:
            old = [p.name for p in directory.iterdir() if p.suffix == LOG_SUFFIX]
        except OSError as exc:
            raise UserError(f"cannot read directory {directory}: {exc.strerror}") from None
        if old:
            raise UserError(
                f"{directory} already holds game logs ({sorted(old)[0]}, ...): give another "
                "--log, or move them away"
            )
    _check_writable(directory)
    return SeriesLogs(directory, True)


def _check_writable(path: Path) -> None:
    """The nearest existing folder of ``path`` can be written (nothing is made now)."""
    folder = path
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise UserError(f"cannot write the logs in {path}: {folder} is not a writable folder")


def host_logs(log: str | None, games: int, engine: str, table: str) -> SeriesLogs:
    """A host's logs: ``--log DIR`` (or ``--games N`` with any ``--log``) is a series
    directory; ``--log FILE`` one file; without ``--log``, ``--games N`` gets a new
    directory named after the night in the default log folder, one game a file."""
    from lanTag.cli.game_setup import new_log_file

    if log and (games > 1 or names_directory(log)):
        return series_directory(log)
    if log:
        return SeriesLogs(new_log_file(Path(log)), False)
    if games <= 1:
        return SeriesLogs(None, False)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    parts = [stamp, table_slug(engine), table_slug(table), "series"]
    return series_directory(str(default_log_dir() / "-".join(p for p in parts if p)))


def join_logs(log: str | None, games: int | None = None) -> SeriesLogs:
    """A joiner's logs: ``--log DIR`` (or ``--games N`` > 1 with any ``--log``) is a
    series directory, as the host's; ``--log FILE.lantag`` logs the first game there."""
    from lanTag.cli.game_setup import new_log_file

    if not log:
        return SeriesLogs(None, False)
    if names_directory(log) or (games or 1) > 1:
        return series_directory(log)
    return SeriesLogs(new_log_file(Path(log)), False)


def night_directory(logs: SeriesLogs, handle: PeerHandle, engine: str) -> SeriesLogs:
    """Before a night's second game: without ``--log`` the games go to one directory,
    named after the first game's log, which moves in (with its ``.secret``) as
    ``01-ENGINE.lantag``.  A series directory, or ``--log FILE``, stays as it is."""
    first = handle.log_path
    if logs.directory or logs.base is not None or first is None:
        return logs
    directory = first.with_suffix("")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if first.exists():
            handle.rename_log(directory / f"01-{table_slug(engine) or 'game'}{LOG_SUFFIX}")
    except OSError as exc:
        print(f"lantag: cannot gather the night's logs in {directory}: {exc}", file=sys.stderr)
        return logs  # the games still get a file each
    print(f"this game night's logs: {directory}", file=sys.stderr)
    return SeriesLogs(directory, True)
