"""`lantag host --headless`: the lobby without a screen (who is refused, who asks to sit).

With ``--approve`` every joiner who proved itself (password, key) waits for the host's
answer, asked on stdin one joiner at a time: ``NICK (key FP, from ADDR) asks to sit: let
them in? [y/n]``.  No answer (stdin closed) is a no.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import TextIO

from lanTag.peer.doorstep import OPEN_TABLE_NOTE, DoorLines, open_table
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinerRefused
from lanTag.peer.runtime import PeerHandle
from lanTag.views.brief import position_line


def approve_prompt(nickname: str, fp: str, addr: tuple[str, int], spectator: bool) -> str:
    role = "watch" if spectator else "sit"
    return f"{nickname} (key {fp}, from {addr[0]}:{addr[1]}) asks to {role}: let them in? [y/n] "


async def _read_line(stream: TextIO) -> str:
    """One line of ``stream`` without blocking the event loop (a daemon thread: a host
    that starts while the question is open never waits for stdin to exit)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()

    def settle(line: str) -> None:
        if not done.done():
            done.set_result(line)

    def read() -> None:
        loop.call_soon_threadsafe(settle, stream.readline())

    threading.Thread(target=read, daemon=True).start()
    return await done


async def wait_for_table(
    handle: PeerHandle,
    lobby: HostLobby,
    config: HostConfig,
    *,
    stdin: TextIO | None = None,
    err: TextIO | None = None,
) -> None:
    """Until every human seat is taken: say who was refused and why (once each), and with
    ``config.approve`` ask about each waiting joiner."""
    stdin = sys.stdin if stdin is None else stdin
    err = sys.stderr if err is None else err
    if open_table(config.approve, config.password):
        print(f"lobby: {OPEN_TABLE_NOTE}", file=err, flush=True)
    if config.start_position:  # what joiners see before they sit (advert, welcome)
        line = position_line(config.engine, config.start_position)
        print(f"lobby: this table starts {line}", file=err, flush=True)
    told: set[int] = set()
    rolled = DoorLines()  # a crowd at the door: counting lines, not hundreds (doorstep.py)
    while lobby.taken < config.humans:
        said = []
        for event in list(handle.machine.events):
            if isinstance(event, JoinerRefused) and id(event) not in told:
                told.add(id(event))
                said += rolled.add(event.reason, time.monotonic())
        for line in said + rolled.due(time.monotonic()):
            print(f"lobby: {line}", file=err, flush=True)
        waiting = lobby.waiting() if config.approve else []
        if waiting:
            who = waiting[0]
            print(
                approve_prompt(who.nickname, who.fingerprint, who.addr, who.spectator),
                end="",
                file=err,
                flush=True,
            )
            line = await _read_line(stdin)
            yes = line.strip().lower() in ("y", "yes")
            if not line:
                print("(no answer: stdin is closed) no", file=err, flush=True)

            def answer(now: float, addr: tuple[str, int] = who.addr, yes: bool = yes) -> None:
                if any(w.addr == addr for w in lobby.waiting()):  # it may have left meanwhile
                    (lobby.approve_joiner if yes else lobby.refuse_joiner)(addr)

            handle.command(answer)
            print(f"lobby: {'let in' if yes else 'refused'} {who.nickname}", file=err, flush=True)
            continue
        await asyncio.sleep(0.05)
    for line in rolled.due(time.monotonic(), everything=True):  # the counts still held
        print(f"lobby: {line}", file=err, flush=True)
