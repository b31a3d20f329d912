"""The fast paths added for bench target 4 (verify_log speed) decide exactly as the slow ones.

* ``wire._plain`` lets ``pack`` / ``unpack`` / ``canonical`` skip the recursive ``_check``
  walk only when that walk would accept: same bytes, same exception type and message.
* ``wire.canonical`` (used by ``parse_log`` on objects its stream decoder already holds)
  equals ``wire.unpack`` on the entry's bytes.
* ``messages._split_signed`` reads ``[body, signature]`` off the bytes only when
  ``wire.unpack`` would return the same list; anything else goes to ``wire.unpack``.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.session import messages

FUZZ = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _tree(ints: Any) -> Any:
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        ints,
        st.text(max_size=3),
        st.binary(max_size=3),
        st.floats(allow_nan=False),
        st.builds(msgpack.ExtType, st.integers(0, 5), st.binary(max_size=2)),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple)
        ),
        max_leaves=30,
    )


_TREE = _tree(st.integers(min_value=-(2**70), max_value=2**70))  # some out of range
_ENCODABLE = _tree(st.integers(min_value=-(2**63), max_value=2**64 - 1))


def _outcome(f: Any) -> tuple[str, Any]:
    try:
        return ("ok", f())
    except Exception as exc:  # the comparison is the point: type and message
        return (type(exc).__name__, str(exc))


def _slow_pack(obj: object) -> bytes:
    wire._check(obj, 0, local=True)
    return msgpack.packb(obj, use_bin_type=True)


def _slow_unpack(data: bytes) -> Any:
    obj = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
    wire._check(obj, 0, local=False)
    if msgpack.packb(obj, use_bin_type=True) != data:
        raise RemoteProtocolError("noncanonical", "bytes are not in canonical form")
    return obj


def _nested(depth: int, leaf: object) -> object:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


@FUZZ
@given(_TREE)
def test_pack_fast_path_matches_check(obj: object) -> None:
    assert _outcome(lambda: wire.pack(obj)) == _outcome(lambda: _slow_pack(obj))


@FUZZ
@given(
    st.one_of(st.binary(max_size=40), _ENCODABLE.map(lambda t: msgpack.packb(t, use_bin_type=True)))
)
def test_unpack_fast_path_matches_check(data: bytes) -> None:
    got = _outcome(lambda: wire.unpack(data))
    if got[0] == "ok":
        assert got == _outcome(lambda: _slow_unpack(data))
    else:
        assert got[0] == "RemoteProtocolError"


@pytest.mark.parametrize("depth", range(wire.MAX_DEPTH - 1, wire.MAX_DEPTH + 3))
@pytest.mark.parametrize("leaf", [1, None, b"x", "s"])
def test_depth_limit_is_unchanged(depth: int, leaf: object) -> None:
    for obj in (_nested(depth, leaf), _nested(depth, []) if depth else []):
        assert _outcome(lambda o=obj: wire.pack(o)) == _outcome(lambda o=obj: _slow_pack(o))
        data = msgpack.packb(obj)
        assert _outcome(lambda d=data: wire.unpack(d)) == _outcome(lambda d=data: _slow_unpack(d))


@FUZZ
@given(st.lists(_ENCODABLE, min_size=1, max_size=4))
def test_canonical_on_stream_objects_matches_unpack(objs: list[object]) -> None:
    chunks = [msgpack.packb(o, use_bin_type=True) for o in objs]
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(b"".join(chunks))
    for chunk, obj in zip(chunks, unpacker, strict=True):
        got = _outcome(lambda o=obj, c=chunk: wire.canonical(o, c))
        assert got == _outcome(lambda c=chunk: wire.unpack(c))


def test_canonical_refuses_what_unpack_refuses() -> None:
    with pytest.raises(RemoteProtocolError, match="noncanonical"):
        wire.canonical(1, b"\xcc\x01")  # uint 8 for a fixint
    with pytest.raises(RemoteProtocolError, match="oversized"):
        wire.canonical(b"", b"\xc4\x00", limit=1)
    with pytest.raises(RemoteProtocolError, match="float"):
        wire.canonical(1.5, msgpack.packb(1.5))


def _signed_shapes() -> Any:
    body = st.binary(max_size=400)
    sig = st.binary(min_size=62, max_size=66)
    bin16 = st.tuples(body, sig).map(
        lambda t: (
            b"\x92\xc5" + len(t[0]).to_bytes(2, "big") + t[0] + b"\xc4" + bytes([len(t[1])]) + t[1]
        )
    )
    return st.one_of(
        st.binary(max_size=90),
        st.tuples(body, sig).map(lambda t: msgpack.packb(list(t))),
        st.tuples(body, sig, st.binary(min_size=1, max_size=2)).map(
            lambda t: msgpack.packb([t[0], t[1]]) + t[2]
        ),
        bin16,
        st.tuples(st.binary(min_size=1100, max_size=1300), sig).map(
            lambda t: msgpack.packb(list(t))
        ),
    )


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_signed_shapes())
def test_split_signed_only_where_unpack_agrees(raw: bytes) -> None:
    fast = messages._split_signed(raw)
    if fast is not None:
        assert _outcome(lambda: wire.unpack(raw)) == ("ok", fast)


def test_split_signed_takes_the_usual_message() -> None:
    body, sig = bytes(range(100)), bytes(64)
    raw = msgpack.packb([body, sig])
    assert messages._split_signed(raw) == [body, sig]
    long_body = bytes(300)
    assert messages._split_signed(msgpack.packb([long_body, sig])) == [long_body, sig]
    # bin 16 for a short body is not canonical: left to wire.unpack, which refuses it
    padded = b"\x92\xc5\x00\x64" + body + b"\xc4\x40" + sig
    assert messages._split_signed(padded) is None
    with pytest.raises(RemoteProtocolError, match="noncanonical"):
        messages.parse_unverified(padded)
