#!/usr/bin/env python3
"""Write lanTag's golden protocol vectors to protocol/vectors/ (deterministic).

    /work/venv/bin/python scripts/gen_vectors.py            # (re)write every vector file
    /work/venv/bin/python scripts/gen_vectors.py --check    # exit 1 if a file would change

Every input is derived from SHA-256 of a fixed label and Ed25519 signing is
deterministic, so two runs write the same bytes.  Byte strings are lower-case hex.
Values whose msgpack type matters are written in a typed form:
``["nil"]``, ``["bool", b]``, ``["int", "decimal"]`` (a string: JSON numbers lose
precision above 2**53), ``["str", s]``, ``["bin", hex]``, ``["array", [typed...]]``.

Files: wire.json, messages.json, commit.json, chain.json, draws.json, lobby.json, log.json
and the binary logs toy_game.log (valid) and toy_game.<variant>.log (must fail).  The log
part runs a 3-peer game of the test-only "toy" engine (tests/session/toygame.py) through
the simulated network of tests/session/harness.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lanTag import wire  # noqa: E402
from lanTag.fair.chain import DOMAIN as CHAIN_DOMAIN  # noqa: E402
from lanTag.fair.chain import HashChain, chain_step_ok  # noqa: E402
from lanTag.fair.commit import DOMAIN as COMMIT_DOMAIN  # noqa: E402
from lanTag.fair.commit import commitment  # noqa: E402
from lanTag.fair.draw import DOMAIN as DRAW_DOMAIN  # noqa: E402
from lanTag.fair.draw import DrawStream, draw_seed  # noqa: E402
from lanTag.identity import Identity  # noqa: E402
from lanTag.log.chain import EntryKind, LogChain, parse_log  # noqa: E402
from lanTag.log.verify import VerifyReport, verify_log  # noqa: E402
from lanTag.rules.base import Die, Draw, Pick, Shuffle  # noqa: E402
from lanTag.rules.playout import draw_values  # noqa: E402
from lanTag.rules.registry import register_engine  # noqa: E402
from lanTag.session.lobby import GAME_DOMAIN, LobbyRecord, SeatRecord, Timeouts  # noqa: E402
from lanTag.session.messages import (  # noqa: E402
    PROTOCOL_VERSION,
    SIGN_DOMAIN,
    MsgType,
    pack_bundle,
    parse_unverified,
    sign_message,
)

OUT = ROOT / "protocol" / "vectors"
D6 = Die((1, 2, 3, 4, 5, 6))
PIECEPACK = Die((0, 1, 2, 3, 4, 5))


def h(label: str) -> bytes:
    """32 fixed bytes for a label."""
    return hashlib.sha256(b"lanTag/vectors/" + label.encode()).digest()


def typed(value: object) -> Any:
    if value is None:
        return ["nil"]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, bytes):
        return ["bin", value.hex()]
    if isinstance(value, list | tuple):
        return ["array", [typed(v) for v in value]]
    raise TypeError(f"cannot write {type(value).__name__}")


# --------------------------------------------------------------------------- (a) wire

WIRE_VALID: list[tuple[str, object]] = [
    ("nil", None),
    ("false", False),
    ("true", True),
    ("zero", 0),
    ("positive fixint max", 127),
    ("uint8 min", 128),
    ("uint8 max", 255),
    ("uint16 min", 256),
    ("uint16 max", 65535),
    ("uint32 min", 65536),
    ("uint32 max", 2**32 - 1),
    ("uint64 min", 2**32),
    ("uint64 max", 2**64 - 1),
    ("negative fixint -1", -1),
    ("negative fixint min", -32),
    ("int8 max negative", -33),
    ("int8 min", -128),
    ("int16 max negative", -129),
    ("int16 min", -32768),
    ("int32 max negative", -32769),
    ("int32 min", -(2**31)),
    ("int64 max negative", -(2**31) - 1),
    ("int64 min", -(2**63)),
    ("empty str", ""),
    ("fixstr", "a"),
    ("fixstr max", "x" * 31),
    ("str8 min", "x" * 32),
    ("str8 max", "x" * 255),
    ("str16 min", "x" * 256),
    ("utf-8 two-byte", "é"),
    ("utf-8 four-byte", "🎲"),
    ("utf-8 mixed", "tag ✓ du dé"),
    ("empty bin", b""),
    ("bin8 one byte", b"\x00"),
    ("bin8 32 bytes", bytes(range(32))),
    ("bin8 max", b"\xab" * 255),
    ("bin16 min", b"\xcd" * 256),
    ("empty array", []),
    ("mixed array", [1, "a", b"a", None, True, False, -1]),
    ("fixarray max", list(range(15))),
    ("array16 min", list(range(16))),
    ("nested arrays", [[1, [2, [3]]], []]),
    ("maximum depth", [[[[[[[[[]]]]]]]]]),
    ("look-alikes", [True, 1, "1", b"1", False, 0, None, ""]),
]


def _wire_must_fail() -> list[tuple[str, str, str]]:
    """(name, hex, expected code); the expected code comes from the spec, not from the code."""
    oversized = wire.pack(b"\x00" * (wire.DATAGRAM_BUDGET + 1 - 3))
    return [
        ("uint8 for a fixint", "cc01", "noncanonical"),
        ("uint16 for a uint8", "cd00ff", "noncanonical"),
        ("uint32 for a uint16", "ce0000ffff", "noncanonical"),
        ("uint64 for a uint32", "cf00000000ffffffff", "noncanonical"),
        ("int8 for a positive fixint", "d001", "noncanonical"),
        ("int8 for a negative fixint", "d0ff", "noncanonical"),
        ("int16 for an int8", "d1ff80", "noncanonical"),
        ("int32 for an int16", "d2ffff8000", "noncanonical"),
        ("int64 for a positive value", "d37fffffffffffffff", "noncanonical"),
        ("str8 where fixstr fits", "d90161", "noncanonical"),
        ("str16 where str8 fits", "da000161", "noncanonical"),
        ("bin16 where bin8 fits", "c5000161", "noncanonical"),
        ("bin32 where bin8 fits", "c60000000161", "noncanonical"),
        ("array16 where fixarray fits", "dc000101", "noncanonical"),
        ("array32 where fixarray fits", "dd0000000101", "noncanonical"),
        ("non-minimal int inside an array", "9201cc02", "noncanonical"),
        ("float32", "ca3f800000", "malformed"),
        ("float64", "cb3ff0000000000000", "malformed"),
        ("empty map", "80", "malformed"),
        ("map", "810102", "malformed"),
        ("map inside an array", "91810102", "malformed"),
        ("ext: fixext1", "d40100", "malformed"),
        ("ext: fixext4", "d60100000000", "malformed"),
        ("ext: ext8", "c70305616263", "malformed"),
        ("ext: inside an array", "92d40578c3", "malformed"),
        ("ext: timestamp", "d6ff00000000", "malformed"),
        ("invalid UTF-8: continuation byte", "a180", "malformed"),
        ("invalid UTF-8: 0xff", "a1ff", "malformed"),
        ("invalid UTF-8: overlong", "a2c0af", "malformed"),
        ("invalid UTF-8: surrogate half", "a3eda080", "malformed"),
        ("trailing bytes", "0102", "malformed"),
        ("empty input", "", "malformed"),
        ("reserved byte 0xc1", "c1", "malformed"),
        ("truncated array", "9201", "malformed"),
        ("truncated bin8", "c40501", "malformed"),
        ("nesting one level too deep", "91" * (wire.MAX_DEPTH + 1) + "90", "malformed"),
        ("nesting far too deep", "91" * 1199 + "90", "malformed"),
        ("oversized (1201 bytes)", oversized.hex(), "oversized"),
    ]


def wire_vectors() -> dict[str, Any]:
    return {
        "about": "Canonical msgpack: pack(value) == hex and unpack(hex) == value; must_fail: "
        "unpack raises RemoteProtocolError with `code`.",
        "datagram_budget": wire.DATAGRAM_BUDGET,
        "max_depth": wire.MAX_DEPTH,
        "valid": [
            {"name": name, "value": typed(value), "hex": wire.pack(value).hex()}
            for name, value in WIRE_VALID
        ],
        "must_fail": [
            {"name": name, "hex": hex_bytes, "code": code}
            for name, hex_bytes, code in _wire_must_fail()
        ],
    }


# --------------------------------------------------------------------------- (b) messages

MSG_GAME = h("messages/game")
MSG_STATE = h("messages/state-hash")
MSG_STEP = 7


def _key(seat: int) -> Identity:
    return Identity(h(f"messages/key/{seat}"))


MSG_SAMPLES: list[tuple[str, MsgType, int, tuple[Any, ...]]] = [
    ("move", MsgType.MOVE, 0, (["add", 2],)),
    ("move with words and negative ints", MsgType.MOVE, 2, (["move", "north", -3, 1000],)),
    ("entropy", MsgType.ENTROPY, 1, (h("messages/reveal/1"),)),
    ("commit", MsgType.COMMIT, 2, (h("messages/commitment/2"),)),
    ("reveal", MsgType.REVEAL, 2, (["guess", 1], h("messages/nonce/2"), h("messages/reveal/2"))),
    ("vote", MsgType.VOTE, 0, ([1, 2], 1)),
    ("vote with no silent seat", MsgType.VOTE, 1, ([], 3)),
    ("have", MsgType.HAVE, 1, (0, [h("messages/digest/0"), h("messages/digest/1")])),
    ("chat", MsgType.CHAT, 0, ("hello, table ✓",)),
    ("nudge", MsgType.NUDGE, 2, ([0], 1)),
    ("sync", MsgType.SYNC, 1, (12,)),
    ("private", MsgType.PRIVATE, 0, (1, h("messages/eph"), b"\x07" * 12, b"\x08" * 48)),
]


def _signed_raw(fields: list[Any], seat: int = 0, *, domain: bytes = SIGN_DOMAIN) -> bytes:
    body = wire.pack(fields)
    return wire.pack([body, _key(seat).signer().sign(domain + body)])


def _fields(msg_type: MsgType, seat: int, payload: tuple[Any, ...]) -> list[Any]:
    return [PROTOCOL_VERSION, int(msg_type), MSG_GAME, MSG_STEP, seat, MSG_STATE, *payload]


def _message_must_fail() -> list[tuple[str, bytes, str]]:
    move = _fields(MsgType.MOVE, 0, (["add", 2],))

    def with_field(position: int, value: object) -> bytes:
        fields = list(move)
        fields[position] = value
        return _signed_raw(fields)

    good = parse_unverified(_signed_raw(move))
    noncanonical_body = b"\x97\xcc\x01" + good.body[2:]
    return [
        ("version 0", with_field(0, 0), "version"),
        ("version 2", with_field(0, 2), "version"),
        ("version as the string '1'", with_field(0, "1"), "version"),
        ("version as boolean true", with_field(0, True), "version"),
        ("type 0", with_field(1, 0), "unknown-type"),
        ("type 11", with_field(1, 11), "unknown-type"),
        ("type as boolean true", with_field(1, True), "unknown-type"),
        ("type as a string", with_field(1, "1"), "unknown-type"),
        ("31-byte game id", with_field(2, MSG_GAME[:31]), "malformed"),
        ("game id as str", with_field(2, "g" * 32), "malformed"),
        ("step 2**32", with_field(3, 2**32), "malformed"),
        ("negative step", with_field(3, -1), "malformed"),
        ("step as boolean", with_field(3, False), "malformed"),
        ("seat 65536", with_field(4, 65536), "malformed"),
        ("33-byte state hash", with_field(5, MSG_STATE + b"\x00"), "malformed"),
        ("body with 5 fields", _signed_raw(move[:5]), "malformed"),
        ("MOVE without its action", _signed_raw(move[:6]), "malformed"),
        ("MOVE with an extra field", _signed_raw([*move, 0]), "malformed"),
        ("MOVE with a capitalised verb", with_field(6, ["Add", 2]), "malformed"),
        ("MOVE with a boolean argument", with_field(6, ["add", True]), "malformed"),
        ("MOVE verb with a trailing newline", with_field(6, ["add\n", 2]), "malformed"),
        (
            "ENTROPY with a 31-byte reveal",
            _signed_raw(_fields(MsgType.ENTROPY, 0, (bytes(31),))),
            "malformed",
        ),
        (
            "REVEAL without its chain reveal",
            _signed_raw(_fields(MsgType.REVEAL, 0, (["guess", 1], bytes(32)))),
            "malformed",
        ),
        (
            "VOTE with unsorted seats",
            _signed_raw(_fields(MsgType.VOTE, 0, ([2, 1], 1))),
            "malformed",
        ),
        (
            "VOTE with a duplicate seat",
            _signed_raw(_fields(MsgType.VOTE, 0, ([1, 1], 1))),
            "malformed",
        ),
        (
            "HAVE with 9 digests",
            _signed_raw(_fields(MsgType.HAVE, 0, (1, [bytes(32)] * 9))),
            "malformed",
        ),
        ("HAVE with no digest", _signed_raw(_fields(MsgType.HAVE, 0, (1, []))), "malformed"),
        (
            "CHAT of 501 characters",
            _signed_raw(_fields(MsgType.CHAT, 0, ("x" * 501,))),
            "malformed",
        ),
        ("63-byte signature", wire.pack([good.body, good.signature[:63]]), "malformed"),
        ("three-element envelope", wire.pack([good.body, good.signature, b""]), "malformed"),
        ("body is not an array", wire.pack([wire.pack(1), good.signature]), "malformed"),
        ("trailing byte after the envelope", good.raw + b"\xc0", "malformed"),
        (
            "non-canonical body (version as uint8)",
            wire.pack([noncanonical_body, good.signature]),
            "noncanonical",
        ),
        ("oversized envelope", wire.pack([b"\x00" * 1200, good.signature]), "oversized"),
    ]


def message_vectors() -> dict[str, Any]:
    keys = [_key(s) for s in range(3)]
    messages = []
    for name, msg_type, seat, payload in MSG_SAMPLES:
        msg = sign_message(
            keys[seat].signer(), msg_type, MSG_GAME, MSG_STEP, seat, MSG_STATE, payload
        )
        messages.append(
            {
                "name": name,
                "type": msg_type.name,
                "seat": seat,
                "key_seed": keys[seat].seed.hex(),
                "public_key": keys[seat].public_key.hex(),
                "fingerprint": keys[seat].fingerprint,
                "fields": typed(_fields(msg_type, seat, payload)),
                "body": msg.body.hex(),
                "signature": msg.signature.hex(),
                "signed_message": msg.raw.hex(),
                "digest": msg.digest.hex(),
            }
        )
    move = _fields(MsgType.MOVE, 0, (["add", 2],))
    good = parse_unverified(_signed_raw(move))
    flipped_sig = bytearray(good.signature)
    flipped_sig[10] ^= 0x01
    flipped_body = bytearray(good.body)
    flipped_body[5] ^= 0x01  # inside the game id: still parses
    not_verifying = [
        ("signature over the bare body (no domain)", _signed_raw(move, domain=b""), 0),
        ("signature under the chain domain", _signed_raw(move, domain=CHAIN_DOMAIN), 0),
        ("signed by seat 1, checked with seat 0's key", _signed_raw(move, 1), 0),
        ("flipped signature byte", wire.pack([good.body, bytes(flipped_sig)]), 0),
        ("flipped body byte", wire.pack([bytes(flipped_body), good.signature]), 0),
    ]
    return {
        "about": "Signed messages: raw = pack([body, signature]), body = pack(fields), "
        "signature = Ed25519(key_seed, sign_domain || body).  must_fail: parse_unverified "
        "raises RemoteProtocolError(code); must_not_verify: parses, but the signature does "
        "not verify under public_key.  fingerprint = first 16 hex digits of "
        "SHA-256('lanTag/v1/fingerprint' 0x00 || public_key); bundle = pack([signed...]).",
        "protocol_version": PROTOCOL_VERSION,
        "sign_domain": SIGN_DOMAIN.hex(),
        "types": {t.name: int(t) for t in MsgType},
        "messages": messages,
        "bundle": {
            "messages": [m["name"] for m in messages[:3]],
            "hex": pack_bundle([bytes.fromhex(m["signed_message"]) for m in messages[:3]]).hex(),
        },
        "must_fail": [
            {"name": name, "hex": raw.hex(), "code": code}
            for name, raw, code in _message_must_fail()
        ],
        "must_not_verify": [
            {"name": name, "hex": raw.hex(), "public_key": keys[seat].public_key.hex()}
            for name, raw, seat in not_verifying
        ],
    }


# --------------------------------------------------------------------------- (c) commitments

COMMIT_CASES: list[tuple[str, int, int, str, bytes]] = [
    ("guess action", 5, 0, "guess", wire.pack(["guess", 2])),
    ("empty purpose and value", 0, 1, "", b""),
    ("largest step and seat", 2**32 - 1, 65535, "bid", wire.pack(["bid", 7])),
    ("non-ascii purpose (length counts UTF-8 bytes)", 12, 3, "ordre ✓", b"\x01\x02"),
    ("255-byte purpose", 1, 2, "p" * 255, b"v" * 100),
]


def commit_vectors() -> dict[str, Any]:
    game = h("commit/game")
    cases: list[dict[str, Any]] = []
    for k, (name, step, seat, purpose, value) in enumerate(COMMIT_CASES):
        nonce = h(f"commit/nonce/{k}")
        cases.append(
            {
                "name": name,
                "game_id": game.hex(),
                "step": step,
                "seat": seat,
                "purpose": purpose,
                "nonce": nonce.hex(),
                "value": value.hex(),
                "commitment": commitment(game, step, seat, purpose, nonce, value).hex(),
            }
        )
    base = cases[0]
    changes: list[tuple[str, dict[str, Any]]] = [
        ("other game", {"game_id": h("commit/other-game").hex()}),
        ("next step", {"step": base["step"] + 1}),
        ("other seat", {"seat": 1}),
        ("other purpose", {"purpose": "guesS"}),
        ("other nonce", {"nonce": h("commit/other-nonce").hex()}),
        ("other value", {"value": wire.pack(["guess", 1]).hex()}),
        ("31-byte nonce", {"nonce": base["nonce"][:62]}),
        ("31-byte game id", {"game_id": base["game_id"][:62]}),
        ("256-byte purpose", {"purpose": "p" * 256}),
        ("step 2**32", {"step": 2**32}),
    ]
    return {
        "about": "c = SHA-256(domain || game_id || u32be step || u16be seat || u8 len(purpose) "
        "|| purpose (UTF-8) || nonce || value).  must_not_open: opens(base commitment, "
        "changed inputs) is False and does not raise.",
        "domain": COMMIT_DOMAIN.hex(),
        "cases": cases,
        "must_not_open": [
            {"name": name, "commitment": base["commitment"], "inputs": {**base, **change}}
            for name, change in changes
        ],
    }


# --------------------------------------------------------------------------- (d) hash chains


def chain_vectors() -> dict[str, Any]:
    cases = []
    for name, length, shown in (("short", 8, 8), ("toy game length", 256, 5), ("default", 4096, 5)):
        secret = h(f"chain/secret/{name}")
        chain = HashChain(secret, length)
        cases.append(
            {
                "name": name,
                "secret": secret.hex(),
                "length": length,
                "anchor": chain.anchor.hex(),
                "reveals": [chain.reveal(i).hex() for i in range(1, shown + 1)],
                "last_reveal": chain.reveal(length).hex(),
            }
        )
    short = HashChain(h("chain/secret/short"), 8)
    bad = [
        ("skipped link", short.anchor, short.reveal(2)),
        ("reused link", short.reveal(1), short.reveal(1)),
        ("backwards", short.reveal(2), short.anchor),
        ("forged", short.reveal(1), h("chain/forged")),
        ("31-byte reveal", short.anchor, short.reveal(1)[:31]),
    ]
    for name, previous, revealed in bad:
        assert not chain_step_ok(previous, revealed), name
    return {
        "about": "anchor = H^length(secret), H(x) = SHA-256(domain || x); reveal i (1-based) "
        "satisfies H(reveal i) == reveal i-1 (reveal 0 = anchor); the last reveal is the "
        "secret.  must_not_follow: chain_step_ok(previous, revealed) is False.",
        "domain": CHAIN_DOMAIN.hex(),
        "cases": cases,
        "must_not_follow": [
            {"name": name, "previous": p.hex(), "revealed": r.hex()} for name, p, r in bad
        ],
    }


# --------------------------------------------------------------------------- (e) draws

DRAW_KINDS: list[tuple[str, Draw]] = [
    ("d6", D6),
    ("piecepack", PIECEPACK),
    ("pick7", Pick(7)),
    ("shuffle5", Shuffle(5)),
]


def _sequence(seed: bytes, draw: Draw, count: int = 20) -> dict[str, Any]:
    stream = DrawStream(seed)
    values = [list(draw_values(draw, stream.below)) for _ in range(count)]
    flat: list[Any] = values if isinstance(draw, Shuffle) else [v[0] for v in values]
    return {"values": flat, "words_used": stream.words_used}


def draw_vectors() -> dict[str, Any]:
    chains = [HashChain(h(f"draws/chain/{s}"), 16) for s in range(3)]
    cases_in: list[tuple[str, bytes, int, str, list[tuple[int, bytes]]]] = [
        (
            "three seats, first reveals",
            h("draws/game"),
            0,
            "bonus",
            [(s, c.reveal(1)) for s, c in enumerate(chains)],
        ),
        (
            "reveals listed out of seat order",
            h("draws/game"),
            9,
            "die roll for p1",
            [(2, chains[2].reveal(2)), (0, chains[0].reveal(2)), (1, chains[1].reveal(2))],
        ),
        (
            "two seats (one dropped)",
            h("draws/game"),
            10,
            "bonus",
            [(0, chains[0].reveal(3)), (2, chains[2].reveal(3))],
        ),
        ("no reveals (replicated bot turn)", h("draws/game"), 3, "bot-turn/4", []),
        (
            "non-ascii purpose, large step",
            h("draws/other-game"),
            2**32 - 1,
            "tirage ✓",
            [(7, h("draws/loose/7")), (65535, h("draws/loose/65535"))],
        ),
    ]
    cases = []
    for name, game, step, purpose, reveals in cases_in:
        seed = draw_seed(game, step, purpose, reveals)
        stream = DrawStream(seed)
        awkward = [stream.below(2**31 + 1) for _ in range(10)]
        case: dict[str, Any] = {
            "name": name,
            "game_id": game.hex(),
            "step": step,
            "purpose": purpose,
            "reveals": [[seat, r.hex()] for seat, r in reveals],
            "seed": seed.hex(),
            "below_2_31_plus_1": {"values": awkward, "words_used": stream.words_used},
        }
        for kind, draw in DRAW_KINDS:
            case[kind] = _sequence(seed, draw)
        cases.append(case)
    return {
        "about": "seed = SHA-256(domain || game_id || u32be step || u8 len(purpose) || purpose "
        "|| for each reveal in ascending seat order: u16be seat || reveal).  Stream words: "
        "SHA-256(seed || u32be counter) blocks read 4 bytes at a time, big-endian.  below(n): "
        "mask a word to the bit length of n-1, reject values >= n.  Each sequence starts from "
        "a fresh stream on the seed: d6 = faces 1..6, piecepack = faces 0..5 (face = "
        "faces[below(6)]), pick7 = below(7), shuffle5 = Fisher-Yates (i from n-1 down to 1, "
        "j = below(i+1), swap), below_2_31_plus_1 = below(2**31 + 1) ten times.",
        "domain": DRAW_DOMAIN.hex(),
        "cases": cases,
    }


# --------------------------------------------------------------------------- lobby record


def _person(k: int) -> SeatRecord:
    key = Identity(h(f"lobby/key/{k}")).public_key
    return SeatRecord(key, HashChain(h(f"lobby/chain/{k}"), 64).anchor, f"player {k}", "")


def _records() -> list[tuple[str, LobbyRecord]]:
    bot = SeatRecord(b"", b"", "robo", "random")
    return [
        (
            "two persons",
            LobbyRecord(
                "toy",
                (("rounds", 3),),
                None,
                (_person(0), _person(1)),
                64,
                Timeouts(),
                h("lobby/nonce/0"),
            ),
        ),
        (
            "person, bot, map and mixed options",
            LobbyRecord(
                "vector-example",
                (("variant", "short"), ("allow_pass", True), ("rounds", 12)),
                "#####\n#..p#\n#####\n",
                (_person(0), bot, _person(2)),
                4096,
                Timeouts(turn_ms=60_000, step_ms=5_000, lag_ms=1_500),
                h("lobby/nonce/1"),
            ),
        ),
    ]


def lobby_vectors() -> dict[str, Any]:
    records = _records()
    base: list[Any] = records[0][1].to_obj()

    def variant(position: int, value: object) -> bytes:
        obj = list(base)
        obj[position] = value
        return wire.pack(obj)

    person, other = base[4]
    must_fail = [
        ("version 2", variant(0, 2), "version"),
        ("version as boolean true", variant(0, True), "version"),
        ("options not sorted", variant(2, [["z", 1], ["a", 2]]), "noncanonical"),
        ("31-byte host nonce", variant(7, h("lobby/nonce/0")[:31]), "malformed"),
        ("chain length 0", variant(5, 0), "malformed"),
        ("chain length as boolean true", variant(5, True), "malformed"),
        ("seven fields", wire.pack(base[:7]), "malformed"),
        (
            "31-byte public key of a person",
            variant(4, [[person[0][:31], *person[1:]], other]),
            "malformed",
        ),
        (
            "31-byte anchor of a person",
            variant(4, [[person[0], person[1][:31], *person[2:]], other]),
            "malformed",
        ),
        (
            "person seat without key or anchor",
            variant(4, [[b"", b"", "p", ""], other]),
            "malformed",
        ),
        (
            "bot seat with a key",
            variant(4, [person, [other[0], b"", "robo", "random"]]),
            "malformed",
        ),
    ]
    return {
        "about": "record = canonical([1, engine, [[option, value]...sorted], map_text|nil, "
        "[[public_key, anchor, nickname, bot]...], chain_length, [turn_ms, step_ms, lag_ms], "
        "host_nonce]); game_id = SHA-256(domain || record).  must_fail: LobbyRecord.decode "
        "raises RemoteProtocolError(code) (SPEC section 2: a person's seat has a 32-byte key and "
        "anchor, a bot seat has empty ones).  decode() does not consult the engine, so the "
        "engine and options here are examples only.",
        "domain": GAME_DOMAIN.hex(),
        "records": [
            {
                "name": name,
                "record": typed(record.to_obj()),
                "hex": record.encode().hex(),
                "game_id": record.game_id.hex(),
                "fingerprints": [s.fingerprint for s in record.seats],
            }
            for name, record in records
        ],
        "must_fail": [
            {"name": name, "hex": data.hex(), "code": code} for name, data, code in must_fail
        ],
    }


# --------------------------------------------------------------------------- (f) signed logs

LOG_ROUNDS = 2


def _play(seed: str, rounds: int) -> list[bytes]:
    from tests.session.harness import SimNet, make_record, make_sessions

    register_engine("toy", "tests.session.toygame", "Toy")
    record, ids, secrets = make_record("toy", 3, options=(("rounds", rounds),), seed=seed)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=1)
    net.run()
    if not net.all_over():
        raise RuntimeError("the toy game did not finish")
    return [s.take_log() for s in sessions]


def _items(data: bytes) -> list[tuple[int, EntryKind, Any]]:
    return [(e.step, e.kind, e.data) for e in parse_log(data).entries]


def _rechain(items: list[tuple[int, EntryKind, Any]]) -> bytes:
    chain = LogChain()
    for step, kind, data in items:
        chain.append(step, kind, data)
    return chain.take()


def _flip_last_byte(raw: bytes) -> bytes:
    return raw[:-1] + bytes([raw[-1] ^ 0x01])


def _find(items: list[tuple[int, EntryKind, Any]], pred: Callable[[Any], bool]) -> int:
    for i, (_, kind, data) in enumerate(items):
        if kind == EntryKind.MSG and pred(parse_unverified(data)):
            return i
    raise LookupError("no such message in the log")


def _bad_reveal(items: list[tuple[int, EntryKind, Any]]) -> tuple[bytes, int, int, int]:
    """Replace a REVEAL whose action is not the default by one that does not open."""
    from tests.session.harness import make_record

    _, ids, _ = make_record("toy", 3, options=(("rounds", LOG_ROUNDS),), seed="vectors/log")
    k = _find(items, lambda m: m.type == MsgType.REVEAL and m.payload[0] != ["guess", 0])
    msg = parse_unverified(items[k][2])
    action, nonce, reveal = msg.payload
    other = ["guess", (action[1] + 1) % 3]
    forged = sign_message(
        ids[msg.seat].signer(),
        MsgType.REVEAL,
        msg.game_id,
        msg.step,
        msg.seat,
        msg.state_hash,
        (other, nonce, reveal),
    )
    tampered = list(items)
    tampered[k] = (items[k][0], EntryKind.MSG, forged.raw)
    step_entry = next(
        i for i in range(k, len(items)) if items[i][1] == EntryKind.STEP and items[i][0] == msg.step
    )
    return _rechain(tampered), k, step_entry, msg.seat


def _variants(valid: bytes, foreign: bytes) -> list[dict[str, Any]]:
    items = _items(valid)
    raws = [e.raw for e in parse_log(valid).entries]
    out: list[dict[str, Any]] = []

    def add(name: str, data: bytes, how: str, entry: int, reason: str, **extra: Any) -> None:
        out.append(
            {
                "name": name,
                "data": data,
                "how": how,
                "failure_entry": entry,
                "reason_contains": reason,
                **extra,
            }
        )

    k = _find(items, lambda m: m.type == MsgType.MOVE)
    flipped = list(raws)
    flipped[k] = _flip_last_byte(raws[k])
    add(
        "flipped_byte",
        b"".join(flipped),
        f"last byte (inside the signature) of entry {k} flipped; the hash chain is NOT redone, "
        f"so entry {k + 1} no longer chains, but entry {k} itself is already refused",
        k,
        "does not verify",
    )

    resigned = list(items)
    resigned[k] = (items[k][0], EntryKind.MSG, _flip_last_byte(items[k][2]))
    add(
        "flipped_signature_rechained",
        _rechain(resigned),
        f"same flipped signature byte in entry {k}, hash chain redone: only the signature "
        "check catches it",
        k,
        "does not verify",
    )

    j = _find(items, lambda m: m.type == MsgType.COMMIT)
    swapped = [*raws[:j], raws[j + 1], raws[j], *raws[j + 2 :]]
    add(
        "reordered_pair",
        b"".join(swapped),
        f"entries {j} and {j + 1} swapped as they are (indices and hash links untouched)",
        j,
        "out of order",
    )

    s = next(i for i, (_, kind, _) in enumerate(items) if kind == EntryKind.STEP)
    early = [*items[: s - 1], items[s], items[s - 1], *items[s + 1 :]]
    add(
        "step_before_its_last_message",
        _rechain(early),
        f"STEP entry {s} moved before the message (entry {s - 1}) that completes it, hash "
        "chain redone",
        s - 1,
        "do not decide",
    )

    e = _find(items, lambda m: m.type == MsgType.ENTROPY and m.seat == 1)
    dropped = [*items[:e], *items[e + 1 :]]
    step_after = next(i for i in range(e, len(dropped)) if dropped[i][1] == EntryKind.STEP)
    add(
        "dropped_message_rechained",
        _rechain(dropped),
        f"the ENTROPY message of seat 1 (entry {e}) removed, hash chain redone: the next STEP "
        f"(now entry {step_after}) cannot be decided",
        step_after,
        "do not decide",
    )

    data, r, step_entry, seat = _bad_reveal(items)
    add(
        "bad_reveal",
        data,
        f"the REVEAL in entry {r} replaced by one correctly signed by seat {seat} whose action "
        "does not open its commitment (same nonce and chain link), hash chain redone: the "
        f"replay blames seat {seat} (bad-reveal), plays its default action, and the recorded "
        f"STEP (entry {step_entry}) no longer matches",
        step_entry,
        "differs",
        blames_include=[seat, "bad-reveal"],
    )

    f_items = _items(foreign)
    f = _find(f_items, lambda m: m.type == MsgType.ENTROPY)
    spliced = [*items[:2], f_items[f], *items[2:]]
    add(
        "spliced_foreign_entry",
        _rechain(spliced),
        f"a validly signed ENTROPY message from another game (its log entry {f}) inserted as "
        "entry 2, hash chain redone",
        2,
        "another game",
    )
    return out


def _expect(report: VerifyReport, variant: dict[str, Any]) -> None:
    failure = report.failure
    name = variant["name"]
    if failure is None:
        raise RuntimeError(f"{name}: the verifier accepted the tampered log")
    if failure.entry != variant["failure_entry"] or variant["reason_contains"] not in (
        failure.reason
    ):
        raise RuntimeError(
            f"{name}: expected entry {variant['failure_entry']} "
            f"({variant['reason_contains']}), got {failure}"
        )
    if "blames_include" in variant:
        seat, code = variant["blames_include"]
        if not any(b[0] == seat and b[2] == code for b in report.blames):
            raise RuntimeError(f"{name}: no {code} blame for seat {seat}: {report.blames}")


def log_vectors() -> tuple[dict[str, Any], dict[str, bytes]]:
    valid = _play("vectors/log", LOG_ROUNDS)[0]
    foreign = _play("vectors/other-game", 1)[0]
    if _rechain(_items(valid)) != valid:
        raise RuntimeError("re-chaining the untouched log does not reproduce it")
    report = verify_log(valid)
    if not (report.valid and report.complete):
        raise RuntimeError(f"the valid log does not verify: {report.failure}")
    files = {"toy_game.log": valid}
    must_fail = []
    for variant in _variants(valid, foreign):
        _expect(verify_log(variant["data"]), variant)
        file_name = f"toy_game.{variant['name']}.log"
        files[file_name] = variant.pop("data")
        must_fail.append({"file": file_name, **variant})
    expected = report.to_json()
    del expected["failure"]
    return (
        {
            "about": "A complete signed log of a 3-peer game of the test-only 'toy' engine "
            "(tests/session/toygame.py, registered as engine 'toy'), written by seat 0, and "
            "tampered variants.  verify_log(valid file) must reproduce `expected`; each "
            "must_fail file must yield a failure at `failure_entry` whose reason contains "
            "`reason_contains` (and the listed blame, if any).",
            "engine_module": ["tests.session.toygame", "Toy"],
            "valid": {
                "file": "toy_game.log",
                "sha256": hashlib.sha256(valid).hexdigest(),
                "size": len(valid),
                "expected": expected,
            },
            "must_fail": must_fail,
        },
        files,
    )


# --------------------------------------------------------------------------- main

PURE: dict[str, Callable[[], dict[str, Any]]] = {
    "wire.json": wire_vectors,
    "messages.json": message_vectors,
    "commit.json": commit_vectors,
    "chain.json": chain_vectors,
    "draws.json": draw_vectors,
    "lobby.json": lobby_vectors,
}


def dumps(obj: object) -> bytes:
    return (json.dumps(obj, indent=1, ensure_ascii=False) + "\n").encode()


def render() -> dict[str, bytes]:
    files = {name: dumps(make()) for name, make in PURE.items()}
    log_json, logs = log_vectors()
    files["log.json"] = dumps(log_json)
    files.update(logs)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        stale = [
            n
            for n, data in files.items()
            if not (OUT / n).is_file() or (OUT / n).read_bytes() != data
        ]
        for name in stale:
            print(f"stale: {name}")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    total = sum(len(d) for d in files.values())
    print(f"wrote {len(files)} files, {total} bytes, to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
