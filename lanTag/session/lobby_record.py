"""The lobby record: everything agreed before the game starts; its hash is the game id.

record = [3, engine, rules_version, lantag_version,
          [[option, value]...sorted], map_text|nil,
          [[public_key, chain_anchor, nickname, bot]...], chain_length,
          [turn_timeout_ms, step_timeout_ms, lag_warning_ms], host_nonce,
          previous_game, start_position?]
start_position (protocol 4 on, present only when the game starts from a position) is the
canonical bytes of the state the game starts from (``State.encode()``, engine and
consensus encoding, no prose): a game set up with ``lantag play/host --position FILE``
binds the very position into its game id, and the log, whose header holds the record,
carries it for ``verify`` and ``replay``.  Left out (not empty) for the engine's own
start, so a game without a position has the record, and the game id, it had before.
previous_game (protocol 3 on) is the game id of the game this one follows at the same
table (32 bytes), or empty for a first game: a series is a hash-linked chain of games.
A protocol-2 record is the same without previous_game.  A protocol-1 record (logs
written before versions were recorded) is the protocol-2 one without rules_version
and lantag_version, with 1 first: it is rules version 1 of its engine.
game_id = SHA-256("lanTag/v1/game" 0x00 ‖ canonical record bytes)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import fingerprint
from lanTag.rules.base import PositionError, State
from lanTag.rules.registry import get_game
from lanTag.session.compatibility import rules_version_of
from lanTag.session.features import FIRST_PROTOCOL, Features
from lanTag.session.messages import KNOWN_PROTOCOLS, PROTOCOL_VERSION

GAME_DOMAIN = b"lanTag/v1/game\x00"
MAX_RECORD = 256 * 1024


@dataclass(frozen=True, slots=True)
class SeatRecord:
    public_key: bytes  # b"" for a replicated bot seat
    anchor: bytes  # hash-chain anchor; b"" for a bot seat
    nickname: str
    bot: str  # "" for a human seat, else the replicated bot's name

    @property
    def is_bot(self) -> bool:
        return bool(self.bot)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key) if self.public_key else "bot"


@dataclass(frozen=True, slots=True)
class Timeouts:
    turn_ms: int = 120_000  # a human's turn or secret choice
    step_ms: int = 10_000  # automatic traffic: entropy, reveals
    lag_ms: int = 2_000  # show a seat as lagging after this


@dataclass(frozen=True, slots=True)
class LobbyRecord:
    engine: str
    options: tuple[tuple[str, int | bool | str], ...]
    map_text: str | None
    seats: tuple[SeatRecord, ...]
    chain_length: int
    timeouts: Timeouts
    host_nonce: bytes
    rules_version: int = 0  # the engine's rules the game plays; 0: this lanTag's (set below)
    lantag_version: str = ""  # the host's lanTag release, shown to people, never compared
    protocol: int = PROTOCOL_VERSION
    # The game id of the game this one follows at the same table; b"" for a first game.
    # Bound into this game's id, so a series cannot be reordered or cut unseen.
    previous_game: bytes = b""
    # The canonical state bytes the game starts from; b"" for the engine's own start.
    start_position: bytes = b""

    def __post_init__(self) -> None:
        if self.start_position and not self.features.start_position:
            raise ValueError(
                f"a start position is in a protocol-{FIRST_PROTOCOL['start_position']} record"
                " or later"
            )
        previous = self.previous_game
        if previous and (not self.features.series or len(previous) != 32):
            raise ValueError(
                "a previous game id is 32 bytes, in a protocol-"
                f"{FIRST_PROTOCOL['series']} record or later"
            )
        if self.rules_version == 0:  # frozen: the one place a field is filled in
            rules = 1 if self.protocol == 1 else rules_version_of(self.engine) or 1
            object.__setattr__(self, "rules_version", rules)

    def to_obj(self) -> list[object]:
        versions: list[object] = (
            [] if self.protocol == 1 else [self.rules_version, self.lantag_version]
        )
        return [
            self.protocol,
            self.engine,
            *versions,
            [[k, v] for k, v in sorted(self.options)],
            self.map_text,
            [[s.public_key, s.anchor, s.nickname, s.bot] for s in self.seats],
            self.chain_length,
            [self.timeouts.turn_ms, self.timeouts.step_ms, self.timeouts.lag_ms],
            self.host_nonce,
            *([self.previous_game] if self.features.series else []),
            *([self.start_position] if self.start_position else []),
        ]

    def encode(self) -> bytes:
        return wire.pack(self.to_obj())

    @property
    def game_id(self) -> bytes:
        return hashlib.sha256(GAME_DOMAIN + self.encode()).digest()

    @property
    def features(self) -> Features:
        """What this record's protocol does (lanTag.session.features)."""
        return Features.of(self.protocol)

    def human_keys(self) -> tuple[bytes | None, ...]:
        """Each seat's public key, None for a bot seat (which signs nothing)."""
        return tuple(None if s.is_bot else s.public_key for s in self.seats)

    @property
    def option_dict(self) -> dict[str, int | bool | str]:
        return dict(self.options)

    @classmethod
    def decode(cls, data: bytes) -> LobbyRecord:
        """Strict: the shape of SPEC §2, with bounds, or RemoteProtocolError."""
        obj = wire.unpack(data, limit=MAX_RECORD)
        version = obj[0] if isinstance(obj, list) and obj else None
        if not _is_int(version) or version not in KNOWN_PROTOCOLS:
            raise RemoteProtocolError(
                "version",
                f"lobby record of protocol {version!r}: this lanTag knows protocols "
                f"{', '.join(map(str, KNOWN_PROTOCOLS))} (a newer lanTag wrote it?)",
            )
        assert isinstance(obj, list)
        rules_version, lantag_version, previous, position = 1, "", b"", b""
        try:
            if version == 1:
                _v, engine, options, map_text, seats, chain_length, timeouts, nonce = obj
            else:
                fields = {2: 10, 3: 11}.get(version, 11)
                facts = Features.of(version)
                positioned = facts.start_position and len(obj) == fields + 1
                _require(
                    len(obj) == fields or positioned,
                    f"a protocol-{version} record has {fields} fields"
                    + (" (12 with a start position)" if facts.start_position else ""),
                )
                (_v, engine, rules_version, lantag_version, options, map_text, seats) = obj[:7]
                chain_length, timeouts, nonce = obj[7:10]
                if facts.series:
                    previous = obj[10]
                    _require(
                        isinstance(previous, bytes) and len(previous) in (0, 32),
                        "bad previous game id",
                    )
                if positioned:
                    position = obj[11]
                    # never empty: a record without a start position leaves the field out
                    _require(isinstance(position, bytes) and position != b"", "bad start position")
                _require(_is_int(rules_version) and 1 <= rules_version < 2**16, "bad rules version")
                _require(
                    isinstance(lantag_version, str) and len(lantag_version) <= 32,
                    "bad lanTag version",
                )
            _require(isinstance(engine, str) and 0 < len(engine) <= 32, "bad engine")
            _require(isinstance(nonce, bytes) and len(nonce) == 32, "bad host nonce")
            _require(map_text is None or isinstance(map_text, str), "bad map")
            _require(_is_int(chain_length) and 1 <= chain_length <= MAX_CHAIN, "bad chain length")
            _require(isinstance(options, list), "bad options")
            opts = []
            for pair in options:
                _require(isinstance(pair, list) and len(pair) == 2, "bad option")
                key, value = pair
                _require(isinstance(key, str) and isinstance(value, int | str), "bad option")
                opts.append((key, value))
            _require(isinstance(seats, list) and 1 <= len(seats) <= MAX_SEATS, "bad seat count")
            seat_records = tuple(_seat(s) for s in seats)
            _require(isinstance(timeouts, list) and len(timeouts) == 3, "bad timeouts")
            _require(all(_is_int(t) and 0 < t <= 86_400_000 for t in timeouts), "bad timeouts")
            turn_ms, step_ms, lag_ms = timeouts
        except (ValueError, TypeError) as exc:
            raise RemoteProtocolError("malformed", f"bad lobby record: {exc}") from None
        record = cls(
            engine,
            tuple(opts),
            map_text,
            seat_records,
            chain_length,
            Timeouts(turn_ms, step_ms, lag_ms),
            nonce,
            rules_version,
            lantag_version,
            version,
            previous,
            position,
        )
        if record.encode() != data:
            raise RemoteProtocolError("noncanonical", "lobby record is not canonical")
        return record


def start_state(record: LobbyRecord) -> State:
    """The state the record's game starts from: its start position, else the engine's
    own start.  A start position must be a position of the record's engine, seats and
    options that ``from_position`` accepts as it is (no invariant broken, canonical
    bytes) and not over: PositionError naming the problem otherwise (OptionError for an
    unknown engine or bad options, as ``new_state``)."""
    game = get_game(record.engine)
    if not record.start_position:
        return game.new_state(len(record.seats), record.option_dict, record.map_text)
    try:
        state = game.decode_state(record.start_position)
        position = game.position(state)
        again = game.from_position(position)  # every check a hand-written position gets
    except PositionError as exc:
        raise PositionError([f"start position: {p}" for p in exc.problems]) from None
    except (ValueError, TypeError, KeyError, IndexError) as exc:  # never a crash
        raise PositionError([f"start position: {exc}"]) from None
    problems = []
    if again.encode() != record.start_position:
        problems.append("start position: its bytes are not those of the position they hold")
    if position["seats"] != len(record.seats):
        problems.append(
            f"start position: {position['seats']} seats, the table has {len(record.seats)}"
        )
    if position["options"] != record.option_dict:  # the record holds the position's own
        problems.append("start position: its options are not the game's")
    if record.map_text is not None:
        problems.append("start position: a game from a position has no map of its own")
    if state.is_over:
        problems.append("start position: the game is over there")
    if problems:
        raise PositionError(problems)
    return state


def seat_names(seats: tuple[SeatRecord, ...]) -> tuple[str, ...]:
    """The name to show for each seat: its nickname, followed by the first four digits of
    its fingerprint (or "bot") when another seat of the table has the same nickname, so
    two people called "max" are told apart wherever names are shown."""
    count: dict[str, int] = {}
    for seat in seats:
        count[seat.nickname] = count.get(seat.nickname, 0) + 1
    return tuple(
        f"{s.nickname} ({s.fingerprint[:4]})" if count[s.nickname] > 1 else s.nickname
        for s in seats
    )


MAX_CHAIN = 1 << 16
MAX_SEATS = 1024


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(what)


def _seat(obj: object) -> SeatRecord:
    _require(isinstance(obj, list) and len(obj) == 4, "a seat is [key, anchor, nickname, bot]")
    assert isinstance(obj, list)
    key, anchor, nickname, bot = obj
    _require(isinstance(nickname, str) and len(nickname) <= 64, "bad nickname")
    _require(isinstance(bot, str) and len(bot) <= 32, "bad bot name")
    _require(isinstance(key, bytes) and isinstance(anchor, bytes), "bad key or anchor")
    if bot:
        _require(key == b"" and anchor == b"", "a bot seat has no key or anchor")
    else:
        _require(
            len(key) == 32 and len(anchor) == 32, "a person's seat has a 32-byte key and anchor"
        )
    return SeatRecord(key, anchor, nickname, bot)
