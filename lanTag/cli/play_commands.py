"""`lantag play`, `lantag host` and `lantag join`: starting or joining a game.

Argument parsing is in lanTag.cli.entry, which dispatches each subcommand to its module
(see ``COMMAND_MODULES`` there); the game-setup checks are in lanTag.cli.game_setup.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence

from lanTag.cli.entry import JoinFailed, UserError, parse_option_pairs
from lanTag.cli.first_run import identity_for_play
from lanTag.cli.game_setup import (
    check_bots,
    choose_game,
    host_config,
    log_path_for,
    netsim_from_spec,
    start_position,
)
from lanTag.cli.headless import print_log_path, run_ui_or_headless
from lanTag.cli.host_advert import advertise, advertise_seats, lan_addresses
from lanTag.cli.host_lobby import wait_for_table
from lanTag.cli.join_help import (
    DEFAULT_JOIN_TIMEOUT,
    likely_causes,
    needs_terminal_line,
    no_answer_line,
    not_found_line,
)
from lanTag.cli.known_hosts import load_known_hosts, remember_host
from lanTag.cli.resume_command import resume_seat
from lanTag.cli.series_logs import SeriesLogs, host_logs, join_logs
from lanTag.cli.series_play import follow_series, host_series
from lanTag.identity import fingerprint
from lanTag.peer.join_handshake import (
    HostConfig,
    HostLobby,
    JoinLobby,
    Refused,
    Welcomed,
)
from lanTag.peer.machine import BotDriver, PacedBotDriver
from lanTag.peer.runtime import (
    PeerHandle,
    bot_identity,
    default_log_path,
    open_host,
    open_join,
    wait_until,
)
from lanTag.rules.registry import get_game
from lanTag.session.lobby_record import Timeouts
from lanTag.session.transport import Addr

SETUP_TIMEOUT = 30.0


async def cmd_play(args: argparse.Namespace) -> int:
    position = None
    if args.position:
        position = start_position(
            args.position, args.game, parse_option_pairs(args.option), args.map
        )
        if args.bots is not None and 1 + args.bots != position.seats:
            raise UserError(
                f"the position is for {position.seats} seats: --bots {position.seats - 1}"
            )
        bot_count = position.seats - 1
    else:
        bot_count = 2 if args.bots is None else args.bots
    if not 0 <= bot_count <= 15:
        raise UserError("--bots must be between 0 and 15")
    check_bots(args.bot, args.strength)
    chosen = choose_game(
        args.game or "prototag", parse_option_pairs(args.option), 1 + bot_count, args.map, position
    )
    game = chosen.game
    me = identity_for_play()
    netsim = netsim_from_spec(args.netsim)
    config = HostConfig(
        game.id,
        f"{me.nickname}'s {game.display_name}",
        1 + bot_count,
        chosen.options,
        chosen.map_text,
        timeouts=Timeouts(turn_ms=int(args.turn_timeout * 1000)),
        start_position=chosen.start_position,
    )
    log_path = log_path_for(args, game.id, config.name)
    driver = BotDriver(args.bot) if args.headless else None
    host = await open_host(
        config, me, bind=("127.0.0.1", 0), driver=driver, log_path=log_path, netsim=netsim
    )
    bots = [
        await open_join(
            host.address,
            bot_identity(i),
            bind=("127.0.0.1", 0),
            # Paced while your seat is out (you idled past the turn limit): you can come
            # back (Enter) before they finish the game.
            driver=PacedBotDriver(args.strength) if not args.headless else BotDriver(args.strength),
            netsim=netsim,
        )
        for i in range(bot_count)
    ]
    cancelled = False  # Ctrl-C, SIGTERM, SIGHUP, a closed console (cli/exit_signals.py)
    try:
        lobby = host.machine.lobby
        if not await wait_until(lambda: lobby.taken == config.humans, SETUP_TIMEOUT):  # type: ignore[union-attr]
            joined = lobby.taken - 1  # type: ignore[union-attr]
            raise UserError(
                f"{joined} of {bot_count} bot peers joined on loopback in {SETUP_TIMEOUT:.0f} s"
                " (is UDP on 127.0.0.1 blocked?)"
            )
        host.command(host.machine.start_game)
        return await run_ui_or_headless(host, args.headless, local_table=True)
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:
        await host.close()
        if cancelled:
            print_log_path(host)
        # The bots are peers of this process only and keep no log: once your peer has
        # closed, nobody is left to take what they still have in flight, so they stop at
        # once instead of lingering for acks that cannot come (Ctrl-Q mid-game took 6 s).
        for bot in bots:
            await bot.pump.close()


async def cmd_host(args: argparse.Namespace, picked: HostConfig | None = None) -> int:
    """``picked``: the setup form's answer already (the lobby browser's ``h``)."""
    me = identity_for_play()
    position = None
    if getattr(args, "position", None):
        position = start_position(
            args.position, args.game, parse_option_pairs(args.option), args.map
        )
        args.game = position.game.id  # no setup form: the position says the game
    if picked is not None:
        config = picked
    elif args.game is None and not args.headless:
        from lanTag.ui.host_setup import run_host_setup_for

        picked = await run_host_setup_for(args, me.nickname, color=sys.stdout.isatty())
        if picked is None:
            return 0
        config = picked
    else:
        config = host_config(
            args.game or "prototag",
            parse_option_pairs(args.option),
            args.map,
            seats=args.seats,
            bots=args.bots,
            bot=args.bot,
            name=args.name,
            password=args.password,
            turn_timeout=args.turn_timeout,
            nickname=me.nickname,
            position=position,
        )
    config.approve = bool(getattr(args, "approve", False))
    game = get_game(config.engine)
    games = getattr(args, "games", 1)
    if not 1 <= games <= 999:
        raise UserError("--games must be between 1 and 999")
    if games > 1 and not args.headless:
        raise UserError("--games N plays headless for now: add --headless")
    logs = host_logs(args.log, games, game.id, config.name)
    handle = await open_host(
        config,
        me,
        bind=(args.bind, args.port),
        driver=BotDriver(args.bot) if args.headless else None,
        log_path=logs.path(1, game.id, config.name),
        netsim=netsim_from_spec(args.netsim),
    )
    lobby = handle.machine.lobby
    assert isinstance(lobby, HostLobby)
    advertiser = None
    seat_updates: asyncio.Task[None] | None = None
    cancelled = False
    try:
        if not args.no_advertise:
            advertiser = await advertise(handle, config, me.identity.fingerprint)
            seat_updates = asyncio.create_task(advertise_seats(lobby, advertiser))
        port = handle.address[1]
        join_line = join_command(handle.address)
        print(
            f"hosting {game.display_name} on port {port}; others run: {join_line}", file=sys.stderr
        )
        if args.headless or args.start_when_full:
            await wait_for_table(handle, lobby, config)
            handle.command(handle.machine.start_game)
        else:
            from lanTag.ui.lobby_screens import run_host_screen

            if not await run_host_screen(handle, join_line=join_line):
                return 0
        if seat_updates is not None:
            seat_updates.cancel()
        if advertiser is not None:
            await advertiser.update(seats_taken=lobby.taken + len(config.bots), state="playing")
        if not args.headless:  # a game night: the host may propose the next game
            from lanTag.cli.series_console import host_console

            return await host_console(handle, config, me, args, logs, join_line, advertiser)
        code = await run_ui_or_headless(handle, args.headless)
        return await host_series(handle, config, me, args, logs, code, advertiser)
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:
        if seat_updates is not None:
            seat_updates.cancel()
        if advertiser is not None:
            await advertiser.close()  # the mDNS goodbye: browsers drop the game now
        await handle.close()  # the signed LEAVE; the log closed
        if cancelled:
            print_log_path(handle)


async def cmd_join(args: argparse.Namespace) -> int:
    check_bots(args.bot)
    if getattr(args, "games", None) is not None and not 1 <= args.games <= 999:
        raise UserError("--games must be between 1 and 999")
    if getattr(args, "resume_wait", None) is not None and not args.resume:
        raise UserError("--resume-wait only goes with --resume LOG")
    me = identity_for_play()
    if args.resume:
        return await resume_seat(args, me)
    target = args.target
    # Without a terminal the console cannot run: say so (after the host answered, so an
    # unreachable host is still named first), never an EOFError from prompt-toolkit.
    console_ok = args.headless or sys.stdin.isatty()
    pinned = ""  # the fingerprint of the advert we picked: no other host key is joined
    advertised = True  # the address came from an mDNS advert (not typed as HOST:PORT)
    if target and ":" in target:
        host_addr = _host_port(target)
        candidates = [host_addr]
        advertised = False
    elif not target and not args.headless:
        if not console_ok:
            raise JoinFailed(needs_terminal_line())
        from lanTag.net.discovery import LobbyBrowser
        from lanTag.ui.host_setup import run_host_setup_for
        from lanTag.ui.lobby_screens import browse_or_host

        while True:
            async with LobbyBrowser() as browser:
                picked = await browse_or_host(
                    browser, color=sys.stdout.isatty(), spectate=args.spectate
                )
            if not isinstance(picked, str):
                break
            # 'h' in the browser: host a game instead, through the setup form; its Esc
            # ("Esc back") comes back here, to the browser.
            host_args = _host_args_from_join(args)
            config = await run_host_setup_for(host_args, me.nickname, color=sys.stdout.isatty())
            if config is not None:
                return await cmd_host(host_args, config)
        if picked is None:
            return 0
        candidates = advertised_candidates(picked.addresses, picked.port)
        host_addr, pinned = candidates[0], picked.fingerprint
    else:
        from lanTag.net.discovery import browse

        lobbies = await browse(args.wait)
        matches = [lob for lob in lobbies if not target or lob.name == target]
        if not matches:  # a network condition (exit 1), not a usage error
            raise JoinFailed(not_found_line(target, args.wait))
        if len(matches) > 1 and target:
            keys = ", ".join(sorted(lob.fingerprint for lob in matches))
            raise UserError(
                f"{len(matches)} games are named {target!r} (host keys {keys}): ask the host "
                "for `lantag id` and join by HOST:PORT"
            )
        pick = matches[0]
        if pick.state == "playing":  # the host shuts out strangers once its game started
            from lanTag.net.lobby_adverts import already_playing_line

            raise JoinFailed(already_playing_line(pick.name))
        candidates = advertised_candidates(pick.addresses, pick.port)
        host_addr, pinned = candidates[0], pick.fingerprint
    logs = join_logs(args.log, getattr(args, "games", None))
    handle = await open_join(
        host_addr,
        me,
        password=args.password,
        spectator=args.spectate,
        bind=(args.bind, 0),
        driver=BotDriver(args.bot) if args.headless else None,
        log_path=logs.path(1, "game") if args.log else default_log_path("game"),
        netsim=netsim_from_spec(args.netsim),
        expect_fingerprint=pinned,
        known_hosts=load_known_hosts(),
        trust_changed_key=getattr(args, "trust_new_host_key", False),
    )
    remember = asyncio.create_task(remember_host_once_started(handle))
    cancelled = False
    try:
        timeout = float(getattr(args, "timeout", None) or DEFAULT_JOIN_TIMEOUT)
        shown = ", ".join(f"{a}:{p}" for a, p in candidates)
        print(f"contacting {shown}…", file=sys.stderr)
        if not await host_answered(handle, timeout, also=candidates[1:]):
            pump = handle.pump
            causes = likely_causes(
                candidates, pump.unreachable, pump.last_error, advertised=advertised
            )
            raise JoinFailed(no_answer_line(host_addr, timeout, causes))
        if len(candidates) > 1:  # say which of the host's addresses worked
            answered_on = handle.machine.lobby.host  # type: ignore[union-attr]
            print(f"the host answered on {answered_on[0]}:{answered_on[1]}", file=sys.stderr)
        if not args.log or logs.directory:
            _name_log_after_the_game(handle, logs)
        if not console_ok:
            raise JoinFailed(needs_terminal_line())
        if not args.headless:
            from lanTag.ui.lobby_screens import run_join_screen

            if not await run_join_screen(handle):
                return 1
        if not args.headless:  # a game night: accept or leave the host's next game
            from lanTag.cli.series_console import join_console

            return await join_console(handle, logs)
        code = await run_ui_or_headless(handle, args.headless)
        return await follow_series(handle, logs, code, getattr(args, "games", None))
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:
        remember.cancel()
        await handle.close()
        if cancelled:
            print_log_path(handle)


def join_command(address: Addr) -> str:
    """What the others type to join a host listening on ``address``: ``lantag join
    ADDR:PORT`` with this laptop's LAN address (a host bound to every address), and the
    others as alternatives."""
    host, port = address
    shown = [host] if host != "0.0.0.0" else lan_addresses()
    more = "".join(f" (or {a}:{port})" for a in shown[1:])
    return f"lantag join {shown[0]}:{port}{more}"


async def remember_host_once_started(handle: PeerHandle) -> None:
    """Trust on first use: once the game started, this host nickname's key is known."""
    lobby = handle.machine.lobby
    assert isinstance(lobby, JoinLobby)
    await wait_until(lambda: lobby.started is not None, 24 * 3600, step=0.1)
    if lobby.host_nickname and lobby.host_key:
        remember_host(lobby.host_nickname, fingerprint(lobby.host_key))


STAGGER = 0.25
"""Seconds between saying hello to one advertised address of the host and the next."""


def advertised_candidates(addresses: Sequence[str], port: int) -> list[Addr]:
    """The host's advertised addresses in the order to try them (net/addresses.py)."""
    from lanTag.net.addresses import local_networks, rank_addresses

    ranked = rank_addresses(addresses, local_networks())
    return [(a, port) for a in ranked] or [("127.0.0.1", port)]


async def host_answered(handle: PeerHandle, timeout: float, also: Sequence[Addr] = ()) -> bool:
    """Wait up to ``timeout`` s for the host's first answer (its welcome or a refusal).

    Happy-eyeballs style: every STAGGER s without an answer, the next address of ``also``
    is tried too (same socket, same hello); the first address to answer is the host.
    """
    lobby = handle.machine.lobby
    assert isinstance(lobby, JoinLobby)

    def answered() -> bool:
        refused = any(isinstance(e, Refused) for e in handle.machine.events)
        return bool(lobby.host_key) or refused or handle.machine.session is not None

    deadline = time.monotonic() + timeout
    for addr in also:
        if await wait_until(answered, min(STAGGER, max(0.0, deadline - time.monotonic()))):
            return True
        handle.command(lambda now, addr=addr: lobby.also_try(addr))  # type: ignore[misc]
    if await wait_until(answered, max(0.0, deadline - time.monotonic()), step=0.02):
        return True
    # Nobody answered: the hellos still in flight are dropped, or closing would linger 3 s
    # for their acks before the "no answer" line is shown.
    for addr in lobby.tried:
        handle.machine.link.forget(addr)
    return False


def _name_log_after_the_game(handle: PeerHandle, logs: SeriesLogs) -> None:
    """The host's welcome names the game: the joiner's log is named after it, like the host's
    (in a series directory: its first game's name there)."""
    welcome = next((e for e in handle.machine.events if isinstance(e, Welcomed)), None)
    if welcome is not None:
        handle.rename_log(logs.path(1, welcome.engine, welcome.name))


def _host_args_from_join(args: argparse.Namespace) -> argparse.Namespace:
    """`lantag host` at its defaults (so the setup form asks), keeping join's --log/--netsim."""
    from lanTag.cli.entry import build_parser

    host = build_parser().parse_args(["host"])
    host.log, host.netsim, host.bind = args.log, args.netsim, args.bind
    return host


def _host_port(text: str) -> tuple[str, int]:
    from lanTag.cli.entry import parse_host_port

    return parse_host_port(text)
