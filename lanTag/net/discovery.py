"""mDNS/DNS-SD lobbies with python-zeroconf: advertise a hosted game, browse for games.

Fast appearance: an instance name embeds the host key fingerprint and the game
port, so it is unique by construction and the RFC 6762 §8.1 probing round
(150-250 ms random wait + 3 probes 500 ms apart in this zeroconf, ~1.7 s) can
be skipped with ``cooperating_responders=True``: the first announcement goes
out as soon as the service is registered.  Browsers feed a pure
:class:`~lanTag.net.lobbies.LobbyTable`; this file is only the zeroconf glue.

Pass ``interfaces=["127.0.0.1"]`` for tests and benchmarks so that nothing is
multicast beyond loopback.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from lanTag.net.lobbies import (
    LobbyEvent,
    LobbyInfo,
    LobbyTable,
    ServiceAdded,
    ServiceRemoved,
    ServiceUpdated,
    format_lobbies,
    lobby_from_txt,
)

__all__ = [
    "SERVICE_TYPE",
    "AdvertiserStateError",
    "LobbyAdvert",
    "LobbyAdvertiser",
    "LobbyBrowser",
    "browse",
    "format_lobbies",
    "service_info",
]

SERVICE_TYPE = "_lantag._udp.local."
Interfaces = Sequence[str] | InterfaceChoice
_RESOLVE_TIMEOUT_MS = 1500


class AdvertiserStateError(RuntimeError):
    """An advertiser operation in the wrong state (e.g. update before start, or after close)."""


@dataclass(frozen=True, slots=True)
class LobbyAdvert:
    """What a host publishes.  Validated with the same rules browsers apply."""

    name: str
    engine: str
    fingerprint: str
    port: int
    seats_taken: int
    seats_total: int
    password: bool = False
    state: str = "lobby"
    version: int = 1

    def __post_init__(self) -> None:
        lobby_from_txt(
            self.instance_name(), {k.encode(): v.encode() for k, v in self.txt().items()}
        )

    def txt(self) -> dict[str, str]:
        return {
            "v": str(self.version),
            "engine": self.engine,
            "name": self.name,
            "seats": f"{self.seats_taken}/{self.seats_total}",
            "pw": "1" if self.password else "0",
            "fp": self.fingerprint,
            "state": self.state,
            "port": str(self.port),
        }

    def instance_name(self) -> str:
        # Unique by construction (one host key, one port per game), which is what
        # makes skipping the conflict probe safe.  Dots would read as label breaks.
        label = self.name.replace(".", "_").encode()[:40].decode("utf-8", "ignore").strip()
        return f"{label} {self.fingerprint[:16]}-{self.port}.{SERVICE_TYPE}"


def service_info(advert: LobbyAdvert, addresses: Sequence[str]) -> AsyncServiceInfo:
    """The DNS-SD records (PTR, SRV, TXT, A) for ``advert`` reachable at ``addresses``."""
    return AsyncServiceInfo(
        SERVICE_TYPE,
        advert.instance_name(),
        port=advert.port,
        properties=advert.txt(),
        server=f"lantag-{advert.fingerprint[:16]}-{advert.port}.local.",
        parsed_addresses=list(addresses),
    )


def _local_ipv4(interfaces: Interfaces) -> list[str]:
    if not isinstance(interfaces, InterfaceChoice):
        return [i for i in interfaces if "." in i]
    found = [
        str(ip.ip)
        for adapter in ifaddr.get_adapters()
        for ip in adapter.ips
        if isinstance(ip.ip, str) and not ip.ip.startswith("127.")
    ]
    return found or ["127.0.0.1"]


# --------------------------------------------------------------------------- advertising


class _AdvState(enum.Enum):
    NEW = "new"
    ADVERTISED = "advertised"
    CLOSED = "closed"


_ADV_TRANSITIONS: dict[tuple[_AdvState, str], _AdvState] = {
    (_AdvState.NEW, "start"): _AdvState.ADVERTISED,
    (_AdvState.ADVERTISED, "update"): _AdvState.ADVERTISED,
    (_AdvState.ADVERTISED, "close"): _AdvState.CLOSED,
    (_AdvState.NEW, "close"): _AdvState.CLOSED,
    (_AdvState.CLOSED, "close"): _AdvState.CLOSED,
}


class LobbyAdvertiser:
    """Publishes one :class:`LobbyAdvert`; ``update`` re-announces changed TXT."""

    def __init__(
        self,
        advert: LobbyAdvert,
        interfaces: Interfaces = InterfaceChoice.All,
        addresses: Sequence[str] | None = None,
    ) -> None:
        self.advert = advert
        self._interfaces = interfaces
        self._addresses = list(addresses) if addresses is not None else _local_ipv4(interfaces)
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._state = _AdvState.NEW

    def _step(self, op: str) -> _AdvState:
        nxt = _ADV_TRANSITIONS.get((self._state, op))
        if nxt is None:
            raise AdvertiserStateError(f"cannot {op} an advertiser that is {self._state.value}")
        previous, self._state = self._state, nxt
        return previous

    def _service_info(self) -> AsyncServiceInfo:
        return service_info(self.advert, self._addresses)

    async def start(self) -> None:
        self._step("start")
        ip_version = None if isinstance(self._interfaces, InterfaceChoice) else IPVersion.V4Only
        self._zc = AsyncZeroconf(interfaces=self._interfaces, ip_version=ip_version)
        self._info = self._service_info()
        # The announcements run in the background; the first is already sent on return.
        await self._zc.async_register_service(self._info, cooperating_responders=True)

    async def update(
        self,
        *,
        seats_taken: int | None = None,
        state: str | None = None,
        password: bool | None = None,
    ) -> None:
        """Change the mutable advert fields and re-announce the TXT record.

        Name, fingerprint and port make up the instance name, so they are fixed.
        """
        advert = replace(
            self.advert,
            seats_taken=self.advert.seats_taken if seats_taken is None else seats_taken,
            state=self.advert.state if state is None else state,
            password=self.advert.password if password is None else password,
        )  # validates before any state change
        self._step("update")
        assert self._zc is not None
        self.advert = advert
        self._info = self._service_info()
        await self._zc.async_update_service(self._info)

    async def close(self) -> None:
        """Send goodbyes and release the sockets (idempotent)."""
        if self._step("close") is not _AdvState.ADVERTISED:
            return
        assert self._zc is not None and self._info is not None
        done = await self._zc.async_unregister_service(self._info)
        await done  # goodbyes out before the sockets close
        await self._zc.async_close()

    async def __aenter__(self) -> LobbyAdvertiser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


# --------------------------------------------------------------------------- browsing


class LobbyBrowser:
    """Live view of advertised games: ``table`` is replaced on every change."""

    def __init__(
        self,
        interfaces: Interfaces = InterfaceChoice.All,
        on_change: Callable[[LobbyTable], None] | None = None,
    ) -> None:
        self.table = LobbyTable()
        self._interfaces = interfaces
        self._on_change = on_change
        self._changed = asyncio.Event()
        self._zc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        ip_version = None if isinstance(self._interfaces, InterfaceChoice) else IPVersion.V4Only
        self._zc = AsyncZeroconf(interfaces=self._interfaces, ip_version=ip_version)
        self._browser = AsyncServiceBrowser(
            self._zc.zeroconf, SERVICE_TYPE, handlers=[self._on_service_state_change]
        )

    def _apply(self, event: LobbyEvent) -> None:
        self.table = self.table.apply(event)
        self._changed.set()
        if self._on_change is not None:
            self._on_change(self.table)

    def _on_service_state_change(
        self,
        zeroconf: Zeroconf,
        service_type: str,
        name: str,
        state_change: ServiceStateChange,
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            self._apply(ServiceRemoved(name))
            return
        task = asyncio.create_task(self._resolve(zeroconf, name, state_change))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, zc: Zeroconf, name: str, change: ServiceStateChange) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        # Announcements carry SRV/TXT/A as additional records, so this is usually a cache hit.
        if not info.load_from_cache(zc) and not await info.async_request(zc, _RESOLVE_TIMEOUT_MS):
            return
        kind = ServiceAdded if change is ServiceStateChange.Added else ServiceUpdated
        self._apply(kind(name, dict(info.properties), tuple(info.parsed_addresses())))

    async def wait_for(self, predicate: Callable[[LobbyTable], bool], timeout: float) -> LobbyTable:
        """Wait until ``predicate(table)`` holds; raise TimeoutError after ``timeout`` seconds."""
        async with asyncio.timeout(timeout):
            while not predicate(self.table):
                self._changed.clear()
                await self._changed.wait()
        return self.table

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._browser is not None:
            await self._browser.async_cancel()
        if self._zc is not None:
            await self._zc.async_close()

    async def __aenter__(self) -> LobbyBrowser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def browse(
    wait_seconds: float, interfaces: Interfaces = InterfaceChoice.All
) -> list[LobbyInfo]:
    """Listen for ``wait_seconds`` and return the games seen (for ``lantag list``)."""
    async with LobbyBrowser(interfaces) as browser:
        await asyncio.sleep(wait_seconds)
        return list(browser.table.lobbies())
