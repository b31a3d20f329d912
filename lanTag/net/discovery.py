"""mDNS/DNS-SD lobbies with python-zeroconf: advertise a hosted game, browse for games.

Fast appearance: an instance name embeds the host key fingerprint and the game
port, so it is unique by construction and the RFC 6762 §8.1 probing round
(150-250 ms random wait + 3 probes 500 ms apart in this zeroconf, ~1.7 s) can
be skipped with ``cooperating_responders=True``: the first announcement goes
out as soon as the service is registered.  Browsers feed a pure
:class:`~lanTag.net.lobby_adverts.LobbyTable`; this file is only the zeroconf glue.

Pass ``interfaces=["127.0.0.1"]`` for tests and benchmarks so that nothing is
multicast beyond loopback.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import ifaddr
from zeroconf import (
    InterfaceChoice,
    IPVersion,
    RecordUpdate,
    RecordUpdateListener,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf._dns import DNSPointer, DNSRecord, DNSText  # not re-exported by zeroconf, but stable
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from lanTag.errors import LanTagError
from lanTag.net.lobby_adverts import (
    LobbyEvent,
    LobbyInfo,
    LobbyTable,
    ServiceAdded,
    ServiceRemoved,
    ServiceUpdated,
    format_lobbies,
    lobby_from_txt,
    parse_txt,
)
from lanTag.wire import PROTOCOL_VERSION

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


class AdvertiserStateError(LanTagError, RuntimeError):
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
    version: int = PROTOCOL_VERSION
    rules: int = 1  # the game's rules version (lobby refusals name it too)
    revision: int = 0  # counted up by every update, so browsers can drop stale TXT
    release: str = ""  # the lanTag release, shown only
    # A game set up from a position: its digest's first 16 hex digits and one line of what
    # it is (whose turn, the headline); both "" otherwise (issue #38 item 6).
    position: str = ""
    position_note: str = ""

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
            "rules": str(self.rules),
            "rev": str(self.revision),
            "lt": self.release[:32],
            # Optional: a TXT string is at most 255 bytes and the whole record should stay
            # near 400 (one datagram); the note is at most 120 characters (views.brief).
            **({"pos": self.position, "at": self.position_note} if self.position else {}),
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


def _rewrite_queued_answers(zc: Zeroconf, old: ServiceInfo, new: ServiceInfo | None) -> None:
    """Make query answers zeroconf has queued but not sent yet carry ``new``'s TXT.

    zeroconf builds an answer when the query arrives but may multicast it up to ~1.5 s
    later (20-120 ms aggregation, plus RFC 6762 §14's one-second delay for records it
    multicast within the last second).  An answer built before an update would then go
    out after the update's announcements, stale TXT last on the wire (seen with a spy on
    ``Zeroconf.async_send``: 1/4 x3, query, 2/4 x3, then the queued 1/4).  With ``new``
    None (closing) all of ``old``'s queued records are dropped: nothing may follow the
    goodbyes.  The queues are zeroconf internals, reached defensively: if they are not
    where expected this does nothing.
    """
    swap: dict[DNSRecord, DNSRecord | None]
    if new is not None:
        swap = {old.dns_text(): new.dns_text()}
    else:
        own = [old.dns_pointer(), old.dns_service(), old.dns_text()]
        swap = dict.fromkeys([*own, *old.get_address_and_nsec_records()])
    for queue_name in ("out_queue", "out_delay_queue"):
        for group in getattr(getattr(zc, queue_name, None), "queue", ()):
            answers = getattr(group, "answers", None)
            if not isinstance(answers, dict):
                continue
            for record in [r for r in answers if r in swap]:
                additionals = answers.pop(record)
                if (replacement := swap[record]) is not None:
                    answers[replacement] = additionals
            for additionals in answers.values():
                for record in [r for r in additionals if r in swap]:
                    additionals.discard(record)
                    if (replacement := swap[record]) is not None:
                        additionals.add(replacement)


class LobbyAdvertiser:
    """Publishes one :class:`LobbyAdvert`; ``update`` re-announces changed TXT.

    zeroconf announces a registration or an update three times, 225 ms apart, from a
    background task that holds the :class:`ServiceInfo` it was given.  Two such tasks
    running at once interleave old and new TXT on the wire (lobby, playing, lobby, ...),
    and a browser that hears the old TXT last may keep it.  So operations are
    serialised under a lock and each announcement series replaces the previous one:
    the in-flight task is cancelled (its remaining, now stale, announcements are never
    sent) before the next series starts, so the latest wanted TXT always goes out last.
    """

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
        self._lock = asyncio.Lock()
        self._announcing: asyncio.Future[object] | None = None

    def _step(self, op: str) -> _AdvState:
        nxt = _ADV_TRANSITIONS.get((self._state, op))
        if nxt is None:
            raise AdvertiserStateError(f"cannot {op} an advertiser that is {self._state.value}")
        previous, self._state = self._state, nxt
        return previous

    def _service_info(self) -> AsyncServiceInfo:
        return service_info(self.advert, self._addresses)

    @property
    def announcing(self) -> bool:
        """True while an announcement series (registration or update) is being sent."""
        return self._announcing is not None and not self._announcing.done()

    async def _stop_announcing(self) -> None:
        """Cancel the in-flight announcement series: none of its remaining packets go out.

        A cancelled task never resumes past its pending sleep, so nothing stale is sent
        even before the wait below returns.
        """
        task, self._announcing = self._announcing, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])

    async def start(self) -> None:
        async with self._lock:
            self._step("start")
            ip_version = None if isinstance(self._interfaces, InterfaceChoice) else IPVersion.V4Only
            self._zc = AsyncZeroconf(interfaces=self._interfaces, ip_version=ip_version)
            self._info = self._service_info()
            # Returns once the records are in the registry (answering queries); the three
            # announcements are sent by a background task, the first on the next loop turn.
            self._announcing = asyncio.ensure_future(
                await self._zc.async_register_service(self._info, cooperating_responders=True)
            )

    async def update(
        self,
        *,
        seats_taken: int | None = None,
        state: str | None = None,
        password: bool | None = None,
    ) -> None:
        """Change the mutable advert fields and re-announce the TXT record.

        Name, fingerprint and port make up the instance name, so they are fixed.  Fields
        left as None keep their current value, also when updates race: each one is
        applied on top of the previous under the lock, and the last one is announced last.
        """
        async with self._lock:
            advert = replace(
                self.advert,
                seats_taken=self.advert.seats_taken if seats_taken is None else seats_taken,
                state=self.advert.state if state is None else state,
                password=self.advert.password if password is None else password,
                revision=self.advert.revision + 1,
            )  # validates before any state change
            self._step("update")
            assert self._zc is not None and self._info is not None
            await self._stop_announcing()
            old_info, self.advert = self._info, advert
            self._info = self._service_info()
            self._announcing = asyncio.ensure_future(
                await self._zc.async_update_service(self._info)
            )
            _rewrite_queued_answers(self._zc.zeroconf, old_info, self._info)

    async def close(self) -> None:
        """Send goodbyes and release the sockets (idempotent)."""
        async with self._lock:
            if self._step("close") is not _AdvState.ADVERTISED:
                return
            assert self._zc is not None and self._info is not None
            await self._stop_announcing()  # no announcement may follow the goodbyes
            _rewrite_queued_answers(self._zc.zeroconf, self._info, None)  # nor an answer
            done = await self._zc.async_unregister_service(self._info)
            await done  # goodbyes out before the sockets close
            await self._zc.async_close()

    async def __aenter__(self) -> LobbyAdvertiser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


# --------------------------------------------------------------------------- browsing


class _TxtTracker(RecordUpdateListener):
    """Remembers, per lanTag instance, the TXT record heard most recently.

    python-zeroconf cannot tell which of two TXT versions is current: RFC 6762 §10.2
    cache flushing only drops records received more than a second before the new
    one, so after ``2/3, 1/3, 2/3`` within a second both versions stay cached; the
    ServiceBrowser fires Updated only for a TXT it has not cached (not for the final
    ``2/3``); and ``ServiceInfo.load_from_cache`` picks the version inserted last,
    not the one heard last.  A host announces its current TXT, so the one heard last
    is the truth; ``on_txt`` gets the names whose TXT was heard, once the packet has
    been cached.  Only instances in ``known`` (lower-cased names the browser has seen a
    PTR for) or with a PTR in the same packet are tracked, so the memory is bounded by
    the games actually browsed.
    """

    def __init__(self, on_txt: Callable[[set[str]], None], known: Mapping[str, str]) -> None:
        super().__init__()
        self.latest: dict[str, DNSText] = {}
        self._on_txt = on_txt
        self._known = known
        self._heard: set[str] = set()

    def async_update_records(self, zc: Zeroconf, now: float, records: list[RecordUpdate]) -> None:
        in_packet = {
            record.alias.lower()
            for record in (update.new for update in records)
            if isinstance(record, DNSPointer) and record.name.lower() == SERVICE_TYPE.lower()
        }
        for update in records:
            record = update.new
            if not isinstance(record, DNSText):
                continue
            key = record.name.lower()
            if key not in self._known and key not in in_packet:
                continue
            if record.ttl == 0:  # a goodbye withdraws that version only
                if key in self.latest and self.latest[key].text == record.text:
                    del self.latest[key]
            else:
                self.latest[key] = record
            self._heard.add(record.name)

    def async_update_records_complete(self) -> None:
        heard, self._heard = self._heard, set()
        if heard:
            self._on_txt(heard)


class LobbyBrowser:
    """Live view of advertised games: ``table`` is replaced on every change.

    Every change re-reads the current records synchronously (the cache for SRV and
    addresses, :class:`_TxtTracker` for TXT), so events never apply out of order; a
    network resolve only runs when the cache cannot answer, and then re-reads too.
    """

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
        self._known: dict[str, str] = {}  # lower-cased instance -> name, from PTR records
        self._txt = _TxtTracker(self._on_txt, self._known)
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        ip_version = None if isinstance(self._interfaces, InterfaceChoice) else IPVersion.V4Only
        self._zc = AsyncZeroconf(interfaces=self._interfaces, ip_version=ip_version)
        self._zc.zeroconf.async_add_listener(self._txt, None)
        self._browser = AsyncServiceBrowser(
            self._zc.zeroconf, SERVICE_TYPE, handlers=[self._on_service_state_change]
        )

    def _apply(self, event: LobbyEvent) -> None:
        table = self.table.apply(event)
        if table.ignored == self.table.ignored and dict(table.entries) == dict(self.table.entries):
            return  # the same TXT heard again
        self.table = table
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
            self._known.pop(name.lower(), None)
            self._txt.latest.pop(name.lower(), None)
            self._apply(ServiceRemoved(name))
            return
        self._known[name.lower()] = name
        if self._refresh(zeroconf, name):
            return
        task = asyncio.create_task(self._resolve(zeroconf, name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_txt(self, names: set[str]) -> None:
        assert self._zc is not None
        for name in names:
            if name.lower() in self._known:
                self._refresh(self._zc.zeroconf, name)

    def _refresh(self, zc: Zeroconf, name: str, info: AsyncServiceInfo | None = None) -> bool:
        """Apply the records known now for ``name``; False if the cache lacks some."""
        if info is None:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            # Announcements carry SRV/TXT/A together, so this is usually a cache hit.
            if not info.load_from_cache(zc):
                return False
        txt = self._txt.latest.get(name.lower())
        props = parse_txt(txt.text) if txt is not None else dict(info.properties)
        kind = ServiceUpdated if name.lower() in self.table.entries else ServiceAdded
        self._apply(kind(name, props, tuple(info.parsed_addresses())))
        return True

    async def _resolve(self, zc: Zeroconf, name: str) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(zc, _RESOLVE_TIMEOUT_MS) or name.lower() not in self._known:
            return
        # Newer records may have arrived while waiting: prefer the cache, now complete.
        if not self._refresh(zc, name):
            self._refresh(zc, name, info)

    async def wait_for(self, predicate: Callable[[LobbyTable], bool], timeout: float) -> LobbyTable:
        """Wait until ``predicate(table)`` holds; raise TimeoutError after ``timeout`` seconds."""

        async def until() -> None:
            while not predicate(self.table):
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(until(), timeout)
        except asyncio.TimeoutError:  # not the builtin TimeoutError before Python 3.11
            raise TimeoutError(f"no matching game within {timeout:g} s") from None
        return self.table

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._browser is not None:
            await self._browser.async_cancel()
        if self._zc is not None:
            self._zc.zeroconf.async_remove_listener(self._txt)
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
