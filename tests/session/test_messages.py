"""Signed lockstep messages: exact round trips, signatures over the domain, strict parsing."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import Identity, Verifier
from lanTag.session.messages import (
    HASH_SIZE,
    PROTOCOL_VERSION,
    SIGN_DOMAIN,
    MsgType,
    Signed,
    pack_bundle,
    parse_unverified,
    sign_message,
    unpack_bundle,
    verify_signature,
)

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


KEYS = [Identity(_h(f"messages/key/{i}")) for i in range(3)]
GAME = _h("messages/game")
STATE = _h("messages/state")
STEP, SEAT = 12, 1

PAYLOADS: dict[MsgType, tuple[Any, ...]] = {
    MsgType.MOVE: (["add", 2],),
    MsgType.ENTROPY: (_h("messages/reveal"),),
    MsgType.COMMIT: (_h("messages/commit"),),
    MsgType.REVEAL: (["guess", 1], _h("messages/nonce"), _h("messages/reveal"), _h("vector")),
    MsgType.VOTE: ([0, 2], 3),
    MsgType.HAVE: (2, [_h("messages/d0"), _h("messages/d1")]),
    MsgType.CHAT: ("hello, table ✓",),
    MsgType.NUDGE: ([1], 1),
    MsgType.SYNC: (7,),
    MsgType.PRIVATE: (2, _h("messages/eph"), b"\x01" * 12, b"\x02" * 40),
    MsgType.LEAVE: (),
    MsgType.SEAL: (),
    MsgType.REJOIN: (),
}


def _sign(
    msg_type: MsgType, payload: tuple[Any, ...] | None = None, *, seat: int = SEAT, step: int = STEP
) -> Signed:
    return sign_message(
        KEYS[seat].signer(),
        msg_type,
        GAME,
        step,
        seat,
        STATE,
        PAYLOADS[msg_type] if payload is None else payload,
    )


def _raw_from_fields(fields: list[Any], *, key: Identity = KEYS[SEAT]) -> bytes:
    """A correctly signed message around an arbitrary body (to test the shape checks)."""
    body = wire.pack(fields)
    return wire.pack([body, key.signer().sign(SIGN_DOMAIN + body)])


def _fields(msg_type: MsgType, payload: tuple[Any, ...] | None = None) -> list[Any]:
    payload = PAYLOADS[msg_type] if payload is None else payload
    return [PROTOCOL_VERSION, int(msg_type), GAME, STEP, SEAT, STATE, *payload]


def _parse_fails(raw: bytes, code: str) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        parse_unverified(raw)
    assert info.value.code == code, info.value


def _verifies(msg: Signed, seat: int = SEAT) -> bool:
    return verify_signature(msg, KEYS[seat].public_key, Verifier())


# --------------------------------------------------------------------------- round trips


def test_constants_are_pinned() -> None:
    assert PROTOCOL_VERSION == 6
    assert SIGN_DOMAIN == b"lanTag/v1/msg\x00"
    assert HASH_SIZE == 32
    assert [(t.name, int(t)) for t in MsgType] == [
        ("MOVE", 1),
        ("ENTROPY", 2),
        ("COMMIT", 3),
        ("REVEAL", 4),
        ("VOTE", 5),
        ("HAVE", 6),
        ("CHAT", 7),
        ("NUDGE", 8),
        ("SYNC", 9),
        ("PRIVATE", 10),
        ("LEAVE", 11),
        ("SEAL", 12),
        ("REJOIN", 13),
    ]


@pytest.mark.parametrize("msg_type", list(MsgType), ids=lambda t: t.name)
def test_sign_then_parse_round_trips_every_type(msg_type: MsgType) -> None:
    msg = _sign(msg_type)
    assert (msg.type, msg.game_id, msg.step, msg.seat, msg.state_hash) == (
        msg_type,
        GAME,
        STEP,
        SEAT,
        STATE,
    )
    assert msg.payload == PAYLOADS[msg_type]
    assert msg.body == wire.pack(_fields(msg_type))
    assert msg.raw == wire.pack([msg.body, msg.signature])
    assert len(msg.signature) == 64
    assert msg.digest == hashlib.sha256(msg.raw).digest()
    again = parse_unverified(msg.raw)
    assert again == msg
    assert _verifies(again)


def test_signing_is_deterministic() -> None:
    assert _sign(MsgType.MOVE).raw == _sign(MsgType.MOVE).raw


def test_slots_identify_what_must_not_change() -> None:
    assert _sign(MsgType.MOVE).slot[:3] == (STEP, 1, 0)
    assert _sign(MsgType.VOTE).slot[:3] == (STEP, 5, 3)  # one vote per sequence number
    assert _sign(MsgType.HAVE).slot[:3] == (STEP, 6, 2)  # one HAVE per subject seat
    # Two different moves for the same step share a slot: that is what makes equivocation.
    assert _sign(MsgType.MOVE, (["add", 1],)).slot == _sign(MsgType.MOVE).slot
    assert _sign(MsgType.MOVE, step=STEP + 1).slot != _sign(MsgType.MOVE).slot
    assert _sign(MsgType.VOTE, ([0], 4)).slot != _sign(MsgType.VOTE).slot
    assert _sign(MsgType.REVEAL).action.verb == "guess"


def test_bundles_round_trip_and_reject_non_bytes_items() -> None:
    raws = [_sign(t).raw for t in (MsgType.MOVE, MsgType.ENTROPY)]
    assert unpack_bundle(pack_bundle(raws), 64 * 1024) == raws
    for bad in ([1], [raws[0], "x"], raws[0]):
        with pytest.raises(RemoteProtocolError):
            unpack_bundle(wire.pack(bad), 64 * 1024)


# --------------------------------------------------------------------------- signatures


@pytest.mark.parametrize("msg_type", list(MsgType), ids=lambda t: t.name)
def test_any_flipped_body_or_signature_byte_fails_verification(msg_type: MsgType) -> None:
    msg = _sign(msg_type)
    verifier = Verifier()
    key = KEYS[SEAT].public_key
    for field in ("body", "signature"):
        original: bytes = getattr(msg, field)
        for i in range(len(original)):
            for mask in (0x01, 0x80):
                flipped = bytearray(original)
                flipped[i] ^= mask
                if field == "body":
                    forged = dataclasses.replace(msg, body=bytes(flipped))
                else:
                    forged = dataclasses.replace(msg, signature=bytes(flipped))
                assert not verify_signature(forged, key, verifier), f"{field}[{i}] ^ {mask}"


@pytest.mark.parametrize("msg_type", list(MsgType), ids=lambda t: t.name)
def test_flipping_any_byte_of_the_raw_message_is_caught(msg_type: MsgType) -> None:
    msg = _sign(msg_type)
    for i in range(len(msg.raw)):
        flipped = bytearray(msg.raw)
        flipped[i] ^= 0x01
        try:
            parsed = parse_unverified(bytes(flipped))
        except RemoteProtocolError:
            continue
        assert not _verifies(parsed), f"raw[{i}]"


def test_another_seats_key_does_not_verify() -> None:
    msg = _sign(MsgType.MOVE)
    assert _verifies(msg, SEAT)
    for other in (0, 2):
        assert not _verifies(msg, other)
    # Same body, signed by seat 2: verifies only with seat 2's key.
    raw = _raw_from_fields(_fields(MsgType.MOVE), key=KEYS[2])
    assert not _verifies(parse_unverified(raw), SEAT)
    assert _verifies(parse_unverified(raw), 2)


def test_signature_covers_the_domain_string() -> None:
    body = wire.pack(_fields(MsgType.MOVE))
    for signed_data in (
        body,
        b"lanTag/v1/msg" + body,
        b"lanTag/v1/chain\x00" + body,
        b"lanTag/v2/msg\x00" + body,
    ):
        raw = wire.pack([body, KEYS[SEAT].signer().sign(signed_data)])
        assert not _verifies(parse_unverified(raw)), signed_data[:16]
    raw = wire.pack([body, KEYS[SEAT].signer().sign(SIGN_DOMAIN + body)])
    assert _verifies(parse_unverified(raw))


def test_a_signature_cannot_be_moved_to_another_body() -> None:
    a, b = _sign(MsgType.MOVE), _sign(MsgType.MOVE, (["add", 1],))
    swapped = parse_unverified(wire.pack([b.body, a.signature]))
    assert not _verifies(swapped)


@pytest.mark.parametrize("public_key", [b"", b"\x00" * 31, b"\x00" * 33, b"\xff" * 32])
def test_malformed_public_keys_do_not_verify(public_key: bytes) -> None:
    assert not verify_signature(_sign(MsgType.MOVE), public_key, Verifier())


# --------------------------------------------------------------------------- strict parsing


@pytest.mark.parametrize("version", [0, 7, 255, -1, "1", b"\x01", None, [1]], ids=repr)
def test_unknown_versions_are_rejected(version: object) -> None:
    fields = _fields(MsgType.MOVE)
    fields[0] = version
    _parse_fails(_raw_from_fields(fields), "version")


@pytest.mark.parametrize("type_code", [0, 14, 255, 65536, -1, "1", b"\x01", None, [1]], ids=repr)
def test_unknown_types_are_rejected(type_code: object) -> None:
    fields = _fields(MsgType.MOVE)
    fields[1] = type_code
    _parse_fails(_raw_from_fields(fields), "unknown-type")


def test_boolean_true_is_not_version_1() -> None:
    """Regression: True == 1 in Python, so a body whose version is msgpack ``true`` (0xc3) once
    parsed as version 1: a second valid encoding of the same message, with another digest.
    """
    fields = _fields(MsgType.MOVE)
    fields[0] = True
    _parse_fails(_raw_from_fields(fields), "version")


def test_boolean_true_is_not_type_move() -> None:
    """Regression: ``MsgType(True)`` is ``MsgType.MOVE`` (True hashes and compares equal to 1)."""
    fields = _fields(MsgType.MOVE)
    fields[1] = True
    _parse_fails(_raw_from_fields(fields), "unknown-type")


HEADER_BAD: list[tuple[int, object]] = [
    (2, GAME[:31]),
    (2, GAME + b"\x00"),
    (2, b""),
    (2, "g" * 32),
    (2, None),
    (2, 0),
    (3, -1),
    (3, 2**32),
    (3, True),
    (3, "1"),
    (3, None),
    (3, b"\x01"),
    (4, -1),
    (4, 65536),
    (4, 2**32),
    (4, False),
    (4, "1"),
    (4, None),
    (5, STATE[:31]),
    (5, STATE + b"\x00"),
    (5, b""),
    (5, "s" * 32),
    (5, None),
    (5, [STATE]),
]


@pytest.mark.parametrize(("position", "value"), HEADER_BAD, ids=repr)
def test_bad_header_fields_are_malformed(position: int, value: object) -> None:
    fields = _fields(MsgType.MOVE)
    fields[position] = value
    _parse_fails(_raw_from_fields(fields), "malformed")


def test_header_field_limits_are_accepted() -> None:
    fields = _fields(MsgType.MOVE)
    fields[3], fields[4] = 2**32 - 1, 65535
    msg = parse_unverified(_raw_from_fields(fields))
    assert (msg.step, msg.seat) == (2**32 - 1, 65535)


BAD_ACTIONS: list[object] = [
    "add",
    [],
    [1],
    [None],
    ["Add", 1],
    ["1add"],
    ["add", True],
    ["add", b"x"],
    ["add", [1]],
    ["add", "Two"],
    ["add", "two words"],
    [""],
    b"add",
    7,
    None,
]
BAD_BYTES32: list[object] = [b"", bytes(31), bytes(33), "x" * 32, 5, None, [bytes(32)]]
BAD_SEAT_LISTS: list[object] = [[2, 0], [1, 1], [65536], [-1], [True], [0, "1"], "0", 5, None]
BAD_NATS: list[object] = [-1, 2**32, True, False, "1", None, b"\x01", [1]]
BAD_DIGESTS: list[object] = [
    [],
    [bytes(31)],
    [bytes(33)],
    [bytes(32)] * 9,
    bytes(32),
    [None],
    ["d" * 32],
    None,
]
BAD_TEXTS: list[object] = ["x" * 501, b"hi", 5, None, ["hi"]]

BAD_PAYLOADS: dict[MsgType, tuple[list[object], ...]] = {
    MsgType.MOVE: (BAD_ACTIONS,),
    MsgType.ENTROPY: (BAD_BYTES32,),
    MsgType.COMMIT: (BAD_BYTES32,),
    MsgType.REVEAL: (BAD_ACTIONS, BAD_BYTES32, BAD_BYTES32, BAD_BYTES32),
    MsgType.VOTE: (BAD_SEAT_LISTS, BAD_NATS),
    MsgType.HAVE: (BAD_NATS, BAD_DIGESTS),
    MsgType.CHAT: (BAD_TEXTS,),
    MsgType.NUDGE: (BAD_SEAT_LISTS, BAD_NATS),
    MsgType.SYNC: (BAD_NATS,),
    MsgType.PRIVATE: (
        BAD_NATS,
        BAD_BYTES32,
        [b"", b"\x00" * 11, "nonce", 12],
        [b"", b"\x00" * 15, "text", None],
    ),
}
PAYLOAD_CASES = [
    (t, pos, bad)
    for t, positions in BAD_PAYLOADS.items()
    for pos, bads in enumerate(positions)
    for bad in bads
]


@pytest.mark.parametrize(
    ("msg_type", "position", "bad"),
    PAYLOAD_CASES,
    ids=[f"{t.name}-{p}-{b!r:.20}" for t, p, b in PAYLOAD_CASES],
)
def test_wrong_payload_values_are_malformed(msg_type: MsgType, position: int, bad: object) -> None:
    payload = list(PAYLOADS[msg_type])
    payload[position] = bad
    _parse_fails(_raw_from_fields(_fields(msg_type, tuple(payload))), "malformed")


@pytest.mark.parametrize("msg_type", list(MsgType), ids=lambda t: t.name)
def test_missing_or_extra_payload_elements_are_malformed(msg_type: MsgType) -> None:
    payload = PAYLOADS[msg_type]
    if payload:  # LEAVE has no element to miss
        _parse_fails(_raw_from_fields(_fields(msg_type, payload[:-1])), "malformed")
    _parse_fails(_raw_from_fields(_fields(msg_type, (*payload, 0))), "malformed")


def test_payload_edge_values_are_accepted() -> None:
    ok = [
        (MsgType.CHAT, ("x" * 500,)),
        (MsgType.CHAT, ("",)),
        (MsgType.VOTE, ([], 0)),
        (MsgType.VOTE, ([0, 65535], 2**32 - 1)),
        (MsgType.HAVE, (0, [bytes(32)] * 8)),
        (MsgType.MOVE, (["pass"],)),
        (MsgType.MOVE, (["move", -3, "north", 2**40],)),
    ]
    for msg_type, payload in ok:
        assert parse_unverified(_sign(msg_type, payload).raw).payload == payload


def test_action_words_with_a_trailing_newline_are_rejected() -> None:
    """Regression: a ``$``-anchored word pattern also matches before a final newline, so the
    verb ``"add\\n"`` once passed the MOVE shape check (its text form does not parse back).
    """
    for bad in (["add\n", 1], ["add", "north\n"]):
        payload = (bad,)
        _parse_fails(_raw_from_fields(_fields(MsgType.MOVE, payload)), "malformed")


@pytest.mark.parametrize(
    "fields", [[], [1], [1, 1, GAME], [1, 1, GAME, 0, 0]], ids=lambda f: f"{len(f)}-fields"
)
def test_too_short_bodies_are_malformed(fields: list[Any]) -> None:
    _parse_fails(_raw_from_fields(fields), "malformed")


@pytest.mark.parametrize("body", [1, "body", None, b"", True])
def test_bodies_that_are_not_arrays_are_malformed(body: object) -> None:
    raw = wire.pack([wire.pack(body), bytes(64)])
    _parse_fails(raw, "malformed")


@pytest.mark.parametrize(
    "outer",
    [
        [],
        [b"body"],
        [b"body", bytes(64), b""],
        [b"body", bytes(63)],
        [b"body", bytes(65)],
        ["body", bytes(64)],
        [b"body", "s" * 64],
        [[1], bytes(64)],
        b"body",
        7,
    ],
    ids=repr,
)
def test_bad_outer_envelopes_are_malformed(outer: object) -> None:
    _parse_fails(wire.pack(outer), "malformed")


def test_noncanonical_body_or_envelope_is_rejected() -> None:
    msg = _sign(MsgType.MOVE)
    body = b"\x97\xcc\x06" + msg.body[2:]  # version 6 as uint8: same value, other bytes
    assert wire.unpack(msg.body)[0] == 6 and msg.body[1] == 0x06
    _parse_fails(wire.pack([body, msg.signature]), "noncanonical")
    n = len(msg.body)
    envelope = b"\x92\xc5" + n.to_bytes(2, "big") + msg.body + b"\xc4\x40" + msg.signature
    _parse_fails(envelope, "noncanonical")  # bin16 where bin8 fits
    _parse_fails(msg.raw + b"\xc0", "malformed")  # trailing bytes


def test_oversized_messages_are_rejected() -> None:
    raw = _raw_from_fields(_fields(MsgType.CHAT, ("x" * 500,)))
    assert len(raw) <= 1200
    big = wire.pack([b"\x00" * 1200, bytes(64)])
    _parse_fails(big, "oversized")


def test_garbage_is_malformed() -> None:
    for data in (b"", b"\xc1", b"\x92", b"hello"):
        with pytest.raises(RemoteProtocolError) as info:
            parse_unverified(data)
        assert info.value.code in ("malformed", "noncanonical")


# --------------------------------------------------------------------------- fuzz

SAMPLES = [_sign(t).raw for t in MsgType]


@FUZZ
@given(st.binary(max_size=300))
def test_parse_of_random_bytes_only_returns_or_raises_protocol_errors(data: bytes) -> None:
    with contextlib.suppress(RemoteProtocolError):
        parse_unverified(data)


@FUZZ
@given(
    st.sampled_from(SAMPLES),
    st.lists(
        st.tuples(
            st.integers(0, 10_000),
            st.integers(0, 255),
            st.sampled_from(["xor", "set", "ins", "del"]),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_mutated_messages_parse_strictly_and_never_verify(
    raw: bytes, edits: list[tuple[int, int, str]]
) -> None:
    buf = bytearray(raw)
    for pos, byte, op in edits:
        i = pos % (len(buf) + 1)
        if op == "ins":
            buf.insert(i, byte)
        elif buf and op == "del":
            del buf[i % len(buf)]
        elif buf and op == "xor":
            buf[i % len(buf)] ^= byte or 1
        elif buf:
            buf[i % len(buf)] = byte
    mutated = bytes(buf)
    try:
        msg = parse_unverified(mutated)
    except RemoteProtocolError:
        return
    assert msg.raw == mutated
    if mutated != raw:
        assert not any(verify_signature(msg, k.public_key, Verifier()) for k in KEYS)


@FUZZ
@given(
    st.lists(
        st.none()
        | st.booleans()
        | st.integers(-(2**63), 2**64 - 1)
        | st.binary(max_size=40)
        | st.text(max_size=20)
        | st.lists(st.integers(0, 70_000) | st.binary(max_size=33), max_size=3),
        max_size=10,
    )
)
def test_parse_of_random_bodies_only_returns_or_raises_protocol_errors(fields: list[Any]) -> None:
    try:
        raw = _raw_from_fields(fields)
    except RemoteProtocolError:
        return
    try:
        msg = parse_unverified(raw)
    except RemoteProtocolError:
        return
    assert _verifies(msg)


# ------------------------------------------------------------------- strict Ed25519 (SPEC §2)

_L = 2**252 + 27742317777372353535851937790883648493  # the order of Ed25519's base point
_IDENTITY = bytes([1]) + bytes(31)  # the neutral point, of order 1 (a small-order key)


@pytest.mark.parametrize("message", [b"", b"a MOVE", b"\x00" * 300])
def test_a_small_order_key_signs_nothing(message: bytes) -> None:
    # RFC 8032's equation holds for R = identity, S = 0 under the identity key, whatever the
    # message: OpenSSL accepts it, so anyone could sign as such a seat; SPEC §2 refuses it.
    assert not Verifier().verify(_IDENTITY, _IDENTITY + bytes(32), message)


def test_a_signature_whose_s_is_not_reduced_does_not_verify() -> None:
    body = b"lanTag strictness"
    good = KEYS[SEAT].signer().sign(body)
    s = int.from_bytes(good[32:], "little")
    malleable = good[:32] + (s + _L).to_bytes(32, "little")  # the same point equation
    assert Verifier().verify(KEYS[SEAT].public_key, good, body)
    assert not Verifier().verify(KEYS[SEAT].public_key, malleable, body)


@pytest.mark.parametrize("signature", [b"", b"\x00" * 63, b"\x00" * 65])
def test_a_signature_of_the_wrong_size_does_not_verify(signature: bytes) -> None:
    assert not Verifier().verify(KEYS[SEAT].public_key, signature, b"body")


def test_a_signature_cut_short_cannot_borrow_from_the_body() -> None:
    # libsodium reads a signed message as signature ‖ data: without the size check, the
    # signature's last byte moved to the front of the body would verify.
    body = b"\x93a body"
    good = KEYS[SEAT].signer().sign(body)
    assert not Verifier().verify(KEYS[SEAT].public_key, good[:63], good[63:] + body)
    assert not Verifier().verify(KEYS[SEAT].public_key, good + body[:1], body[1:])
