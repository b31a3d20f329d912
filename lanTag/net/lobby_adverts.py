"""Pure lobby bookkeeping for mDNS browsing: TXT parsing and an immutable table.

Anything on the LAN can publish ``_lantag._udp`` records, so TXT data is
validated field by field; a bad record is ignored (and counted), never raised
past :meth:`LobbyTable.apply`.
"""

from __future__ import annotations

import json as jsonlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from types import MappingProxyType

from lanTag.errors import LanTagError

__all__ = [
    "BadTxt",
    "LobbyInfo",
    "LobbyTable",
    "ServiceAdded",
    "ServiceRemoved",
    "ServiceUpdated",
    "format_lobbies",
    "lobby_from_txt",
    "parse_txt",
    "same_name_note",
]

STATES = ("lobby", "playing")
MAX_NAME = 40  # leaves room in the 63-byte DNS-SD instance label for the fingerprint and port
MAX_SEATS = 64
_ENGINE = re.compile(r"^[a-z][a-z0-9_\-]{0,31}$")
_FINGERPRINT = re.compile(r"^[0-9a-f]{8,64}$")
_SEATS = re.compile(r"^([0-9]{1,2})/([0-9]{1,2})$")
_INT = re.compile(r"^[0-9]{1,5}$")
_POSITION = re.compile(r"^[0-9a-f]{16}$")
MAX_POSITION_NOTE = 120


class BadTxt(LanTagError, ValueError):
    """A TXT record that is not a valid lanTag advert; the message names the field."""


def already_playing_line(name: str) -> str:
    """The game's advert says it is under way: its host takes no one new until it ends."""
    return f"“{name}” is already playing: nobody can join it until its game ends"


@dataclass(frozen=True, slots=True)
class LobbyInfo:
    instance: str
    """The full DNS-SD service name: the table key."""
    name: str
    engine: str
    version: int
    seats_taken: int
    seats_total: int
    password: bool
    fingerprint: str
    state: str
    port: int
    addresses: tuple[str, ...] = ()
    rules: int = 0  # the game's rules version; 0: not advertised (a protocol-1 host)
    revision: int = 0  # the host counts its TXT updates up: a lower one is stale
    release: str = ""  # the host's lanTag release, shown only
    position: str = ""  # a game set up from a position: 16 hex digits of its digest
    position_note: str = ""  # ...and whose turn it is there, the headline (<= 120 chars)

    @property
    def full(self) -> bool:
        return self.seats_taken >= self.seats_total


def _text(props: Mapping[bytes, bytes | None], key: str) -> str:
    raw = props.get(key.encode())
    if raw is None:
        raise BadTxt(f"{key}: missing")
    try:
        value = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadTxt(f"{key}: not UTF-8") from None
    if not value.isprintable():
        raise BadTxt(f"{key}: control characters")
    return value


def _int(props: Mapping[bytes, bytes | None], key: str, low: int, high: int) -> int:
    value = _text(props, key)
    if not _INT.match(value) or not low <= int(value) <= high:
        raise BadTxt(f"{key}: {value!r} is not an integer in {low}..{high}")
    return int(value)


def parse_txt(rdata: bytes) -> dict[bytes, bytes | None]:
    """TXT rdata (length-prefixed strings) as a property map, like python-zeroconf's.

    ``key=value`` maps to the value (possibly empty), a bare ``key`` to None, an empty
    key is dropped, a repeated key keeps its first value (RFC 6763 §6.4), and a length
    running past the end is cut short.
    """
    props: dict[bytes, bytes | None] = {}
    pos = 0
    while pos < len(rdata):
        end = pos + 1 + rdata[pos]
        key, sep, value = rdata[pos + 1 : end].partition(b"=")
        pos = end
        if key and key not in props:
            props[key] = value if sep else None
    return props


def lobby_from_txt(
    instance: str, props: Mapping[bytes, bytes | None], addresses: Iterable[str] = ()
) -> LobbyInfo:
    """Validate a TXT property map (as python-zeroconf gives it); raise :class:`BadTxt`."""
    name = _text(props, "name")
    if not 1 <= len(name) <= MAX_NAME:
        raise BadTxt(f"name: length {len(name)} outside 1..{MAX_NAME}")
    engine = _text(props, "engine")
    if not _ENGINE.match(engine):
        raise BadTxt(f"engine: {engine!r} is not an engine id")
    seats = _SEATS.match(_text(props, "seats"))
    if not seats:
        raise BadTxt("seats: not taken/total")
    taken, total = int(seats.group(1)), int(seats.group(2))
    if not (1 <= total <= MAX_SEATS and taken <= total):
        raise BadTxt(f"seats: {taken}/{total} out of range")
    password = _text(props, "pw")
    if password not in ("0", "1"):
        raise BadTxt(f"pw: {password!r} is not 0 or 1")
    fingerprint = _text(props, "fp")
    if not _FINGERPRINT.match(fingerprint):
        raise BadTxt(f"fp: {fingerprint!r} is not 8-64 lowercase hex digits")
    state = _text(props, "state")
    if state not in STATES:
        raise BadTxt(f"state: {state!r} not one of {STATES}")
    version = _int(props, "v", 1, 65535)
    # Protocol 1 adverts carry no rules version; from 2 on it is required.
    rules = _int(props, "rules", 1, 65535) if version >= 2 else 0
    revision = _int(props, "rev", 0, 99999) if b"rev" in props else 0
    release = _text(props, "lt") if b"lt" in props else ""
    if len(release) > 32:
        raise BadTxt("lt: longer than 32 characters")
    position = _text(props, "pos") if b"pos" in props else ""
    if position and not _POSITION.match(position):
        raise BadTxt(f"pos: {position!r} is not 16 lowercase hex digits")
    note = _text(props, "at") if position and b"at" in props else ""
    if len(note) > MAX_POSITION_NOTE:
        raise BadTxt(f"at: longer than {MAX_POSITION_NOTE} characters")
    return LobbyInfo(
        instance=instance,
        name=name,
        engine=engine,
        version=version,
        seats_taken=taken,
        seats_total=total,
        password=password == "1",
        fingerprint=fingerprint,
        state=state,
        port=_int(props, "port", 1, 65535),
        addresses=tuple(sorted(set(addresses))),
        rules=rules,
        revision=revision,
        release=release,
        position=position,
        position_note=note,
    )


# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class ServiceAdded:
    instance: str
    properties: Mapping[bytes, bytes | None]
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServiceUpdated:
    instance: str
    properties: Mapping[bytes, bytes | None]
    addresses: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ServiceRemoved:
    instance: str


LobbyEvent = ServiceAdded | ServiceUpdated | ServiceRemoved


@dataclass(frozen=True, slots=True)
class LobbyTable:
    """Immutable: :meth:`apply` returns a new table."""

    entries: Mapping[str, LobbyInfo] = field(default_factory=lambda: MappingProxyType({}))
    ignored: int = 0
    """Adverts dropped for bad TXT so far."""

    def apply(self, event: LobbyEvent) -> LobbyTable:
        entries = dict(self.entries)
        key = event.instance.lower()  # DNS names compare case-insensitively
        if isinstance(event, ServiceRemoved):
            if entries.pop(key, None) is None:
                return self
            return replace(self, entries=MappingProxyType(entries))
        try:
            info = lobby_from_txt(event.instance, event.properties, event.addresses)
        except BadTxt:
            # An update that turns bad withdraws the old entry: it no longer describes the game.
            entries.pop(key, None)
            return replace(self, entries=MappingProxyType(entries), ignored=self.ignored + 1)
        known = entries.get(key)
        if known is not None and info.revision < known.revision:
            return self  # a stale advert heard late: the host has announced a newer one
        entries[key] = info
        return replace(self, entries=MappingProxyType(entries))

    def lobbies(self) -> tuple[LobbyInfo, ...]:
        return tuple(sorted(self.entries.values(), key=lambda i: (i.name.lower(), i.instance)))


def _endpoint(info: LobbyInfo) -> str:
    from lanTag.net.addresses import rank_addresses  # link-local and virtual ranges last

    ranked = rank_addresses(info.addresses) or list(info.addresses)  # IPv6 as it came
    host = ranked[0] if ranked else "?"
    return f"[{host}]:{info.port}" if ":" in host else f"{host}:{info.port}"


def same_name_note(info: LobbyInfo, lobbies: Iterable[LobbyInfo]) -> str:
    """A warning when other adverts carry ``info``'s name ("" when none does): one of them
    may be an impostor, and only the host key tells them apart."""
    others = [
        i for i in lobbies if i.name.lower() == info.name.lower() and i.instance != info.instance
    ]
    if not others:
        return ""
    keys = ", ".join(sorted({info.fingerprint, *(i.fingerprint for i in others)}))
    return (
        f"{len(others) + 1} games share this name (host keys {keys}): ask the host for `lantag id`"
    )


def _joinable(info: LobbyInfo) -> str:
    return ""


def _notes(why: str, same: str, position: str = "") -> str:
    """The lines under a game's row: why it cannot be joined, who shares its name, the
    position it starts from."""
    lines = [
        f"  ✗ cannot join: {why}" if why else "",
        f"  ⚠ {same}" if same else "",
        f"  {position}" if position else "",
    ]
    return "\n".join(line for line in lines if line)


def _position(info: LobbyInfo) -> str:
    """``from position <digest>: <whose turn; headline>`` for a game set up from one."""
    if not info.position:
        return ""
    note = f": {info.position_note}" if info.position_note else ""
    return f"from position {info.position}{note}"


def format_lobbies(
    lobbies: Iterable[LobbyInfo], json: bool, why_not: Callable[[LobbyInfo], str] = _joinable
) -> str:
    """``lantag list`` output: a JSON array, or a plain table for people.  ``why_not`` says
    why this lanTag cannot join a game ("" when it can; the versions are compared above
    the network layer, by lanTag.session.compatibility.why_not_join)."""
    items = list(lobbies)
    if json:
        return jsonlib.dumps(
            [
                {**asdict(i), "incompatible": why_not(i), "same_name": same_name_note(i, items)}
                for i in items
            ],
            indent=2,
            ensure_ascii=False,
        )
    if not items:
        return "no games found"
    header = ("NAME", "ENGINE", "SEATS", "PW", "STATE", "ADDRESS", "HOST KEY", "V")
    rows = [header] + [
        (
            i.name,
            i.engine,
            f"{i.seats_taken}/{i.seats_total}",
            "yes" if i.password else "no",
            i.state,
            _endpoint(i),
            i.fingerprint,
            str(i.version),
        )
        for i in items
    ]
    widths = [max(len(r[c]) for r in rows) for c in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]
    # A game this lanTag cannot join says so under its row, with both versions.
    reasons = [why_not(i) for i in items]
    notes = [""] + [
        _notes(why, same_name_note(i, items), _position(i))
        for i, why in zip(items, reasons, strict=True)
    ]
    pairs = zip(lines, notes, strict=True)
    out = [line.rstrip() + ("\n" + note if note else "") for line, note in pairs]
    return "\n".join(out)
