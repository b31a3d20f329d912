"""Checking a game setup given on the command line (shared with the host setup form).

Every check raises UserError with one line naming what is wrong, before any network.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lanTag.cli.entry import UserError, read_text_file
from lanTag.net.faults import NetSim, NetSimConfig, NetSimConfigError
from lanTag.peer.join_handshake import HostConfig
from lanTag.peer.runtime import default_log_path
from lanTag.rules.base import Game, OptionError
from lanTag.rules.registry import engine_ids, find_entry, get_game
from lanTag.session.lobby_record import Timeouts


def map_engines() -> tuple[str, ...]:
    """The engines whose new_state reads a map file (their entry's ``takes_map``)."""
    return tuple(e for e in engine_ids() if takes_map(e))


def takes_map(engine: str) -> bool:
    entry = find_entry(engine)
    return entry is not None and entry.takes_map


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
            raise UserError(f"--map is only for {', '.join(map_engines())}")
        map_text = read_text_file(map_path, "map")
    try:
        game.new_state(seats, options, map_text)  # surface map/option errors before any network
    except ValueError as exc:
        message = str(exc).replace("<map>", map_path) if map_path else str(exc)
        raise UserError(message) from None
    return game, tuple(sorted(options.items())), map_text


@dataclass(frozen=True, slots=True)
class StartPosition:
    """A game set up from a position file: its engine, seats, options and state bytes."""

    game: type[Game]
    seats: int
    options: tuple[tuple[str, int | bool | str], ...]
    state_bytes: bytes  # State.encode(): what the lobby record binds into the game id


def start_position(
    path: str, engine: str | None, option_pairs: Mapping[str, str], map_path: str | None
) -> StartPosition:
    """Read ``--position FILE`` for a game of ``engine`` (None: the position's own).

    UserError with one line when the file is no valid position, holds another game than
    ``--game`` says, or comes with --option or --map (a position carries its options and
    its board).
    """
    from lanTag.cli.position_command import load_position

    if option_pairs:
        raise UserError("--position carries the game's options: no --option with it")
    if map_path:
        raise UserError("--position carries the board: no --map with it")
    game, position, state = load_position(path)
    if engine is not None and engine != game.id:
        raise UserError(f"{path} is a {game.id} position, not {engine}: say --game {game.id}")
    if state.is_over:
        raise UserError(f"{path}: the game is over in this position: nothing to play")
    options = tuple(sorted(game.position(state)["options"].items()))  # as the record wants
    return StartPosition(game, position["seats"], options, state.encode())


@dataclass(frozen=True, slots=True)
class GameChoice:
    """The game a command sets up: engine, options, map text and start position."""

    game: type[Game]
    options: tuple[tuple[str, int | bool | str], ...]
    map_text: str | None
    start_position: bytes  # State.encode() of --position; b"" for the engine's own start


def choose_game(
    engine: str,
    option_pairs: Mapping[str, str],
    seats: int,
    map_path: str | None,
    position: StartPosition | None,
) -> GameChoice:
    """The position's game, options and state (it carries its board: no map), else the
    game ``--game/--option/--map`` set up for ``seats``, checked (``check_game``).  One
    choice for `lantag play`, `lantag host` and the host setup form; each checks its own
    seat flags against ``position.seats`` first, in its own words."""
    if position is not None:
        return GameChoice(position.game, position.options, None, position.state_bytes)
    game, options, map_text = check_game(engine, option_pairs, seats, map_path)
    return GameChoice(game, options, map_text, b"")


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
    position: StartPosition | None = None,
) -> HostConfig:
    """The checks and HostConfig of `lantag host`, shared with the host setup form."""
    if not 1 <= seats <= 64:
        raise UserError("--seats must be between 1 and 64")
    if not 0 <= bots <= 64:
        raise UserError("--bots must be between 0 and 64")
    check_bots(bot)
    if position is not None and seats + bots != position.seats:
        raise UserError(
            f"the position is for {position.seats} seats: --seats (people, you included) "
            f"and --bots add up to {seats + bots}"
        )
    chosen = choose_game(engine, option_pairs, seats + bots, map_path, position)
    return HostConfig(
        chosen.game.id,
        name or f"{nickname}'s {chosen.game.display_name}",
        seats,
        chosen.options,
        chosen.map_text,
        bots=(bot,) * bots,
        password=password,
        timeouts=Timeouts(turn_ms=int(turn_timeout * 1000)),
        start_position=chosen.start_position,
    )


def check_bots(*names: str) -> None:
    from lanTag.bots import bot_names

    for name in names:
        if name not in bot_names():
            raise UserError(f"unknown bot {name!r} (bots: {', '.join(bot_names())})")


def netsim_from_spec(spec: str | None) -> NetSim | None:
    if not spec:
        return None
    try:
        return NetSim(NetSimConfig.parse(spec))
    except NetSimConfigError as exc:
        raise UserError(f"--netsim: {exc}") from None


def log_path_for(args: argparse.Namespace, engine: str, table: str = "") -> Path:
    """``--log``, else a file named after the game (date, game, table name)."""
    if getattr(args, "log", None):
        return new_log_file(Path(args.log))
    return default_log_path(engine, table)


def new_log_file(path: Path) -> Path:
    """``--log FILE`` for a new game: a log file holds one game, and the writer appends, so
    a FILE that already holds one would end up holding two and verify as neither."""
    if path.is_file() and path.stat().st_size > 0:
        raise UserError(
            f"{path} already holds a game's log (a log file is one game's): "
            "give another --log, or move that file away"
        )
    return path
