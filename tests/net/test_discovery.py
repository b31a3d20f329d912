"""Real python-zeroconf on loopback: advertise, browse, update, withdraw.

Everything is pinned to 127.0.0.1 so nothing is multicast beyond this host.
The timeouts are hang guards, not latency assertions.
"""

from __future__ import annotations

import secrets
import socket

import pytest

from lanTag.net.discovery import (
    AdvertiserStateError,
    LobbyAdvert,
    LobbyAdvertiser,
    LobbyBrowser,
    browse,
)
from lanTag.net.lobbies import LobbyTable

LOOPBACK = ["127.0.0.1"]
HANG_GUARD = 15.0


def _multicast_loopback_problem() -> str | None:
    group = "224.0.0.251"
    recv = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    send = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        recv.bind(("0.0.0.0", 0))
        port = recv.getsockname()[1]
        mreq = socket.inet_aton(group) + socket.inet_aton("127.0.0.1")
        recv.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        send.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        send.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        send.sendto(b"probe", (group, port))
        recv.settimeout(2.0)
        recv.recvfrom(16)
        return None
    except OSError as exc:
        return f"multicast on 127.0.0.1 unavailable here: {exc!r}"
    finally:
        recv.close()
        send.close()


pytestmark = pytest.mark.skipif(
    (problem := _multicast_loopback_problem()) is not None, reason=problem or ""
)


def advert(fp: str, **kw: object) -> LobbyAdvert:
    return LobbyAdvert(
        **{
            "name": "Loopback game",
            "engine": "boardtag",
            "fingerprint": fp,
            "port": 40555,
            "seats_taken": 1,
            "seats_total": 4,
            **kw,
        }
    )  # type: ignore[arg-type]


def mine(fp: str):  # type: ignore[no-untyped-def]
    return lambda table: [lobby for lobby in table.lobbies() if lobby.fingerprint == fp]


async def test_advertised_game_is_seen_updated_and_withdrawn() -> None:
    fp = secrets.token_hex(8)  # other processes on this host may browse/advertise too
    seen: list[LobbyTable] = []
    async with LobbyBrowser(LOOPBACK, on_change=seen.append) as browser:
        adv = LobbyAdvertiser(advert(fp), LOOPBACK)
        await adv.start()
        try:
            table = await browser.wait_for(lambda t: bool(mine(fp)(t)), HANG_GUARD)
            [lobby] = mine(fp)(table)
            assert (lobby.name, lobby.engine, lobby.seats_taken, lobby.seats_total) == (
                "Loopback game",
                "boardtag",
                1,
                4,
            )
            assert (lobby.port, lobby.state, lobby.password) == (40555, "lobby", False)
            assert lobby.addresses == ("127.0.0.1",)

            await adv.update(seats_taken=3, state="playing")
            table = await browser.wait_for(
                lambda t: [(x.seats_taken, x.state) for x in mine(fp)(t)] == [(3, "playing")],
                HANG_GUARD,
            )
        finally:
            await adv.close()
        await browser.wait_for(lambda t: not mine(fp)(t), HANG_GUARD)
    assert seen  # the callback saw every change
    with pytest.raises(AdvertiserStateError):
        await adv.update(seats_taken=2)
    await adv.close()  # idempotent


async def test_browse_lists_a_running_advert() -> None:
    fp = secrets.token_hex(8)
    async with LobbyAdvertiser(advert(fp, name="Listed", password=True), LOOPBACK):
        found = await browse(1.0, interfaces=LOOPBACK)
    [lobby] = [x for x in found if x.fingerprint == fp]
    assert lobby.name == "Listed" and lobby.password
