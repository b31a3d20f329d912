"""Per-seat hash chains: commit once to H^L(secret), reveal one preimage per draw.

The anchor H^L(secret) is fixed in the lobby record (so in the game id) before
the game starts.  Every later reveal r_i must satisfy H(r_i) == r_{i-1}, so
each contribution was fixed before anyone saw the others: a seat can withhold
(and be blamed) but cannot steer.  One message round per draw.
"""

from __future__ import annotations

import hashlib
import hmac

DOMAIN = b"lanTag/v1/chain\x00"
DEFAULT_LENGTH = 4096


def _h(data: bytes) -> bytes:
    return hashlib.sha256(DOMAIN + data).digest()


def chain_step_ok(previous: bytes, revealed: bytes) -> bool:
    """True when ``revealed`` is the next preimage after ``previous``."""
    return len(revealed) == 32 and hmac.compare_digest(_h(revealed), previous)


class HashChain:
    """The owner's side: all L+1 links, revealed from the anchor backwards."""

    def __init__(self, secret: bytes, length: int = DEFAULT_LENGTH) -> None:
        if len(secret) != 32 or length < 1:
            raise ValueError("a chain needs a 32-byte secret and a positive length")
        links = [secret]
        for _ in range(length):
            links.append(_h(links[-1]))
        links.reverse()  # links[0] is the anchor, links[i] is the i-th reveal
        self._links = links

    @property
    def anchor(self) -> bytes:
        return self._links[0]

    @property
    def length(self) -> int:
        return len(self._links) - 1

    def reveal(self, index: int) -> bytes:
        """The ``index``-th reveal (1-based); raises IndexError past the end."""
        if not 1 <= index <= self.length:
            raise IndexError(f"chain has {self.length} reveals, asked for #{index}")
        return self._links[index]
