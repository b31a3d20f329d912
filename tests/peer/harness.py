"""Whole peers (links + lobby + session + bots) on the simulated network."""

from __future__ import annotations

import hashlib
import random

from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.net.faults import NetSimConfig
from lanTag.net.link import LinkLayer
from lanTag.net.sim_network import SimNetwork
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby
from lanTag.peer.machine import BotDriver, PeerMachine
from lanTag.session.lobby_record import Timeouts

CHAIN = 512


def _h(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def addr(i: int) -> tuple[str, int]:
    return (f"10.1.0.{i + 1}", 5000)


class Table:
    def __init__(
        self,
        engine: str,
        humans: int,
        *,
        bots: tuple[str, ...] = (),
        spectators: int = 0,
        faults: str = "",
        seed: int = 0,
        password: str = "",
        options: tuple[tuple[str, int | bool | str], ...] = (),
        bot: str = "random",
    ) -> None:
        self.net = SimNetwork(NetSimConfig.parse(faults + f",seed={seed}") if faults else None)
        self.rng = random.Random(seed)
        self.logs: dict[int, bytearray] = {}
        self.peers: list[PeerMachine] = []
        config = HostConfig(
            engine,
            "test game",
            humans,
            options=options,
            bots=bots,
            password=password,
            timeouts=Timeouts(turn_ms=20_000, step_ms=5_000, lag_ms=2_000),
            chain_length=CHAIN,
        )
        for i in range(humans + spectators):
            ident = Identity(_h(f"{seed}/id/{i}"))
            secret = _h(f"{seed}/chain/{i}")
            anchor = HashChain(secret, CHAIN).anchor
            lobby: HostLobby | JoinLobby
            if i == 0:
                lobby = HostLobby(config, ident, anchor, "host", self.rng.randbytes)
            else:
                lobby = JoinLobby(
                    addr(0), ident, anchor, f"p{i}", password=password, spectator=i >= humans
                )
            log = self.logs.setdefault(i, bytearray())
            peer = PeerMachine(
                LinkLayer(self.rng.getrandbits(32)),
                lobby,
                ident,
                secret,
                self.rng.randbytes,
                driver=BotDriver(bot),
                write_log=log.extend,
            )
            self.peers.append(peer)
            self.net.add(addr(i), peer)

    def seated(self) -> bool:
        host = self.peers[0].lobby
        assert isinstance(host, HostLobby)
        # a spectator counts once the host has it on its list (START goes to it)
        return host.taken == host.config.humans and all(
            p.lobby.your_seat is not None or (p.lobby.spectator and host.joined(addr(i)))
            for i, p in enumerate(self.peers)
            if isinstance(p.lobby, JoinLobby)
        )

    def start(self, max_time: float = 60.0) -> None:
        self.net.run_until(self.seated, max_time)
        self.peers[0].start_game(self.net.now)
        self.net.run_until(lambda: all(p.session is not None for p in self.peers), max_time + 60)

    def over(self) -> bool:
        return all(p.session is not None and p.session.state.is_over for p in self.peers)

    def settled(self) -> bool:
        """Over everywhere, and no peer still waits (a bounded time) for seals of the end."""
        now = self.net.now
        return self.over() and not any(
            p.session is not None and p.session.sealing(now) for p in self.peers
        )
