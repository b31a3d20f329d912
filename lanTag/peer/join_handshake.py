"""The lobby handshake before a game: sans-IO host and joiner machines.

Messages ride the same reliable links as the game (lanTag.net.link); each is a
canonical array ``["lt-lobby", 2, kind, ...]`` (protocol/SPEC.md §6):

    hello    nickname, spectator, protocol, [[engine, rules]...], lanTag release   joiner -> host
    welcome  host_key, challenge, engine, name, seats, password?, taken,
             protocol, rules, lanTag release                                      host -> joiner
    join     public_key, anchor, nickname, proof, spectator, signature   joiner -> host
    roster   [[nickname, fingerprint, bot]...], seats, your_seat          host -> all
    refuse   reason                                     host -> joiner (also a kick)
    start    record, [[seat, host, port]...], [[host, port]...], signature  host -> all
    leave                                               joiner -> host
    next, done  (a series: lanTag.peer.series)           host -> each seat after a game

The password never travels: the joiner proves it with
HMAC-SHA256(SHA-256("lanTag/v1/pw" 0x00 ‖ password), challenge ‖ public_key).
The join signature covers the challenge, so a join cannot be replayed.  The
start message is signed by the host key announced in ``welcome``.  Once the
game starts the host has no special power: every peer talks to every peer.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lanTag import wire
from lanTag.errors import LocalProtocolError, RemoteProtocolError
from lanTag.identity import Identity, Verifier, fingerprint
from lanTag.peer.series_events import NextGame, SeriesDone
from lanTag.session.compatibility import joiner_mismatch, mismatch, rules_version_of
from lanTag.session.lobby_record import LobbyRecord, SeatRecord, Timeouts
from lanTag.session.messages import PROTOCOL_VERSION
from lanTag.session.transport import Addr
from lanTag.versions import lantag_version

TAG = "lt-lobby"
VERSION = 2
OLD_VERSION = 1  # a protocol-1 joiner's hello: answered with a refusal it can read
JOIN_DOMAIN = b"lanTag/v1/join\x00"
START_DOMAIN = b"lanTag/v1/start\x00"
PW_DOMAIN = b"lanTag/v1/pw\x00"
MAX_LOBBY_MESSAGE = 256 * 1024


def is_lobby_message(payload: bytes) -> bool:
    """Cheap test used by the peer to route link payloads (session bundles never match)."""
    return payload[1:2] == b"\xa8" and payload[2:10] == TAG.encode()


def password_proof(password: str, challenge: bytes, public_key: bytes) -> bytes:
    key = hashlib.sha256(PW_DOMAIN + password.encode()).digest()
    return hmac.new(key, challenge + public_key, hashlib.sha256).digest()


def _msg(kind: str, *fields: Any, version: int = VERSION) -> bytes:
    return wire.pack([TAG, version, kind, *fields])


def _parse(payload: bytes, *, old_hello: bool = False) -> tuple[str, list[Any]]:
    """``old_hello``: take a protocol-1 hello too (the host refuses it in words the old
    joiner shows); its kind is returned as "hello/1"."""
    obj = wire.unpack(payload, limit=MAX_LOBBY_MESSAGE)
    if not isinstance(obj, list) or len(obj) < 3 or obj[0] != TAG or type(obj[1]) is not int:
        raise RemoteProtocolError("malformed", "not a lobby message")
    if obj[1] == OLD_VERSION and old_hello and obj[2] == "hello":
        return "hello/1", obj[3:]
    if obj[1] != VERSION:
        raise RemoteProtocolError("version", f"a lobby message of protocol {obj[1]}")
    if not isinstance(obj[2], str):
        raise RemoteProtocolError("malformed", "lobby message kind must be a string")
    return obj[2], obj[3:]


def _rules_table(value: object) -> dict[str, int] | None:
    """A hello's [[engine, rules version]...], or None when malformed."""
    if not isinstance(value, list) or len(value) > 64:
        return None
    out: dict[str, int] = {}
    for pair in value:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
            return None
        if not (type(pair[1]) is int and 1 <= pair[1] < 2**16) or len(pair[0]) > 32:
            return None
        out[pair[0]] = pair[1]
    return out


def my_rules() -> list[list[object]]:
    """This lanTag's [[engine, rules version]...] (what a hello carries)."""
    from lanTag.rules.registry import rules_versions

    return [[engine, version] for engine, version in rules_versions().items()]


def _count(value: object) -> bool:
    """A non-negative msgpack integer (bool is not one)."""
    return type(value) is int and value >= 0


def _texts(value: object, n: int) -> bool:
    """A list of exactly ``n`` strings."""
    return isinstance(value, list) and len(value) == n and all(isinstance(v, str) for v in value)


# ------------------------------------------------------------------ events


@dataclass(frozen=True, slots=True)
class RosterEntry:
    nickname: str
    fingerprint: str
    bot: str


@dataclass(frozen=True, slots=True)
class RosterChanged:
    roster: tuple[RosterEntry, ...]
    seats: int
    your_seat: int | None


@dataclass(frozen=True, slots=True)
class PasswordNeeded:
    game_name: str


@dataclass(frozen=True, slots=True)
class Refused:
    reason: str


@dataclass(frozen=True, slots=True)
class JoinerRefused:
    """The host turned a joiner away before it took a seat (``reason`` says who and why)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Started:
    record: LobbyRecord
    seat: int | None
    peers: dict[int, Addr]
    watchers: tuple[Addr, ...]


@dataclass(frozen=True, slots=True)
class Welcomed:
    engine: str
    name: str
    seats: int
    taken: int
    password: bool
    host_fingerprint: str


LobbyEvent = (
    RosterChanged
    | PasswordNeeded
    | Refused
    | Started
    | Welcomed
    | JoinerRefused
    | NextGame
    | SeriesDone
)


# ------------------------------------------------------------------ host


@dataclass
class _Joiner:
    addr: Addr
    nickname: str
    challenge: bytes
    public_key: bytes = b""
    anchor: bytes = b""
    spectator: bool = False
    joined: bool = False


@dataclass
class HostConfig:
    engine: str
    name: str
    humans: int  # seats for people, the host's included
    options: tuple[tuple[str, int | bool | str], ...] = ()
    map_text: str | None = None
    bots: tuple[str, ...] = ()  # one bot name per bot seat
    password: str = ""
    timeouts: Timeouts = field(default_factory=Timeouts)
    chain_length: int = 4096
    previous_game: bytes = b""  # the game this one follows at this table (lanTag.peer.series)
    fill_empty: str = ""  # a bot kind: the start fills the people's seats still open with it


class HostLobby:
    """The host's side.  ``random_bytes(n)`` is injected so the machine stays pure."""

    def __init__(
        self,
        config: HostConfig,
        identity: Identity,
        anchor: bytes,
        nickname: str,
        random_bytes: Callable[[int], bytes],
    ) -> None:
        if config.humans < 1:
            raise LocalProtocolError("a game needs at least the host's seat")
        self.config = config
        self.identity = identity
        self.anchor = anchor
        self.nickname = nickname[:32]
        self._random = random_bytes
        self._joiners: dict[Addr, _Joiner] = {}
        self._order: list[Addr] = []  # seated joiners, in seat order
        self.outbox: list[tuple[Addr, bytes]] = []
        self.events: list[LobbyEvent] = []
        self.started: Started | None = None
        self.left: set[Addr] = set()  # who said leave before the start

    @property
    def seated(self) -> list[_Joiner]:
        return [self._joiners[a] for a in self._order]

    @property
    def taken(self) -> int:
        return 1 + len(self._order)

    def joined(self, addr: Addr) -> bool:
        """Whether ``addr`` has joined (a seat, or as a spectator)."""
        joiner = self._joiners.get(addr)
        return joiner is not None and joiner.joined

    def unseat(self, addr: Addr, reason: str) -> None:
        """Remove the joiner at ``addr`` before the start, telling it ``reason``."""
        self._remove(addr, notify=reason)

    def roster(self) -> tuple[RosterEntry, ...]:
        me = RosterEntry(self.nickname, self.identity.fingerprint, "")
        people = [RosterEntry(j.nickname, fingerprint(j.public_key), "") for j in self.seated]
        bots = [RosterEntry(f"{b}-bot-{i + 1}", "bot", b) for i, b in enumerate(self.config.bots)]
        return (me, *people, *bots)

    def receive(self, payload: bytes, addr: Addr) -> None:
        """One lobby payload from ``addr``; RemoteProtocolError for malformed input."""
        if self.started is not None:
            return
        kind, fields = _parse(payload, old_hello=True)
        if kind == "hello/1" and fields and isinstance(fields[0], str):
            self._refuse_versions(addr, fields[0][:32], 1, None, version=OLD_VERSION)
        elif kind == "hello" and len(fields) == 5 and isinstance(fields[0], str):
            protocol, rules, release = fields[2], _rules_table(fields[3]), fields[4]
            if type(protocol) is not int or rules is None or not isinstance(release, str):
                raise RemoteProtocolError("malformed", "bad versions in hello")
            engine = self.config.engine
            if self._refuse_versions(addr, fields[0][:32], protocol, rules.get(engine)):
                return
            joiner = self._joiners.get(addr)
            if joiner is None:  # a repeated hello keeps its challenge (a joiner may say
                # hello to several of the host's addresses: net/addresses.py)
                joiner = _Joiner(addr, fields[0][:32], self._random(32))
                self._joiners[addr] = joiner
            c = self.config
            self.outbox.append(
                (
                    addr,
                    _msg(
                        "welcome",
                        self.identity.public_key,
                        joiner.challenge,
                        c.engine,
                        c.name,
                        c.humans + len(c.bots),
                        bool(c.password),
                        self.taken + len(c.bots),
                        PROTOCOL_VERSION,
                        self.rules_version,
                        lantag_version()[:32],
                    ),
                )
            )
        elif kind == "join" and len(fields) == 6:
            self._join(addr, fields)
        elif kind == "leave":
            self.left.add(addr)  # a series waits for nobody who said no (cli/series_play.py)
            self._remove(addr, notify=None)
        else:
            raise RemoteProtocolError("malformed", f"unexpected lobby message {kind!r}")

    @property
    def rules_version(self) -> int:
        return rules_version_of(self.config.engine) or 1

    def _refuse_versions(
        self, addr: Addr, nickname: str, protocol: int, rules: int | None, version: int = VERSION
    ) -> bool:
        """Refuse a joiner whose versions cannot play this game, before it takes a seat:
        it is told both versions and what to do, the host who and why.  True if refused."""
        engine = self.config.engine
        told = mismatch(engine, PROTOCOL_VERSION, self.rules_version, protocol, rules)
        if not told:
            return False
        self.outbox.append((addr, _msg("refuse", told, version=version)))
        self.events.append(
            JoinerRefused(joiner_mismatch(engine, self.rules_version, nickname, protocol, rules))
        )
        return True

    def _join(self, addr: Addr, fields: list[Any]) -> None:
        joiner = self._joiners.get(addr)
        if joiner is None:
            raise RemoteProtocolError("out-of-turn", "join before hello")
        public_key, anchor, nickname, proof, spectator, signature = fields
        if not (
            isinstance(public_key, bytes)
            and len(public_key) == 32
            and isinstance(anchor, bytes)
            and len(anchor) == 32
            and isinstance(nickname, str)
            and isinstance(proof, bytes)
            and isinstance(spectator, bool)
            and isinstance(signature, bytes)
        ):
            raise RemoteProtocolError("malformed", "bad join fields")
        signed = JOIN_DOMAIN + joiner.challenge + wire.pack([public_key, anchor, nickname])
        if not Verifier().verify(public_key, signature, signed):
            raise RemoteProtocolError("bad-signature", "join not signed by its key")
        if self.config.password and not hmac.compare_digest(
            proof, password_proof(self.config.password, joiner.challenge, public_key)
        ):
            self.outbox.append((addr, _msg("refuse", "wrong password")))
            return
        if public_key == self.identity.public_key or any(
            j.public_key == public_key
            for j in self._joiners.values()
            if j.joined and j.addr != addr
        ):
            self.outbox.append((addr, _msg("refuse", "that key already holds a seat")))
            return
        if not spectator and addr not in self._order and self.taken >= self.config.humans:
            self.outbox.append((addr, _msg("refuse", "the game is full")))
            return
        joiner.public_key, joiner.anchor, joiner.nickname = public_key, anchor, nickname[:32]
        joiner.spectator, joiner.joined = spectator, True
        if not spectator and addr not in self._order:
            self._order.append(addr)
        self._send_roster()

    def kick(self, seat: int) -> None:
        """Remove the joiner in ``seat`` (1..) before the start."""
        if not 1 <= seat <= len(self._order):
            raise LocalProtocolError(f"no joiner sits in seat {seat}")
        self._remove(self._order[seat - 1], notify="kicked by the host")

    def _remove(self, addr: Addr, notify: str | None) -> None:
        if notify is not None:
            self.outbox.append((addr, _msg("refuse", notify)))
        self._joiners.pop(addr, None)
        if addr in self._order:
            self._order.remove(addr)
        self._send_roster()

    def _send_roster(self) -> None:
        roster = self.roster()
        entries = [[e.nickname, e.fingerprint, e.bot] for e in roster]
        total = self.config.humans + len(self.config.bots)
        for joiner in self._joiners.values():
            if joiner.joined:
                seat = self._order.index(joiner.addr) + 1 if joiner.addr in self._order else -1
                self.outbox.append((joiner.addr, _msg("roster", entries, total, seat)))
        self.events.append(RosterChanged(roster, total, 0))

    def start(self, host_nonce: bytes) -> Started:
        """Fix the roster into the game id and tell everyone where everyone is."""
        if self.started is not None:
            return self.started
        if self.config.fill_empty and self.taken < self.config.humans:  # e.g. a rematch
            more = (self.config.fill_empty,) * (self.config.humans - self.taken)
            self.config = replace(self.config, bots=self.config.bots + more)
        c = self.config
        seats = [SeatRecord(self.identity.public_key, self.anchor, self.nickname, "")]
        seats += [SeatRecord(j.public_key, j.anchor, j.nickname, "") for j in self.seated]
        seats += [SeatRecord(b"", b"", e.nickname, e.bot) for e in self.roster()[self.taken :]]
        record = LobbyRecord(
            c.engine,
            c.options,
            c.map_text,
            tuple(seats),
            c.chain_length,
            c.timeouts,
            host_nonce,
            rules_version=self.rules_version,
            lantag_version=lantag_version()[:32],
            previous_game=c.previous_game,
        )
        peers = {i + 1: j.addr for i, j in enumerate(self.seated)}
        watchers = tuple(j.addr for j in self._joiners.values() if j.joined and j.spectator)
        body = record.encode()
        signature = self.identity.signer().sign(START_DOMAIN + body)
        addr_list = [[seat, host, port] for seat, (host, port) in sorted(peers.items())]
        watch_list = [[host, port] for host, port in watchers]
        for joiner in self._joiners.values():
            if joiner.joined:
                self.outbox.append(
                    (joiner.addr, _msg("start", body, addr_list, watch_list, signature))
                )
        self.started = Started(record, 0, peers, watchers)
        return self.started


# ------------------------------------------------------------------ joiner


class JoinLobby:
    """A joiner's side: hello, answer the challenge, wait for the roster and the start."""

    def __init__(
        self,
        host: Addr,
        identity: Identity,
        anchor: bytes,
        nickname: str,
        *,
        password: str = "",
        spectator: bool = False,
        chain_length: int = 0,
        follows: bytes = b"",
        host_key: bytes = b"",
    ) -> None:
        # The next game of a series (lanTag.peer.series): its start must name ``follows``
        # as the previous game and be signed by the same ``host_key``.
        self.follows, self.expected_host = follows, host_key
        self.host = host
        self.chain_length = chain_length  # of our anchor's chain (0: not checked)
        self.identity = identity
        self.anchor = anchor
        self.nickname = nickname
        self.password = password
        self.spectator = spectator
        self.host_key = b""
        self._challenge = b""
        self.outbox: list[tuple[Addr, bytes]] = [(host, self._hello())]
        self.events: list[LobbyEvent] = []
        self.your_seat: int | None = None
        self.started: Started | None = None
        self.tried: list[Addr] = [host]  # addresses of the host said hello to (also_try)

    def also_try(self, addr: Addr) -> None:
        """Say hello to another advertised address of the host, until one answers: the
        first address to answer becomes ``host`` (a host with several adapters)."""
        if self.host_key or addr in self.tried:
            return
        self.tried.append(addr)
        self.outbox.append((addr, self._hello()))

    def receive(self, payload: bytes, addr: Addr) -> None:
        if addr != self.host:
            if addr not in self.tried:
                raise RemoteProtocolError(
                    "not-in-roster", f"lobby message from {addr}, not the host"
                )
            if self.host_key:
                return  # another address of the host answering late: joined already
            self.host = addr  # the first address to answer wins
        kind, fields = _parse(payload)
        if kind == "welcome" and len(fields) == 10:
            host_key, challenge, engine, name, seats, pw, taken = fields[:7]
            protocol, rules, release = fields[7:]
            if self.host_key and (host_key, challenge) == (self.host_key, self._challenge):
                return  # the same welcome again (hello sent to two of the host's addresses)
            if not (
                type(protocol) is int
                and type(rules) is int
                and isinstance(release, str)
                and isinstance(engine, str)
            ):
                raise RemoteProtocolError("malformed", "bad versions in welcome")
            told = mismatch(engine, protocol, rules, PROTOCOL_VERSION, rules_version_of(engine))
            if told:  # the host should have refused us: never take a seat anyway
                self.events.append(Refused(told))
                return
            if not (
                isinstance(host_key, bytes)
                and len(host_key) == 32
                and isinstance(challenge, bytes)
                and len(challenge) == 32
                and isinstance(engine, str)
                and isinstance(name, str)
                and _count(seats)
                and _count(taken)
                and isinstance(pw, bool)
            ):
                raise RemoteProtocolError("malformed", "bad welcome")
            if self.expected_host and host_key != self.expected_host:
                self.events.append(Refused("another host answered for the next game"))
                return
            self.host_key, self._challenge = host_key, challenge
            self.events.append(Welcomed(engine, name, seats, taken, pw, fingerprint(host_key)))
            if pw and not self.password:
                self.events.append(PasswordNeeded(str(name)))
            else:
                self._send_join()
        elif kind == "roster" and len(fields) == 3:
            entries, total, seat = fields
            if not (
                isinstance(entries, list)
                and all(_texts(e, 3) for e in entries)
                and _count(total)
                and type(seat) is int
            ):
                raise RemoteProtocolError("malformed", "bad roster")
            roster = tuple(RosterEntry(n, f, b) for n, f, b in entries)
            self.your_seat = seat if seat >= 0 else None
            self.events.append(RosterChanged(roster, total, self.your_seat))
        elif kind == "refuse" and len(fields) == 1 and isinstance(fields[0], str):
            self.events.append(Refused(fields[0]))
        elif kind == "start" and len(fields) == 4:
            self._start(fields)
        else:
            raise RemoteProtocolError("malformed", f"unexpected lobby message {kind!r}")

    def _hello(self) -> bytes:
        """hello with this lanTag's versions, so the host refuses us before a seat if need be."""
        return _msg(
            "hello",
            self.nickname,
            self.spectator,
            PROTOCOL_VERSION,
            my_rules(),
            lantag_version()[:32],
        )

    def give_password(self, password: str) -> None:
        self.password = password
        self._send_join()

    def leave(self) -> None:
        self.outbox.append((self.host, _msg("leave")))

    def _send_join(self) -> None:
        proof = (
            password_proof(self.password, self._challenge, self.identity.public_key)
            if self.password
            else b""
        )
        pk = self.identity.public_key
        signed = JOIN_DOMAIN + self._challenge + wire.pack([pk, self.anchor, self.nickname])
        signature = self.identity.signer().sign(signed)
        self.outbox.append(
            (
                self.host,
                _msg("join", pk, self.anchor, self.nickname, proof, self.spectator, signature),
            )
        )

    def _start(self, fields: list[Any]) -> None:
        body, addr_list, watch_list, signature = fields
        if not isinstance(body, bytes) or not isinstance(signature, bytes):
            raise RemoteProtocolError("malformed", "bad start")
        if not Verifier().verify(self.host_key, signature, START_DOMAIN + body):
            raise RemoteProtocolError("bad-signature", "start not signed by the host")
        record = LobbyRecord.decode(body)
        if self.follows and record.previous_game != self.follows:
            self.events.append(Refused("the host's next game does not follow the game we played"))
            return
        engine = record.engine
        mine = rules_version_of(engine)
        told = mismatch(engine, record.protocol, record.rules_version, PROTOCOL_VERSION, mine)
        if told:
            self.events.append(Refused(told))
            return
        seat = next(
            (i for i, s in enumerate(record.seats) if s.public_key == self.identity.public_key),
            None,
        )
        if seat is not None and record.seats[seat].anchor != self.anchor:
            raise RemoteProtocolError("malformed", "the start record carries a wrong anchor")
        if seat is not None and self.chain_length and record.chain_length != self.chain_length:
            self.events.append(
                Refused(
                    f"the host fixed a chain length of {record.chain_length}; this peer's chain "
                    f"has {self.chain_length} links (use the same lantag version)"
                )
            )
            return
        if seat is None and not self.spectator:
            self.events.append(Refused("the host started without us"))
            return
        peers: dict[int, Addr] = {int(s): (str(h), int(p)) for s, h, p in addr_list}
        peers[0] = self.host
        watchers = tuple((str(h), int(p)) for h, p in watch_list)
        self.started = Started(record, seat, peers, watchers)
        self.events.append(self.started)


def peers_for(started: Started) -> Mapping[int, Addr]:
    return started.peers
