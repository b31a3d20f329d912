"""Running a started game: the console UI, or plain event lines with --headless."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping
from typing import TextIO

from lanTag.cli.headless_clock import PLAY_NO_WAY_BACK, IdleLines, resume_way_back
from lanTag.log.report import position_digest
from lanTag.peer.join_handshake import (
    HostKeyChanged,
    JoinerRefused,
    JoinLobby,
    PasswordNeeded,
    Refused,
    RosterChanged,
    Started,
    Waiting,
    Welcomed,
)
from lanTag.peer.resume import back_line
from lanTag.peer.runtime import PeerHandle
from lanTag.peer.series_events import NextGame, SeriesDone
from lanTag.rules.base import IllegalAction, input_text
from lanTag.session import events as ev
from lanTag.session.lobby_record import seat_names
from lanTag.session.lockstep import Session
from lanTag.ui.outcomes import step_words
from lanTag.ui.turn_clock import cannot_go_on_why
from lanTag.views.brief import position_line


async def play_headless(
    handle: PeerHandle, out: object = None, *, local_table: bool = False
) -> int:
    """Print game events as plain lines until the game ends; exit code 0 when it does.

    The turn clock is said in lines too (lanTag.cli.headless_clock); ``local_table``: the
    other seats are this process's own bots (`lantag play`), so a dropped seat of ours has
    no table left to ask it back after a restart."""
    stream = sys.stdout
    names: Mapping[int, str] = {}
    way_back = PLAY_NO_WAY_BACK if local_table else resume_way_back(handle.log_path)
    clock = IdleLines(way_back)
    while True:
        machine = handle.machine
        if not names and machine.session is not None:  # the host has no Started event
            record = machine.session.record
            names = dict(enumerate(seat_names(record.seats)))
            seat = machine.session.seat
            you = "spectator" if seat is None else f"seat {seat} ({names.get(seat, seat)})"
            # A game set up from a position names it as `lantag verify` will (its digest).
            start = record.start_position
            where = f", from position {position_digest(start)[:16]}" if start else ""
            print(f"started: {record.engine}, you are {you}{where}", file=stream)
        while machine.events:
            event = machine.events.popleft()
            if isinstance(event, Started):
                continue  # announced above, once the session exists
            elif isinstance(event, ev.StepApplied):
                for line in step_report(machine.session, event):
                    print(line, file=stream)
            elif isinstance(event, ev.GameOver):
                order = " > ".join(
                    "=".join(names.get(s, str(s)) for s in group) for group in event.outcome.ranking
                )
                print(f"game over after {event.step} steps: {event.outcome.summary}", file=stream)
                print(f"ranking: {order}", file=stream)
                await handle.await_seals()  # bounded (SPEC §3 SEAL): the table signs the end
                session = machine.session
                if session is not None and session.features.seals:
                    sealed = " ".join(map(str, session.sealed_by())) or "no seat"
                    print(f"sealed by seats {sealed}", file=stream)
                if handle.log_path:
                    print(f"log: {handle.log_path}", file=stream)
                return 0
            elif isinstance(event, ev.Blame | ev.SeatsDropped | ev.Desync | ev.Lagging):
                print(f"note: {event}", file=stream)
                session = machine.session
                mine = session.seat if session is not None else None
                if isinstance(event, ev.SeatsDropped) and session is not None:
                    for line in clock.dropped(session, event):
                        print(line, file=stream)
                    if mine in event.seats:
                        print(clock.seat_lost(session, event.step), file=stream)
            elif isinstance(event, ev.CannotGoOn):
                seats = ", ".join(names.get(s, str(s)) for s in event.seats)
                bound = ", ".join(names.get(s, str(s)) for s in event.bound)
                why = cannot_go_on_why("Ctrl-C", bound)
                print(f"the table cannot go on without {seats}: {why}", file=stream)
            elif isinstance(event, ev.SeatsBack):
                mine = machine.session.seat if machine.session is not None else None
                for seat in event.seats:
                    name = names.get(seat, str(seat))
                    print(back_line(seat, name, event.step, seat == mine), file=stream)
            elif isinstance(event, Refused):
                print(f"refused: {event.reason}", file=sys.stderr)
                return 1
            elif isinstance(event, HostKeyChanged):
                for line in host_key_changed_lines(event):
                    print(line, file=sys.stderr)
                lobby = machine.lobby
                if isinstance(lobby, JoinLobby) and lobby.held_for_key:
                    print(
                        "not joining (run again with --trust-new-host-key if the host "
                        "really has a new key)",
                        file=sys.stderr,
                    )
                    return 1
            elif isinstance(event, Welcomed) and event.start_position:
                # Seen before the seat is taken (issue #38 item 6); the start must match it.
                line = position_line(event.engine, event.start_position)
                print(f"lobby: this game starts {line}", file=sys.stderr)
            elif isinstance(event, Waiting):
                print(f"lobby: {event.reason}", file=sys.stderr)
            elif isinstance(event, PasswordNeeded):
                print("this game needs a password (--password)", file=sys.stderr)
                return 2
            elif isinstance(event, RosterChanged):
                print(f"lobby: {len(event.roster)}/{event.seats} seated", file=stream)
            elif isinstance(event, JoinerRefused):
                print(f"lobby: {event.reason}", file=stream)
            elif isinstance(event, NextGame | SeriesDone):  # for after the game (series_play)
                handle.extra["series_event"] = event
        session = machine.session
        if session is not None and not session.state.is_over:
            for line in clock.tick(session, handle.now()):
                print(line, file=stream)
        if session is not None and session.state.is_over and not machine.events:
            # e.g. resumed from a log of a game that had already ended
            print(f"game over at step {session.step}", file=stream)
            if handle.log_path:
                print(f"log: {handle.log_path}", file=stream)
            return 0
        await asyncio.sleep(0.02)


def step_report(session: Session | None, event: ev.StepApplied) -> list[str]:
    """``step N: ...`` in the console's words (a roll with its purpose, a secret round's
    outcome, a move), then the results the console keeps in view, indented.  Seats are
    named as everyone sees them (``seat 0 NAME``): a bot plays ours here."""
    before = session.state_at(event.step) if session is not None else None
    after = None
    if before is not None:
        with contextlib.suppress(IllegalAction):
            after = before.apply(event.input)
    if session is None or before is None or after is None:
        return [f"step {event.step}: {input_text(event.input)}"]
    names = seat_names(session.record.seats)
    engine, shown = session.record.engine, session.game.action_text
    if after.state_hash() != event.state_hash:
        # The session has decided this step again since (a rollback): no state to word it.
        return [f"step {event.step}: {input_text(event.input, shown)}"]
    headline, results = step_words(engine, before, event.input, names, shown, after=after)
    return [f"step {event.step}: {headline}", *(f"  {line}" for line in results)]


def host_key_changed_lines(event: HostKeyChanged) -> list[str]:
    """The loud warning before joining a host whose nickname had another key."""
    if event.looks_like:
        return [
            "WARNING: THE HOST'S KEY HAS CHANGED",
            f"  this host calls itself {event.nickname!r}, which looks like {event.looks_like!r};",
            f"  {event.looks_like!r} had key {event.known} when you last played with them,",
            f"  this host answers with key {event.now}.",
            "  Someone may be posing as them: ask them for `lantag id` before you trust it.",
        ]
    return [
        "WARNING: THE HOST'S KEY HAS CHANGED",
        f"  {event.nickname!r} had key {event.known} when you last played with them;",
        f"  this host answers with key {event.now}.",
        "  Someone may be posing as them: ask them for `lantag id` before you trust it.",
    ]


async def run_ui_or_headless(
    handle: PeerHandle, headless: bool, *, local_table: bool = False
) -> int:
    """``local_table``: `lantag play` (the other seats are this process's bots)."""
    if headless:
        return await play_headless(handle, local_table=local_table)
    from lanTag.ui.game_screen import run_game_app

    code = await run_game_app(handle, color=sys.stdout.isatty())
    print_log_path(handle)
    return code


def print_log_path(handle: PeerHandle, stream: TextIO | None = None) -> None:
    """After the full-screen game (left, won or lost): the log's full path on a line of its
    own, so it can be copied whole (the game-over box may wrap it)."""
    path = handle.log_path
    if path is None or not path.exists():
        return
    out = sys.stderr if stream is None else stream
    print("game log (check it with: lantag verify LOG):", file=out)
    print(str(path.resolve()), file=out)
