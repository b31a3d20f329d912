"""Commitments: bound to game, step, seat, purpose, nonce and value; never raise on bad input."""

from __future__ import annotations

import hashlib
import struct
from typing import Any

import pytest

from lanTag.fair.commit import DOMAIN, NONCE_SIZE, commitment, opens


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


GAME = _h("commit/game")
NONCE = _h("commit/nonce")
STEP, SEAT, PURPOSE, VALUE = 17, 2, "guess", b"\x92\xa5guess\x02"
FIELDS: dict[str, Any] = {
    "game_id": GAME,
    "step": STEP,
    "seat": SEAT,
    "purpose": PURPOSE,
    "nonce": NONCE,
    "value": VALUE,
}
COMMIT = commitment(GAME, STEP, SEAT, PURPOSE, NONCE, VALUE)


def _opens_with(**changes: Any) -> bool:
    fields = {**FIELDS, **changes}
    return opens(COMMIT, **fields)


def _spec_commitment(
    game_id: bytes, step: int, seat: int, purpose: str, nonce: bytes, value: bytes
) -> bytes:
    """The docstring's formula, written out independently of the code under test."""
    tag = purpose.encode("utf-8")
    data = (
        b"lanTag/v1/commit\x00"
        + game_id
        + step.to_bytes(4, "big")
        + seat.to_bytes(2, "big")
        + bytes([len(tag)])
        + tag
        + nonce
        + value
    )
    return hashlib.sha256(data).digest()


def test_domain_and_nonce_size_are_pinned() -> None:
    assert DOMAIN == b"lanTag/v1/commit\x00"
    assert NONCE_SIZE == 32


@pytest.mark.parametrize(
    ("step", "seat", "purpose", "value"),
    [
        (0, 0, "", b""),
        (STEP, SEAT, PURPOSE, VALUE),
        (2**32 - 1, 65535, "p" * 255, b"\x00" * 300),
        (5, 1, "défi ✓", b"v"),  # the length byte counts UTF-8 bytes, not characters
    ],
)
def test_commitment_matches_the_documented_formula(
    step: int, seat: int, purpose: str, value: bytes
) -> None:
    assert commitment(GAME, step, seat, purpose, NONCE, value) == _spec_commitment(
        GAME, step, seat, purpose, NONCE, value
    )


def test_commitment_is_32_bytes_and_deterministic() -> None:
    assert len(COMMIT) == 32
    assert commitment(GAME, STEP, SEAT, PURPOSE, NONCE, VALUE) == COMMIT


def test_the_true_opening_opens() -> None:
    assert opens(COMMIT, GAME, STEP, SEAT, PURPOSE, NONCE, VALUE)


@pytest.mark.parametrize(
    ("field", "other"),
    [
        ("game_id", _h("commit/other-game")),
        ("game_id", bytes(32)),
        ("step", STEP + 1),
        ("step", STEP - 1),
        ("step", 0),
        ("seat", SEAT + 1),
        ("seat", 0),
        ("purpose", "guess2"),
        ("purpose", "Guess"),
        ("purpose", ""),
        ("nonce", _h("commit/other-nonce")),
        ("nonce", bytes(32)),
        ("value", VALUE + b"\x00"),
        ("value", VALUE[:-1]),
        ("value", b"\x92\xa5guess\x01"),
        ("value", b""),
    ],
)
def test_changing_any_field_breaks_the_opening(field: str, other: Any) -> None:
    assert FIELDS[field] != other
    assert not _opens_with(**{field: other})


@pytest.mark.parametrize("field", ["game_id", "nonce", "value"])
def test_every_single_bit_of_the_byte_fields_is_bound(field: str) -> None:
    original: bytes = FIELDS[field]
    for i in range(len(original) * 8):
        flipped = bytearray(original)
        flipped[i // 8] ^= 1 << (i % 8)
        assert not _opens_with(**{field: bytes(flipped)}), f"{field} bit {i}"


def test_every_single_bit_of_the_commitment_is_checked() -> None:
    for i in range(256):
        flipped = bytearray(COMMIT)
        flipped[i // 8] ^= 1 << (i % 8)
        assert not opens(bytes(flipped), GAME, STEP, SEAT, PURPOSE, NONCE, VALUE)


def test_fields_cannot_slide_between_purpose_nonce_and_value() -> None:
    # The purpose is length-prefixed, so moving bytes across the purpose/nonce border fails.
    shifted_nonce = PURPOSE[-1].encode() + NONCE[:-1]
    shifted_value = NONCE[-1:] + VALUE
    assert not _opens_with(purpose=PURPOSE[:-1], nonce=shifted_nonce, value=shifted_value)
    # step and seat are fixed-width fields, so neighbouring values never collide.
    assert commitment(GAME, 1, 0, "", NONCE, b"") != commitment(GAME, 0, 1, "", NONCE, b"")
    assert commitment(GAME, 0, 256, "", NONCE, b"") != commitment(GAME, 0, 1, "", NONCE, b"")


@pytest.mark.parametrize(
    "changes",
    [
        {"game_id": GAME[:31]},
        {"game_id": GAME + b"\x00"},
        {"game_id": b""},
        {"nonce": NONCE[:31]},
        {"nonce": NONCE + b"\x00"},
        {"nonce": b""},
        {"step": -1},
        {"step": 2**32},
        {"seat": -1},
        {"seat": 65536},
        {"purpose": "p" * 256},
        {"purpose": "é" * 128},  # 256 UTF-8 bytes
        {"purpose": "\ud800"},  # a lone surrogate cannot be UTF-8 encoded
    ],
    ids=repr,
)
def test_malformed_inputs_return_false_without_raising(changes: dict[str, Any]) -> None:
    assert _opens_with(**changes) is False


@pytest.mark.parametrize("commit", [b"", COMMIT[:31], COMMIT + b"\x00", bytes(32)])
def test_malformed_commitments_do_not_open(commit: bytes) -> None:
    assert opens(commit, GAME, STEP, SEAT, PURPOSE, NONCE, VALUE) is False


def test_commitment_itself_rejects_malformed_inputs_with_value_error() -> None:
    with pytest.raises(ValueError, match=r"^game id and nonce are 32 bytes each$"):
        commitment(GAME[:31], STEP, SEAT, PURPOSE, NONCE, VALUE)
    with pytest.raises(ValueError, match=r"^game id and nonce are 32 bytes each$"):
        commitment(GAME, STEP, SEAT, PURPOSE, NONCE[:31], VALUE)
    with pytest.raises(ValueError, match=r"^purpose too long$"):
        commitment(GAME, STEP, SEAT, "p" * 256, NONCE, VALUE)
    with pytest.raises(struct.error):
        commitment(GAME, 2**32, SEAT, PURPOSE, NONCE, VALUE)


WRONG_TYPES: list[dict[str, Any]] = [
    {"commit": None},
    {"commit": COMMIT.hex()},
    {"game_id": None},
    {"purpose": b"guess"},
    {"value": "guess"},
    {"nonce": None},
]


def test_bug_opens_raises_on_wrong_typed_inputs() -> None:
    """BUG (low severity): opens() promises False on malformed input but raises on wrong types.

    Not reachable from the network today (parse_unverified checks the types first),
    but the docstring says "False on malformed input" and the brief says "never raise".
    """
    raised: list[str] = []
    for changes in WRONG_TYPES:
        args: dict[str, Any] = {"commit": COMMIT, **FIELDS, **changes}
        try:
            assert opens(**args) is False
        except Exception as exc:  # collect every case into one report
            raised.append(f"{changes!r:.40}: {type(exc).__name__}")
    assert not raised, raised
