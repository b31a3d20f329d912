"""Shared by the real-UDP test modules (test_real_udp_games.py, test_real_udp_hostile.py):
a table of full-stack peers on 127.0.0.1 sockets, a hang-guarded wait, and the checks
every finished game must pass.

No assertion is about time: every ``within`` / ``wait`` bound is a hang guard only.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from lanTag.identity import Identity
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.net.faults import NetSim
from lanTag.peer.join_handshake import HostConfig, RosterChanged, Started
from lanTag.peer.machine import BotDriver
from lanTag.peer.runtime import LocalIdentity, PeerHandle, open_host, open_join
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from tests.aio import poll, within
from tests.support.table import final_history

HANG_GUARD = 50.0  # one game, faults included; only ever a hang guard
GAME_GUARD = 240.0  # a whole game that keeps moving (below pytest's 300 s per test)
FAULTS = "loss=0.2,dup=0.05,reorder=0.1,delay=5ms,jitter=5ms"
# Long vote deadlines: nobody may be dropped in these games.  A short lag warning
# makes a peer that missed something ask for it (NUDGE) early.
TIMEOUTS = Timeouts(turn_ms=30_000, step_ms=10_000, lag_ms=500)
LOCAL = "127.0.0.1"


def me(name: str) -> LocalIdentity:
    return LocalIdentity(Identity(secrets.token_bytes(32)), name)


async def wait_for(predicate: Callable[[], bool], what: str, guard: float = HANG_GUARD) -> None:
    """Poll ``predicate`` until true; fail (never pass) when the hang guard runs out."""
    try:
        await within(guard, poll(predicate, 0.01))
    except TimeoutError:
        pytest.fail(f"hang guard ({guard:.0f}s): still waiting for {what}")


async def wait_moving(
    done: Callable[[], bool], progress: Callable[[], object], what: str
) -> None:
    """Poll ``done`` while ``progress()`` keeps changing.  A faulty game on a loaded 2-core
    machine took 13 s to 80 s (50 s was once the guard for it): the hang guard is on
    progress, ``progress()`` unchanged for HANG_GUARD, plus an overall bound (GAME_GUARD)
    against a game that moves for ever.  Fails (never passes) at either guard."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    seen, moved = progress(), began
    while not done():
        now = loop.time()
        if (latest := progress()) != seen:
            seen, moved = latest, now
        if now > moved + HANG_GUARD or now > began + GAME_GUARD:
            pytest.fail(
                f"still waiting for {what} after {now - began:.1f} s; "
                f"progress {seen}, unchanged for {now - moved:.1f} s"
            )
        await asyncio.sleep(0.01)


class RealTable:
    """``humans`` playing peers (peer 0 hosts) and ``spectators`` on loopback sockets."""

    def __init__(
        self,
        tmp: Path,
        engine: str,
        humans: int,
        *,
        bots: tuple[str, ...] = (),
        spectators: int = 0,
        faults: str | None = None,
        seed: int = 1,
        options: tuple[tuple[str, int | bool | str], ...] = (),
    ) -> None:
        self.tmp = tmp
        self.engine = engine
        self.humans = humans
        self.bots = bots
        self.spectators = spectators
        self.faults = faults
        self.seed = seed
        self.options = options
        self.handles: list[PeerHandle] = []
        self.logs: list[Path] = []
        self.closed: set[int] = set()

    def _netsim(self, i: int) -> NetSim | None:
        if not self.faults:
            return None
        return NetSim.parse(f"{self.faults},seed={self.seed}").fork(f"peer{i}")

    async def open(self) -> None:
        config = HostConfig(
            self.engine,
            "real udp",
            self.humans,
            bots=self.bots,
            timeouts=TIMEOUTS,
            options=self.options,
        )
        total = self.humans + self.spectators
        self.logs = [self.tmp / f"peer{i}.lantag" for i in range(total)]
        host = await open_host(
            config,
            me("host"),
            bind=(LOCAL, 0),
            driver=BotDriver("heuristic"),
            log_path=self.logs[0],
            netsim=self._netsim(0),
        )
        self.handles.append(host)
        for i in range(1, total):
            self.handles.append(
                await open_join(
                    host.address,
                    me(f"p{i}"),
                    spectator=i >= self.humans,
                    bind=(LOCAL, 0),
                    driver=BotDriver("heuristic"),
                    log_path=self.logs[i],
                    netsim=self._netsim(i),
                )
            )

    @property
    def host(self) -> PeerHandle:
        return self.handles[0]

    async def start(self) -> None:
        lobby = self.host.machine.lobby
        joined = [h.machine.lobby for h in self.handles[1:]]
        # a spectator is in once the host sent it the roster (no seat, but on the list of
        # those the START goes to); one still joining when the game starts is left out
        watching = [h.machine for h in self.handles[self.humans :]]
        await wait_for(
            lambda: (
                lobby.taken == self.humans  # type: ignore[union-attr]
                and all(j.your_seat is not None or j.spectator for j in joined)  # type: ignore[union-attr]
                and all(any(isinstance(e, RosterChanged) for e in m.events) for m in watching)
            ),
            "every joiner to be seated",
        )
        self.host.command(self.host.machine.start_game)
        await wait_for(
            lambda: all(h.machine.session is not None for h in self.handles), "every START"
        )

    def over(self) -> bool:
        return all(
            h.machine.session is not None and h.machine.session.state.is_over for h in self.handles
        )

    def progress(self) -> tuple[int, ...]:
        """Every peer's step (-1 before its START): changes while the game moves."""
        return tuple(
            -1 if h.machine.session is None else h.machine.session.step for h in self.handles
        )

    async def play_to_the_end(self) -> None:
        """Wait for game over while the game moves (see :func:`wait_moving`)."""
        await wait_moving(self.over, self.progress, f"{self.engine}: every peer at game over")

    def quiet(self) -> bool:
        return all(
            link.in_flight == 0 and link.queued == 0
            for h in self.handles
            for link in h.machine.link.stats.links.values()
        )

    async def close(self, *, settle: bool = True) -> None:
        # PeerHandle.close() lingers (up to 3 s) until its own frames are acked; a peer
        # that closes first may leave before sending a delayed ACK it owes the others.
        # So: first let every link go quiet while everyone is still up (best effort),
        # then close all together.  Re-raises a machine exception that stopped a pump.
        with contextlib.suppress(TimeoutError):
            await within(5.0 if settle else 0.0, poll(self.quiet, 0.01))
        todo = [h for i, h in enumerate(self.handles) if i not in self.closed]
        self.closed.update(range(len(self.handles)))
        results = await asyncio.gather(*(h.close() for h in todo), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def events(self, i: int) -> list[object]:
        return list(self.handles[i].machine.events)


def check_logs(paths: list[Path], *, complete: bool = True) -> list[VerifyReport]:
    """Every log verifies (and is complete); all agree on every decided step."""
    reports = []
    for path in paths:
        report = verify_log(path.read_bytes())
        assert report.valid, (path.name, report.failure)
        if complete:
            assert report.complete, (path.name, report.steps)
        reports.append(report)
    histories = {final_history(r) for r in reports}
    assert len(histories) == 1, "the logs disagree on the decided steps"
    assert len({r.game_id for r in reports}) == 1
    return reports


def assert_clean_game(table: RealTable) -> None:
    hashes = {h.machine.session.state.state_hash() for h in table.handles if h.machine.session}
    assert len(hashes) == 1, "peers ended in different states"
    for i in range(len(table.handles)):
        kinds = {type(e) for e in table.events(i)}
        assert ev.Desync not in kinds, (i, "desync")
        assert ev.SeatsDropped not in kinds, (i, "a seat was dropped")
        assert ev.GameOver in kinds, (i, "no GameOver event")
        if i > 0:  # the host starts the game itself; joiners and spectators hear START once
            assert sum(isinstance(e, Started) for e in table.events(i)) == 1
    reports = check_logs(table.logs)
    assert {r.engine for r in reports} == {table.engine}
    assert all(r.steps == table.host.machine.session.step for r in reports)  # type: ignore[union-attr]
    assert not any(code == "desync" for r in reports for _, _, code, _ in r.blames)
