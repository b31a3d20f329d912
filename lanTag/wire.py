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

DATAGRAM_BUDGET = 1200
MAX_DEPTH = 8


def pack(obj: object) -> bytes:
    """Canonical bytes of ``obj`` (lists/tuples, int, bool, None, str, bytes)."""
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
    _check(obj, 0, local=False)
    if msgpack.packb(obj, use_bin_type=True) != data:
        raise RemoteProtocolError("noncanonical", "bytes are not in canonical form")
    return obj


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
