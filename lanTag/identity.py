"""Peer identity: an Ed25519 key pair; fingerprint = short hash of the public key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from nacl.bindings import crypto_sign_open
from nacl.exceptions import CryptoError

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


def fingerprint(public_key: bytes) -> str:
    """First 8 bytes of SHA-256(public key), hex: what humans compare."""
    return hashlib.sha256(b"lanTag/v1/fingerprint\x00" + public_key).hexdigest()[:16]


@dataclass(frozen=True)
class Identity:
    """A signing identity.  ``seed`` is the 32-byte Ed25519 private key."""

    seed: bytes

    def __post_init__(self) -> None:
        if len(self.seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")

    @property
    def _key(self) -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(self.seed)

    @property
    def public_key(self) -> bytes:
        return self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def signer(self) -> Signer:
        return Signer(self._key)


class Signer:
    """Holds the loaded private key so signing a message costs one call."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)


class Verifier:
    """Ed25519 verification, strict (SPEC §2): ``verify`` returns a bool, never raises.

    libsodium's check (through PyNaCl), not OpenSSL's: it refuses what RFC 8032 leaves open
    -- a public key or an R of small order, a non-canonical key or S -- so no key can sign
    for every message (OpenSSL accepts R = identity, S = 0 under the identity key, for any
    message), and it is about twice as fast here (docs/BENCHMARKS.md 2c).  Signing stays
    with ``cryptography``; the signatures are the same standard Ed25519.
    """

    def verify(self, public_key: bytes, signature: bytes, data: bytes) -> bool:
        if not (
            isinstance(public_key, bytes)
            and isinstance(signature, bytes)
            and isinstance(data, bytes)
            and len(public_key) == PUBLIC_KEY_SIZE
            and len(signature) == SIGNATURE_SIZE
        ):
            return False  # (no generator: this runs once per message received)
        try:
            crypto_sign_open(signature + data, public_key)
        except (CryptoError, ValueError, TypeError):
            return False
        return True
