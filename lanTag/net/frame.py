"""The link datagram codec: a fixed 30-byte header and an optional payload.

Pure functions only.  The byte-by-byte layout is documented in docs/NETWORK.md;
``HEADER`` below is the single source of truth for it.  Link frames are not
signed: the session signs its own messages end-to-end, so this layer only has
to be robust against garbage, never trusted.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from lanTag.errors import LanTagError

__all__ = [
    "DATAGRAM_BUDGET",
    "HEADER",
    "MAGIC",
    "MAX_CHUNK",
    "SACK_BITS",
    "SEQ_MOD",
    "VERSION",
    "Frame",
    "FrameType",
    "MalformedFrame",
    "decode",
    "encode",
    "unwrap",
]

DATAGRAM_BUDGET = 1200
"""Largest datagram we send or accept: fits any sane LAN/VPN MTU without IP fragmentation."""

MAGIC = 0x4C  # 'L'
VERSION = 1

# magic, version<<4|type, src_epoch, dst_epoch, seq, ack, sack, frag_index, frag_count
HEADER = struct.Struct("!BBIIIIQHH")
MAX_CHUNK = DATAGRAM_BUDGET - HEADER.size
SACK_BITS = 64
SEQ_MOD = 1 << 32
_HALF = SEQ_MOD >> 1


class FrameType(enum.IntEnum):
    DATA = 1  # sequenced, carries one fragment of an application message
    PING = 2  # sequenced, empty: keepalive / liveness probe, acked like data
    ACK = 3  # unsequenced, carries only acknowledgement info


class MalformedFrame(LanTagError, ValueError):
    """A datagram that is not a well-formed link frame; the message says which rule failed."""


@dataclass(frozen=True, slots=True)
class Frame:
    type: FrameType
    src_epoch: int
    """The sender's link incarnation (never 0)."""
    dst_epoch: int
    """The sender's idea of the receiver's incarnation; 0 = not heard from it yet (ack invalid).

    Also the proof of return routability: a new ``src_epoch`` is believed only when
    this is the receiver's own epoch (see ``linkstate._TRANSITIONS``).
    """
    seq: int
    """Wire sequence number (mod 2**32) of a DATA/PING frame; 0 in an ACK."""
    ack: int
    """Cumulative ack (mod 2**32): every sequence number before it has been received."""
    sack: int
    """Bit i set: sequence number ack+1+i has been received (selective ack)."""
    frag_index: int = 0
    frag_count: int = 0
    payload: bytes = b""


def encode(frame: Frame) -> bytes:
    return (
        HEADER.pack(
            MAGIC,
            (VERSION << 4) | frame.type,
            frame.src_epoch,
            frame.dst_epoch,
            frame.seq,
            frame.ack,
            frame.sack,
            frame.frag_index,
            frame.frag_count,
        )
        + frame.payload
    )


def decode(data: bytes) -> Frame:
    """Parse and validate one datagram; raise :class:`MalformedFrame` on any violation."""
    if len(data) < HEADER.size:
        raise MalformedFrame(f"short datagram: {len(data)} < {HEADER.size} bytes")
    if len(data) > DATAGRAM_BUDGET:
        raise MalformedFrame(f"oversized datagram: {len(data)} > {DATAGRAM_BUDGET} bytes")
    magic, vt, src, dst, seq, ack, sack, index, count = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise MalformedFrame(f"bad magic 0x{magic:02x}")
    if vt >> 4 != VERSION:
        raise MalformedFrame(f"unsupported version {vt >> 4}")
    try:
        ftype = FrameType(vt & 0x0F)
    except ValueError:
        raise MalformedFrame(f"unknown frame type {vt & 0x0F}") from None
    if src == 0:
        raise MalformedFrame("source epoch 0 is reserved")
    payload = bytes(data[HEADER.size :])
    if ftype is FrameType.DATA:
        if count == 0 or index >= count:
            raise MalformedFrame(f"bad fragment {index}/{count}")
    elif payload or index or count:
        raise MalformedFrame(f"{ftype.name} frame carries payload or fragment info")
    if ftype is FrameType.ACK and seq != 0:
        raise MalformedFrame("ACK frame with a sequence number")
    return Frame(ftype, src, dst, seq, ack, sack, index, count, payload)


def unwrap(wire: int, reference: int) -> int:
    """The integer congruent to ``wire`` mod 2**32 that is nearest ``reference`` (RFC 1982).

    Sequence numbers are unbounded ints inside the link and only wrap on the
    wire, so comparisons never need serial arithmetic beyond this one place.
    """
    return reference + ((wire - reference + _HALF) % SEQ_MOD) - _HALF
