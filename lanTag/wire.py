"""Canonical msgpack: the one encoding that is hashed, signed and logged.

Rules (protocol/SPEC.md §1): arrays only (no maps), ints, bool, nil, str
(UTF-8) and bin kept distinct, no floats, no ext types, shortest encodings.
Decoding is strict: anything that does not re-encode to the very same bytes,
trailing bytes, and payloads over the datagram budget are rejected with a
``RemoteProtocolError``.
"""

from __future__ import annotations

from typing import Any

import msgpack

from lanTag.errors import RemoteProtocolError

PROTOCOL_VERSION = 6
"""The wire and log format version (protocol/SPEC.md "Versions and compatibility").  It lives
here, at the bottom layer, so the mDNS adverts (lanTag/net) can carry it without importing
the session; lanTag.session.messages re-exports it."""

DATAGRAM_BUDGET = 1200
MAX_DEPTH = 8


def pack(obj: object) -> bytes:
    """Canonical bytes of ``obj`` (lists/tuples, int, bool, None, str, bytes)."""
    if _plain(obj, 0):
        # Only allowed types, nesting within bounds: msgpack can refuse nothing but an
        # integer out of range, and _check says so in its own words.
        try:
            return msgpack.packb(obj, use_bin_type=True)
        except OverflowError:
            pass
    _check(obj, 0, local=True)
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data: bytes, *, limit: int = DATAGRAM_BUDGET) -> Any:
    """Strictly decode canonical bytes.  Raises RemoteProtocolError, never anything else."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise RemoteProtocolError("malformed", "not bytes")
    data = bytes(data)
    if len(data) > limit:
        raise RemoteProtocolError("oversized", f"{len(data)} bytes exceeds the {limit}-byte budget")
    try:
        obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
    except msgpack.ExtraData:
        raise RemoteProtocolError("malformed", "trailing bytes after the message") from None
    except Exception as exc:  # msgpack raises several unrelated types on garbage
        raise RemoteProtocolError("malformed", f"not msgpack: {type(exc).__name__}") from None
    return canonical(obj, data, limit=limit)


def canonical(obj: Any, data: bytes, *, limit: int = DATAGRAM_BUDGET) -> Any:
    """``obj`` if it is what ``unpack(data)`` returns, that is, ``data`` decoded (by a stream
    ``msgpack.Unpacker`` for instance) is canonical; else ``unpack``'s RemoteProtocolError.

    Saves decoding ``data`` a second time when the caller already holds the object.
    """
    if len(data) > limit:
        raise RemoteProtocolError("oversized", f"{len(data)} bytes exceeds the {limit}-byte budget")
    if not _plain(obj, 0):
        _check(obj, 0, local=False)
    if msgpack.packb(obj, use_bin_type=True) != data:
        raise RemoteProtocolError("noncanonical", "bytes are not in canonical form")
    return obj


# Exact types that _check accepts as they are.  Decoded integers are always in range (msgpack
# cannot encode others); local ones are range-checked by msgpack.packb itself (see pack).
_LEAVES = frozenset({int, bool, str, bytes, type(None)})
_ARRAYS = frozenset({list, tuple})
_ANY = _LEAVES | _ARRAYS


def _plain(obj: object, depth: int) -> bool:
    """A fast path: True only if _check(obj, depth) accepts ``obj`` (False: ask _check).

    One C-level ``set(map(type, ...))`` per array instead of a Python call per item;
    subclasses (ExtType, IntEnum...) and anything odd go to _check.
    """
    t = type(obj)
    if t in _LEAVES:
        return depth <= MAX_DEPTH
    if t not in _ARRAYS or depth > MAX_DEPTH:
        return False
    if not obj:
        return True
    assert isinstance(obj, list | tuple)
    if depth == MAX_DEPTH:
        return False
    types = set(map(type, obj))
    if types <= _LEAVES:
        return True
    if not types <= _ANY:
        return False
    for item in obj:  # noqa: SIM110 - no generator object per array on the hot path
        if type(item) in _ARRAYS and not _plain(item, depth + 1):
            return False
    return True


def _check(obj: object, depth: int, *, local: bool) -> None:
    if depth > MAX_DEPTH:
        _fail(local, "too deeply nested")
    if isinstance(obj, msgpack.ExtType):  # a namedtuple: must not pass as an array
        _fail(local, "ext types are not allowed in canonical msgpack")
    if obj is None or isinstance(obj, bool | int | str | bytes):
        if isinstance(obj, int) and not isinstance(obj, bool) and not -(2**63) <= obj < 2**64:
            _fail(local, "integer out of range")
        return
    if isinstance(obj, list | tuple):
        for item in obj:
            _check(item, depth + 1, local=local)
        return
    _fail(local, f"type {type(obj).__name__} is not allowed in canonical msgpack")


def _fail(local: bool, message: str) -> None:
    if local:
        raise TypeError(message)
    raise RemoteProtocolError("malformed", message)
