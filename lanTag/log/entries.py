"""Log entries and their hash chain (pure: bytes in, bytes out).

entry = canonical [index, step, prev_hash(32), kind, data]
hash  = SHA-256(entry bytes); the first entry's prev_hash is 32 zero bytes.
A log file is the plain concatenation of entries (a msgpack stream).

kinds: HEADER (data = lobby record bytes), MSG (data = a signed message, the
exact bytes as received), STEP (data = [input, state hash after]), NOTE
(data = [code, seat, text]: a local annotation such as a blame or a drop).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import msgpack

from lanTag import wire
from lanTag.errors import LanTagError, RemoteProtocolError

ZERO_HASH = bytes(32)
MAX_ENTRY = 1024 * 1024
MAGIC = "lanTag-log/6"
# The header's first field, by the protocol of the game's record: a log/1 header holds a
# protocol-1 record (its STEP entries carry no draw or commitment purposes, SPEC §9).
MAGICS = {
    1: "lanTag-log/1",
    2: "lanTag-log/2",
    3: "lanTag-log/3",
    4: "lanTag-log/4",
    5: "lanTag-log/5",
    6: MAGIC,
}


def log_magic(protocol: int) -> str:
    return MAGICS[protocol]


class EntryKind(IntEnum):
    HEADER = 0
    MSG = 1
    STEP = 2
    NOTE = 3


@dataclass(frozen=True, slots=True)
class Entry:
    index: int
    step: int
    prev_hash: bytes
    kind: EntryKind
    data: Any
    raw: bytes

    @property
    def hash(self) -> bytes:
        return hashlib.sha256(self.raw).digest()


class LogChain:
    """Builds chained entries; the session pulls the bytes and an edge writes them."""

    def __init__(self, index: int = 0, last_hash: bytes = ZERO_HASH) -> None:
        """A new log, or (``index``, ``last_hash``) to go on after an existing one."""
        self.index = index
        self.last_hash = last_hash
        self._pending: list[bytes] = []

    def append(self, step: int, kind: EntryKind, data: Any) -> bytes:
        raw = wire.pack([self.index, step, self.last_hash, int(kind), data])
        self.index += 1
        self.last_hash = hashlib.sha256(raw).digest()
        self._pending.append(raw)
        return raw

    def take(self) -> bytes:
        """All entry bytes appended since the last call (to write and flush)."""
        out = b"".join(self._pending)
        self._pending.clear()
        return out


_KINDS = {int(k): k for k in EntryKind}  # EntryKind(k) without the enum machinery


class LogFormatError(LanTagError, ValueError):
    """The bytes are not a lanTag log at all (exit code 2 for `lantag verify`)."""


@dataclass(frozen=True, slots=True)
class ParsedLog:
    entries: tuple[Entry, ...]
    truncated_tail: int  # bytes after the last whole entry (a crash mid-write)
    error: str  # "" when every whole entry parsed and chained


# One entry as parse_rows returns it: the fields of Entry, in its order, as a plain tuple.
Row = tuple[int, int, bytes, EntryKind, Any, bytes]


def parse_log(data: bytes) -> ParsedLog:
    """Split a log into entries, checking canonical form and the hash chain.

    Stops at the first broken entry and says why in ``error``; an incomplete
    final entry (a crash mid-write) is reported as ``truncated_tail``.
    """
    rows, truncated_tail, error = parse_rows(data)
    return ParsedLog(tuple([Entry(*row) for row in rows]), truncated_tail, error)


def parse_rows(data: bytes) -> tuple[list[Row], int, str]:
    """``parse_log`` with each entry as a plain ``Row`` tuple (the same fields, the same
    checks and errors): ``(rows, truncated_tail, error)``.  ``verify_log`` reads every entry
    once and keeps none, so it skips building an ``Entry`` per entry."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    repack = msgpack.Packer(use_bin_type=True).pack  # what wire.canonical packs with, made once
    entries: list[Row] = []
    prev = ZERO_HASH
    offset = 0
    while True:
        try:
            obj = unpacker.unpack()
        except msgpack.OutOfData:
            break
        except Exception as exc:  # garbage in the middle of the stream
            if not entries:
                raise LogFormatError(
                    "not a lanTag log (it does not start with a log entry)"
                ) from None
            return (entries, 0, f"entry {len(entries)}: not msgpack ({exc})")
        end = unpacker.tell()
        raw = data[offset:end]
        offset = end
        try:
            if not (  # the common MSG entry [int, int, bin, int, bin]: its canonical check inline
                type(obj) is list
                and len(obj) == 5
                and type(obj[0]) is int
                and type(obj[1]) is int
                and type(obj[2]) is bytes
                and type(obj[3]) is int
                and type(obj[4]) is bytes
                and len(raw) <= MAX_ENTRY
                and repack(obj) == raw
            ):
                wire.canonical(obj, raw, limit=MAX_ENTRY)  # obj is unpack(raw): decoded once
            index, step, prev_hash, kind, payload = obj
            if type(kind) is not int or kind not in _KINDS:  # a bool is no kind (True == 1)
                raise ValueError(f"{kind!r} is not a valid EntryKind")
            kind = _KINDS[kind]
        except (RemoteProtocolError, ValueError, TypeError) as exc:
            if not entries:
                raise LogFormatError(
                    "not a lanTag log (it does not start with a log entry)"
                ) from None
            return (entries, 0, f"entry {len(entries)}: malformed ({exc})")
        if not entries and (kind != EntryKind.HEADER or index != 0):
            raise LogFormatError("not a lanTag log: the first entry is not a header")
        if not entries and prev_hash != prev:  # nothing before it to keep: no log at all
            raise LogFormatError("not a lanTag log: the header does not start a hash chain")
        if index != len(entries):
            return (entries, 0, f"entry {len(entries)}: index {index} out of order")
        if prev_hash != prev:
            return (entries, 0, f"entry {index}: hash chain broken")
        entries.append((index, step, prev_hash, kind, payload, raw))
        prev = hashlib.sha256(raw).digest()  # Entry.hash, computed once
    if not entries:
        raise LogFormatError("not a lanTag log: empty or unreadable")
    return (entries, len(data) - offset, "")
