"""A table of whole peers (links + lobby + session + bots) on the simulated network.

Like ``tests/peer/harness.py`` but configurable (timeouts, bot kind, options,
a hook that wraps a peer's machine, e.g. in an adversary) and importable from
scripts.  Everything is a pure function of ``seed``: identities, chain
secrets, link epochs, nonces, bots and network faults.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.net.endpoint import Addr, DatagramMachine
from lanTag.net.faults import NetSimConfig
from lanTag.net.link import LinkLayer
from lanTag.net.sim_network import SimNetwork
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby
from lanTag.peer.machine import BotDriver, LinkSender, PeerMachine
from lanTag.peer.resume import plan_resume, restore_session
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.session.lockstep import Session

CHAIN = 512
FAST = Timeouts(turn_ms=20_000, step_ms=5_000, lag_ms=2_000)

Wrap = Callable[[int, PeerMachine], DatagramMachine]


def _h(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def addr(i: int) -> Addr:
    """The simulated address of peer ``i`` (peer 0 hosts)."""
    return (f"10.7.0.{i + 1}", 5000)


def identity_for(seed: int | str, i: int) -> Identity:
    return Identity(_h(f"{seed}/id/{i}"))


@dataclass
class Table:
    """``humans`` peers (peer 0 hosts), ``spectators`` more, and replicated ``bots`` seats.

    Seats follow join order, which faults may shuffle: use :meth:`seat_of` /
    :meth:`peer_of_seat` rather than assuming peer ``i`` holds seat ``i``.
    """

    engine: str
    humans: int
    bots: tuple[str, ...] = ()
    spectators: int = 0
    faults: str = ""
    seed: int = 0
    options: tuple[tuple[str, int | bool | str], ...] = ()
    bot: str = "random"
    timeouts: Timeouts = FAST
    password: str = ""
    id_seed: int | str | None = None  # identities from another seed (same keys, new game)
    wrap: Wrap | None = None
    start_position: bytes = b""  # State.encode() of the position the game starts from
    net: SimNetwork = field(init=False)
    peers: list[PeerMachine] = field(init=False)
    machines: list[DatagramMachine] = field(init=False)
    logs: dict[int, bytearray] = field(init=False)

    def __post_init__(self) -> None:
        spec = f"{self.faults},seed={self.seed}" if self.faults else ""
        self.net = SimNetwork(NetSimConfig.parse(spec) if spec else None)
        rng = random.Random(self.seed)
        self.logs = {}
        self.peers = []
        self.machines = []
        config = HostConfig(
            self.engine,
            "chaos table",
            self.humans,
            options=self.options,
            bots=self.bots,
            password=self.password,
            timeouts=self.timeouts,
            chain_length=CHAIN,
            start_position=self.start_position,
        )
        id_seed = self.seed if self.id_seed is None else self.id_seed
        for i in range(self.humans + self.spectators):
            ident = identity_for(id_seed, i)
            secret = _h(f"{self.seed}/chain/{i}")
            anchor = HashChain(secret, CHAIN).anchor
            lobby: HostLobby | JoinLobby
            if i == 0:
                lobby = HostLobby(config, ident, anchor, "host", rng.randbytes)
            else:
                lobby = JoinLobby(
                    addr(0),
                    ident,
                    anchor,
                    f"p{i}",
                    password=self.password,
                    spectator=i >= self.humans,
                )
            log = self.logs.setdefault(i, bytearray())
            peer = PeerMachine(
                LinkLayer(rng.getrandbits(32)),
                lobby,
                ident,
                secret,
                random.Random(f"{self.seed}/rand/{i}").randbytes,
                driver=BotDriver(self.bot),
                write_log=log.extend,
            )
            machine: DatagramMachine = peer if self.wrap is None else self.wrap(i, peer)
            self.peers.append(peer)
            self.machines.append(machine)
            self.net.add(addr(i), machine)

    # ------------------------------------------------------------------ crash and resume

    def kill(self, i: int) -> None:
        """Peer ``i``'s process is gone: what is sent to its address is lost."""
        dead = PeerMachine(LinkLayer(1), None, Identity(bytes(32)), bytes(32), random.randbytes)
        self.net.add(addr(i), dead)

    def dropped_everywhere_but(self, i: int, max_time: float = 3600.0) -> None:
        """Run until every other peer has dropped a seat (peer ``i``'s, once it is killed)."""
        others = [p for k, p in enumerate(self.peers) if k != i]
        self.net.run_until(
            lambda: all(any(isinstance(e, ev.SeatsDropped) for e in p.events) for p in others),
            self.net.now + max_time,
        )

    def resume(self, i: int, epoch: int = 999) -> PeerMachine:
        """What `lantag join --resume` does for peer ``i``: its seat rebuilt from its own
        log, on its old address, with its log going on (``epoch``: the new process's link
        seed; a second resume of one peer needs another)."""
        ident = identity_for(self.seed if self.id_seed is None else self.id_seed, i)
        secret = _h(f"{self.seed}/chain/{i}")
        machine = PeerMachine(
            LinkLayer(epoch),
            None,
            ident,
            secret,
            random.Random(f"{self.seed}/resumed" + ("" if epoch == 999 else f"/{epoch}")).randbytes,
            driver=BotDriver(self.bot),
            write_log=self.logs[i].extend,
        )
        plan = plan_resume(bytes(self.logs[i]))
        session = restore_session(plan, ident, secret, LinkSender(machine.link), self.net.now)
        machine.resume(session, self.net.now)
        self.net.add(addr(i), machine)
        self.peers[i] = self.machines[i] = machine
        return machine

    # ------------------------------------------------------------------ running

    def seated(self) -> bool:
        host = self.peers[0].lobby
        assert isinstance(host, HostLobby)
        joiners = [(i, p.lobby) for i, p in enumerate(self.peers) if isinstance(p.lobby, JoinLobby)]
        # a spectator counts once the host has it on its list (START goes to it)
        return host.taken == host.config.humans and all(
            j.your_seat is not None or (j.spectator and host.joined(addr(i))) for i, j in joiners
        )

    def start(self, max_time: float = 120.0) -> None:
        self.net.run_until(self.seated, self.net.now + max_time)
        self.peers[0].start_game(self.net.now)
        self.net.run_until(
            lambda: all(p.session is not None for p in self.peers), self.net.now + max_time
        )

    def sessions(self, which: list[int] | None = None) -> list[Session]:
        out = []
        for i in range(len(self.peers)) if which is None else which:
            s = self.peers[i].session
            assert s is not None, f"peer {i} has no session"
            out.append(s)
        return out

    def over(self, which: list[int] | None = None) -> bool:
        idx = range(len(self.peers)) if which is None else which
        return all((s := self.peers[i].session) is not None and s.state.is_over for i in idx)

    def run_to_end(self, which: list[int] | None = None, max_time: float = 36_000.0) -> float:
        """Run until the game is over at the peers ``which`` (all by default) and their wait
        for the other seats' seals of the final state is over (bounded: SEAL_WAIT)."""
        return self.net.run_until(
            lambda: self.over(which) and not self.sealing(which), self.net.now + max_time
        )

    def sealing(self, which: list[int] | None = None) -> bool:
        idx = range(len(self.peers)) if which is None else which
        now = self.net.now
        return any((s := self.peers[i].session) is not None and s.sealing(now) for i in idx)

    def seat_of(self, i: int) -> int | None:
        s = self.peers[i].session
        return None if s is None else s.seat

    def peer_of_seat(self, seat: int) -> int:
        for i, p in enumerate(self.peers):
            if p.session is not None and p.session.seat == seat:
                return i
        raise KeyError(seat)

    # ------------------------------------------------------------------ checking

    def events(self, i: int, kind: type) -> list[object]:
        return [e for e in self.peers[i].events if isinstance(e, kind)]

    def blames(self, i: int) -> list[tuple[int, str]]:
        return [(e.seat, e.code) for e in self.peers[i].events if isinstance(e, ev.Blame)]

    def rejections(self, i: int) -> list[str]:
        return [e.code for e in self.peers[i].events if isinstance(e, ev.Rejected)]

    def report(self, i: int) -> VerifyReport:
        return verify_log(bytes(self.logs[i]))


def final_history(report: VerifyReport) -> tuple[tuple[int, bytes], ...]:
    """(step, state hash after it) of every decided step, the last decision of each step."""
    latest: dict[int, bytes] = {}
    for applied in report.applied:  # a rollback re-decides steps: keep the last decision
        latest[applied.step] = applied.state_hash
    return tuple(sorted(latest.items()))


def recorded_steps(log: bytes) -> tuple[tuple[int, bytes], ...]:
    """The STEP entries of a log (last per step): what the writer itself decided."""
    decided: dict[int, bytes] = {}
    for entry in parse_log(log).entries:
        if entry.kind == EntryKind.STEP:
            decided[entry.step] = bytes(entry.data[1])
    return tuple(sorted(decided.items()))


@dataclass
class Capture:
    """Real traffic and logs of one game, to mutate in fuzzers."""

    datagrams: list[bytes]  # every link frame sent, as on the wire
    payloads: list[bytes]  # link payloads: session bundles and lobby messages
    messages: list[bytes]  # signed messages (from the bundles)
    logs: list[bytes]
    record: bytes  # the lobby record


def capture_game(engine: str = "prototag", humans: int = 3, seed: int = 1, **kw: object) -> Capture:
    """Play one game on a perfect simulated network and keep everything that was sent."""
    from lanTag.net.frame import FrameType, MalformedFrame, decode
    from lanTag.session.messages import unpack_bundle
    from lanTag.wire import unpack

    table = Table(engine, humans, seed=seed, **kw)  # type: ignore[arg-type]
    table.net.trace = []
    table.start()
    table.run_to_end(max_time=36_000)
    datagrams = [e.data for e in table.net.trace if e.kind == "sent"]
    payloads: list[bytes] = []
    messages: list[bytes] = []
    for d in datagrams:
        try:
            frame = decode(d)
        except MalformedFrame:
            continue
        if frame.type is FrameType.DATA and frame.frag_count == 1 and frame.payload:
            payloads.append(frame.payload)
            try:
                obj = unpack(frame.payload, limit=64 * 1024)
                if isinstance(obj, list) and obj and obj[0] != "lt-lobby":
                    messages.extend(unpack_bundle(frame.payload, 64 * 1024))
            except Exception:  # a lobby message or a fragment: keep as a payload only
                pass
    session = table.peers[0].session
    assert session is not None
    return Capture(
        datagrams,
        payloads,
        messages,
        [bytes(table.logs[i]) for i in range(humans)],
        session.record.encode(),
    )
