"""Whole games over REAL UDP sockets on 127.0.0.1, through the full stack.

Every peer is ``lanTag.peer.runtime.open_host``/``open_join`` (links, lobby, session,
a bot driver, a signed log file) on its own loopback socket, all in one asyncio
loop; one test runs ``lantag host/join --headless`` as separate processes.
With and without the NetSim fault injector on every peer's pump.  Hostile
datagrams at a live peer: test_real_udp_hostile.py; the shared table and checks:
tests/net/real_table.py.

No assertion is about time: every ``within`` / ``wait`` bound is a
hang guard only.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanTag.cli.headless import play_headless
from lanTag.net.faults import NetSim
from lanTag.peer.join_handshake import HostConfig
from lanTag.peer.machine import BotDriver
from lanTag.peer.runtime import PeerHandle, open_host, open_join
from tests.aio import within
from tests.net.real_table import (
    FAULTS,
    HANG_GUARD,
    LOCAL,
    TIMEOUTS,
    RealTable,
    assert_clean_game,
    check_logs,
    me,
    wait_for,
    wait_moving,
)

pytestmark = pytest.mark.usefixtures("patient_peers")  # tests/net/conftest.py

# --------------------------------------------------------------------------- games

GAMES = [
    ("prototag", 3, (), 1),  # engine, people, replicated bot seats, spectators
    ("boardtag", 3, (), 0),
    ("assassination", 3, ("random",), 0),
    ("stomptag", 3, (), 0),  # sealed simultaneous choices: COMMIT/REVEAL
    ("tagem", 3, (), 0),
]


@pytest.mark.parametrize(("engine", "people", "bots", "watchers"), GAMES, ids=[g[0] for g in GAMES])
async def test_clean_game_over_real_loopback_udp(
    tmp_path: Path, engine: str, people: int, bots: tuple[str, ...], watchers: int
) -> None:
    table = RealTable(tmp_path, engine, people, bots=bots, spectators=watchers)
    await table.open()
    try:
        await table.start()
        await table.play_to_the_end()
    finally:
        await table.close()
    assert_clean_game(table)
    for handle in table.handles:
        assert handle.pump.stats.sent > 0 and handle.pump.stats.received > 0
        assert handle.machine.rejected == 0
        session = handle.machine.session
        assert session is not None and not session.claims.desynced


FAULTY = [
    ("stomptag", 3, (), 0),
    ("assassination", 3, ("random",), 1),
    ("tagem", 4, (), 0),
]


@pytest.mark.parametrize(
    ("engine", "people", "bots", "watchers"), FAULTY, ids=[g[0] for g in FAULTY]
)
async def test_game_over_real_udp_with_fault_injection(
    tmp_path: Path, engine: str, people: int, bots: tuple[str, ...], watchers: int
) -> None:
    table = RealTable(tmp_path, engine, people, bots=bots, spectators=watchers, faults=FAULTS)
    await table.open()
    try:
        await table.start()
        await table.play_to_the_end()
    finally:
        await table.close()
    assert_clean_game(table)
    lost = sum(h.pump.netsim.stats.lost for h in table.handles if h.pump.netsim)
    dups = sum(h.pump.netsim.stats.duplicated for h in table.handles if h.pump.netsim)
    resent = sum(h.machine.link.stats.retransmitted for h in table.handles)
    link_dups = sum(h.machine.link.stats.duplicates for h in table.handles)
    assert lost > 0 and dups > 0, "the injector did not inject"
    assert resent > 0 and link_dups > 0, "faults left no trace in the link counters"


async def test_cli_peers_in_separate_processes_over_loopback(tmp_path: Path) -> None:
    """`lantag host/join --headless`: three processes, three identities, real sockets."""
    procs: list[subprocess.Popen[bytes]] = []
    logs = [tmp_path / f"peer{i}.lantag" for i in range(3)]
    errs = [tmp_path / f"peer{i}.err" for i in range(3)]

    def spawn(i: int, args: list[str]) -> subprocess.Popen[bytes]:
        env = dict(os.environ)
        env.update(
            XDG_CONFIG_HOME=str(tmp_path / f"peer{i}" / "config"),
            XDG_DATA_HOME=str(tmp_path / f"peer{i}" / "data"),
            USER=f"peer{i}",
            PYTHONUNBUFFERED="1",
        )
        with errs[i].open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "lanTag", *args, "--log", str(logs[i]), "--headless"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        procs.append(proc)
        return proc

    try:
        spawn(0, ["host", "--game", "boardtag", "--seats", "3", "--no-advertise", "--bind", LOCAL])
        port: list[int] = []

        def announced() -> bool:
            text = errs[0].read_text()
            if "on port " in text:
                port.append(int(text.split("on port ")[1].split(";")[0]))
                return True
            return procs[0].poll() is not None

        await wait_for(announced, "the host to announce its port", 30)
        assert port, errs[0].read_text()
        for i in (1, 2):
            spawn(i, ["join", f"{LOCAL}:{port[0]}", "--bind", LOCAL])
        # Three processes playing a whole game: the guard is on progress (the logs grow).
        await wait_moving(
            lambda: all(p.poll() is not None for p in procs),
            lambda: [log.stat().st_size if log.exists() else 0 for log in logs],
            "every process to exit",
        )
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    assert [p.returncode for p in procs] == [0, 0, 0], [e.read_text()[-300:] for e in errs]
    reports = check_logs(logs)
    assert len({p.fingerprint for r in reports for p in r.players}) == 3  # three identities


# --------------------------------------------------------------------------- leaving, and bugs


class FinalAcksLost(NetSim):
    """Loses the first ``count`` datagrams a peer sends once its own game is over (its
    final HAVEs), then delivers everything: one unlucky loss, which only a peer that is
    still there to retransmit can repair."""

    def __init__(self, handle: PeerHandle, count: int = 2) -> None:
        super().__init__()
        self.handle = handle
        self.count = count
        self.lost = 0

    def schedule(self, data: bytes, now: float) -> list[tuple[float, bytes]]:
        session = self.handle.machine.session
        if session is not None and session.state.is_over and self.lost < self.count:
            self.lost += 1
            return []
        return [(now, data)]


async def test_peers_that_exit_at_game_over_still_deliver_their_final_acks(
    tmp_path: Path,
) -> None:
    """Regression: `lantag host/join --headless` return at GameOver and close at once.

    The seat that made the winning MOVE applies it only once another live seat's HAVE
    arrives (SPEC §5.2).  When those HAVEs were lost and their senders had already
    closed their sockets, nobody was left to resend them; with 3+ seats the mover can
    never drop the others (half the seats must remain), so its process never ended and
    its log stayed incomplete (seen for real with `lantag selfplay --netsim loss=0.2`
    and once between namespaces without any injected loss).  Fixed by
    PeerHandle.linger() in close().  Each peer here runs the CLI's own headless loop
    (`play_headless`) and then `close()`, exactly as cmd_host/cmd_join do.
    """
    table = RealTable(tmp_path, "tagem", 3)  # tagem always ends on a person's MOVE
    await table.open()
    sims = []
    for handle in table.handles:
        sims.append(FinalAcksLost(handle))
        handle.pump.netsim = sims[-1]
    finished: list[int] = []

    async def cli_peer(i: int, handle: PeerHandle) -> None:
        code = await play_headless(handle)  # what cmd_host/cmd_join do...
        table.closed.add(i)
        await handle.close()  # ...and then, in their `finally`
        if code == 0:
            finished.append(i)

    try:
        await table.start()
        tasks = [asyncio.create_task(cli_peer(i, h)) for i, h in enumerate(table.handles)]
        _, pending = await asyncio.wait(tasks, timeout=HANG_GUARD)  # hang guard
        for task in pending:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await table.close()
    assert sum(sim.lost for sim in sims) >= 2, "no final ack was lost: the test proved nothing"
    assert sorted(finished) == [0, 1, 2], f"only peers {sorted(finished)} reached game over"
    check_logs(table.logs)


async def test_bug_start_with_another_chain_length_kills_the_joiner_silently(
    tmp_path: Path,
) -> None:
    """The host's signed START carries the game's chain length; a joiner built its chain
    anchor with the default length and never checks.  With any other length the joiner's
    Session() raises LocalProtocolError inside the UDP pump, the pump stops, and the
    CLI's headless loop (`play_headless`, used by `lantag join --headless`) waits for
    events forever: no error, no exit.  (HostConfig.chain_length is public API; the CLI
    host does not set it, but any host - or a modified one - can.)
    """
    config = HostConfig("tagem", "chain", 2, timeouts=TIMEOUTS, chain_length=512)
    host = await open_host(config, me("host"), bind=(LOCAL, 0), driver=BotDriver("random"))
    joiner = await open_join(host.address, me("joiner"), bind=(LOCAL, 0), driver=BotDriver())
    outcome: list[object] = []
    try:
        lobby = host.machine.lobby
        await wait_for(lambda: lobby.taken == 2, "the joiner to be seated")  # type: ignore[union-attr]
        host.command(host.machine.start_game)
        try:
            # A hang guard: the whole game has to fit in it on a loaded 2-core machine.
            outcome.append(await within(HANG_GUARD, play_headless(joiner)))
        except TimeoutError:
            outcome.append("hung")
    finally:
        await host.close()
        try:
            await joiner.close()
        except Exception as exc:  # the pump's stored failure
            outcome.append(exc)
    assert outcome[0] != "hung", (
        f"`lantag join --headless` would hang; pump died with {outcome[1:]}"
    )
