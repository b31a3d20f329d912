"""Vectors of the wire encodings: canonical msgpack (wire.json), signed messages
(messages.json) and the lobby record with its game id (lobby.json).

Imported by scripts/gen_vectors.py (``python -m scripts.gen_vectors``).
"""

from __future__ import annotations

from typing import Any

from lanTag import wire
from lanTag.fair.hash_chain import DOMAIN as CHAIN_DOMAIN
from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity
from lanTag.session.lobby_record import GAME_DOMAIN, LobbyRecord, SeatRecord, Timeouts
from lanTag.session.messages import (
    PROTOCOL_VERSION,
    SIGN_DOMAIN,
    MsgType,
    pack_bundle,
    parse_unverified,
    sign_message,
)
from lanTag.session.steps import ROUND_SUBJECT, round_digest
from scripts.vectors_common import h, typed

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
    (
        "reveal",
        MsgType.REVEAL,
        2,
        (["guess", 1], h("messages/nonce/2"), h("messages/reveal/2"), h("messages/vector/2")),
    ),
    ("round have", MsgType.HAVE, 0, (2**32 - 1, [h("messages/vector/0")])),
    ("vote", MsgType.VOTE, 0, ([1, 2], 1)),
    ("vote with no silent seat", MsgType.VOTE, 1, ([], 3)),
    ("have", MsgType.HAVE, 1, (0, [h("messages/digest/0"), h("messages/digest/1")])),
    ("chat", MsgType.CHAT, 0, ("hello, table ✓",)),
    ("nudge", MsgType.NUDGE, 2, ([0], 1)),
    ("sync", MsgType.SYNC, 1, (12,)),
    ("private", MsgType.PRIVATE, 0, (1, h("messages/eph"), b"\x07" * 12, b"\x08" * 48)),
    ("leave", MsgType.LEAVE, 2, ()),
    # Protocol 3: seat 1 seals the final state (the body's step and state hash, no payload).
    ("seal", MsgType.SEAL, 1, ()),
    # Protocol 5: seat 2, dropped, asks for its seat back; seat 0's MOVE carries that very
    # REJOIN as its last field (an admission, SPEC §5.6).
    ("rejoin", MsgType.REJOIN, 2, ()),
]


def _rejoin_raw(seat: int = 2, game: bytes = MSG_GAME) -> bytes:
    """Seat ``seat``'s signed REJOIN (the sample above for seat 2 of this game)."""
    return sign_message(
        _key(seat).signer(), MsgType.REJOIN, game, MSG_STEP, seat, MSG_STATE, ()
    ).raw


MSG_SAMPLES += [
    ("move carrying an admission", MsgType.MOVE, 0, (["add", 2], _rejoin_raw())),
    (
        "commit carrying an admission",
        MsgType.COMMIT,
        1,
        (h("messages/commitment/1"), _rejoin_raw()),
    ),
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
    noncanonical_body = b"\x97\xcc\x05" + good.body[2:]
    return [
        ("version 0", with_field(0, 0), "version"),
        ("version 7", with_field(0, 7), "version"),
        ("version as the string '1'", with_field(0, "1"), "version"),
        ("version as boolean true", with_field(0, True), "version"),
        ("type 0", with_field(1, 0), "unknown-type"),
        ("type 14", with_field(1, 14), "unknown-type"),
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
        ("MOVE carrying garbage as an admission", _signed_raw([*move, b"\x01"]), "malformed"),
        (
            "MOVE carrying a REJOIN of another game",
            _signed_raw([*move, _rejoin_raw(game=bytes(32))]),
            "malformed",
        ),
        ("MOVE carrying its own seat's REJOIN", _signed_raw([*move, _rejoin_raw(0)]), "malformed"),
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
            "REVEAL without its vector (protocol 6)",
            _signed_raw(_fields(MsgType.REVEAL, 0, (["guess", 1], bytes(32), bytes(32)))),
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
                rules_version=1,
                lantag_version="0.1.0",
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
                rules_version=3,
                lantag_version="0.2.0",
            ),
        ),
        (
            "protocol 1 (a log written before versions were recorded: rules version 1)",
            LobbyRecord(
                "toy",
                (("rounds", 3),),
                None,
                (_person(0), _person(1)),
                64,
                Timeouts(),
                h("lobby/nonce/0"),
                protocol=1,
            ),
        ),
        (
            "a game from a start position (protocol 4: the state bytes as a twelfth field)",
            LobbyRecord(
                "toy",
                (("rounds", 3),),
                None,
                (_person(0), _person(1)),
                64,
                Timeouts(),
                h("lobby/nonce/2"),
                rules_version=1,
                lantag_version="0.1.0",
                # an example of canonical state bytes, [engine, state]: decode() does not
                # consult the engine; a peer checks them with the engine (SPEC section 2)
                start_position=wire.pack(["toy", [3, 7, 0]]),
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

    person, other = base[6]
    must_fail = [
        ("version 7", variant(0, 7), "version"),
        ("version 0", variant(0, 0), "version"),
        ("version as boolean true", variant(0, True), "version"),
        ("version as a string", variant(0, "2"), "version"),
        ("rules version 0", variant(2, 0), "malformed"),
        ("rules version as a string", variant(2, "1"), "malformed"),
        ("lanTag version as an integer", variant(3, 1), "malformed"),
        ("protocol 1 with the protocol-2 fields", variant(0, 1), "malformed"),
        ("options not sorted", variant(4, [["z", 1], ["a", 2]]), "noncanonical"),
        ("31-byte host nonce", variant(9, h("lobby/nonce/0")[:31]), "malformed"),
        ("chain length 0", variant(7, 0), "malformed"),
        ("chain length as boolean true", variant(7, True), "malformed"),
        ("nine fields", wire.pack(base[:9]), "malformed"),
        ("an empty start position (left out, never written)", wire.pack([*base, b""]), "malformed"),
        ("a start position that is not bytes", wire.pack([*base, "toy"]), "malformed"),
        (
            "31-byte public key of a person",
            variant(6, [[person[0][:31], *person[1:]], other]),
            "malformed",
        ),
        (
            "31-byte anchor of a person",
            variant(6, [[person[0], person[1][:31], *person[2:]], other]),
            "malformed",
        ),
        (
            "person seat without key or anchor",
            variant(6, [[b"", b"", "p", ""], other]),
            "malformed",
        ),
        (
            "bot seat with a key",
            variant(6, [person, [other[0], b"", "robo", "random"]]),
            "malformed",
        ),
    ]
    return {
        "about": "record = canonical([2, engine, rules_version, lantag_version, "
        "[[option, value]...sorted], map_text|nil, "
        "[[public_key, anchor, nickname, bot]...], chain_length, [turn_ms, step_ms, lag_ms], "
        "host_nonce, previous_game, start_position?]) (start_position, protocol 4, only for a game "
        "from a position); a protocol-1 record (older logs) is [1, engine, options, ...] without "
        "the two version fields; game_id = SHA-256(domain || record).  must_fail: "
        "LobbyRecord.decode "
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


def _evidence_pair(
    name: str, seat: int, first: tuple[Any, ...], second: tuple[Any, ...], verdict: str | None
) -> dict[str, Any]:
    """Two messages of one seat (type, step, state hash, payload each) and what they prove."""
    key = _key(seat)
    signed = [
        sign_message(key.signer(), t, MSG_GAME, step, seat, state, payload)
        for t, step, state, payload in (first, second)
    ]
    return {
        "name": name,
        "seat": seat,
        "public_key": key.public_key.hex(),
        "first": signed[0].raw.hex(),
        "second": signed[1].raw.hex(),
        "verdict": verdict,
    }


def evidence_vectors() -> dict[str, Any]:
    """Pairs of signed messages that convict their seat by themselves (SPEC §5.2, §5.7)."""
    other_state = h("messages/another-state-hash")
    digest = h("messages/digest/0")
    have = MsgType.HAVE
    pairs = [
        _evidence_pair(
            "equivocation: two commitments of one seat for one step",
            2,
            (MsgType.COMMIT, MSG_STEP, MSG_STATE, (h("evidence/commitment/a"),)),
            (MsgType.COMMIT, MSG_STEP, MSG_STATE, (h("evidence/commitment/b"),)),
            "equivocation",
        ),
        _evidence_pair(
            "equivocation: two HAVEs of one seat for one subject and step naming different "
            "commitments (neither names the other's)",
            1,
            (have, MSG_STEP, MSG_STATE, (0, [h("evidence/commitment/a")])),
            (have, MSG_STEP, MSG_STATE, (0, [h("evidence/commitment/b")])),
            "equivocation",
        ),
        _evidence_pair(
            "equivocation: two round acknowledgements (protocol 6, subject 2^32-1) of one seat "
            "for one step naming different vectors of commitments",
            1,
            (have, MSG_STEP, MSG_STATE, (ROUND_SUBJECT, [h("evidence/vector/a")])),
            (have, MSG_STEP, MSG_STATE, (ROUND_SUBJECT, [h("evidence/vector/b")])),
            "equivocation",
        ),
        _evidence_pair(
            "no proof: a round acknowledgement that grows (a vector named after a drop)",
            1,
            (have, MSG_STEP, MSG_STATE, (ROUND_SUBJECT, [h("evidence/vector/a")])),
            (
                have,
                MSG_STEP,
                MSG_STATE,
                (ROUND_SUBJECT, [h("evidence/vector/a"), h("evidence/vector/b")]),
            ),
            None,
        ),
        _evidence_pair(
            "desync: a HAVE with a false state hash beside the seat's true one",
            1,
            (have, MSG_STEP, MSG_STATE, (0, [digest])),
            (have, MSG_STEP, other_state, (0, [digest])),
            "desync",
        ),
        _evidence_pair(
            "desync: a NUDGE and a VOTE of one step with different state hashes",
            0,
            (MsgType.NUDGE, MSG_STEP, MSG_STATE, ([1], 1)),
            (MsgType.VOTE, MSG_STEP, other_state, ([1], 1)),
            "desync",
        ),
        _evidence_pair(
            "no proof: a HAVE whose digest list grows replaces the earlier one",
            1,
            (have, MSG_STEP, MSG_STATE, (0, [digest])),
            (have, MSG_STEP, MSG_STATE, (0, [digest, h("messages/digest/1")])),
            None,
        ),
        _evidence_pair(
            "no proof: an older HAVE (a digest list the first one holds) relayed after it",
            1,
            (have, MSG_STEP, MSG_STATE, (0, [digest, h("messages/digest/1")])),
            (have, MSG_STEP, MSG_STATE, (0, [digest])),
            None,
        ),
        _evidence_pair(
            "no proof: different state hashes at different steps",
            1,
            (have, MSG_STEP, MSG_STATE, (0, [digest])),
            (have, MSG_STEP + 1, other_state, (0, [digest])),
            None,
        ),
    ]
    return {
        "about": "Two validly signed messages of one seat (signed_message hex, game id "
        "messages/game) and the blame they prove by themselves: 'equivocation' (two "
        "different messages in one slot), 'desync' (two claims of one step with different "
        "state hashes, SPEC §5.2), or null (no proof).  A session convicts on the pair and "
        "sends both to every peer.  'acknowledgements' (protocol 6, SPEC §5.7 'Many "
        "cheaters'): the round acknowledgements (REVEALs, round HAVEs) a seat signed at one "
        "step, the round's COMMITs ('commits': the one held of each seat; 'other': the "
        "second COMMIT of seat 'equivocator') and the seats of the round still live; "
        "'equivocation' when the seat named both a vector holding the equivocator's COMMIT "
        "held and one holding its other version (over the live seats and any of the others "
        "whose COMMIT is held), null when not.",
        "pairs": pairs,
        "acknowledgements": _acknowledgement_cases(),
    }


def _acknowledgement_cases() -> list[dict[str, Any]]:
    """Conflicting round acknowledgements (protocol 6, SPEC §5.7): a signer's messages, the
    COMMITs that resolve the vectors they name, and the verdict."""
    commits = {
        s: sign_message(
            _key(s).signer(), MsgType.COMMIT, MSG_GAME, MSG_STEP, s, MSG_STATE, (h(f"round/{s}"),)
        )
        for s in range(4)
    }
    other = sign_message(
        _key(2).signer(), MsgType.COMMIT, MSG_GAME, MSG_STEP, 2, MSG_STATE, (h("round/2/b"),)
    )
    digests = {s: c.digest for s, c in commits.items()}
    held = round_digest(digests)
    swapped = round_digest({**digests, 2: other.digest})
    without = round_digest({s: d for s, d in digests.items() if s != 2})
    after_drop = round_digest({s: d for s, d in digests.items() if s != 3})  # seat 3 dropped

    def signed(seat: int, kind: MsgType, payload: tuple[Any, ...]) -> str:
        msg = sign_message(_key(seat).signer(), kind, MSG_GAME, MSG_STEP, seat, MSG_STATE, payload)
        return msg.raw.hex()

    def reveal(seat: int, vector: bytes) -> str:
        opening = (["guess", 1], h(f"round/nonce/{seat}"), h(f"round/link/{seat}"), vector)
        return signed(seat, MsgType.REVEAL, opening)

    def have(seat: int, vectors: list[bytes]) -> str:
        return signed(seat, MsgType.HAVE, (ROUND_SUBJECT, vectors))

    cases = [
        ("a REVEAL naming the COMMITs held, a round HAVE naming seat 2's other one", 3,
         [reveal(3, held), have(3, [swapped])], [0, 1, 2, 3], "equivocation"),
        ("one round HAVE naming both vectors", 1, [have(1, [held, swapped])], [0, 1, 2, 3],
         "equivocation"),
        ("two REVEALs with one opening, one vector each", 3,
         [reveal(3, held), reveal(3, swapped)], [0, 1, 2, 3], "equivocation"),
        ("seat 2's other version in a vector signed before seat 3's drop, and the one held "
         "after it", 1, [have(1, [swapped]), reveal(1, after_drop)], [0, 1, 2], "equivocation"),
        ("no proof: only the other version (its signer took that one)", 1,
         [reveal(1, swapped), have(1, [swapped])], [0, 1, 2, 3], None),
        ("no proof: a vector without seat 2 (signed after dropping it) and the other version",
         1, [have(1, [swapped, without])], [0, 1, 3], None),
        ("no proof: seat 2's own two vectors (its two COMMITs are the proof)", 2,
         [reveal(2, held), have(2, [swapped])], [0, 1, 2, 3], None),
    ]  # fmt: skip
    return [
        {
            "name": name,
            "seat": seat,
            "public_key": _key(seat).public_key.hex(),
            "acknowledgements": acks,
            "commits": [commits[s].raw.hex() for s in range(4)],
            "other": other.raw.hex(),
            "equivocator": 2,
            "live": live,
            "verdict": verdict,
        }
        for name, seat, acks, live, verdict in cases
    ]
