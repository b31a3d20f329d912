"""Garbage for the adversary's GARBAGE cheat and the decoder fuzz tests: link payloads
that are not valid session bundles, and datagrams that are not valid link frames.
Test code only (split out of tests.support.adversary)."""

from __future__ import annotations

import random

from lanTag import wire
from lanTag.net.frame import Frame, FrameType, encode
from lanTag.session.lockstep import Session
from lanTag.session.messages import SIGN_DOMAIN, pack_bundle

__all__ = ["garbage_datagrams", "garbage_payloads"]


def garbage_payloads(rng: random.Random, s: Session | None = None) -> list[bytes]:
    """Link payloads (delivered by a valid link) that are not valid session bundles."""
    out = [
        b"",
        b"\xc1",  # never-used msgpack byte
        b"\x93\x01\x02",  # an array, not of bins
        b"\x91\xc4\x00",  # a bundle of one empty message
        b"\xdc\x00\x01\xc4\x00",  # non-canonical array16
        b"\x91" + b"\x91" * 20 + b"\x00",  # nested too deep
        wire.pack([b"\x00" * 64]),
        wire.pack([wire.pack([b"x", b"y" * 64])]),
        bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 900))),
        b"\x91\xc5" + (3000).to_bytes(2, "big") + bytes(3000),  # one oversized message
        b"\xde\x00\x01\xa1a\x01",  # a map
        b"\x91\xcb" + bytes(8),  # a float
    ]
    if s is not None and s.seat is not None:
        # a well-signed-looking message with an unknown type and one of a wrong version
        body = wire.pack([1, 99, s.game_id, s.step, s.seat, bytes(32)])
        out.append(pack_bundle([wire.pack([body, bytes(64)])]))
        body = wire.pack([7, 1, s.game_id, s.step, s.seat, bytes(32), ["pass"]])
        out.append(pack_bundle([wire.pack([body, bytes(64)])]))
        out.append(SIGN_DOMAIN)
    return out


def garbage_datagrams(rng: random.Random) -> list[bytes]:
    """Raw datagrams that are not valid link frames: oversized, short, bad headers.

    (A *valid* frame with a new source epoch is not garbage to the link: it may be a
    restart of the peer at that address, believed once a frame names the receiver's
    epoch, i.e. after a return-routability challenge; see SPOOF and docs/NETWORK.md.)
    """
    out = [
        bytes(1201),
        bytes(rng.getrandbits(8) for _ in range(2000)),
        b"",
        b"L",
        bytes(29),
        encode(Frame(FrameType.DATA, 7, 0, 0, 0, 0, 5, 3, b"x")),  # fragment index >= count
        encode(Frame(FrameType.DATA, 7, 0, 0, 0, 0, 0, 0, b"x")),  # zero fragments
        encode(Frame(FrameType.ACK, 7, 0, 0, 0, 0)) + b"payload",
        encode(Frame(FrameType.ACK, 7, 0, 5, 0, 0)),  # an ACK with a sequence number
        encode(Frame(FrameType.PING, 0, 0, 0, 0, 0)),  # source epoch 0
        bytes([0x4C, 0x21]) + bytes(28),  # version 2
        bytes([0x4C, 0x1F]) + bytes(28),  # frame type 15
        bytes([0x00, 0x11]) + bytes(28),  # bad magic
    ]
    for _ in range(20):
        n = rng.randrange(1, 1200)
        data = bytes(rng.getrandbits(8) for _ in range(n))
        if data[:1] != b"L":
            out.append(data)
    return out
