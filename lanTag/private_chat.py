"""Private chat: a message only one seat can read (alliances in stomptag).

No new keys are exchanged: a seat's X25519 key is derived from its Ed25519
identity (RFC 7748 §4.1 birational map for the public key; the clamped
SHA-512(seed) scalar for the private key, as Ed25519 itself uses).  The sender
makes an ephemeral X25519 key, derives a ChaCha20-Poly1305 key with HKDF over
the shared secret and both public keys, and signs the whole (the session's
signed PRIVATE message), so the recipient knows who wrote it and nobody else
can read it.  Private chat is never written to the game log.
"""

from __future__ import annotations

import hashlib
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from lanTag.errors import LanTagError

_P = 2**255 - 19
INFO = b"lanTag/v1/private-chat"
MAX_TEXT = 500


class PrivateChatError(LanTagError, ValueError):
    """A private message that does not decrypt (wrong recipient or tampered)."""


def x25519_public_from_ed25519(ed_public: bytes) -> bytes:
    """u = (1 + y) / (1 - y) mod p, from the Edwards y coordinate of the Ed25519 key."""
    if len(ed_public) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    y = int.from_bytes(ed_public, "little") & ((1 << 255) - 1)
    if y >= _P or y == 1:
        raise ValueError("not a usable Ed25519 public key")
    u = (1 + y) * pow(1 - y, _P - 2, _P) % _P
    return u.to_bytes(32, "little")


def x25519_private_from_ed25519(seed: bytes) -> X25519PrivateKey:
    """The scalar Ed25519 signs with, as an X25519 key (the library clamps it again)."""
    return X25519PrivateKey.from_private_bytes(hashlib.sha512(seed).digest()[:32])


def _key(shared: bytes, ephemeral: bytes, recipient: bytes) -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=ephemeral + recipient, info=INFO)
    return hkdf.derive(shared)


def seal(recipient_ed_public: bytes, text: str, aad: bytes) -> tuple[bytes, bytes, bytes]:
    """(ephemeral public key, nonce, ciphertext) readable only by the recipient's seat."""
    if len(text) > MAX_TEXT:
        raise ValueError(f"a private message holds at most {MAX_TEXT} characters")
    recipient = x25519_public_from_ed25519(recipient_ed_public)
    ephemeral = X25519PrivateKey.generate()
    eph_public = ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = ephemeral.exchange(X25519PublicKey.from_public_bytes(recipient))
    nonce = os.urandom(12)
    box = ChaCha20Poly1305(_key(shared, eph_public, recipient))
    return eph_public, nonce, box.encrypt(nonce, text.encode(), aad)


def open_sealed(seed: bytes, ephemeral: bytes, nonce: bytes, ciphertext: bytes, aad: bytes) -> str:
    """Decrypt with this seat's identity seed; PrivateChatError if it is not for us."""
    me = x25519_private_from_ed25519(seed)
    mine = me.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    try:
        shared = me.exchange(X25519PublicKey.from_public_bytes(ephemeral))
        plain = ChaCha20Poly1305(_key(shared, ephemeral, mine)).decrypt(nonce, ciphertext, aad)
        return plain.decode()
    except Exception as exc:  # InvalidTag, bad point, bad UTF-8: all mean "not for us"
        raise PrivateChatError("this private message does not open with our key") from exc
