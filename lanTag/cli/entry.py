"""The ``lantag`` command: the only place that reads argv and the environment.

A user error is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from lanTag.cli.exit_signals import ExitSignals, Terminated
from lanTag.errors import LanTagError
from lanTag.files import read_text

EXIT_USAGE = 2
EXIT_CODES = (
    "Exit codes: 0 success; 1 the command ran but the result is bad, or a network "
    "condition stopped it (no game found, no answer from the host); 2 a usage error "
    "(a bad option, file or address); 130 interrupted (Ctrl-C); 143 / 129 ended by "
    "SIGTERM / SIGHUP (a closed terminal)."
)


class UserError(LanTagError):
    """Bad input from the person at the keyboard: printed as one line, exit 2."""


class JoinFailed(LanTagError):
    """Joining a game did not work (no answer, refused): printed as one line, exit 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 1.0 <= value <= 86_400:
        raise argparse.ArgumentTypeError("must be between 1 and 86400 seconds")
    return value


def _wait_seconds(text: str) -> float:
    """A positive number of seconds (fractions allowed), at most a day."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 < value <= 86_400:  # NaN fails this too
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text!r}")
    return value


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, not {text!r}")
    return int(text)


def parse_option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """The ``--option K=V`` strings as a dict (UserError on a pair without ``=`` or key)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--option wants key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def parse_host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (host defaults to 127.0.0.1) as a pair; UserError if malformed."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"expected HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def option_arg(parser: argparse.ArgumentParser) -> None:
    """The repeatable ``--option K=V`` every game-starting command takes."""
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="K=V",
        help="game option, repeatable (see: lantag rules GAME)",
    )


def build_parser() -> argparse.ArgumentParser:
    from lanTag.peer.runtime import default_log_dir
    from lanTag.rules.registry import engine_ids

    games = ", ".join(engine_ids())
    log_help = (
        "where to write the signed game log (default: a file named after the game in "
        f"{default_log_dir()})"
    )
    p = _Parser(
        prog="lantag",
        description="Tabletop tag games across laptops on one Wi-Fi: peer-to-peer lockstep, "
        "fair dice, signed game logs.",
        epilog="Start with: lantag play (a game against bots on this machine).  " + EXIT_CODES,
    )
    p.add_argument(
        "--version",
        action="store_true",
        help="show the lanTag, protocol and game rules versions and exit",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    # --headless and the turn limit: the console's clock and warnings become one line each;
    # no key gives a dropped seat back there (the console's Enter has no headless twin).
    resume_back = (
        "; a seat the table drops anyway (this peer cut off) comes back only by Ctrl-C and "
        "`lantag join --resume LOG --headless`"
    )

    def game_args(sp: argparse.ArgumentParser, default: str, seat_back: str) -> None:
        sp.add_argument("--game", "-g", help=f"engine ({games}; default {default})")
        option_arg(sp)
        sp.add_argument("--map", metavar="FILE", help="custom map file (tagem)")
        sp.add_argument(
            "--position",
            metavar="FILE",
            help="start from this position (JSON: lantag position LOG --step N > FILE); "
            "it sets the game's options and seats, and every peer starts from it",
        )
        sp.add_argument("--log", metavar="FILE", help=log_help)
        sp.add_argument(
            "--headless",
            action="store_true",
            help="no console UI: plain log lines (the turn clock too: a line at 30 and 10 s "
            "left and when a bot takes a seat); your seat is played by --bot" + seat_back,
        )
        sp.add_argument(
            "--bot",
            default="heuristic2",
            metavar="KIND",
            help="bot for your seat with --headless (random, heuristic, heuristic2: the default)",
        )
        sp.add_argument(
            "--netsim",
            metavar="SPEC",
            help="inject faults, e.g. loss=0.2,dup=0.05,delay=30ms,jitter=20ms,seed=7",
        )
        sp.add_argument(
            "--turn-timeout",
            type=_positive_seconds,
            default=120.0,
            metavar="S",
            help="seconds a player may think before a bot takes the seat (warned at 30 and "
            "10 s left; on the console, Enter takes the seat back; with --headless a line "
            "says each, and no key takes it back)",
        )

    play = sub.add_parser(
        "play",
        help="play against bots on this machine (full stack, loopback)",
        description="Play against bots: every bot is a real peer on its own "
        "loopback UDP socket, so the whole stack runs.",
    )
    game_args(
        play,
        "prototag, or with --position the position's game",
        "; a seat the table drops anyway is not given back (the bots stop with lantag play)",
    )
    # None: the game is prototag, or with --position the position's own game.
    play.set_defaults(game=None)
    play.add_argument(
        "--bots",
        type=int,
        default=None,
        help="number of bot opponents (default 2; with --position, its seats but yours)",
    )
    play.add_argument("--strength", default="heuristic2", help="bot opponents' kind")

    host = sub.add_parser(
        "host",
        help="host a game on the LAN",
        description="Host a game: it is advertised by mDNS; others join with `lantag join`. "
        "Without --game (and without --headless) a setup form asks for the game, its "
        "options, map, seats, bots, name and password; the other flags pre-fill it.",
    )
    game_args(
        host,
        "the setup form asks, prototag with --headless; with --position the position's game",
        resume_back,
    )
    # None: no --game given, so the interactive host shows the setup form (prototag headless).
    host.set_defaults(game=None)
    host.add_argument("--name", default="", help="game name shown to others")
    host.add_argument("--seats", type=int, default=2, help="seats for people, yours included")
    host.add_argument("--bots", type=int, default=0, help="extra seats played by replicated bots")
    host.add_argument("--password", default="", help="password joiners must know")
    host.add_argument("--bind", default="0.0.0.0", help="address to listen on")
    host.add_argument("--port", type=_port, default=0, help="UDP port (default: any free port)")
    host.add_argument("--no-advertise", action="store_true", help="don't announce on mDNS")
    host.add_argument(
        "--approve",
        action="store_true",
        help="each joiner waits for your yes (with --headless: asked on stdin, y/n)",
    )
    host.add_argument(
        "--games",
        type=int,
        default=1,
        metavar="N",
        help="play N games back to back with the same table (headless: the same game each "
        "time); joiners follow without joining again; --log is then a directory",
    )
    host.add_argument(
        "--rematch-wait",
        type=_wait_seconds,
        default=20.0,
        metavar="S",
        help="in a series: seconds to wait for the last game's players before a bot "
        "takes an empty seat (default 20)",
    )
    host.add_argument(
        "--start-when-full",
        action="store_true",
        help="start as soon as every seat is taken (default with --headless)",
    )

    join = sub.add_parser(
        "join",
        help="join a game by name or HOST:PORT",
        description="Join a hosted game, found by name on the LAN or "
        "directly by HOST:PORT where multicast is blocked.",
        epilog="Exit codes: 0 the game was played; 1 a network condition (no game of that "
        "name seen, no answer from the host, refused) or the game was left early; "
        "2 a usage error (a bad option or address).",
    )
    join.add_argument(
        "target",
        nargs="?",
        help="game name or HOST:PORT (default: pick from the games on the LAN; "
        "with --headless, the first one found)",
    )
    join.add_argument("--password", default="", help="the game's password")
    join.add_argument("--spectate", action="store_true", help="watch instead of playing")
    join.add_argument(
        "--resume", metavar="LOG", help="after a crash: take your seat back from your own log file"
    )
    join.add_argument(
        "--resume-wait",
        type=_wait_seconds,
        metavar="SECONDS",
        help="with --resume: give up (exit 1, log kept) when no peer of the game answers "
        "within SECONDS (default 15)",
    )
    join.add_argument(
        "--headless",
        action="store_true",
        help="no console UI: plain log lines (the turn clock too); play with --bot" + resume_back,
    )
    join.add_argument("--bot", default="heuristic2", help="bot for your seat with --headless")
    join.add_argument(
        "--log",
        metavar="FILE",
        help=log_help + "; an existing directory (or a path ending in /) receives one "
        "log per game of a series",
    )
    join.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="with --headless, in a series: leave after N games (default: follow the host "
        "to the end)",
    )
    join.add_argument("--bind", default="0.0.0.0", help="local address to use")
    join.add_argument("--wait", type=float, default=3.0, help="seconds to look for games by name")
    join.add_argument(
        "--timeout",
        type=_wait_seconds,
        default=10.0,
        metavar="SECONDS",
        help="give up (exit 1) when the host does not answer within SECONDS (default 10)",
    )
    join.add_argument("--netsim", metavar="SPEC", help="inject faults (see play --help)")
    join.add_argument(
        "--trust-new-host-key",
        action="store_true",
        help="join even when the host's nickname had another key before (still warned)",
    )

    lst = sub.add_parser("list", help="list games on the LAN")
    lst.add_argument("--wait", type=float, default=2.0, help="seconds to listen (default 2)")
    lst.add_argument("--json", action="store_true", help="machine-readable output")

    verify = sub.add_parser(
        "verify",
        help="check a signed game log (or a series directory) offline",
        description="Check a signed game log, or a series directory (lantag host --games N "
        "--log DIR: one log per game, in file-name order): every game's log, the links "
        "from each game to the one before it, and the standings (master of games points).",
        epilog="Exit codes: 0 valid (a game may be incomplete), every game of a series "
        "linked to the one before; 1 invalid: a log fails, or a series has a game missing, "
        "out of order or from another table; 2 not a lanTag log (or an empty directory); "
        "3 authentic but not replayed (this lanTag lacks the log's rules version).",
    )
    verify.add_argument("log", help="log file, or a series directory")
    verify.add_argument("--json", action="store_true", help="machine-readable report")

    replay = sub.add_parser(
        "replay",
        help="step through a game log (or a series directory)",
        description="Step through a verified game log.  A series directory (lantag host "
        "--games N --log DIR) shows its games in order: q in one game's viewer opens the next, "
        "Ctrl-C stops.",
    )
    replay.add_argument("log", help="log file, or a series directory")
    replay.add_argument("--force", action="store_true", help="show a log that fails verification")
    replay.add_argument("--headless", action="store_true", help="print every step as text")

    position = sub.add_parser(
        "position",
        help="print a game's position from a log, or check a position file",
        description="Print the position after N steps of a signed log as JSON (default: "
        "the end), or check a position file.  Each game's fields are in its rules page "
        "(docs/rules/<game>.md).  Places are named as on a chessboard, for every game: a "
        "file letter from the left (a, b, ...; aa after z), then a rank from the bottom "
        '(1, 2, ...), so a1 is the bottom-left corner with north up, as the boards label '
        'them; a position says so with "coordinates": "algebraic".  A file without that '
        "field was written by an older lanTag and is read in its game's old spelling.",
        epilog="Exit codes: 0 printed or valid; 2 a bad log, step or position (one line "
        "naming every problem).",
    )
    position.add_argument("log", nargs="?", help="log file")
    position.add_argument("--step", type=int, help="steps played (default: all of them)")
    position.add_argument("--check", metavar="FILE", help="validate a position file (JSON)")

    rules = sub.add_parser("rules", help="show a game's rules and options")
    rules.add_argument("game", nargs="?", help=f"one of: {games}")

    sp = sub.add_parser(
        "selfplay",
        help="bots play each other in separate processes (loopback)",
        description="Start N peer processes on loopback, each playing one seat "
        "with a bot through the real lobby and UDP stack; verify every log. "
        "Exit 1 if any game desyncs, stalls or leaves a log that fails.",
    )
    sp.add_argument("--game", "-g", default="prototag", help=f"engine ({games})")
    sp.add_argument("--peers", type=int, default=3, help="peer processes (default 3)")
    sp.add_argument("--games", type=int, default=1, help="games to play (default 1)")
    sp.add_argument("--netsim", metavar="SPEC", help="faults injected in every peer's UDP layer")
    sp.add_argument("--log-dir", default="selfplay-logs", help="where each peer's log goes")
    sp.add_argument("--bot", default="heuristic2", help="bot kind for every peer")
    option_arg(sp)
    sp.add_argument("--stall", type=float, default=300.0, help="seconds before a game is stalled")
    sp.add_argument("--json", action="store_true", help="one JSON object per game")

    sim = sub.add_parser(
        "simulate",
        help="many bot games in-process: balance figures",
        description="Play many games with bots (no network) on all cores and "
        "report game lengths, win rates by seat and role, and each game's "
        "own figures. Deterministic for a given seed.",
    )
    sim.add_argument("--game", "-g", default="prototag", help=f"engine ({games})")
    sim.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    sim.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    sim.add_argument("--seats", type=int, help="players per game (default 4, clamped)")
    sim.add_argument("--bots", default="heuristic2", help="bot kind for every seat")
    option_arg(sim)
    sim.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    sim.add_argument("--json", action="store_true", help="machine-readable report")
    sim.add_argument("--plot", metavar="FILE.png", help="draw the game-length histogram")

    ident = sub.add_parser("id", help="show (or create) this laptop's key and nickname")
    ident.add_argument("--nickname", help="set your nickname")
    return p


def safe_console() -> None:
    """Never crash on a character the console's encoding lacks (a cp1252 Windows console,
    output piped to a file, a C locale): print a replacement character instead."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def main(argv: Sequence[str] | None = None) -> int:
    safe_console()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from lanTag.versions import version_lines

        print("\n".join(version_lines()))
        return 0
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(asyncio.run(_dispatch_until_signalled(args)) or 0)
    except Terminated as exc:  # SIGTERM, SIGHUP, a closed console: the goodbye is out
        print(f"lantag: {exc.reason}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:  # `lantag rules prototag | head`: the reader left, that's fine
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except UserError as exc:
        print(f"lantag: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except JoinFailed as exc:
        print(f"lantag: {exc}", file=sys.stderr)
        return 1
    except (LanTagError, ValueError, OSError) as exc:
        print(f"lantag: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("lantag: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line for the user, the traceback on request
        if os.environ.get("LANTAG_DEBUG"):
            raise
        print(
            f"lantag: internal error: {type(exc).__name__}: {exc} (set LANTAG_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return 1


# The module holding each subcommand's ``cmd_<name>`` (imported only when it runs).
COMMAND_MODULES = {
    "play": "lanTag.cli.play_commands",
    "host": "lanTag.cli.play_commands",
    "join": "lanTag.cli.play_commands",
    "list": "lanTag.cli.info_commands",
    "rules": "lanTag.cli.info_commands",
    "id": "lanTag.cli.info_commands",
    "verify": "lanTag.cli.log_commands",
    "replay": "lanTag.cli.log_commands",
    "position": "lanTag.cli.position_command",
    "selfplay": "lanTag.cli.bot_commands",
    "simulate": "lanTag.cli.bot_commands",
}


async def _dispatch_until_signalled(args: argparse.Namespace) -> int:
    """``_dispatch``, cancelled (so its ``finally`` blocks say goodbye) on SIGTERM, SIGHUP
    or a closed console, which then raise :class:`Terminated`."""
    task = asyncio.current_task()
    assert task is not None
    ended: list[Terminated] = []

    def stop(reason: str, code: int) -> None:
        reason = "interrupted" if reason == "SIGINT" else f"terminated ({reason})"
        ended.append(Terminated(reason, code))
        task.cancel()

    signals = ExitSignals(asyncio.get_running_loop(), stop)
    signals.install()
    try:
        code = await _dispatch(args)
    except asyncio.CancelledError:
        if ended:
            raise ended[0] from None
        raise
    finally:
        signals.remove()
    if ended:  # the command caught the cancellation itself and returned
        raise ended[0]
    return code


async def _dispatch(args: argparse.Namespace) -> int:
    import importlib

    module = importlib.import_module(COMMAND_MODULES[args.command])
    handler = getattr(module, f"cmd_{args.command}")
    result: int = await handler(args)
    return result


def print_json(obj: object) -> None:
    print(json.dumps(obj, indent=2, sort_keys=True))


def read_text_file(path: str, what: str) -> str:
    try:
        return read_text(path)  # a BOM or CRLF from Notepad is fine
    except UnicodeDecodeError:
        raise UserError(f"cannot read {what} {path}: it is not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror}") from None
