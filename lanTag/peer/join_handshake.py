"""The lobby handshake before a game: sans-IO host and joiner machines.

Messages ride the same reliable links as the game (lanTag.net.link); each is a
canonical array ``["lt-lobby", 3, kind, ...]`` (protocol/SPEC.md §6):

    hello    nickname, spectator, protocol, [[engine, rules]...], lanTag release   joiner -> host
    welcome  host_key, challenge, engine, name, seats, password?, taken,
             protocol, rules, lanTag release, host nickname, pake_b               host -> joiner
    join     public_key, anchor, nickname, pake_a, confirm, spectator, signature  joiner -> host
    wait     reason                      host -> joiner (the host is asked to let it in)
    roster   [[nickname, fingerprint, bot]...], seats, your_seat          host -> all
    refuse   reason                                     host -> joiner (also a kick)
    start    record, [[seat, host, port]...], [[host, port]...], signature, seal  host -> all
    leave                                               joiner -> host
    next, done  (a series: lanTag.peer.series)           host -> each seat after a game

The password never travels and a transcript does not let anyone test one: SPAKE2
(lanTag.peer.pake), its key confirming both identity keys; the host rate-limits tries
(lanTag.peer.guess_limit).  The join signature covers the challenge, so a join cannot
be replayed.  The start message is signed by the host key announced in ``welcome``
(which a joiner may pin: ``expect_fingerprint``).  Once the game starts the host has no
special power: every peer talks to every peer.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from lanTag import wire
from lanTag.errors import LocalProtocolError, RemoteProtocolError
from lanTag.identity import Identity, Verifier, fingerprint
from lanTag.peer.guess_limit import GuessLimiter
from lanTag.peer.names import clean_nickname
from lanTag.peer.pake import (
    HostPake,
    joiner_confirmation,
    start_seal,
    transcript,
)
from lanTag.peer.series_events import NextGame, SeriesDone
from lanTag.session.compatibility import joiner_mismatch, mismatch, rules_version_of
from lanTag.session.lobby_record import LobbyRecord, SeatRecord, Timeouts
from lanTag.session.messages import PROTOCOL_VERSION
from lanTag.session.transport import Addr
from lanTag.versions import lantag_version

TAG = "lt-lobby"
VERSION = 2  # the lobby envelope: kept in protocols 3 to 6, whose hello is protocol 2's, so
# each refuses the other in words (the protocol field decides; SPEC §0)
OLD_VERSION = 1  # a protocol-1 joiner's hello: answered with a refusal it can read
JOIN_DOMAIN = b"lanTag/v1/join\x00"
START_DOMAIN = b"lanTag/v1/start\x00"
MAX_LOBBY_MESSAGE = 256 * 1024
MAX_UNPROVEN = 256  # hellos that have not joined yet, kept at most: the oldest goes first
TELL_EVERY = 1.0  # seconds between two "N wrong passwords from ADDR" lines for one source
SEAT_HELD = "that key already holds a seat"  # the host's refusal of a key it seated already


def is_lobby_message(payload: bytes) -> bool:
    """Cheap test used by the peer to route link payloads (session bundles never match):
    an array (fixarray, or array16 for a welcome with its position: 16 items) whose first
    item is the 8-character string TAG."""
    head = 3 if payload[:1] == b"\xdc" else 1
    return payload[head : head + 1] == b"\xa8" and payload[head + 1 : head + 9] == TAG.encode()


def lobby_message(kind: str, *fields: Any, version: int = VERSION) -> bytes:
    return wire.pack([TAG, version, kind, *fields])


def parse_lobby_message(payload: bytes, *, old_hello: bool = False) -> tuple[str, list[Any]]:
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


def is_count(value: object) -> bool:
    """A non-negative msgpack integer (bool is not one)."""
    return type(value) is int and value >= 0


def are_texts(value: object, n: int) -> bool:
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
    # The canonical state the game starts from (lantag host --position); b"": the start.
    start_position: bytes = b""


@dataclass(frozen=True, slots=True)
class JoinerWaiting:
    """Host side: a joiner proved what it had to and waits for the host's yes or no."""

    addr: Addr
    nickname: str
    fingerprint: str
    spectator: bool


@dataclass(frozen=True, slots=True)
class Waiting:
    """Joiner side: the host was asked to let us in."""

    reason: str


@dataclass(frozen=True, slots=True)
class HostKeyChanged:
    """Joiner side: this host nickname had another key when we last played with it.
    The join waits for ``JoinLobby.accept_host_key()`` (or the caller leaves)."""

    nickname: str
    known: str
    now: str
    # The nickname we played with that this one looks like ("": the very same nickname).
    looks_like: str = ""


LobbyEvent = (
    RosterChanged
    | PasswordNeeded
    | Refused
    | Started
    | Welcomed
    | JoinerRefused
    | JoinerWaiting
    | Waiting
    | HostKeyChanged
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
    waiting: bool = False  # proved itself; the host has not said yes yet (approve)
    pake: HostPake | None = None  # password games: the host's SPAKE2 side for this joiner
    transcript: bytes = b""  # password games: what the PAKE key confirmed


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
    approve: bool = False  # each joiner waits for the host's yes (approve_joiner) first
    previous_game: bytes = b""  # the game this one follows at this table (lanTag.peer.series)
    fill_empty: str = ""  # a bot kind: the start fills the people's seats still open with it
    # The canonical state bytes the game starts from (lantag host --position); b"": the start.
    start_position: bytes = b""


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
        self.nickname = clean_nickname(nickname) or "host"
        self._random = random_bytes
        self._joiners: dict[Addr, _Joiner] = {}
        self._order: list[Addr] = []  # seated joiners, in seat order
        self.limiter = GuessLimiter()
        self.banned: set[bytes] = set()  # keys the host kicked or refused: not let in again
        self._told: dict[str, float] = {}  # source -> when the host was last told about it
        self.outbox: list[tuple[Addr, bytes]] = []
        self.events: list[LobbyEvent] = []
        self.started: Started | None = None
        self.left: set[Addr] = set()  # who said leave before the start
        # Addresses refused for good (a banned key: refused, kicked) since the peer last
        # looked: once the refusal arrives they are shut out (lanTag.peer.doorstep).
        self.turned_away: set[Addr] = set()
        self._start_sent: dict[Addr, bytes] = {}  # each joiner's start message (tell_again)

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

    def joined_addrs(self) -> list[Addr]:
        """Every address that has joined (a seat, or as a spectator)."""
        return [addr for addr, joiner in self._joiners.items() if joiner.joined]

    def unseat(self, addr: Addr, reason: str) -> None:
        """Remove the joiner at ``addr`` before the start, telling it ``reason``."""
        self._remove(addr, notify=reason)

    def roster(self) -> tuple[RosterEntry, ...]:
        me = RosterEntry(self.nickname, self.identity.fingerprint, "")
        people = [RosterEntry(j.nickname, fingerprint(j.public_key), "") for j in self.seated]
        bots = [RosterEntry(f"{b}-bot-{i + 1}", "bot", b) for i, b in enumerate(self.config.bots)]
        return (me, *people, *bots)

    def receive(self, payload: bytes, addr: Addr, now: float = 0.0) -> None:
        """One lobby payload from ``addr`` at ``now`` (the guess limiter's clock);
        RemoteProtocolError for malformed input."""
        if self.started is not None:
            return
        kind, fields = parse_lobby_message(payload, old_hello=True)
        if kind == "hello/1" and fields and isinstance(fields[0], str):
            self._refuse_versions(addr, clean_nickname(fields[0]), 1, None, version=OLD_VERSION)
        elif kind == "hello" and len(fields) == 5 and isinstance(fields[0], str):
            protocol, rules, release = fields[2], _rules_table(fields[3]), fields[4]
            if type(protocol) is not int or rules is None or not isinstance(release, str):
                raise RemoteProtocolError("malformed", "bad versions in hello")
            engine = self.config.engine
            if self._refuse_versions(addr, clean_nickname(fields[0]), protocol, rules.get(engine)):
                return
            self._hello(addr, clean_nickname(fields[0]), now)
        elif kind == "join" and len(fields) == 7:
            if addr not in self._joiners and isinstance(fields[2], str):
                # A join whose hello we forgot (MAX_UNPROVEN) or never had: welcome it as
                # if it said hello (a new challenge), and it joins again (JoinLobby).
                self._hello(addr, clean_nickname(fields[2]), now)
                return
            self._join(addr, fields, now)
        elif kind == "leave":
            self.left.add(addr)  # a series waits for nobody who said no (cli/series_play.py)
            self._remove(addr, notify=None)
        else:
            raise RemoteProtocolError("malformed", f"unexpected lobby message {kind!r}")

    def _hello(self, addr: Addr, nickname: str, now: float) -> None:
        """Welcome ``addr`` (versions checked); a repeated hello keeps its challenge (a
        joiner may say hello to several of the host's addresses: net/addresses.py)."""
        joiner = self._joiners.get(addr)
        if joiner is None:
            joiner = _Joiner(addr, nickname, b"")
            if self.config.password and not self._may_try(addr, joiner.nickname, now):
                return
            joiner.challenge = self._random(32)
            if self.config.password:  # one guess per welcome: the PAKE's whole point
                joiner.pake = HostPake(self.config.password, self.identity.public_key, self._random)
            self._forget_oldest_unproven()
            self._joiners[addr] = joiner
        self.outbox.append((addr, self._welcome(joiner)))

    def _forget_oldest_unproven(self) -> None:
        """Bound what strangers' hellos cost: past MAX_UNPROVEN, the oldest hello that never
        joined is forgotten (its sender may say hello again)."""
        unproven = [a for a, j in self._joiners.items() if not (j.joined or j.waiting)]
        for addr in unproven[: max(0, len(unproven) - MAX_UNPROVEN + 1)]:
            del self._joiners[addr]

    def _welcome(self, joiner: _Joiner) -> bytes:
        c = self.config
        return lobby_message(
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
            self.nickname,
            joiner.pake.message if joiner.pake is not None else b"",
            # A game set up from a position shows it before anyone sits (issue #38 item 6):
            # a 13th field, only then (a welcome without one is byte for byte as before).
            *([c.start_position] if c.start_position else []),
        )

    def _may_try(self, addr: Addr, nickname: str, now: float) -> bool:
        """A password game grants one PAKE exchange per welcome: may ``addr`` have one
        now?  If not it is refused with how long to wait, and the host told (throttled)."""
        verdict = self.limiter.try_once(addr[0], now)
        if verdict.allowed:
            return True
        wait = max(1, round(verdict.wait + 0.5))
        self.outbox.append(
            (
                addr,
                lobby_message("refuse", f"too many password tries from {addr[0]}: wait {wait} s"),
            )
        )
        self._tell_wrong(addr[0], now)
        return False

    def _tell_wrong(self, source: str, now: float, wrong: int | None = None) -> None:
        """ "N wrong passwords from ADDR" for the host: the first time, then at most once
        every TELL_EVERY seconds per source (a guesser must not flood the host's screen)."""
        last = self._told.get(source)
        if last is not None and now - last < TELL_EVERY:
            return
        self._told[source] = now
        if len(self._told) > 4096:  # bounded, like the limiter
            self._told.pop(next(iter(self._told)))
        if wrong is None:
            wrong = self.limiter.wrong(source)
        refused = self.limiter.refused(source)
        more = f" ({refused} more tries refused: too fast)" if refused else ""
        words = "wrong password" if wrong == 1 else "wrong passwords"
        self.events.append(JoinerRefused(f"{wrong} {words} from {source}{more}"))

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
        self.outbox.append((addr, lobby_message("refuse", told, version=version)))
        self.events.append(
            JoinerRefused(joiner_mismatch(engine, self.rules_version, nickname, protocol, rules))
        )
        return True

    def _join(self, addr: Addr, fields: list[Any], now: float) -> None:
        joiner = self._joiners.get(addr)
        if joiner is None:
            raise RemoteProtocolError("out-of-turn", "join before hello")
        if joiner.joined or joiner.waiting:
            if fields[:1] == [joiner.public_key]:
                # The same joiner again: its link restarted and lost our answer (a crowd
                # churned the stranger slots, lanTag.peer.doorstep): answer it again.
                self.outbox.append((addr, self._answer_again(joiner)))
                return
            raise RemoteProtocolError("out-of-turn", "a second join")
        public_key, anchor, nickname, pake_a, confirm, spectator, signature = fields
        if not (
            isinstance(public_key, bytes)
            and len(public_key) == 32
            and isinstance(anchor, bytes)
            and len(anchor) == 32
            and isinstance(nickname, str)
            and isinstance(pake_a, bytes)
            and isinstance(confirm, bytes)
            and isinstance(spectator, bool)
            and isinstance(signature, bytes)
        ):
            raise RemoteProtocolError("malformed", "bad join fields")
        body = wire.pack([public_key, anchor, nickname, pake_a, spectator])
        if not Verifier().verify(public_key, signature, JOIN_DOMAIN + joiner.challenge + body):
            raise RemoteProtocolError("bad-signature", "join not signed by its key")
        if joiner.pake is not None:
            seen = transcript(
                self.identity.public_key,
                public_key,
                joiner.challenge,
                pake_a,
                joiner.pake.message,
                anchor,
                nickname,
                spectator,
            )
            key = joiner.pake.finish(pake_a)  # None when no SPAKE2 message (any length)
            if key is None or not hmac.compare_digest(confirm, joiner_confirmation(key, seen)):
                # One guess spent: forget this joiner (a new try needs a new hello, which
                # the limiter may refuse) and tell the host who is guessing.
                self._joiners.pop(addr, None)
                self.outbox.append((addr, lobby_message("refuse", "wrong password")))
                self._tell_wrong(addr[0], now, self.limiter.failed(addr[0], now))
                return
            self.limiter.succeeded(addr[0], now)
            joiner.transcript = seen
        if public_key in self.banned:
            self._joiners.pop(addr, None)
            self.outbox.append((addr, lobby_message("refuse", "the host did not let you in")))
            self.turned_away.add(addr)
            return
        if public_key == self.identity.public_key or any(
            j.public_key == public_key
            for j in self._joiners.values()
            if (j.joined or j.waiting) and j.addr != addr
        ):
            self.outbox.append((addr, lobby_message("refuse", SEAT_HELD)))
            return
        if not spectator and self.taken >= self.config.humans:
            self.outbox.append((addr, lobby_message("refuse", "the game is full")))
            return
        # One form per name, nothing invisible (lanTag.peer.names): what everyone sees.
        joiner.nickname = clean_nickname(nickname) or "player"
        joiner.public_key, joiner.anchor = public_key, anchor
        joiner.spectator = spectator
        if self.config.approve:
            joiner.waiting = True
            self.outbox.append((addr, lobby_message("wait", "the host was asked to let you in")))
            self.events.append(
                JoinerWaiting(addr, joiner.nickname, fingerprint(public_key), spectator)
            )
            return
        self._seat(joiner)

    def _seat(self, joiner: _Joiner) -> None:
        joiner.joined, joiner.waiting = True, False
        if not joiner.spectator:
            self._order.append(joiner.addr)
        self._send_roster()

    def waiting(self) -> list[JoinerWaiting]:
        """Joiners waiting for the host's yes or no, in arrival order."""
        return [
            JoinerWaiting(j.addr, j.nickname, fingerprint(j.public_key), j.spectator)
            for j in self._joiners.values()
            if j.waiting
        ]

    def approve_joiner(self, addr: Addr) -> None:
        """The host's yes: seat (or let watch) the joiner waiting at ``addr``."""
        joiner = self._joiners.get(addr)
        if joiner is None or not joiner.waiting:
            raise LocalProtocolError(f"nobody at {addr[0]}:{addr[1]} waits to join")
        if not joiner.spectator and self.taken >= self.config.humans:
            self._remove(addr, notify="the game is full")
            return
        self._seat(joiner)

    def refuse_joiner(self, addr: Addr) -> None:
        """The host's no for the joiner waiting at ``addr``."""
        joiner = self._joiners.get(addr)
        if joiner is None or not joiner.waiting:
            raise LocalProtocolError(f"nobody at {addr[0]}:{addr[1]} waits to join")
        self.banned.add(joiner.public_key)
        self._remove(addr, notify="the host did not let you in")
        self.turned_away.add(addr)

    def kick(self, seat: int) -> None:
        """Remove the joiner in ``seat`` (1..) before the start."""
        if not 1 <= seat <= len(self._order):
            raise LocalProtocolError(f"no joiner sits in seat {seat}")
        kicked = self._joiners.get(self._order[seat - 1])
        addr = self._order[seat - 1]
        if kicked is not None:
            self.banned.add(kicked.public_key)
        self._remove(addr, notify="kicked by the host")
        self.turned_away.add(addr)

    def _remove(self, addr: Addr, notify: str | None) -> None:
        if notify is not None:
            self.outbox.append((addr, lobby_message("refuse", notify)))
        self._joiners.pop(addr, None)
        if addr in self._order:
            self._order.remove(addr)
        self._send_roster()

    def _send_roster(self) -> None:
        for joiner in self._joiners.values():
            if joiner.joined:
                self.outbox.append((joiner.addr, self._roster_for(joiner)))
        roster, total = self.roster(), self.config.humans + len(self.config.bots)
        self.events.append(RosterChanged(roster, total, 0))

    def _roster_for(self, joiner: _Joiner) -> bytes:
        entries = [[e.nickname, e.fingerprint, e.bot] for e in self.roster()]
        total = self.config.humans + len(self.config.bots)
        seat = self._order.index(joiner.addr) + 1 if joiner.addr in self._order else -1
        return lobby_message("roster", entries, total, seat)

    def tell_again(self, addr: Addr) -> None:
        """Our link to the joiner at ``addr`` restarted, losing what was queued on it:
        its start (once the game started) or its roster, again."""
        joiner = self._joiners.get(addr)
        if joiner is None or not joiner.joined:
            return
        start = self._start_sent.get(addr)
        self.outbox.append((addr, start if start is not None else self._roster_for(joiner)))

    def _answer_again(self, joiner: _Joiner) -> bytes:
        """What a joiner that joined already is told again: the roster, or to wait."""
        if joiner.joined:
            return self._roster_for(joiner)
        return lobby_message("wait", "the host was asked to let you in")

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
            start_position=c.start_position,
        )
        peers = {i + 1: j.addr for i, j in enumerate(self.seated)}
        watchers = tuple(j.addr for j in self._joiners.values() if j.joined and j.spectator)
        body = record.encode()
        signature = self.identity.signer().sign(START_DOMAIN + body)
        addr_list = [[seat, host, port] for seat, (host, port) in sorted(peers.items())]
        watch_list = [[host, port] for host, port in watchers]
        for joiner in self._joiners.values():
            if joiner.waiting:  # never let in: told so, like a kick
                self.outbox.append(
                    (joiner.addr, lobby_message("refuse", "the game started without you"))
                )
            if joiner.joined:
                key = joiner.pake.key if joiner.pake is not None else None
                seal = start_seal(key, joiner.transcript, body) if key is not None else b""
                start = lobby_message("start", body, addr_list, watch_list, signature, seal)
                self._start_sent[joiner.addr] = start
                self.outbox.append((joiner.addr, start))
        self.started = Started(record, 0, peers, watchers)
        return self.started


def peers_for(started: Started) -> Mapping[int, Addr]:
    return started.peers


# The joiner's side lives in its own module (file size); importers keep this name.
from lanTag.peer.joiner import JoinLobby as JoinLobby  # noqa: E402  (needs the names above)
