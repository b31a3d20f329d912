"""Whole games over REAL UDP sockets on 127.0.0.1, through the full stack.

Every peer is ``lanTag.runtime.open_host``/``open_join`` (links, lobby, session,
a bot driver, a signed log file) on its own loopback socket, all in one asyncio
loop; one test runs ``lantag host/join --headless`` as separate processes.
With and without the NetSim fault injector on every peer's pump.  Hostile
datagrams are sent at a live peer from a plain socket (and, as root, from a
raw IP socket with a forged source address).

No assertion is about time: every ``asyncio.timeout`` / ``wait`` bound is a
hang guard only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lanTag import wire
from lanTag.commands import _play_headless
from lanTag.identity import Identity
from lanTag.lobby import HostConfig, Started
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.net.frame import Frame, FrameType, encode
from lanTag.net.netsim import NetSim
from lanTag.peer import BotDriver
from lanTag.runtime import LocalIdentity, PeerHandle, open_host, open_join
from lanTag.session import events as ev
from lanTag.session.lobby import Timeouts
from lanTag.session.messages import MsgType, pack_bundle, sign_message

HANG_GUARD = 50.0  # one game, faults included; only ever a hang guard
FAULTS = "loss=0.2,dup=0.05,reorder=0.1,delay=5ms,jitter=5ms"
# Long vote deadlines: nobody may be dropped in these games.  A short lag warning
# makes a peer that missed something ask for it (NUDGE) early.
TIMEOUTS = Timeouts(turn_ms=30_000, step_ms=10_000, lag_ms=500)
LOCAL = "127.0.0.1"


# --------------------------------------------------------------------------- helpers


def me(name: str) -> LocalIdentity:
    return LocalIdentity(Identity(secrets.token_bytes(32)), name)


async def wait_for(predicate: Callable[[], bool], what: str, guard: float = HANG_GUARD) -> None:
    """Poll ``predicate`` until true; fail (never pass) when the hang guard runs out."""
    try:
        async with asyncio.timeout(guard):
            while not predicate():
                await asyncio.sleep(0.01)
    except TimeoutError:
        pytest.fail(f"hang guard ({guard:.0f}s): still waiting for {what}")


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
    ) -> None:
        self.tmp = tmp
        self.engine = engine
        self.humans = humans
        self.bots = bots
        self.spectators = spectators
        self.faults = faults
        self.seed = seed
        self.handles: list[PeerHandle] = []
        self.logs: list[Path] = []
        self.closed: set[int] = set()

    def _netsim(self, i: int) -> NetSim | None:
        if not self.faults:
            return None
        return NetSim.parse(f"{self.faults},seed={self.seed}").fork(f"peer{i}")

    async def open(self) -> None:
        config = HostConfig(self.engine, "real udp", self.humans, bots=self.bots, timeouts=TIMEOUTS)
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
        await wait_for(
            lambda: (
                lobby.taken == self.humans  # type: ignore[union-attr]
                and all(j.your_seat is not None or j.spectator for j in joined)
            ),  # type: ignore[union-attr]
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

    async def play_to_the_end(self) -> None:
        await wait_for(self.over, f"{self.engine}: every peer at game over")

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
            async with asyncio.timeout(5.0 if settle else 0.0):
                while not self.quiet():
                    await asyncio.sleep(0.01)
        todo = [h for i, h in enumerate(self.handles) if i not in self.closed]
        self.closed.update(range(len(self.handles)))
        results = await asyncio.gather(*(h.close() for h in todo), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    def events(self, i: int) -> list[object]:
        return list(self.handles[i].machine.events)


def final_history(report: VerifyReport) -> list[tuple[int, bytes]]:
    latest: dict[int, bytes] = {}
    for applied in report.applied:  # a rollback re-decides steps: keep the last decision
        latest[applied.step] = applied.state_hash
    return sorted(latest.items())


def check_logs(paths: list[Path], *, complete: bool = True) -> list[VerifyReport]:
    """Every log verifies (and is complete); all agree on every decided step."""
    reports = []
    for path in paths:
        report = verify_log(path.read_bytes())
        assert report.valid, (path.name, report.failure)
        if complete:
            assert report.complete, (path.name, report.steps)
        reports.append(report)
    histories = {tuple(final_history(r)) for r in reports}
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
        assert session is not None and not session.desynced


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
        await wait_for(lambda: all(p.poll() is not None for p in procs), "every process to exit")
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    assert [p.returncode for p in procs] == [0, 0, 0], [e.read_text()[-300:] for e in errs]
    reports = check_logs(logs)
    assert len({p.fingerprint for r in reports for p in r.players}) == 3  # three identities


# --------------------------------------------------------------------------- hostile input


def _frame(epoch: int, seq: int, payload: bytes, index: int = 0, count: int = 1) -> bytes:
    return encode(Frame(FrameType.DATA, epoch, 0, seq, 0, 0, index, count, payload))


def _udp_packet(src: tuple[str, int], dst: tuple[str, int], payload: bytes) -> bytes:
    """An IPv4+UDP packet with a forged source (UDP checksum 0 = none, legal on IPv4)."""
    udp = struct.pack("!HHHH", src[1], dst[1], 8 + len(payload), 0) + payload
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + len(udp),
        0,
        0,
        64,
        socket.IPPROTO_UDP,
        0,  # the kernel fills in the IP checksum (and the id)
        socket.inet_aton(src[0]),
        socket.inet_aton(dst[0]),
    )
    return ip + udp


def _raw_sender() -> socket.socket | None:
    try:
        return socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    except PermissionError:
        return None


REJECT_CODES = ("malformed", "oversized", "bad-signature", "wrong-game", "not-in-roster")


def _rejections(counters: dict[str, int]) -> int:
    return sum(counters.get(code, 0) for code in REJECT_CODES)


async def test_hostile_datagrams_at_a_live_peer_are_rejected_counted_and_the_game_completes(
    tmp_path: Path,
) -> None:
    table = RealTable(tmp_path, "boardtag", 3)
    await table.open()
    outsider = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    outsider.bind((LOCAL, 0))
    raw = _raw_sender()
    try:
        await table.start()
        victim, rogue = table.handles[1], table.handles[2]
        session, rogue_session = victim.machine.session, rogue.machine.session
        assert session is not None and rogue_session is not None
        await wait_for(lambda: session.step >= 10, "the game to be under way")
        target = victim.address
        link0, rejected0 = victim.machine.link.stats, victim.machine.rejected
        counters0 = dict(session.counters)
        game_id, seats = session.game_id, len(session.record.seats)
        state_hash, step = session.state.state_hash(), session.step
        move = (["pass"],)  # a well-formed action
        stranger = Identity(secrets.token_bytes(32)).signer()
        rogue_key = rogue.machine.identity.signer()
        rogue_seat = rogue_session.seat
        assert rogue_seat is not None

        def signed(signer: object, game: bytes, seat: int) -> bytes:
            return sign_message(signer, MsgType.MOVE, game, step, seat, state_hash, move).raw  # type: ignore[arg-type]

        body = wire.pack([1, int(MsgType.MOVE), game_id, step, 0, state_hash, *move])
        unsigned = wire.pack([body, bytes(64)])

        # 1. An outsider's socket.  Garbage never gets past the frame codec; well-framed
        #    frames either stop at the link (if it only accepts the roster) or reach the
        #    session and are rejected there.  Either way: each counted once, none taken.
        outsider.sendto(b"\x00" * 7, target)  # shorter than a frame header
        outsider.sendto(b"\x4c\x71" + bytes(28), target)  # bad version nibble
        outsider.sendto(b"L" * 1500, target)  # over the 1200-byte datagram budget
        epoch = secrets.randbits(31) | 1
        outsider.sendto(_frame(epoch, 0, pack_bundle([signed(stranger, game_id, 0)])), target)
        outsider.sendto(_frame(epoch, 1, pack_bundle([unsigned])), target)

        def outsider_counted() -> int:
            st = victim.machine.link.stats
            return (
                st.dropped_malformed
                - link0.dropped_malformed
                + st.dropped_unknown
                - link0.dropped_unknown
                + _rejections(session.counters)
                - _rejections(counters0)
            )

        await wait_for(lambda: outsider_counted() >= 4, "the outsider's datagrams")
        await wait_for(
            lambda: victim.machine.link.stats.dropped_oversized > link0.dropped_oversized,
            "the oversized datagram",
        )
        assert outsider_counted() == 4
        counters1, link1 = dict(session.counters), victim.machine.link.stats

        # 2. A peer of the game turned hostile: bad bundles on its own (reliable) link.
        payloads = [
            b"\xc1 not msgpack",  # malformed bundle
            pack_bundle([unsigned]),  # claims seat 0, zero signature
            pack_bundle([signed(stranger, game_id, 0)]),  # claims seat 0, someone else's key
            pack_bundle([signed(rogue_key, secrets.token_bytes(32), rogue_seat)]),  # other game
            pack_bundle([signed(rogue_key, game_id, seats + 3)]),  # a seat that does not exist
            wire.pack([bytes(70_000)]),  # over the 64 KiB bundle cap (sent in 60 fragments)
            wire.pack(["lt-lobby", 1, "start", b"", [], [], b""]),  # lobby, not from the host
        ]
        now = rogue.now()
        for payload in payloads:
            rogue.machine.link.send(target, payload, now)
        rogue.pump.poke()
        expected = {
            "malformed": 1,
            "bad-signature": 2,
            "wrong-game": 1,
            "not-in-roster": 1,
            "oversized": 1,
        }

        def delta(code: str) -> int:
            return session.counters.get(code, 0) - counters1.get(code, 0)

        await wait_for(
            lambda: (
                all(delta(code) >= n for code, n in expected.items())
                and victim.machine.rejected > rejected0
            ),
            "the rogue peer's messages to be rejected",
        )

        # 3. Forged source addresses (root only): garbage "from" two real peers.
        forged = 0
        if raw is not None:
            for peer in (table.handles[0], table.handles[2]):
                raw.sendto(_udp_packet(peer.address, target, b"\x4c\x1f" + bytes(28)), (LOCAL, 0))
                forged += 1
            await wait_for(
                lambda: (
                    victim.machine.link.stats.dropped_malformed >= link1.dropped_malformed + forged
                ),
                "the forged datagrams",
            )
        step_when_counted = session.step
        await table.play_to_the_end()
    finally:
        outsider.close()
        if raw is not None:
            raw.close()
        await table.close()
    assert step_when_counted < session.step, "the game was over before the attack landed"
    stats = victim.machine.link.stats
    assert stats.dropped_oversized == link0.dropped_oversized + 1
    assert stats.dropped_malformed == link1.dropped_malformed + forged
    assert stats.peer_restarts == link0.peer_restarts  # forged garbage did not reset a link
    assert victim.machine.rejected == rejected0 + 1
    assert {code: delta(code) for code in expected} == expected, session.counters
    rejected = [e for e in table.events(1) if isinstance(e, ev.Rejected)]
    assert len(rejected) >= sum(expected.values()) + 1
    # Nothing hostile is in the game: no blame, no desync, one history in every log.
    assert_clean_game(table)
    for report in check_logs(table.logs):
        assert not report.blames


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
    (`_play_headless`) and then `close()`, exactly as cmd_host/cmd_join do.
    """
    table = RealTable(tmp_path, "tagem", 3)  # tagem always ends on a person's MOVE
    await table.open()
    sims = []
    for handle in table.handles:
        sims.append(FinalAcksLost(handle))
        handle.pump.netsim = sims[-1]
    finished: list[int] = []

    async def cli_peer(i: int, handle: PeerHandle) -> None:
        code = await _play_headless(handle)  # what cmd_host/cmd_join do...
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


async def test_bug_one_forged_datagram_blackholes_a_real_peers_link(tmp_path: Path) -> None:
    """A datagram with peer 2's source address and a made-up link epoch used to make the
    victim take peer 2 as restarted (reset, real epoch retired, every genuine frame of
    peer 2 dropped as stale for 30 s).  Now a new epoch is believed only from a frame
    that names the victim's own epoch, which an off-path forger cannot know: the victim
    keeps the real epoch, drops the forgery (``dropped_unconfirmed``) and challenges
    the address, and the real peer 2 ignores that challenge (addressed to another
    epoch).  The game finishes with nobody dropped.  Needs root for the raw socket.
    """
    raw = _raw_sender()
    if raw is None:
        pytest.skip("forging a source address needs a raw socket (root / CAP_NET_RAW)")
    table = RealTable(tmp_path, "boardtag", 3)
    await table.open()
    try:
        await table.start()
        victim, peer2 = table.handles[1], table.handles[2]
        session = victim.machine.session
        assert session is not None
        await wait_for(lambda: session.step >= 10, "the game to be under way")
        real_epoch = victim.machine.link.stats.links[peer2.address].peer_epoch
        before, before2 = victim.machine.link.stats, peer2.machine.link.stats
        forged = _frame(secrets.randbits(31) | 1, 0, pack_bundle([]))
        raw.sendto(_udp_packet(peer2.address, victim.address, forged), (LOCAL, 0))
        await wait_for(
            lambda: victim.machine.link.stats.dropped_unconfirmed > before.dropped_unconfirmed,
            "the forged frame",
        )
        step_when_counted = session.step
        await table.play_to_the_end()
        after, after2 = victim.machine.link.stats, peer2.machine.link.stats
    finally:
        raw.close()
        await table.close()
    assert step_when_counted < session.step, "the game was over before the attack landed"
    assert after.links[peer2.address].peer_epoch == real_epoch
    assert after.peer_restarts == before.peer_restarts
    assert after.messages_discarded == before.messages_discarded
    assert after.challenges_sent == before.challenges_sent + 1
    assert after2.peer_restarts == before2.peer_restarts  # the challenge reset nothing
    assert after2.challenges_sent == before2.challenges_sent
    assert_clean_game(table)


async def test_bug_start_with_another_chain_length_kills_the_joiner_silently(
    tmp_path: Path,
) -> None:
    """The host's signed START carries the game's chain length; a joiner built its chain
    anchor with the default length and never checks.  With any other length the joiner's
    Session() raises LocalProtocolError inside the UDP pump, the pump stops, and the
    CLI's headless loop (`_play_headless`, used by `lantag join --headless`) waits for
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
            async with asyncio.timeout(6.0):  # hang guard
                outcome.append(await _play_headless(joiner))
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
