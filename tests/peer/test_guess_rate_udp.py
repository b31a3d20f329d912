"""Online password guessing over real UDP on loopback (issue #24 item 3): a guesser hopping
ports on one address gets 5 tries, the rest are refused without a PAKE exchange, the host
is told "N wrong passwords from ADDR", and a friend on another address still gets in.

The host's pump runs on a clock the test moves (the limiter's time), so the counts do not
depend on how fast this machine is; the sockets, links and lobby are the real ones.
"""

from __future__ import annotations

import secrets

from lanTag.identity import Identity
from lanTag.net.link import LinkLayer
from lanTag.net.udp import UdpPump
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinerRefused, Refused
from lanTag.peer.machine import PeerMachine
from lanTag.peer.runtime import LocalIdentity, open_join, wait_until

PASSWORD = "correct horse"


async def _host(clock: list[float]) -> tuple[UdpPump, PeerMachine]:
    ident = Identity(secrets.token_bytes(32))
    config = HostConfig("prototag", "guessed", 3, password=PASSWORD, chain_length=16)
    lobby = HostLobby(config, ident, secrets.token_bytes(32), "host", secrets.token_bytes)
    machine = PeerMachine(
        LinkLayer(secrets.randbits(256)), lobby, ident, secrets.token_bytes(32),
        secrets.token_bytes,
    )
    pump = await UdpPump.start(machine, ("127.0.0.1", 0), None, clock=lambda: clock[0])
    return pump, machine


async def _try(host: tuple[str, int], source: str, password: str) -> str:
    """One join attempt from ``source`` (a fresh port each time); the refusal or 'seated'."""
    me = LocalIdentity(Identity(secrets.token_bytes(32)), "guesser")
    handle = await open_join(
        host, me, password=password, bind=(source, 0), chain_length=16
    )
    try:
        lobby = handle.machine.lobby
        events = handle.machine.events

        def answered() -> bool:
            return any(isinstance(e, Refused) for e in events) or lobby.your_seat is not None  # type: ignore[union-attr]

        assert await wait_until(answered, 20.0)
        refusals = [e.reason for e in events if isinstance(e, Refused)]
        return refusals[0] if refusals else "seated"
    finally:
        await handle.pump.close()


async def test_one_address_gets_five_tries_and_the_host_is_told() -> None:
    clock = [1000.0]
    pump, machine = await _host(clock)
    try:
        answers = [await _try(pump.address, "127.0.0.2", f"guess {i}") for i in range(12)]
        assert answers[:5] == ["wrong password"] * 5
        too_fast = "too many password tries from 127.0.0.2: wait"
        assert all(a.startswith(too_fast) for a in answers[5:])
        # The right password from the guesser's address is refused too while it is locked
        # out; a friend on another address is not affected.
        assert (await _try(pump.address, "127.0.0.2", PASSWORD)).startswith("too many")
        assert await _try(pump.address, "127.0.0.3", PASSWORD) == "seated"
        told = [e.reason for e in machine.events if isinstance(e, JoinerRefused)]
        assert told[0] == "1 wrong password from 127.0.0.2"
        # After a second of the host's clock: the backoff (5 wrong in a row) allows one try.
        clock[0] += 1.0
        later = [await _try(pump.address, "127.0.0.2", f"again {i}") for i in range(3)]
        assert later[0] == "wrong password"
        assert all(a.startswith("too many") for a in later[1:])
        told = [e.reason for e in machine.events if isinstance(e, JoinerRefused)]
        assert told[-1].startswith("6 wrong passwords from 127.0.0.2 (")
        assert machine.lobby.limiter.wrong("127.0.0.2") == 6  # type: ignore[union-attr]
    finally:
        await pump.close()
