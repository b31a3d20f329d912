"""A game night on the console: after each game the host proposes the next one (the same
game in one key, or another through the setup form) and each joiner accepts or leaves.

The game-over box (lanTag.ui.app) shows the standings so far and the keys; the game
screen returns what was chosen (lanTag.ui.series_info: REMATCH_SAME, ...), and this loop
opens the next game's lobby (lanTag.peer.runtime.host_next_game / join_next_game): the
host's roster screen, where the host starts when the table is back; the joiner's wait.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from lanTag.cli.headless import print_log_path
from lanTag.cli.host_advert import advertise_next_lobby, advertise_playing
from lanTag.cli.series_logs import SeriesLogs, night_directory
from lanTag.cli.series_play import end_series
from lanTag.net.discovery import LobbyAdvertiser
from lanTag.peer.join_handshake import HostConfig, JoinLobby
from lanTag.peer.runtime import LocalIdentity, PeerHandle, host_next_game, join_next_game
from lanTag.rules.base import Over
from lanTag.ui.series_info import (
    ACCEPT_NEXT,
    DECLINE_NEXT,
    REMATCH_SAME,
    REMATCH_SETUP,
    SeriesInfo,
    seats_of,
)


def _played(handle: PeerHandle, info: SeriesInfo) -> SeriesInfo:
    """The next game's SeriesInfo: the game just over joins the history."""
    session = handle.machine.session
    assert session is not None
    decision = session.state.decision()
    ranking = [list(g) for g in decision.outcome.ranking] if isinstance(decision, Over) else None
    history = [*info.history, (seats_of(session), ranking)]
    return SeriesInfo(info.number + 1, info.can_propose, history)


async def host_console(
    handle: PeerHandle,
    config: HostConfig,
    me: LocalIdentity,
    args: argparse.Namespace,
    logs: SeriesLogs,
    join_line: str = "",
    advertiser: LobbyAdvertiser | None = None,
) -> int:
    """The host's night: game, game-over box, next game's lobby (showing ``join_line``,
    what the others type to join; the advert a lobby again), until the host leaves."""
    from lanTag.ui.app import run_game_app
    from lanTag.ui.host_setup import run_host_setup_for
    from lanTag.ui.lobby_screens import run_host_screen

    info = SeriesInfo(1, can_propose=True)
    while True:
        code = await run_game_app(handle, color=sys.stdout.isatty(), series=info)
        session = handle.machine.session
        if code not in (REMATCH_SAME, REMATCH_SETUP) or session is None:
            print_log_path(handle)
            end_series(handle)
            return 0 if code in (REMATCH_SAME, REMATCH_SETUP) else code
        await handle.await_seals()  # bounded: the table signs game 1's end before game 2
        if code == REMATCH_SETUP:
            picked = await run_host_setup_for(args, me.nickname, color=sys.stdout.isatty())
            if picked is None:
                print_log_path(handle)
                end_series(handle)
                return 0
            config = picked
        logs = night_directory(logs, handle, session.record.engine)  # one folder a night
        print_log_path(handle)
        info = _played(handle, info)
        # A seat whose player left between games: started anyway, a bot plays it.
        config = dataclasses.replace(
            config, previous_game=session.game_id, fill_empty=config.fill_empty or args.bot
        )
        lobby = host_next_game(
            handle, config, me, logs.path(info.number, config.engine, config.name)
        )
        updates = await advertise_next_lobby(advertiser, lobby)
        started = False
        try:
            started = await run_host_screen(handle, color=sys.stdout.isatty(), join_line=join_line)
        finally:
            await advertise_playing(advertiser if started else None, lobby, updates)
        if not started:
            return 0


async def _leave(handle: PeerHandle, lobby: JoinLobby) -> None:
    """Decline the next game: the host is told, so it does not wait for us."""
    handle.command(lambda now: lobby.leave())
    await handle.linger()


async def join_console(handle: PeerHandle, logs: SeriesLogs) -> int:
    from lanTag.ui.app import run_game_app
    from lanTag.ui.lobby_screens import run_join_screen

    info = SeriesInfo(1)
    while True:
        code = await run_game_app(handle, color=sys.stdout.isatty(), series=info)
        lobby = handle.machine.lobby
        proposed = info.proposed
        session = handle.machine.session
        if code != ACCEPT_NEXT or proposed is None or session is None:
            print_log_path(handle)
            if code == DECLINE_NEXT and isinstance(lobby, JoinLobby):
                await _leave(handle, lobby)
                return 0
            return code
        await handle.await_seals()
        logs = night_directory(logs, handle, session.record.engine)  # one folder a night
        print_log_path(handle)
        info = _played(handle, info)
        join_next_game(handle, logs.path(info.number, proposed.engine, proposed.name))
        if not await run_join_screen(handle, color=sys.stdout.isatty()):
            return 1
