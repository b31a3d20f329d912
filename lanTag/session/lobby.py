"""The lobby record: everything agreed before the game starts; its hash is the game id.

record = [version, engine, [[option, value]...sorted], map_text|nil,
          [[public_key, chain_anchor, nickname, bot]...], chain_length,
          [turn_timeout_ms, step_timeout_ms, lag_warning_ms], host_nonce]
game_id = SHA-256("lanTag/v1/game" 0x00 ‖ canonical record bytes)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import fingerprint
from lanTag.session.messages import PROTOCOL_VERSION

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

    def to_obj(self) -> list[object]:
        return [
            PROTOCOL_VERSION,
            self.engine,
            [[k, v] for k, v in sorted(self.options)],
            self.map_text,
            [[s.public_key, s.anchor, s.nickname, s.bot] for s in self.seats],
            self.chain_length,
            [self.timeouts.turn_ms, self.timeouts.step_ms, self.timeouts.lag_ms],
            self.host_nonce,
        ]

    def encode(self) -> bytes:
        return wire.pack(self.to_obj())

    @property
    def game_id(self) -> bytes:
        return hashlib.sha256(GAME_DOMAIN + self.encode()).digest()

    @property
    def option_dict(self) -> dict[str, int | bool | str]:
        return dict(self.options)

    @classmethod
    def decode(cls, data: bytes) -> LobbyRecord:
        obj = wire.unpack(data, limit=MAX_RECORD)
        try:
            version, engine, options, map_text, seats, chain_length, timeouts, nonce = obj
            if type(version) is not int or version != PROTOCOL_VERSION:
                raise RemoteProtocolError("version", f"lobby record version {version!r}")
            assert isinstance(engine, str) and isinstance(nonce, bytes) and len(nonce) == 32
            assert map_text is None or isinstance(map_text, str)
            assert isinstance(chain_length, int) and chain_length > 0
            opts = tuple((str(k), v) for k, v in options)
            assert all(isinstance(v, int | str) for _, v in opts)
            seat_records = tuple(
                SeatRecord(bytes(pk), bytes(anchor), str(nick), str(bot))
                for pk, anchor, nick, bot in seats
            )
            turn_ms, step_ms, lag_ms = (int(t) for t in timeouts)
        except (ValueError, TypeError, AssertionError) as exc:
            raise RemoteProtocolError("malformed", f"bad lobby record: {exc}") from None
        record = cls(
            engine,
            opts,
            map_text,
            seat_records,
            chain_length,
            Timeouts(turn_ms, step_ms, lag_ms),
            nonce,
        )
        if record.encode() != data:
            raise RemoteProtocolError("noncanonical", "lobby record is not canonical")
        return record
