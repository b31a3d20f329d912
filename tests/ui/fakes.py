"""Handles for headless UI tests: a real Session behind a minimal PeerHandle look-alike.

``solo_handle`` seats one human (seat 0, played through the UI) with replicated bot
seats, so every step advances locally without a network: our own moves are final
when no other live human must acknowledge them, and dice need only our reveal.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import random
from collections import deque
from collections.abc import Callable
from pathlib import Path

from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.peer.join_handshake import LobbyEvent
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord, SeatRecord, Timeouts
from lanTag.session.lockstep import Session
from tests.peer.harness import Table

CHAIN = 256


def _h(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


class FakeMachine:
    def __init__(self, session: Session | None) -> None:
        self.session = session
        self.events: deque[ev.Event | LobbyEvent] = deque()
        self.chats_sent: list[str] = []

    def poke(self, now: float) -> None:
        """Like PeerMachine._after: move the session's events onto the peer's deque."""
        if self.session is None:
            return
        while (event := self.session.next_event()) is not None:
            self.events.append(event)


class FakeHandle:
    def __init__(self, machine: FakeMachine, log_path: Path | None = None) -> None:
        self.machine = machine
        self.log_path = log_path
        self.clock = 100.0
        self.commands = 0

    def now(self) -> float:
        return self.clock

    async def await_seals(self) -> None:
        """PeerHandle waits for the table's seals after game over; a solo table has none."""

    def command(self, fn: Callable[[float], None]) -> None:
        self.commands += 1
        fn(self.clock)
        self.machine.poke(self.clock)


def solo_session(
    engine: str,
    bots: int = 2,
    *,
    seed: str = "ui",
    nickname: str = "me",
    options: tuple[tuple[str, int | bool | str], ...] = (),
    start_position: bytes = b"",
) -> Session:
    """``start_position``: canonical state bytes to start from (give that position's options)."""
    ident = Identity(_h(f"{seed}/key"))
    secret = _h(f"{seed}/chain")
    seats: tuple[SeatRecord, ...] = (
        SeatRecord(ident.public_key, HashChain(secret, CHAIN).anchor, nickname, ""),
    )
    seats += tuple(SeatRecord(b"", b"", f"bot-{i + 1}", "random") for i in range(bots))
    record = LobbyRecord(engine, options, None, seats, CHAIN, Timeouts(), _h(f"{seed}/nonce"))
    if start_position:
        record = dataclasses.replace(record, start_position=start_position)
    return Session(record, seat=0, identity=ident, chain_secret=secret)


def solo_handle(
    engine: str, bots: int = 2, *, log_path: Path | None = None, **kwargs: object
) -> FakeHandle:
    session = solo_session(engine, bots, **kwargs)  # type: ignore[arg-type]
    machine = FakeMachine(session)
    machine.poke(0.0)
    return FakeHandle(machine, log_path)


def advance(handle: FakeHandle, moves: int, seed: int = 1) -> None:
    """Play ``moves`` random actions for our seat through handle.command (as the UI would)."""
    session = handle.machine.session
    assert session is not None and session.seat is not None
    rng = random.Random(seed)
    for _ in range(moves):
        mine = session.my_turn()
        if mine is None:
            return
        legal = session.state.legal_actions(session.seat)
        action = legal[rng.randrange(len(legal))]
        if mine == "turn":
            handle.command(lambda now, a=action: session.submit(a, now))  # type: ignore[misc]
        else:
            handle.command(
                lambda now, a=action: session.commit(a, rng.randbytes(32), now)  # type: ignore[misc]
            )


class NetHandle:
    """Peer ``index`` of a harness Table (real peers on the simulated network), driven by us.

    ``command`` runs the local command and flushes like PeerHandle.command; the network only
    moves when a test calls ``settle`` or ``pump``, so in-between states stay put.
    """

    def __init__(self, table: Table, index: int = 0, log_path: Path | None = None) -> None:
        self.table = table
        self.machine = table.peers[index]
        self.log_path = log_path

    def now(self) -> float:
        return self.table.net.now

    def command(self, fn: Callable[[float], None]) -> None:
        now = self.now()
        fn(now)
        self.machine.poke(now)
        self.table.net.flush()

    def settle(self, max_time: float = 120.0) -> None:
        """Run the network until our seat must act again (or the game is over)."""
        session = self.machine.session
        assert session is not None

        def ready() -> bool:
            return session.my_turn() is not None or session.state.is_over

        self.table.net.run_until(ready, self.table.net.now + max_time)

    def pump(self, seconds: float = 0.05) -> None:
        self.table.net.run_for(seconds)


def ui_table(engine: str, humans: int, **kwargs: object) -> Table:
    """A harness table whose peer 0 (the host) is played through the UI, not by a bot."""
    table = Table(engine, humans, **kwargs)  # type: ignore[arg-type]
    table.peers[0].driver = None
    return table


async def eventually(predicate: Callable[[], bool], limit: float = 30.0) -> None:
    """Yield to the event loop until ``predicate()`` holds; fail (not a timing claim) when a
    generous limit passes, so a broken UI cannot hang the suite."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not predicate():
        assert loop.time() < deadline, "condition never became true"
        await asyncio.sleep(0.01)
