"""Commitments to secret choices, bound to their game, step, seat and purpose.

c = SHA-256("lanTag/v1/commit" 0x00 ‖ game_id(32) ‖ u32be step ‖ u16be seat ‖
            u8 len(purpose) ‖ purpose ‖ nonce(32) ‖ value)
"""

from __future__ import annotations

import hashlib
import hmac
import struct

DOMAIN = b"lanTag/v1/commit\x00"
NONCE_SIZE = 32


def commitment(
    game_id: bytes, step: int, seat: int, purpose: str, nonce: bytes, value: bytes
) -> bytes:
    if len(game_id) != 32 or len(nonce) != NONCE_SIZE:
        raise ValueError("game id and nonce are 32 bytes each")
    tag = purpose.encode()
    if len(tag) > 255:
        raise ValueError("purpose too long")
    head = struct.pack(">IHB", step, seat, len(tag))
    return hashlib.sha256(DOMAIN + game_id + head + tag + nonce + value).digest()


def opens(
    commit: bytes, game_id: bytes, step: int, seat: int, purpose: str, nonce: bytes, value: bytes
) -> bool:
    """Constant-time check that (nonce, value) opens ``commit``; False on malformed input."""
    try:
        expected = commitment(game_id, step, seat, purpose, nonce, value)
        return hmac.compare_digest(expected, commit)
    except (ValueError, TypeError, AttributeError, struct.error):
        return False
