"""Announcing a hosted game on the LAN (mDNS) while `lantag host` runs."""

from __future__ import annotations

import asyncio

from lanTag.net.discovery import LobbyAdvert, LobbyAdvertiser
from lanTag.peer.join_handshake import HostConfig, HostLobby
from lanTag.peer.runtime import PeerHandle
from lanTag.session.compatibility import rules_version_of
from lanTag.versions import lantag_version
from lanTag.views.brief import position_digest, position_note


async def advertise_seats(lobby: HostLobby, advertiser: LobbyAdvertiser) -> None:
    """Keep the advert's seat count in step with the lobby (bots count as taken).

    Each update replaces any announcements still in flight (see LobbyAdvertiser), so
    the latest count is the last one on the wire; no extra re-announce is needed.
    """
    shown = lobby.taken
    while True:
        if lobby.taken != shown:
            shown = lobby.taken
            await advertiser.update(seats_taken=shown + len(lobby.config.bots))
        await asyncio.sleep(0.2)


def _position_fields(config: HostConfig) -> tuple[str, str]:
    """A table set up from a position says so in its advert (digest, whose turn, headline)."""
    if not config.start_position:
        return "", ""
    digest = position_digest(config.start_position)[:16]
    return digest, position_note(config.engine, config.start_position)


async def advertise_next_lobby(
    advertiser: LobbyAdvertiser | None, lobby: HostLobby
) -> asyncio.Task[None] | None:
    """A night's next game: the advert is a lobby again, counting the seats its lobby holds
    (one who left between games is not counted: `lantag list` shows the open seat), and
    follows the count until :func:`advertise_playing`."""
    if advertiser is None:
        return None
    await advertiser.update(seats_taken=lobby.taken + len(lobby.config.bots), state="lobby")
    return asyncio.create_task(advertise_seats(lobby, advertiser))


async def advertise_playing(
    advertiser: LobbyAdvertiser | None, lobby: HostLobby, updates: asyncio.Task[None] | None
) -> None:
    """The game started: its seats (bots filling open ones included) and ``playing``."""
    if updates is not None:
        updates.cancel()
    if advertiser is not None:
        await advertiser.update(seats_taken=lobby.taken + len(lobby.config.bots), state="playing")


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses people can type to join, the default-route one
    first (no loopback or link-local; 127.0.0.1 only when there is nothing else)."""
    from lanTag.net.addresses import (
        default_route_ipv4,
        local_ipv4,
        local_networks,
        typeable_addresses,
    )

    return typeable_addresses(local_ipv4(), default_route_ipv4(), local_networks())


async def advertise(handle: PeerHandle, config: HostConfig, fp: str) -> LobbyAdvertiser:
    advert = LobbyAdvert(
        name=config.name[:40],
        engine=config.engine,
        fingerprint=fp,
        port=handle.address[1],
        seats_taken=1 + len(config.bots),
        seats_total=config.humans + len(config.bots),
        password=bool(config.password),
        rules=rules_version_of(config.engine) or 1,
        release=lantag_version()[:32],
        position=_position_fields(config)[0],
        position_note=_position_fields(config)[1],
    )
    advertiser = LobbyAdvertiser(advert)
    await advertiser.start()
    return advertiser
