"""`lantag join --resume LOG`: take a seat back after a crash, from the seat's own log."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lanTag.cli.entry import UserError
from lanTag.cli.game_setup import netsim_from_spec
from lanTag.cli.headless import run_ui_or_headless
from lanTag.log.entries import LogFormatError
from lanTag.peer.machine import BotDriver
from lanTag.peer.runtime import LocalIdentity


async def resume_seat(args: argparse.Namespace, me: LocalIdentity) -> int:
    from lanTag.peer.resume import RESUME_WAIT, GameAlreadyOver
    from lanTag.peer.runtime import heard_from_peers, open_resume

    path, series = Path(args.resume), None
    if path.is_dir():  # a series directory: take the seat back in its last game
        from lanTag.cli.series_logs import SeriesLogs
        from lanTag.cli.series_verify import series_logs

        games = series_logs(path)
        if not games:
            raise UserError(f"{path} holds no game logs to resume")
        series, number, path = SeriesLogs(path, True), len(games), games[-1]
        print(f"resuming game {number} of the series in {series.base}: {path.name}")
    if not path.is_file():
        raise UserError(f"cannot read log {path}: not a file")
    try:
        handle = await open_resume(
            path,
            me,
            driver=BotDriver(args.bot) if args.headless else None,
            netsim=netsim_from_spec(args.netsim),
        )
    except LogFormatError as exc:
        raise UserError(f"{path}: {exc}") from None
    except GameAlreadyOver as exc:
        print(f"game over already, at step {exc.steps}: {exc.summary}; nothing to resume")
        return 0
    session = handle.machine.session
    assert session is not None
    print(
        f"resumed at step {session.step}; catching up (if the others dropped your seat "
        "meanwhile, you ask for it back and a bot plays it until the table lets you in)",
        file=sys.stderr,
    )
    wait = float(getattr(args, "resume_wait", None) or RESUME_WAIT)  # None: no --resume-wait
    try:
        if not await heard_from_peers(handle, wait):
            print(
                f"lantag: no peer of this game answered in {wait:g} s (they have all left); "
                f"giving up at step {session.step}, log kept in {path}",
                file=sys.stderr,
            )
            return 1
        code = await run_ui_or_headless(handle, args.headless)
        if series is None or not args.headless:
            return code
        from lanTag.cli.series_play import follow_series

        return await follow_series(handle, series, code, first=number)
    finally:
        await handle.close()
