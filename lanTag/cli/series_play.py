"""Playing a series headless: `lantag host --games N` and the joiners that follow it.

The host plays N games back to back with the same table (the same engine and options
each time); after each game it tells the seats the next one comes, and after the last
one that the series is done.  A joiner follows without joining again: when its game is
over it waits for the host's word and joins the next game from the same socket.  A
joiner that does not come back within ``--rematch-wait`` does not block the next game:
its seat is played by a replicated bot.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import time

from lanTag.cli.series_logs import SeriesLogs, night_directory
from lanTag.net.discovery import LobbyAdvertiser
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby, Refused
from lanTag.peer.runtime import (
    LocalIdentity,
    PeerHandle,
    host_next_game,
    join_next_game,
    wait_until,
)
from lanTag.peer.series import done_message, tell_seats
from lanTag.peer.series_events import NextGame, SeriesDone

FOLLOW_WAIT = 15.0
"""Seconds a joiner waits, after a game, for the host to say whether another comes."""
SERIES_EVENT = "series_event"  # PeerHandle.extra: a next/done that came during the game


async def host_series(
    handle: PeerHandle,
    config: HostConfig,
    me: LocalIdentity,
    args: argparse.Namespace,
    logs: SeriesLogs,
    code: int,
    advertiser: LobbyAdvertiser | None = None,
) -> int:
    """After the first game (``code``): games 2..N, then ``done`` to the table (the
    advert a lobby again between games, counting who is back)."""
    from lanTag.cli.headless import play_headless
    from lanTag.cli.host_advert import advertise_next_lobby, advertise_playing

    games = int(getattr(args, "games", 1) or 1)
    for number in range(2, games + 1):
        session = handle.machine.session
        if code != 0 or session is None or not session.state.is_over:
            break
        next_config = dataclasses.replace(config, previous_game=session.game_id)
        lobby = host_next_game(handle, next_config, me, logs.path(number, config.engine))
        print(f"series: game {number} of {games}, waiting for the table", file=sys.stderr)
        updates = await advertise_next_lobby(advertiser, lobby)
        try:
            await fill_or_wait(handle, lobby, float(args.rematch_wait), args.bot)
            handle.command(handle.machine.start_game)
        finally:
            await advertise_playing(advertiser, lobby, updates)
        code = await play_headless(handle)
    end_series(handle)
    return code


async def fill_or_wait(handle: PeerHandle, lobby: HostLobby, wait: float, bot: str) -> None:
    """Wait up to ``wait`` s for the last game's people; a seat still empty then is
    played by a replicated ``bot``, so the game keeps its size."""
    humans = lobby.config.humans
    await wait_until(lambda: lobby.taken + len(lobby.left) >= humans, wait, step=0.02)
    missing = humans - lobby.taken
    if missing <= 0:
        return
    print(
        f"series: {missing} player(s) left or did not come back within {wait:g} s; "
        f"a {bot} bot plays their seat(s)",
        file=sys.stderr,
    )
    lobby.config = dataclasses.replace(lobby.config, bots=lobby.config.bots + (bot,) * missing)


def end_series(handle: PeerHandle) -> None:
    """Tell the table no next game comes (joiners waiting for one stop at once)."""
    session = handle.machine.session
    if session is not None and session.state.is_over and session.seat == 0:
        message = done_message(session.game_id)
        handle.command(lambda now: tell_seats(handle.machine, message, now))


async def follow_series(
    handle: PeerHandle, logs: SeriesLogs, code: int, games: int | None = None, first: int = 1
) -> int:
    """A headless joiner after its game (``code``): play each next game the host
    proposes (at most ``games`` in all); stop when it says done, leaves, or says nothing
    within FOLLOW_WAIT."""
    from lanTag.cli.headless import play_headless

    number = first  # the number of the game just played (a resumed seat: not the first)
    while code == 0:
        session = handle.machine.session
        if session is None or session.seat is None or not session.state.is_over:
            break
        if 0 not in session.live:  # the host's seat was dropped: it proposes nothing more
            break
        event = await series_event(handle, FOLLOW_WAIT)
        if not isinstance(event, NextGame) or event.previous_game != session.game_id:
            break
        old = handle.machine.lobby
        if games is not None and number >= games:
            if not isinstance(old, JoinLobby):  # a resumed seat: the host's wait ends it
                break
            # Say so: the host then starts the next game with a bot in our seat at once.
            handle.command(lambda now, old=old: old.leave())  # type: ignore[misc]
            print(f"series: leaving after {number} game(s)", file=sys.stderr)
            break
        number += 1
        logs = night_directory(logs, handle, session.record.engine)
        new = join_next_game(handle, logs.path(number, event.engine, event.name))
        print(f"series: game {number} ({event.engine}) follows", file=sys.stderr)
        if not await wait_until(
            lambda new=new: _answered(handle, new),  # type: ignore[misc]
            FOLLOW_WAIT,
            step=0.02,
        ):
            print(
                f"lantag: the host did not answer for game {number} within {FOLLOW_WAIT:g} s",
                file=sys.stderr,
            )
            return 1
        code = await play_headless(handle)
    return code


def _answered(handle: PeerHandle, lobby: JoinLobby) -> bool:
    """The host welcomed (or refused) us for the next game, or it already started."""
    refused = any(isinstance(e, Refused) for e in handle.machine.events)
    return bool(lobby.host_key) or refused or handle.machine.session is not None


async def series_event(handle: PeerHandle, timeout: float) -> NextGame | SeriesDone | None:
    """The host's next/done for the game just over (kept aside if it came during it)."""
    deadline = time.monotonic() + timeout
    while True:
        kept = handle.extra.pop(SERIES_EVENT, None)
        if isinstance(kept, NextGame | SeriesDone):
            return kept
        events = handle.machine.events
        for event in list(events):
            if isinstance(event, NextGame | SeriesDone):
                events.remove(event)
                return event
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(0.02)
