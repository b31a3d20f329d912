"""What each ``lantag`` subcommand does (argument parsing is in lanTag.cli)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

from lanTag.cli import UserError, _options, color_enabled, print_json, read_text_file
from lanTag.lobby import HostConfig, HostLobby, PasswordNeeded, Refused, RosterChanged, Started
from lanTag.log.chain import LogFormatError
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.net.discovery import LobbyAdvert, LobbyAdvertiser
from lanTag.net.netsim import NetSim, NetSimConfig, NetSimConfigError
from lanTag.peer import BotDriver
from lanTag.rules.base import Game, OptionError, input_text
from lanTag.rules.registry import engine_ids, get_game
from lanTag.runtime import (
    LocalIdentity,
    PeerHandle,
    bot_identity,
    default_log_path,
    load_identity,
    open_host,
    open_join,
    wait_until,
)
from lanTag.session import events as ev
from lanTag.session.lobby import Timeouts

SETUP_TIMEOUT = 30.0


# ------------------------------------------------------------------ shared helpers


MAP_ENGINES = ("tagem",)  # the engines whose new_state reads a map file


def takes_map(engine: str) -> bool:
    return engine in MAP_ENGINES


def check_game(
    engine: str, option_pairs: Mapping[str, str], seats: int, map_path: str | None
) -> tuple[type[Game], tuple[tuple[str, int | bool | str], ...], str | None]:
    """Validate a game setup as the CLI does (also used by the host setup form).

    Raises UserError with one line naming what is wrong.
    """
    try:
        game = get_game(engine)
        options = game.parse_options(option_pairs)
        game.check_seats(seats)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    map_text = None
    if map_path:
        if not takes_map(engine):
            raise UserError(f"--map is only for {', '.join(MAP_ENGINES)}")
        map_text = read_text_file(map_path, "map")
    try:
        game.new_state(seats, options, map_text)  # surface map/option errors before any network
    except ValueError as exc:
        message = str(exc).replace("<map>", map_path) if map_path else str(exc)
        raise UserError(message) from None
    return game, tuple(sorted(options.items())), map_text


def host_config(
    engine: str,
    option_pairs: Mapping[str, str],
    map_path: str | None,
    *,
    seats: int,
    bots: int,
    bot: str,
    name: str,
    password: str,
    turn_timeout: float,
    nickname: str,
) -> HostConfig:
    """The checks and HostConfig of `lantag host`, shared with the host setup form."""
    if not 1 <= seats <= 64:
        raise UserError("--seats must be between 1 and 64")
    if not 0 <= bots <= 64:
        raise UserError("--bots must be between 0 and 64")
    _check_bots(bot)
    game, options, map_text = check_game(engine, option_pairs, seats + bots, map_path)
    return HostConfig(
        game.id,
        name or f"{nickname}'s {game.display_name}",
        seats,
        options,
        map_text,
        bots=(bot,) * bots,
        password=password,
        timeouts=Timeouts(turn_ms=int(turn_timeout * 1000)),
    )


def _check_bots(*names: str) -> None:
    from lanTag.bots import bot_names

    for name in names:
        if name not in bot_names():
            raise UserError(f"unknown bot {name!r} (bots: {', '.join(bot_names())})")


def _netsim(spec: str | None) -> NetSim | None:
    if not spec:
        return None
    try:
        return NetSim(NetSimConfig.parse(spec))
    except NetSimConfigError as exc:
        raise UserError(f"--netsim: {exc}") from None


def _log_path(args: argparse.Namespace, engine: str) -> Path:
    return Path(args.log) if getattr(args, "log", None) else default_log_path(engine)


async def _play_headless(handle: PeerHandle, out: object = None) -> int:
    """Print game events as plain lines until the game ends; exit code 0 when it does."""
    stream = sys.stdout
    names: Mapping[int, str] = {}
    while True:
        machine = handle.machine
        if not names and machine.session is not None:  # the host has no Started event
            record = machine.session.record
            names = {i: s.nickname for i, s in enumerate(record.seats)}
            seat = machine.session.seat
            you = "spectator" if seat is None else f"seat {seat} ({names.get(seat, seat)})"
            print(f"started: {record.engine}, you are {you}", file=stream)
        while machine.events:
            event = machine.events.popleft()
            if isinstance(event, Started):
                continue  # announced above, once the session exists
            elif isinstance(event, ev.StepApplied):
                print(f"step {event.step}: {input_text(event.input)}", file=stream)
            elif isinstance(event, ev.GameOver):
                order = " > ".join(
                    "=".join(names.get(s, str(s)) for s in group) for group in event.outcome.ranking
                )
                print(f"game over after {event.step} steps: {event.outcome.summary}", file=stream)
                print(f"ranking: {order}", file=stream)
                if handle.log_path:
                    print(f"log: {handle.log_path}", file=stream)
                return 0
            elif isinstance(event, ev.Blame | ev.SeatsDropped | ev.Desync | ev.Lagging):
                print(f"note: {event}", file=stream)
            elif isinstance(event, Refused):
                print(f"refused: {event.reason}", file=sys.stderr)
                return 1
            elif isinstance(event, PasswordNeeded):
                print("this game needs a password (--password)", file=sys.stderr)
                return 2
            elif isinstance(event, RosterChanged):
                print(f"lobby: {len(event.roster)}/{event.seats} seated", file=stream)
        session = machine.session
        if session is not None and session.state.is_over and not machine.events:
            # e.g. resumed from a log of a game that had already ended
            print(f"game over at step {session.step}", file=stream)
            if handle.log_path:
                print(f"log: {handle.log_path}", file=stream)
            return 0
        await asyncio.sleep(0.02)


async def _run_ui_or_headless(handle: PeerHandle, headless: bool) -> int:
    if headless:
        return await _play_headless(handle)
    from lanTag.ui.app import run_game_app

    return await run_game_app(handle, color=color_enabled())


# ------------------------------------------------------------------ commands


async def cmd_play(args: argparse.Namespace) -> int:
    if not 0 <= args.bots <= 15:
        raise UserError("--bots must be between 0 and 15")
    _check_bots(args.bot, args.strength)
    game, options, map_text = check_game(args.game, _options(args.option), 1 + args.bots, args.map)
    me = load_identity()
    netsim = _netsim(args.netsim)
    config = HostConfig(
        game.id,
        f"{me.nickname}'s {game.display_name}",
        1 + args.bots,
        options,
        map_text,
        timeouts=Timeouts(turn_ms=int(args.turn_timeout * 1000)),
    )
    log_path = _log_path(args, game.id)
    driver = BotDriver(args.bot) if args.headless else None
    host = await open_host(
        config, me, bind=("127.0.0.1", 0), driver=driver, log_path=log_path, netsim=netsim
    )
    bots = [
        await open_join(
            host.address,
            bot_identity(i),
            bind=("127.0.0.1", 0),
            driver=BotDriver(args.strength),
            netsim=netsim,
        )
        for i in range(args.bots)
    ]
    try:
        lobby = host.machine.lobby
        if not await wait_until(lambda: lobby.taken == config.humans, SETUP_TIMEOUT):  # type: ignore[union-attr]
            raise UserError("bot peers did not join on loopback (is UDP on 127.0.0.1 blocked?)")
        host.command(host.machine.start_game)
        return await _run_ui_or_headless(host, args.headless)
    finally:
        for handle in [host, *bots]:
            await handle.close()


async def cmd_host(args: argparse.Namespace) -> int:
    me = load_identity()
    if args.game is None and not args.headless:
        from lanTag.ui.host_setup import run_host_setup_for

        picked = await run_host_setup_for(args, me.nickname, color=color_enabled())
        if picked is None:
            return 0
        config = picked
    else:
        config = host_config(
            args.game or "prototag",
            _options(args.option),
            args.map,
            seats=args.seats,
            bots=args.bots,
            bot=args.bot,
            name=args.name,
            password=args.password,
            turn_timeout=args.turn_timeout,
            nickname=me.nickname,
        )
    game = get_game(config.engine)
    handle = await open_host(
        config,
        me,
        bind=(args.bind, args.port),
        driver=BotDriver(args.bot) if args.headless else None,
        log_path=_log_path(args, game.id),
        netsim=_netsim(args.netsim),
    )
    lobby = handle.machine.lobby
    assert isinstance(lobby, HostLobby)
    advertiser = None
    seat_updates: asyncio.Task[None] | None = None
    try:
        if not args.no_advertise:
            advertiser = await _advertise(handle, config, me.identity.fingerprint)
            seat_updates = asyncio.create_task(_advertise_seats(lobby, advertiser))
        shown = handle.address[0] if handle.address[0] != "0.0.0.0" else _lan_address()
        print(
            f"hosting {game.display_name} on port {handle.address[1]}; "
            f"others run: lantag join {shown}:{handle.address[1]}",
            file=sys.stderr,
        )
        if args.headless or args.start_when_full:
            await wait_until(lambda: lobby.taken >= config.humans, 24 * 3600)
            handle.command(handle.machine.start_game)
        else:
            from lanTag.ui.lobby import run_host_screen

            if not await run_host_screen(handle):
                return 0
        if seat_updates is not None:
            seat_updates.cancel()
        if advertiser is not None:
            await advertiser.update(seats_taken=lobby.taken + len(config.bots), state="playing")
        return await _run_ui_or_headless(handle, args.headless)
    finally:
        if seat_updates is not None:
            seat_updates.cancel()
        if advertiser is not None:
            await advertiser.close()
        await handle.close()


async def _advertise_seats(lobby: HostLobby, advertiser: LobbyAdvertiser) -> None:
    """Keep the advert's seat count in step with the lobby (bots count as taken).

    Each update replaces any announcements still in flight (see LobbyAdvertiser), so
    the latest count is the last one on the wire; no extra re-announce is needed.
    """
    shown = lobby.taken
    while True:
        if lobby.taken != shown:
            shown = lobby.taken
            await advertiser.update(seats_taken=shown + len(lobby.config.bots))
        await asyncio.sleep(0.2)


def _lan_address() -> str:
    """A non-loopback IPv4 address of this machine, to tell joiners (127.0.0.1 if none)."""
    import ifaddr

    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                return ip.ip
    return "127.0.0.1"


async def _advertise(handle: PeerHandle, config: HostConfig, fp: str) -> LobbyAdvertiser:
    advert = LobbyAdvert(
        name=config.name[:40],
        engine=config.engine,
        fingerprint=fp,
        port=handle.address[1],
        seats_taken=1 + len(config.bots),
        seats_total=config.humans + len(config.bots),
        password=bool(config.password),
    )
    advertiser = LobbyAdvertiser(advert)
    await advertiser.start()
    return advertiser


async def cmd_join(args: argparse.Namespace) -> int:
    _check_bots(args.bot)
    me = load_identity()
    if args.resume:
        return await _resume(args, me)
    target = args.target
    if target and ":" in target:
        host_addr = _host_port(target)
    elif not target and not args.headless:
        from lanTag.net.discovery import LobbyBrowser
        from lanTag.ui.lobby import browse_or_host

        async with LobbyBrowser() as browser:
            picked = await browse_or_host(browser, color=color_enabled())
        if isinstance(picked, str):  # 'h' in the browser: host a game instead
            return await cmd_host(_host_args_from_join(args))
        if picked is None:
            return 0
        host_addr = (picked.addresses[0] if picked.addresses else "127.0.0.1", picked.port)
    else:
        from lanTag.net.discovery import browse

        lobbies = await browse(args.wait)
        matches = [lob for lob in lobbies if not target or lob.name == target]
        if not matches:
            raise UserError(
                f"no game named {target!r} found on the LAN"
                if target
                else "no games found on the LAN (try: lantag join HOST:PORT)"
            )
        if len(matches) > 1 and target:
            raise UserError(f"{len(matches)} games are named {target!r}: join by HOST:PORT")
        pick = matches[0]
        host_addr = (pick.addresses[0] if pick.addresses else "127.0.0.1", pick.port)
    handle = await open_join(
        host_addr,
        me,
        password=args.password,
        spectator=args.spectate,
        bind=(args.bind, 0),
        driver=BotDriver(args.bot) if args.headless else None,
        log_path=Path(args.log) if args.log else default_log_path("game"),
        netsim=_netsim(args.netsim),
    )
    try:
        if not args.headless:
            from lanTag.ui.lobby import run_join_screen

            if not await run_join_screen(handle):
                return 1
        return await _run_ui_or_headless(handle, args.headless)
    finally:
        await handle.close()


def _host_args_from_join(args: argparse.Namespace) -> argparse.Namespace:
    """`lantag host` at its defaults (so the setup form asks), keeping join's --log/--netsim."""
    from lanTag.cli import build_parser

    host = build_parser().parse_args(["host"])
    host.log, host.netsim, host.bind = args.log, args.netsim, args.bind
    return host


async def _resume(args: argparse.Namespace, me: LocalIdentity) -> int:
    from lanTag.resume import RESUME_WAIT, GameAlreadyOver
    from lanTag.runtime import heard_from_peers, open_resume

    path = Path(args.resume)
    if not path.is_file():
        raise UserError(f"cannot read log {path}: not a file")
    try:
        handle = await open_resume(
            path,
            me,
            driver=BotDriver(args.bot) if args.headless else None,
            netsim=_netsim(args.netsim),
        )
    except LogFormatError as exc:
        raise UserError(f"{path}: {exc}") from None
    except GameAlreadyOver as exc:
        print(f"game over already, at step {exc.steps}: {exc.summary}; nothing to resume")
        return 0
    session = handle.machine.session
    assert session is not None
    print(f"resumed at step {session.step}; catching up", file=sys.stderr)
    wait = float(getattr(args, "resume_wait", RESUME_WAIT))
    try:
        if not await heard_from_peers(handle, wait):
            print(
                f"lantag: no peer of this game answered in {wait:g} s (they have all left); "
                f"giving up at step {session.step}, log kept in {path}",
                file=sys.stderr,
            )
            return 1
        return await _run_ui_or_headless(handle, args.headless)
    finally:
        await handle.close()


def _host_port(text: str) -> tuple[str, int]:
    from lanTag.cli import _host_port as parse

    return parse(text)


async def cmd_list(args: argparse.Namespace) -> int:
    from lanTag.net.discovery import browse, format_lobbies

    if args.wait < 0 or args.wait > 600:
        raise UserError("--wait must be between 0 and 600 seconds")
    lobbies = await browse(args.wait)
    print(format_lobbies(lobbies, args.json))
    return 0


def _load_log(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read log {path}: {exc.strerror}") from None


async def cmd_verify(args: argparse.Namespace) -> int:
    data = _load_log(args.log)
    try:
        report = verify_log(data)
    except LogFormatError as exc:
        if args.json:
            print_json({"valid": False, "log": False, "error": str(exc)})
        else:
            print(f"lantag: {args.log}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print_json(report.to_json())
    else:
        print(format_report(args.log, report))
    return 0 if report.valid else 1


def format_report(path: str, report: VerifyReport) -> str:
    lines = [f"{path}: {report.engine}, game {report.game_id[:16]}"]
    for p in report.players:
        who = f"bot ({p.bot})" if p.bot else p.fingerprint
        lines.append(f"  seat {p.seat}: {p.nickname:<16} {who}")
    lines.append(
        f"  {report.entries} entries, {report.signatures_verified} signatures, "
        f"{report.steps} steps, {report.rolls_verified} rolls and "
        f"{report.secrets_verified} secret rounds re-derived"
    )
    for seat, step, code, reason in report.blames:
        lines.append(f"  blame: seat {seat} at step {step}: {code} ({reason})")
    if report.failure is not None:
        f = report.failure
        lines.append(f"INVALID at entry {f.entry} (step {f.step}): {f.reason}")
    elif report.complete:
        names = {p.seat: p.nickname for p in report.players}
        ranking = " > ".join(" = ".join(names.get(s, str(s)) for s in g) for g in report.ranking)
        lines.append(f"  ranking: {ranking}")
        lines.append(f"VALID, complete: {report.outcome}")
    else:
        cut = f" ({report.truncated_bytes} bytes of a cut entry)" if report.truncated_bytes else ""
        lines.append(f"VALID but incomplete: valid up to step {report.steps}{cut}")
    # One screen: every line but the path fits 80 columns (long ones wrap with an indent).
    return "\n".join(
        [lines[0]]
        + [
            wrapped
            for line in lines[1:]
            for wrapped in textwrap.wrap(line, 79, subsequent_indent="    ") or [""]
        ]
    )


async def cmd_replay(args: argparse.Namespace) -> int:
    data = _load_log(args.log)
    try:
        report = verify_log(data)
    except LogFormatError as exc:
        raise UserError(f"{args.log}: {exc}") from None
    if not report.valid and not args.force:
        f = report.failure
        assert f is not None
        raise UserError(
            f"{args.log} fails verification at entry {f.entry}: {f.reason} (--force to look anyway)"
        )
    if args.headless:
        from lanTag.ui.replay_model import headless_replay

        for block in headless_replay(data, report):
            print(block)
        return 0
    from lanTag.ui.replay import run_replay_app

    return await run_replay_app(data, report)


async def cmd_rules(args: argparse.Namespace) -> int:
    from importlib import resources

    if not args.game:
        for engine in engine_ids():
            game = get_game(engine)
            print(f"{engine:<14} {game.display_name} ({game.min_seats}-{game.max_seats} players)")
        return 0
    try:
        game = get_game(args.game)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    text = resources.files("lanTag.rules").joinpath(f"texts/{game.id}.md").read_text()
    print(text.rstrip())
    print("\nOptions (--option K=V):")
    for spec in game.option_specs:
        span = f" [{spec.min}..{spec.max}]" if spec.min is not None else ""
        choice = f" ({'/'.join(spec.choices)})" if spec.choices else ""
        print(f"  {spec.name}={spec.default}{span}{choice}: {spec.help}")
    return 0


async def cmd_id(args: argparse.Namespace) -> int:
    me = load_identity(nickname=args.nickname)
    print(f"nickname:    {me.nickname}")
    print(f"fingerprint: {me.identity.fingerprint}")
    print(f"public key:  {me.identity.public_key.hex()}")
    return 0


async def cmd_selfplay(args: argparse.Namespace) -> int:
    import json

    from lanTag.selfplay import GameResult, selfplay

    try:
        game = get_game(args.game)
        game.check_seats(args.peers)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    if not 1 <= args.games <= 100_000:
        raise UserError("--games must be between 1 and 100000")
    _check_bots(args.bot)
    _netsim(args.netsim)  # validate before starting processes

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
    from lanTag.cli import _options
    from lanTag.simulate import simulate

    if not 1 <= args.games <= 1_000_000:
        raise UserError("--games must be between 1 and 1000000")
    if not 1 <= args.workers <= 64:
        raise UserError("--workers must be between 1 and 64")
    options = _options(args.option)
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
