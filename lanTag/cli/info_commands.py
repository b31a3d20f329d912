"""`lantag list`, `lantag rules` and `lantag id`: what is on the LAN, the games, who you are."""

from __future__ import annotations

import argparse
import sys

from lanTag.cli.entry import UserError
from lanTag.peer.runtime import load_identity
from lanTag.rules.base import OptionError
from lanTag.rules.registry import engine_ids, game_entry, get_game


async def cmd_list(args: argparse.Namespace) -> int:
    from lanTag.net.discovery import browse, format_lobbies
    from lanTag.session.compatibility import why_not_join

    if args.wait < 0 or args.wait > 600:
        raise UserError("--wait must be between 0 and 600 seconds")
    lobbies = await browse(args.wait)
    print(format_lobbies(
        lobbies, args.json, lambda i: why_not_join(i.engine, i.version, i.rules)
    ))
    if not lobbies and not args.json:
        from lanTag.cli.join_help import empty_list_hint

        print(empty_list_hint(), file=sys.stderr)  # (stdout stays the list, for scripts)
    return 0


async def cmd_rules(args: argparse.Namespace) -> int:
    if not args.game:
        for engine in engine_ids():
            game = get_game(engine)
            print(f"{engine:<14} {game.display_name} ({game.min_seats}-{game.max_seats} players)")
        return 0
    try:
        game = get_game(args.game)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    text = game_entry(game.id).read_rules_text()
    print(text.rstrip())
    print("\nOptions (--option K=V):")
    for spec in game.option_specs:
        span = f" [{spec.min}..{spec.max}]" if spec.min is not None else ""
        choice = f" ({'/'.join(spec.choices)})" if spec.choices else ""
        print(f"  {spec.name}={spec.default}{span}{choice}: {spec.help}")
    return 0


async def cmd_id(args: argparse.Namespace) -> int:
    if args.nickname is None:  # the first run asks (with a terminal), like play/host/join
        from lanTag.cli.first_run import identity_for_play

        me = identity_for_play()
    else:
        me = load_identity(nickname=args.nickname)
    print(f"nickname:    {me.nickname}")
    print(f"fingerprint: {me.identity.fingerprint}")
    print(f"public key:  {me.identity.public_key.hex()}")
    return 0
