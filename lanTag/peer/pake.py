"""The password of a locked table, proven with SPAKE2 (protocol/SPEC.md §6).

Why a PAKE: protocol 2's proof, an HMAC keyed by a hash of the password, let anyone who
saw one honest join test passwords offline at two SHA-256 per guess.  With SPAKE2 each
side sends one group element blinded by the password; the key both derive needs one
side's ephemeral secret, so a transcript lets nobody test a password, and an active
guesser learns whether exactly one password is right per exchange with the host (which
the host rate-limits: guess_limit.py).  We use the ``spake2`` package (pure Python,
maintained, the one magic-wormhole uses; docs/SECURITY.md).

Both Ed25519 identity keys are bound to the PAKE key: the joiner's confirmation is an
HMAC under that key of a transcript holding the host key, the joiner key, the host's
challenge, both PAKE messages, the joiner's anchor, nickname and role, and the host's
seal on ``start`` covers that transcript and the game's record (so the game id).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from spake2 import SPAKE2_A, SPAKE2_B
from spake2.spake2 import SPAKEError

from lanTag import wire

PAKE_DOMAIN = b"lanTag/v3/pake\x00"
JOINER_ID = b"lanTag/v3/joiner"  # SPAKE2 identity of side A (the joiner's key is unknown yet)
PAKE_MESSAGE = 33  # bytes of a SPAKE2 message (side byte + Ed25519 group element)


def _password(password: str) -> bytes:
    return password.encode("utf-8")


def transcript(
    host_key: bytes,
    joiner_key: bytes,
    challenge: bytes,
    pake_a: bytes,
    pake_b: bytes,
    anchor: bytes,
    nickname: str,
    spectator: bool,
) -> bytes:
    """H(PAKE_DOMAIN ‖ canonical([...])): what both sides' confirmations are about."""
    body = wire.pack([host_key, joiner_key, challenge, pake_a, pake_b, anchor, nickname, spectator])
    return hashlib.sha256(PAKE_DOMAIN + body).digest()


def joiner_confirmation(key: bytes, transcript_hash: bytes) -> bytes:
    return hmac.new(key, b"joiner\x00" + transcript_hash, hashlib.sha256).digest()


def start_seal(key: bytes, transcript_hash: bytes, record: bytes) -> bytes:
    """The host's proof that it knew the password, binding the game's record (game id)."""
    record_hash = hashlib.sha256(record).digest()
    return hmac.new(key, b"host\x00" + transcript_hash + record_hash, hashlib.sha256).digest()


class HostPake:
    """The host's side (SPAKE2 side B) for one joiner: one message, one finish."""

    def __init__(
        self, password: str, host_key: bytes, random_bytes: Callable[[int], bytes]
    ) -> None:
        self._spake = SPAKE2_B(
            _password(password), idA=JOINER_ID, idB=host_key, entropy_f=random_bytes
        )
        self.message: bytes = self._spake.start()
        self.key: bytes | None = None

    def finish(self, pake_a: bytes) -> bytes | None:
        """The shared key from the joiner's message; None when it is no SPAKE2 message."""
        if self.key is not None:
            return self.key
        try:
            self.key = bytes(self._spake.finish(pake_a))
        except (SPAKEError, ValueError, AssertionError, TypeError):
            return None
        return self.key


def joiner_pake(
    password: str, host_key: bytes, pake_b: bytes, random_bytes: Callable[[int], bytes]
) -> tuple[bytes, bytes] | None:
    """The joiner's side (SPAKE2 side A): (its message, the shared key), or None when the
    host's message is no SPAKE2 message."""
    spake = SPAKE2_A(_password(password), idA=JOINER_ID, idB=host_key, entropy_f=random_bytes)
    message = spake.start()
    try:
        key = spake.finish(pake_b)
    except (SPAKEError, ValueError, AssertionError, TypeError):
        return None
    return bytes(message), bytes(key)
