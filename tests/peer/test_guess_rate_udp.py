"""Online password guessing over real UDP on loopback (issue #24 item 3): a guesser on one
address gets 5 tries (another port of it too: the same source), the rest are refused
without a PAKE exchange, the host is told "N wrong passwords from ADDR", and a friend on
another address still gets in.

The host's pump runs on a clock the test moves (the limiter's time), so the counts do not
depend on how fast this machine is; the sockets, links and lobby are the real ones.
"""

from __future__ import annotations

import secrets

from lanTag.identity import Identity
from lanTag.net.link import LinkLayer
from lanTag.net.udp import UdpPump
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinerRefused, JoinLobby, Refused
from lanTag.peer.machine import PeerMachine
from lanTag.peer.runtime import LocalIdentity, PeerHandle, open_join, wait_until

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


async def _guesser(host: tuple[str, int], source: str, first: str) -> PeerHandle:
    """A joiner on ``source`` whose first hello tries ``first``."""
    me = LocalIdentity(Identity(secrets.token_bytes(32)), "guesser")
    return await open_join(host, me, password=first, bind=(source, 0), chain_length=16)


async def _answer(handle: PeerHandle, before: int) -> str:
    """The host's answer to the latest try: a refusal or 'seated'."""
    lobby = handle.machine.lobby
    assert isinstance(lobby, JoinLobby)

    def refusals() -> list[str]:
        return [e.reason for e in handle.machine.events if isinstance(e, Refused)]

    assert await wait_until(lambda: len(refusals()) > before or lobby.your_seat is not None, 20.0)
    return refusals()[before] if len(refusals()) > before else "seated"


async def _tries(handle: PeerHandle, passwords: list[str], fresh: bool = True) -> list[str]:
    """Try each password over the same link, the next as soon as the host answered
    (``fresh``: the handle's own first hello is the first try)."""
    answers: list[str] = []
    for i, password in enumerate(passwords):
        before = sum(isinstance(e, Refused) for e in handle.machine.events)
        if i or not fresh:
            lobby = handle.machine.lobby
            assert isinstance(lobby, JoinLobby)
            handle.command(lambda now, pw=password, lob=lobby: lob.give_password(pw))  # type: ignore[misc]
        answers.append(await _answer(handle, before))
    return answers


async def test_one_address_gets_five_tries_and_the_host_is_told() -> None:
    clock = [1000.0]
    pump, machine = await _host(clock)
    guesser = await _guesser(pump.address, "127.0.0.2", "guess 0")
    others: list[PeerHandle] = []
    try:
        answers = await _tries(guesser, [f"guess {i}" for i in range(12)])
        assert answers[:5] == ["wrong password"] * 5
        too_fast = "too many password tries from 127.0.0.2: wait"
        assert all(a.startswith(too_fast) for a in answers[5:]), answers
        # Another port of the same address counts as the same source, even with the
        # right password (a guesser cannot hop ports; its friend must wait too).
        hopper = await _guesser(pump.address, "127.0.0.2", PASSWORD)
        others.append(hopper)
        assert (await _tries(hopper, [PASSWORD]))[0].startswith(too_fast)
        # A friend on another address is not affected.
        friend = await _guesser(pump.address, "127.0.0.3", "typo")
        others.append(friend)
        assert await _tries(friend, ["typo", PASSWORD]) == ["wrong password", "seated"]
        told = [e.reason for e in machine.events if isinstance(e, JoinerRefused)]
        assert told[:2] == ["1 wrong password from 127.0.0.2", "1 wrong password from 127.0.0.3"]
        # After a second of the host's clock: the backoff (5 wrong in a row) allows one try.
        clock[0] += 1.0
        later = await _tries(guesser, ["again 1", "again 2", "again 3"], fresh=False)
        assert later[0] == "wrong password"
        assert all(a.startswith(too_fast) for a in later[1:]), later
        told = [e.reason for e in machine.events if isinstance(e, JoinerRefused)]
        assert told[-1].startswith("6 wrong passwords from 127.0.0.2 (")
        assert machine.lobby.limiter.wrong("127.0.0.2") == 6  # type: ignore[union-attr]
    finally:
        for handle in (guesser, *others):
            await handle.pump.close()
        await pump.close()
