"""Canonical strict msgpack: one encoding per value; anything else is a RemoteProtocolError."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanTag import wire
from lanTag.errors import RemoteProtocolError

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rejects(data: bytes, code: str, *, limit: int = wire.DATAGRAM_BUDGET) -> RemoteProtocolError:
    with pytest.raises(RemoteProtocolError) as info:
        wire.unpack(data, limit=limit)
    assert info.value.code == code, info.value
    return info.value


def same(a: object, b: object) -> bool:
    """Equality that also compares types (True != 1, b"a" != "a", tuple == list)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


# --------------------------------------------------------------------------- known encodings

KNOWN: list[tuple[object, str]] = [
    (None, "c0"),
    (False, "c2"),
    (True, "c3"),
    (0, "00"),
    (127, "7f"),
    (128, "cc80"),
    (255, "ccff"),
    (256, "cd0100"),
    (65536, "ce00010000"),
    (2**32, "cf0000000100000000"),
    (2**64 - 1, "cfffffffffffffffff"),
    (-1, "ff"),
    (-32, "e0"),
    (-33, "d0df"),
    (-129, "d1ff7f"),
    (-(2**63), "d38000000000000000"),
    ("", "a0"),
    ("a", "a161"),
    ("é", "a2c3a9"),
    ("x" * 32, "d920" + "78" * 32),
    (b"", "c400"),
    (b"a", "c40161"),
    (b"\x00" * 256, "c50100" + "00" * 256),
    ([], "90"),
    ([1, "a", b"a", None, True], "9501a161c40161c0c3"),
    (list(range(16)), "dc0010" + "".join(f"{i:02x}" for i in range(16))),
]


@pytest.mark.parametrize(("value", "hex_bytes"), KNOWN, ids=[h[:16] for _, h in KNOWN])
def test_known_canonical_encodings(value: object, hex_bytes: str) -> None:
    data = bytes.fromhex(hex_bytes)
    assert wire.pack(value) == data
    assert same(wire.unpack(data), value)


def test_tuples_pack_as_arrays_and_decode_as_lists() -> None:
    assert wire.pack((1, (2, 3))) == wire.pack([1, [2, 3]])
    assert wire.unpack(wire.pack((1, (2, 3)))) == [1, [2, 3]]


def test_look_alike_values_stay_distinct() -> None:
    looks: tuple[object, ...] = (True, 1, False, 0, None, "a", b"a", [], "", b"")
    encodings = [wire.pack(v) for v in looks]
    assert len(set(encodings)) == len(encodings)


@pytest.mark.parametrize(
    "value",
    [1.0, {"a": 1}, {1, 2}, 2**64, -(2**63) - 1, bytearray(b"x"), object()],
    ids=lambda v: type(v).__name__ if type(v) is object else repr(v),  # no address in the id
)
def test_pack_refuses_values_outside_the_canonical_subset(value: object) -> None:
    with pytest.raises(TypeError):
        wire.pack(value)


def test_pack_refuses_nesting_deeper_than_the_limit() -> None:
    value: list[Any] = []
    for _ in range(wire.MAX_DEPTH):
        value = [value]
    assert wire.unpack(wire.pack(value)) == value  # MAX_DEPTH + 1 arrays: still fine
    with pytest.raises(TypeError):
        wire.pack([value])


# --------------------------------------------------------------------------- must fail

NONCANONICAL = {
    "uint8 for a fixint": "cc01",
    "uint8 for zero": "cc00",
    "uint16 for a uint8": "cd00ff",
    "uint16 for a fixint": "cd0001",
    "uint32 for a uint16": "ce0000ffff",
    "uint64 for a uint32": "cf00000000ffffffff",
    "int8 for a positive fixint": "d001",
    "int8 for a negative fixint": "d0ff",
    "int16 for an int8": "d1ff80",
    "int32 for an int16": "d2ffff8000",
    "int64 for an int32": "d3ffffffff80000000",
    "int64 for a positive value": "d37fffffffffffffff",
    "int16 for a positive uint8": "d100ff",
    "str8 where fixstr fits": "d90161",
    "str8 for an empty string": "d900",
    "str16 where str8 fits": "da000161",
    "str32 where fixstr fits": "db0000000161",
    "bin16 where bin8 fits": "c5000161",
    "bin32 where bin8 fits": "c60000000161",
    "array16 where fixarray fits": "dc000101",
    "array32 where fixarray fits": "dd0000000101",
    "array16 for an empty array": "dc0000",
    "non-minimal int nested in an array": "9201cc02",
}

MALFORMED = {
    "float32": "ca3f800000",
    "float64": "cb3ff0000000000000",
    "float inside an array": "9201ca3f800000",
    "empty fixmap": "80",
    "fixmap": "810102",
    "map16": "de0000",
    "map inside an array": "91810102",
    "timestamp ext": "d6ff00000000",
    "invalid UTF-8 (lone continuation byte)": "a180",
    "invalid UTF-8 (0xff)": "a1ff",
    "invalid UTF-8 (overlong slash)": "a2c0af",
    "invalid UTF-8 (surrogate half)": "a3eda080",
    "truncated UTF-8": "a2c3",
    "trailing byte": "0102",
    "trailing nil after an array": "9101c0",
    "two messages back to back": "a161a162",
    "empty input": "",
    "reserved byte 0xc1": "c1",
    "truncated array": "9201",
    "truncated uint16": "cd01",
    "truncated bin8 body": "c40501",
    "truncated str8 length": "d9",
    "array32 claiming 2**32-1 items": "ddffffffff",
    "bin32 claiming 4 GiB": "c6ffffffff00",
    "nesting one level too deep": "91" * (wire.MAX_DEPTH + 1) + "90",
    "nesting far too deep": "91" * 1199 + "90",
}

EXT = {
    "fixext1": "d40100",
    "fixext4": "d60100000000",
    "ext8 empty": "c70005",
    "fixext1 inside an array": "92d40578c3",
    "ext8 with 3 bytes": "c70305616263",
}


@pytest.mark.parametrize("hex_bytes", list(NONCANONICAL.values()), ids=list(NONCANONICAL))
def test_noncanonical_bytes_are_rejected(hex_bytes: str) -> None:
    _rejects(bytes.fromhex(hex_bytes), "noncanonical")


@pytest.mark.parametrize("hex_bytes", list(MALFORMED.values()), ids=list(MALFORMED))
def test_malformed_bytes_are_rejected(hex_bytes: str) -> None:
    _rejects(bytes.fromhex(hex_bytes), "malformed")


def test_bug_ext_types_are_rejected() -> None:
    """BUG: msgpack decodes ext types to ExtType, a namedtuple; _check() accepts it as a tuple
    and it re-encodes to the same bytes, so unpack() returns ExtType instead of raising.
    """
    accepted = {}
    for name, hex_bytes in EXT.items():
        try:
            accepted[name] = wire.unpack(bytes.fromhex(hex_bytes))
        except RemoteProtocolError:
            continue
    assert not accepted, f"ext types decoded instead of rejected: {accepted}"


def test_bug_pack_refuses_ext_types() -> None:
    """BUG: pack(ExtType(...)) emits an ext type (the tuple check lets it through)."""
    with pytest.raises(TypeError):
        wire.pack(msgpack.ExtType(1, b"x"))


@pytest.mark.parametrize("data", ["c0", None, 1, [0xC0]], ids=repr)
def test_non_bytes_input_is_a_protocol_error(data: object) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        wire.unpack(data)  # type: ignore[arg-type]
    assert info.value.code == "malformed"


def test_bytearray_and_memoryview_inputs_are_accepted() -> None:
    assert wire.unpack(bytearray(b"\x92\x01\xc3")) == [1, True]  # type: ignore[arg-type]
    assert wire.unpack(memoryview(b"\x92\x01\xc3")) == [1, True]  # type: ignore[arg-type]


def test_payloads_over_the_datagram_budget_are_oversized() -> None:
    assert wire.DATAGRAM_BUDGET == 1200
    exactly = wire.pack(b"\x00" * (1200 - 3))  # bin16 header: 3 bytes
    assert len(exactly) == 1200
    assert wire.unpack(exactly) == b"\x00" * 1197
    over = wire.pack(b"\x00" * (1201 - 3))
    assert len(over) == 1201
    _rejects(over, "oversized")
    _rejects(b"\x00" * 5000, "oversized")  # the size check comes before any parsing


def test_the_limit_parameter_moves_the_budget() -> None:
    data = wire.pack(b"\x00" * 5000)
    assert wire.unpack(data, limit=len(data)) == b"\x00" * 5000
    _rejects(data, "oversized", limit=len(data) - 1)
    _rejects(b"\x01\x02", "oversized", limit=1)


def test_error_carries_code_and_message() -> None:
    err = _rejects(b"\xcc\x01", "noncanonical")
    assert err.message and str(err).startswith("noncanonical: ")


# --------------------------------------------------------------------------- property tests

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=40)
    | st.binary(max_size=40)
)
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=6), max_leaves=25)


def _depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@FUZZ
@given(values)
def test_round_trip_of_generated_values(value: object) -> None:
    if _depth(value) > wire.MAX_DEPTH + 1:
        with pytest.raises(TypeError):
            wire.pack(value)
        return
    data = wire.pack(value)
    decoded = wire.unpack(data, limit=len(data))
    assert same(decoded, value)
    assert wire.pack(decoded) == data


@FUZZ
@given(st.binary(max_size=64))
def test_unpack_of_random_bytes_only_returns_or_raises_protocol_errors(data: bytes) -> None:
    try:
        decoded = wire.unpack(data)
    except RemoteProtocolError as exc:
        assert exc.code in ("malformed", "noncanonical", "oversized")
        return
    assert wire.pack(decoded) == data  # whatever is accepted is canonical


@FUZZ
@given(values, st.data())
def test_unpack_of_mutated_encodings_only_returns_or_raises_protocol_errors(
    value: object, data: st.DataObject
) -> None:
    if _depth(value) > wire.MAX_DEPTH + 1:
        return
    buf = bytearray(wire.pack(value))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "insert", "delete", "set"]))
        pos = data.draw(st.integers(0, len(buf)))
        byte = data.draw(st.integers(0, 255))
        if op == "insert":
            buf.insert(pos, byte)
        elif buf and op == "delete":
            del buf[min(pos, len(buf) - 1)]
        elif buf and op == "flip":
            buf[min(pos, len(buf) - 1)] ^= 1 << (byte % 8)
        elif buf:
            buf[min(pos, len(buf) - 1)] = byte
    try:
        decoded = wire.unpack(bytes(buf), limit=10_000)
    except RemoteProtocolError:
        return
    assert wire.pack(decoded) == bytes(buf)
