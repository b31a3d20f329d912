"""`lantag selfplay` and `lantag simulate`: bots playing many games, for testing and balance."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from lanTag.cli.entry import UserError, parse_option_pairs, print_json
from lanTag.cli.game_setup import check_bots, netsim_from_spec
from lanTag.rules.base import OptionError
from lanTag.rules.registry import get_game


async def cmd_selfplay(args: argparse.Namespace) -> int:
    import json

    from lanTag.peer.selfplay import GameResult, selfplay

    try:
        game = get_game(args.game)
        game.check_seats(args.peers)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    if not 1 <= args.games <= 100_000:
        raise UserError("--games must be between 1 and 100000")
    check_bots(args.bot)
    netsim_from_spec(args.netsim)  # validate before starting processes

    def show(result: GameResult) -> None:
        print(json.dumps(result.to_json()) if args.json else result.line(), flush=True)

    results = await selfplay(
        game.id,
        args.peers,
        args.games,
        Path(args.log_dir),
        netsim=args.netsim,
        bot=args.bot,
        options=list(args.option),
        stall_seconds=args.stall,
        on_result=show,
    )
    failed = sum(not r.ok for r in results)
    if not args.json:
        print(f"{len(results) - failed}/{len(results)} games ok; logs in {args.log_dir}")
    return 1 if failed else 0


async def cmd_simulate(args: argparse.Namespace) -> int:
    from lanTag.sim.simulate import simulate

    if not 1 <= args.games <= 1_000_000:
        raise UserError("--games must be between 1 and 1000000")
    if not 1 <= args.workers <= 64:
        raise UserError("--workers must be between 1 and 64")
    options = parse_option_pairs(args.option)
    show = not args.json and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            width = 30
            filled = width * done // max(total, 1)
            print(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}",
                end="",
                file=sys.stderr,
                flush=True,
            )

    try:
        report = await asyncio.to_thread(
            simulate,
            args.game,
            args.games,
            args.seed,
            options,
            args.bots,
            args.seats,
            args.workers,
            progress,
        )
    except OptionError as exc:
        raise UserError(str(exc)) from None
    if show:
        print(file=sys.stderr)
    if args.json:
        print_json(report.to_json())
    else:
        print(report.text())
    if args.plot:
        report.plot(args.plot)
        if not args.json:
            print(f"histogram: {args.plot}")
    return 0
