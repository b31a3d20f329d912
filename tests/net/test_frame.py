"""The link wire format, and robustness of LinkLayer.receive_datagram against garbage."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lanTag.net.frame import (
    DATAGRAM_BUDGET,
    HEADER,
    MAX_CHUNK,
    SEQ_MOD,
    Frame,
    FrameType,
    MalformedFrame,
    decode,
    encode,
    unwrap,
)
from lanTag.net.link import LinkConfig, LinkLayer

PEER = ("10.9.0.1", 4000)
u32 = st.integers(0, SEQ_MOD - 1)


def test_header_is_30_bytes_and_starts_with_magic_and_version() -> None:
    data = encode(Frame(FrameType.ACK, 7, 9, 0, 3, 0b101))
    assert HEADER.size == 30 and len(data) == 30 and MAX_CHUNK == 1170
    assert data[0] == 0x4C and data[1] == 0x13  # version 1, type ACK
    assert struct.unpack("!II", data[2:10]) == (7, 9)


@settings(deadline=None)  # shared, noisy machine: no per-example time limit
@given(
    ftype=st.sampled_from(list(FrameType)),
    src=st.integers(1, SEQ_MOD - 1),
    dst=u32,
    seq=u32,
    ack=u32,
    sack=st.integers(0, 2**64 - 1),
    count=st.integers(1, 0xFFFF),
    payload=st.binary(max_size=MAX_CHUNK),
    data=st.data(),
)
def test_encode_decode_roundtrip(ftype, src, dst, seq, ack, sack, count, payload, data) -> None:  # type: ignore[no-untyped-def]
    if ftype is FrameType.DATA:
        index = data.draw(st.integers(0, count - 1))
        frame = Frame(ftype, src, dst, seq, ack, sack, index, count, payload)
    else:
        frame = Frame(ftype, src, dst, seq if ftype is FrameType.PING else 0, ack, sack)
    wire = encode(frame)
    assert len(wire) <= DATAGRAM_BUDGET
    assert decode(wire) == frame


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda d: d[:29], "short"),
        (lambda d: b"\x00" + d[1:], "magic"),
        (lambda d: d[:1] + b"\x21" + d[2:], "version"),
        (lambda d: d[:1] + b"\x1f" + d[2:], "type"),
        (lambda d: d[:2] + bytes(4) + d[6:], "epoch 0"),
        (lambda d: d[:26] + struct.pack("!HH", 3, 3) + d[30:], "fragment"),
        (lambda d: d[:26] + struct.pack("!HH", 0, 0) + d[30:], "fragment"),
        (lambda d: d + bytes(DATAGRAM_BUDGET), "oversized"),
    ],
)
def test_decode_rejects_with_a_reason(mutate, reason) -> None:  # type: ignore[no-untyped-def]
    good = encode(Frame(FrameType.DATA, 5, 0, 1, 0, 0, 0, 1, b"hi"))
    with pytest.raises(MalformedFrame, match=reason):
        decode(mutate(good))


def test_control_frames_may_not_carry_payload() -> None:
    ping = bytearray(encode(Frame(FrameType.PING, 5, 0, 1, 0, 0)))
    with pytest.raises(MalformedFrame):
        decode(bytes(ping) + b"x")
    ack = bytearray(encode(Frame(FrameType.ACK, 5, 0, 0, 0, 0)))
    ack[6:10] = struct.pack("!I", 0)  # dst may be 0, still fine
    decode(bytes(ack))
    ack[10:14] = struct.pack("!I", 4)  # but an ACK has no sequence number
    with pytest.raises(MalformedFrame):
        decode(bytes(ack))


@pytest.mark.parametrize(
    ("wire", "ref", "expected"),
    [
        (5, 3, 5),
        (1, 3, 1),
        (2, SEQ_MOD - 2, SEQ_MOD + 2),  # forward across the wrap
        (SEQ_MOD - 1, SEQ_MOD + 1, SEQ_MOD - 1),  # backward across the wrap
        (SEQ_MOD - 1, 0, -1),  # "before the start": reads as an old duplicate
        (7, 5 * SEQ_MOD + 3, 5 * SEQ_MOD + 7),
    ],
)
def test_unwrap(wire: int, ref: int, expected: int) -> None:
    assert unwrap(wire, ref) == expected


@settings(deadline=None)
@given(st.integers(0, 2**40), st.integers(-(2**31) + 1, 2**31 - 1))
def test_unwrap_inverts_wrapping_within_half_the_space(ref: int, delta: int) -> None:
    assert unwrap((ref + delta) % SEQ_MOD, ref) == ref + delta


def test_malformed_datagrams_are_counted_not_raised() -> None:
    layer = LinkLayer(1, LinkConfig(cookies=False))  # the good frame is a first contact
    good = encode(Frame(FrameType.DATA, 5, 0, 0, 0, 0, 0, 1, b"ok"))
    for bad in (b"", b"\x4c", good[:20], b"\xff" * 40, good[:1] + b"\x17" + good[2:]):
        assert layer.receive_datagram(bad, PEER, 0.0) == []
    assert layer.receive_datagram(bytes(DATAGRAM_BUDGET + 1), PEER, 0.0) == []
    stats = layer.stats
    assert (stats.dropped_malformed, stats.dropped_oversized, stats.received) == (5, 1, 0)
    assert layer.peers() == []  # garbage creates no link state
    assert layer.receive_datagram(good, PEER, 0.0) == [b"ok"]


def test_oversized_fragment_count_is_refused() -> None:
    layer = LinkLayer(1, LinkConfig(cookies=False))
    frame = Frame(FrameType.DATA, 5, 0, 0, 0, 0, 0, 0xFFFF, b"x")  # would be 76 MB
    assert layer.receive_datagram(encode(frame), PEER, 0.0) == []
    assert layer.stats.dropped_malformed == 1


def test_ack_of_never_sent_frames_is_refused() -> None:
    layer = LinkLayer(1)
    layer.send(PEER, b"a", 0.0)
    [(out, _)] = layer.datagrams_to_send(0.0)
    mine = decode(out).src_epoch
    bogus = Frame(FrameType.ACK, 5, mine, 0, 1000, 0)
    assert layer.receive_datagram(encode(bogus), PEER, 0.01) == []
    assert layer.stats.dropped_malformed == 1
    assert layer.stats.links[PEER].in_flight == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=1400), max_size=20))
def test_random_bytes_never_raise(datagrams: list[bytes]) -> None:
    layer = LinkLayer(1)
    for i, data in enumerate(datagrams):
        assert layer.receive_datagram(data, PEER, float(i)) == []
        layer.handle_timer(float(i))
        layer.datagrams_to_send(float(i))


def _valid_stream() -> list[bytes]:
    sender = LinkLayer(9)
    sender.send(PEER, bytes(range(256)) * 20, 0.0)
    sender.send(PEER, b"tail", 0.0)
    return [d for d, _ in sender.datagrams_to_send(0.0)]


STREAM = _valid_stream()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(STREAM) - 1),
            st.integers(0, DATAGRAM_BUDGET - 1),
            st.integers(0, 255),
        ),
        max_size=30,
    )
)
def test_mutated_valid_frames_never_raise(edits: list[tuple[int, int, int]]) -> None:
    layer = LinkLayer(1, LinkConfig(cookies=False))  # the stream's first frame binds a link
    now = 0.0
    undecodable = 0
    for which, pos, byte in edits:
        data = bytearray(STREAM[which])
        data[pos % len(data)] = byte
        try:
            decode(bytes(data))
        except MalformedFrame:
            undecodable += 1
        now += 0.01
        layer.receive_datagram(bytes(data), PEER, now)
        layer.handle_timer(now)
        layer.datagrams_to_send(now)
    for data in STREAM:
        layer.receive_datagram(data, PEER, now)
    stats = layer.stats
    # Every datagram is accounted for: a frame the decoder refuses is dropped as malformed,
    # every other one is taken in (and may still be dropped later, counted there too).
    assert stats.received == len(edits) + len(STREAM) - undecodable
    assert stats.dropped_malformed >= undecodable
    assert stats.dropped_oversized == stats.dropped_unknown == 0
    assert stats.links[PEER].peer_epoch is not None
