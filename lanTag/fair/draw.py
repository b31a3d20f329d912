"""Unbiased integers from a shared seed.

seed = SHA-256("lanTag/v1/draw" 0x00 ‖ game_id ‖ u32be step ‖ purpose-len ‖ purpose ‖
               for each contributing seat in ascending order: u16be seat ‖ reveal(32))
The stream is SHA-256(seed ‖ u32be counter) blocks read 4 bytes at a time;
``below(n)`` masks a u32 to the bit length of n-1 and rejects values >= n
(rejection sampling, no modulo bias).  Dice, picks and shuffles are built on
``below`` by lanTag.rules.playout.draw_values.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable

DOMAIN = b"lanTag/v1/draw\x00"


def draw_seed(
    game_id: bytes, step: int, purpose: str, reveals: Iterable[tuple[int, bytes]]
) -> bytes:
    tag = purpose.encode()
    parts = [DOMAIN, game_id, struct.pack(">IB", step, len(tag)), tag]
    for seat, reveal in sorted(reveals):
        parts.append(struct.pack(">H", seat) + reveal)
    return hashlib.sha256(b"".join(parts)).digest()


class DrawStream:
    """A deterministic stream of unbiased integers from one seed."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._buffer = b""
        self.words_used = 0

    def _u32(self) -> int:
        if len(self._buffer) < 4:
            block = hashlib.sha256(self._seed + struct.pack(">I", self._counter)).digest()
            self._counter += 1
            self._buffer += block
        word, self._buffer = self._buffer[:4], self._buffer[4:]
        self.words_used += 1
        return int.from_bytes(word, "big")

    def below(self, n: int) -> int:
        """Uniform integer in range(n), by rejection sampling."""
        if not 1 <= n <= 2**32:
            raise ValueError(f"cannot draw below {n}")
        if n == 1:
            return 0
        mask = (1 << (n - 1).bit_length()) - 1
        while True:
            value = self._u32() & mask
            if value < n:
                return value
