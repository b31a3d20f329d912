"""Peer identity: an Ed25519 key pair; fingerprint = short hash of the public key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

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
    """Caches loaded public keys; ``verify`` returns a bool, never raises on bad input."""

    def __init__(self) -> None:
        self._keys: dict[bytes, Ed25519PublicKey] = {}

    def verify(self, public_key: bytes, signature: bytes, data: bytes) -> bool:
        if not (
            isinstance(public_key, bytes)
            and isinstance(signature, bytes)
            and isinstance(data, bytes)
        ):
            return False  # (no generator: this runs once per message received)
        key = self._keys.get(public_key)
        if key is None:
            try:
                key = Ed25519PublicKey.from_public_bytes(public_key)
            except ValueError:
                return False
            self._keys[public_key] = key
        try:
            key.verify(signature, data)
        except (InvalidSignature, ValueError, TypeError):
            return False
        return True
