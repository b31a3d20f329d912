"""parse_unverified's one-pass path returns exactly what the strict path returns.

``parse_unverified`` takes a well-formed message in one pass (``_parse_common``) and hands
anything else to ``_parse_strict``.  These tests hold the two to the same answer: the same
message, or the same error code and reason, for valid messages, for every single-bit flip
of each of them, and for generated bodies; and the parsed Action is built once and equal
to the one the payload describes.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import Identity
from lanTag.rules.base import Action
from lanTag.session import messages
from lanTag.session.messages import (
    PROTOCOL_VERSION,
    SIGN_DOMAIN,
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
)

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


KEY = Identity(_h("fastparse/key"))
GAME = _h("fastparse/game")
STATE = _h("fastparse/state")

PAYLOADS: dict[MsgType, tuple[Any, ...]] = {
    MsgType.MOVE: (["move", 3, 4],),
    MsgType.ENTROPY: (_h("r"),),
    MsgType.COMMIT: (_h("c"),),
    MsgType.REVEAL: (["rps", "rock"], _h("n"), _h("r"), _h("v")),
    MsgType.VOTE: ([0, 2], 3),
    MsgType.HAVE: (2, [_h("d0"), _h("d1")]),
    MsgType.CHAT: ("hi",),
    MsgType.NUDGE: ([1], 1),
    MsgType.SYNC: (7,),
    MsgType.PRIVATE: (2, _h("e"), b"\x01" * 12, b"\x02" * 40),
    MsgType.LEAVE: (),
    MsgType.SEAL: (),
    MsgType.REJOIN: (),
}


def _outcome(raw: bytes) -> tuple[str, Any]:
    try:
        return ("ok", parse_unverified(raw))
    except RemoteProtocolError as exc:
        return ("error", (exc.code, exc.message))


def _strict(raw: bytes) -> tuple[str, Any]:
    try:
        return ("ok", messages._parse_strict(raw))
    except RemoteProtocolError as exc:
        return ("error", (exc.code, exc.message))


def _same(raw: bytes) -> None:
    fast, strict = _outcome(raw), _strict(raw)
    assert fast == strict, raw.hex()
    if fast[0] == "ok":
        assert dataclasses.astuple(fast[1]) == dataclasses.astuple(strict[1])  # action too


def _sign(msg_type: MsgType, payload: tuple[Any, ...] | None = None) -> Signed:
    payload = PAYLOADS[msg_type] if payload is None else payload
    return sign_message(KEY.signer(), msg_type, GAME, 5, 1, STATE, payload)


def _raw_body(fields: list[Any]) -> bytes:
    body = msgpack.packb(fields, use_bin_type=True)  # not wire.pack: floats get through
    return wire.pack([body, KEY.signer().sign(SIGN_DOMAIN + body)])


@pytest.mark.parametrize("msg_type", list(MsgType), ids=lambda t: t.name)
def test_valid_message_same_on_both_paths(msg_type: MsgType) -> None:
    msg = _sign(msg_type)
    _same(msg.raw)
    assert messages._parse_common(msg.body, msg.signature, msg.raw) == msg  # one pass taken
    if msg_type in (MsgType.MOVE, MsgType.REVEAL):
        assert msg.parsed_action == Action.from_msgpack(PAYLOADS[msg_type][0])
        assert msg.action is msg.parsed_action  # built once, by the parser
    else:
        assert msg.parsed_action is None


@pytest.mark.parametrize("msg_type", list(MsgType), ids=lambda t: t.name)
def test_every_bit_flip_same_on_both_paths(msg_type: MsgType) -> None:
    raw = _sign(msg_type).raw
    for i in range(len(raw)):
        for mask in (0x01, 0x80):
            flipped = bytearray(raw)
            flipped[i] ^= mask
            _same(bytes(flipped))


@pytest.mark.parametrize(
    "payload",
    [
        (["move", True],),  # a bool where an int argument goes
        (["Move", 1],),  # not a word
        ([],),
        ("move",),
        (["move", 1.5],),
        (["move", [1]],),
        (["move", 1], b"extra"),
    ],
)
def test_bad_move_payloads_same_errors(payload: tuple[Any, ...]) -> None:
    raw = _raw_body([PROTOCOL_VERSION, int(MsgType.MOVE), GAME, 5, 1, STATE, *payload])
    _same(raw)
    assert _outcome(raw)[0] == "error"


@pytest.mark.parametrize(
    "payload",
    [
        (True, [_h("a")]),
        (2**32, [_h("a")]),
        (1, []),
        (1, [_h("a")] * 9),
        (1, [_h("a")[:31]]),
        (1, ["x" * 32]),
        (1, _h("a")),
        (1, [_h("a"), 3]),
    ],
)
def test_bad_have_payloads_same_errors(payload: tuple[Any, ...]) -> None:
    raw = _raw_body([PROTOCOL_VERSION, int(MsgType.HAVE), GAME, 5, 1, STATE, *payload])
    _same(raw)
    assert _outcome(raw)[0] == "error"


def test_non_canonical_body_is_still_refused() -> None:
    # step 5 as a 2-byte uint8 (cc 05) instead of a positive fixint: not canonical.
    good = wire.pack([PROTOCOL_VERSION, int(MsgType.SYNC), GAME, 5, 1, STATE, 7])
    bad = good.replace(bytes([0x05, 0x01]), bytes([0xCC, 0x05, 0x01]), 1)
    assert bad != good
    raw = wire.pack([bad, KEY.signer().sign(SIGN_DOMAIN + bad)])
    _same(raw)
    assert _outcome(raw) == ("error", ("noncanonical", "bytes are not in canonical form"))


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.binary(max_size=40)
    | st.sampled_from([b"\x00" * 32, _h("x"), "move", "rock"])
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4),
    max_leaves=8,
)


@FUZZ
@given(
    type_code=st.integers(0, 11),
    payload=st.lists(_VALUES, max_size=4),
    step=st.sampled_from([0, 5, 2**32, -1, True]),
)
def test_generated_bodies_same_on_both_paths(type_code: int, payload: list[Any], step: Any) -> None:
    raw = _raw_body([PROTOCOL_VERSION, type_code, GAME, step, 1, STATE, *payload])
    _same(raw)


@pytest.mark.parametrize(
    ("version", "fields", "ok"),
    [(5, 3, True), (5, 4, False), (6, 3, False), (6, 4, True), (6, 5, False)],
)
def test_a_reveal_names_its_vector_from_protocol_6_on(version: int, fields: int, ok: bool) -> None:
    """SPEC §3, §4.4: a protocol-6 REVEAL carries the vector of commitments its seat holds
    (a fourth field); an older one has three.  Both parsers agree, either way."""
    payload = (*PAYLOADS[MsgType.REVEAL], _h("more"))[:fields]
    body = wire.pack([version, int(MsgType.REVEAL), GAME, 5, 1, STATE, *payload])
    raw = wire.pack([body, KEY.signer().sign(SIGN_DOMAIN + body)])
    _same(raw)
    outcome = _outcome(raw)
    assert (outcome[0] == "ok") is ok, outcome
    if ok:
        assert messages.reveal_vector(outcome[1]) == (payload[3] if fields == 4 else None)
    else:
        assert outcome[1][0] == "malformed"
