"""Signed lockstep messages (protocol/SPEC.md §3).

A signed message is ``pack([body, signature])`` where ``body`` is the canonical
``pack([version, type, game_id, step, seat, state_hash, *payload])`` and the
Ed25519 signature covers ``b"lanTag/v1/msg\\x00" + body``.  Verification runs
on the body bytes exactly as received; nothing is ever re-serialised to verify.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import msgpack

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import SIGNATURE_SIZE, Signer, Verifier
from lanTag.rules.base import Action, IllegalAction, canonical_pack
from lanTag.session.features import Features
from lanTag.wire import PROTOCOL_VERSION as PROTOCOL_VERSION  # re-exported: its old home

# Versions whose messages this lanTag parses: a protocol-1 log (written before versions were
# recorded) still replays.  A session takes only its own record's version (Session.receive_parsed).
KNOWN_PROTOCOLS = (1, 2, 3, 4, 5, 6)
SIGN_DOMAIN = b"lanTag/v1/msg\x00"
HASH_SIZE = 32
MAX_ADMISSION = 400  # bytes of the REJOIN a contribution may carry (one signed REJOIN: ~180)


class MsgType(IntEnum):
    MOVE = 1  # [action]                 the seat's action on its turn
    ENTROPY = 2  # [reveal]              next hash-chain link, for a chance draw
    COMMIT = 3  # [commitment]           a secret simultaneous choice, sealed
    REVEAL = 4  # [action, nonce, reveal(, vector)] opens the commitment; reveal feeds bots
    VOTE = 5  # [silent seats, seq]      "I lack these seats' step input; I will not take it"
    HAVE = 6  # [seat, [digest...]]      "I took these messages of seat; I will never vote it"
    CHAT = 7  # [text]                   public chat (logged only if its author asks)
    NUDGE = 8  # [seats, seq]            non-binding "I still lack these seats' step input"
    SYNC = 9  # [from_step]              "I restarted: send me what you hold from this step on"
    PRIVATE = 10  # [to, eph_key, nonce, ciphertext]  chat only seat `to` can read
    LEAVE = 11  # []                     "I leave: vote me silent now; a bot plays my seat"
    # Protocol 3: at game over each live seat signs the final state: the body's step is the
    # final step, its state hash the final state's (SPEC §3, §9).  Nothing else to carry.
    SEAL = 12  # []                      "the game ended at this step in this state"
    # Protocol 5: a dropped seat asks for its seat back (SPEC §5.6); a live seat admits it by
    # carrying these very bytes in its next MOVE, ENTROPY or COMMIT (an ``admission``).
    REJOIN = 13  # []                    "I am back: let me play my seat again"


# Payload shapes: tuple of validators, one per position.
def _is_bytes(n: int) -> Any:
    return lambda v: isinstance(v, bytes) and len(v) == n


def _is_action(v: object) -> bool:
    try:
        Action.from_msgpack(v)
    except IllegalAction:
        return False
    return True


def _is_seat_list(v: object) -> bool:
    return (
        isinstance(v, list)
        and all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 65536 for s in v)
        and v == sorted(set(v))
    )


def _is_nat(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**32


def _is_digest_list(v: object) -> bool:
    return isinstance(v, list) and 0 < len(v) <= 8 and all(_is_hash(d) for d in v)


_is_hash = _is_bytes(HASH_SIZE)


def _is_text(v: object) -> bool:
    return isinstance(v, str) and len(v) <= 500


def _is_ciphertext(v: object) -> bool:
    return isinstance(v, bytes) and 16 <= len(v) <= 1000


@dataclass(frozen=True, slots=True)
class MessageSpec:
    """Everything lanTag knows about one message type, in one row (SPEC §3's table; a test
    compares the two).  Each layer reads the column it needs: the parser the payload, the
    session its dispatch sets, the verifier's fast lane and audit theirs."""

    payload: tuple[Any, ...]  # one check per field (a REVEAL's vector and an admission: below)
    since: int = 1  # the first protocol that has it
    answers: str | None = None  # the NeedKind name of the step it contributes to
    acknowledged: bool = False  # every other live peer signs a HAVE for it (§4.4)
    late: bool = False  # still read when it names a step before ours (relays, §5.4)
    request_limit: int | None = None  # kept per seat and step; more is a flood (§5.3)
    chatter_limit: int | None = None  # protocol 6: distinct ones kept per seat and step
    chatter_proof: bool = False  # ... and one more is a proof of a flood (else dropped)
    chatter_window: bool = False  # ... and dropped unchecked far from our step
    admits: bool = False  # may carry a signed REJOIN (protocol 5, §5.6)
    link_at: int | None = None  # the payload field holding the seat's hash-chain link
    plain: bool = True  # the verifier's fast lane (log/plain_replay.py) reads it
    # The method (msg, now) that takes it once checked (Session.receive_parsed): the
    # Session's, or a part's as "part.method"; None: a step's contribution or
    # acknowledgement, filed in its step's box.
    handler: str | None = None


SPECS: dict[MsgType, MessageSpec] = {
    MsgType.MOVE: MessageSpec((_is_action,), answers="TURN", acknowledged=True, admits=True),
    MsgType.ENTROPY: MessageSpec((_is_bytes(32),), answers="ENTROPY", admits=True, link_at=0),
    MsgType.COMMIT: MessageSpec((_is_bytes(32),), answers="SECRET", acknowledged=True, admits=True),
    MsgType.REVEAL: MessageSpec(
        (_is_action, _is_bytes(32), _is_bytes(32)), answers="SECRET", link_at=2
    ),
    MsgType.VOTE: MessageSpec((_is_seat_list, _is_nat), late=True, request_limit=32, plain=False),
    MsgType.HAVE: MessageSpec((_is_nat, _is_digest_list), late=True),
    MsgType.CHAT: MessageSpec(
        (_is_text,),
        chatter_limit=32,
        chatter_proof=True,
        chatter_window=True,
        plain=False,
        handler="recovery.take_chat",
    ),
    MsgType.NUDGE: MessageSpec((_is_seat_list, _is_nat), late=True, request_limit=4, plain=False),
    MsgType.SYNC: MessageSpec(
        (_is_nat,), chatter_limit=8, chatter_proof=True, plain=False, handler="recovery.take_sync"
    ),
    MsgType.PRIVATE: MessageSpec(
        (_is_nat, _is_bytes(32), _is_bytes(12), _is_ciphertext),
        chatter_limit=32,
        chatter_proof=True,
        chatter_window=True,
        plain=False,
        handler="recovery.open_private",
    ),
    MsgType.LEAVE: MessageSpec((), since=2, chatter_limit=4, plain=False, handler="_take_leave"),
    MsgType.SEAL: MessageSpec((), since=3, chatter_limit=4, handler="recovery.take_seal"),
    MsgType.REJOIN: MessageSpec(
        (),
        since=5,
        chatter_limit=8,
        chatter_proof=True,
        plain=False,
        handler="recovery.take_rejoin",
    ),
}
_PAYLOAD = {t: spec.payload for t, spec in SPECS.items()}


@dataclass(frozen=True, slots=True)
class Signed:
    """A verified-shape message.  ``raw`` is the exact signed bytes as received."""

    type: MsgType
    game_id: bytes
    step: int
    seat: int
    state_hash: bytes
    payload: tuple[Any, ...]
    body: bytes
    signature: bytes
    raw: bytes
    # The Action of a MOVE or REVEAL, built once when the payload was checked (None for
    # the other types); read it through ``action``.  Derived from ``payload``, so it takes
    # no part in equality, hashing or repr.
    parsed_action: Action | None = field(default=None, compare=False, repr=False)

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.raw).digest()

    @property
    def slot(self) -> tuple[int, int, int, bytes]:
        """Two messages of one seat with the same slot must be identical, else it equivocated.

        The state hash is part of the slot: after a rollback a seat legitimately sends a
        new message for the same step from a different history.
        """
        sub = 0
        if self.type in (MsgType.VOTE, MsgType.NUDGE):
            sub = int(self.payload[1])
        elif self.type == MsgType.HAVE:
            sub = int(self.payload[0])
        return (self.step, int(self.type), sub, self.state_hash)

    @property
    def action(self) -> Action:
        """The action of a MOVE or REVEAL (the one built by the parser; IllegalAction for a
        payload that holds none, as before)."""
        action = self.parsed_action
        if action is None:
            return Action.from_msgpack(self.payload[0])
        return action

    @property
    def admission(self) -> bytes | None:
        """The signed REJOIN a MOVE, ENTROPY or COMMIT carries (protocol 5), else None."""
        if self.type in ADMITTING and len(self.payload) == ADMITTING[self.type] + 1:
            blob = self.payload[-1]
            assert isinstance(blob, bytes)
            return blob
        return None

    @property
    def version(self) -> int:
        """The body's protocol version (a positive fixint right after the array header:
        the body is canonical and the parser admits only KNOWN_PROTOCOLS)."""
        return self.body[1]


def sign_message(
    signer: Signer,
    msg_type: MsgType,
    game_id: bytes,
    step: int,
    seat: int,
    state_hash: bytes,
    payload: tuple[Any, ...],
    version: int = PROTOCOL_VERSION,
) -> Signed:
    """``version``: the game's protocol (its record's), so a resumed protocol-1 game goes on
    in protocol 1."""
    body = wire.pack([version, int(msg_type), game_id, step, seat, state_hash, *payload])
    signature = signer.sign(SIGN_DOMAIN + body)
    raw = wire.pack([body, signature])
    return parse_unverified(raw)


def parse_unverified(raw: bytes) -> Signed:
    """Strictly parse the shape of a signed message; the signature is NOT checked here."""
    outer = _split_signed(raw)
    if outer is not None:
        msg = _parse_common(outer[0], outer[1], raw)
        if msg is not None:
            return msg
    return _parse_strict(raw)


def _parse_common(body: bytes, signature: bytes, raw: bytes) -> Signed | None:
    """The usual well-formed message in one pass, or None: then ``_parse_strict`` decides.

    Returns a message only when ``_parse_strict`` would return the same one: the body
    decodes, every header field and every payload value passes the very same checks
    (which admit exact ``int``/``bytes``/``str``/``list`` values only, at most two deep, so
    ``wire.unpack``'s type and depth walk has nothing left to refuse), and it re-encodes to
    exactly ``body`` (``wire.unpack``'s canonical check).  Anything else, valid or not, takes
    the strict path, so its errors (codes and reasons) are unchanged.  The Action of a MOVE
    or REVEAL is built once here and kept on the message.
    """
    try:
        fields = _unpackb(body, raw=False, use_list=True, strict_map_key=True)
    except Exception:  # _parse_strict says what is wrong, in its own words
        return None
    if type(fields) is not list or len(fields) < 6:
        return None
    version, type_code, game_id, step, seat, state_hash = fields[:6]
    if not (
        type(version) is int
        and version in KNOWN_PROTOCOLS
        and type(type_code) is int
        and type(game_id) is bytes
        and len(game_id) == 32
        and type(step) is int
        and 0 <= step < 2**32
        and type(seat) is int
        and 0 <= seat < 65536
        and type(state_hash) is bytes
        and len(state_hash) == HASH_SIZE
    ):
        return None
    msg_type = _TYPES.get(type_code)
    if msg_type is None:
        return None
    payload = tuple(fields[6:])
    core = payload  # the payload without a protocol-5 admission (checked here first)
    if msg_type in ADMITTING and len(payload) == ADMITTING[msg_type] + 1:
        if not _is_admission(payload[-1], game_id, version, seat):
            return None
        core = payload[:-1]
    action: Action | None = None
    if msg_type is MsgType.HAVE:  # [seat, [digest...]]: the most frequent message
        if len(payload) != 2:
            return None
        seat_of, digests = payload
        if not (  # _is_nat and _is_digest_list, on decoded (exact-type) values, C-level sets
            type(seat_of) is int
            and 0 <= seat_of < 2**32
            and type(digests) is list
            and 0 < len(digests) <= 8
            and set(map(type, digests)) == _BYTES
            and set(map(len, digests)) == _HASH_LEN
        ):
            return None
    elif msg_type is MsgType.MOVE or msg_type is MsgType.REVEAL:
        if len(core) != (1 if msg_type is MsgType.MOVE else _reveal_fields(version)):
            return None
        try:
            action = Action.from_msgpack(core[0])  # what _is_action checks, kept
        except IllegalAction:
            return None
        if msg_type is MsgType.REVEAL and not (
            type(core[1]) is bytes
            and len(core[1]) == HASH_SIZE
            and type(core[2]) is bytes
            and len(core[2]) == HASH_SIZE
            and (len(core) == 3 or (type(core[3]) is bytes and len(core[3]) == HASH_SIZE))
        ):  # _is_hash two or three times, on decoded (exact-type) values
            return None
    elif msg_type is MsgType.ENTROPY or msg_type is MsgType.COMMIT:  # [32-byte bin]
        if not (len(core) == 1 and type(core[0]) is bytes and len(core[0]) == 32):
            return None
    else:
        checks = _PAYLOAD[msg_type]
        if len(payload) != len(checks):
            return None
        for ok, value in zip(checks, payload, strict=True):
            if not ok(value):
                return None
    if canonical_pack(fields) != body:  # wire.canonical's check, with the one shared Packer
        return None
    return Signed(msg_type, game_id, step, seat, state_hash, payload, body, signature, raw, action)


_BYTES = {bytes}
_HASH_LEN = {HASH_SIZE}
_unpackb = msgpack.unpackb  # wire.unpack's decoder, with the same options above


def _parse_strict(raw: bytes) -> Signed:
    """Every check, in order, each failure with its own code: any message _parse_common
    does not take (unusual framing, a non-canonical body, any malformed field)."""
    outer = _split_signed(raw) or wire.unpack(raw)
    if (
        not isinstance(outer, list)
        or len(outer) != 2
        or not isinstance(outer[0], bytes)
        or not isinstance(outer[1], bytes)
        or len(outer[1]) != SIGNATURE_SIZE
    ):
        raise RemoteProtocolError("malformed", "a signed message is [body, 64-byte signature]")
    body, signature = outer
    fields = wire.unpack(body)
    if not isinstance(fields, list) or len(fields) < 6:
        raise RemoteProtocolError("malformed", "message body too short")
    version, type_code, game_id, step, seat, state_hash = fields[:6]
    payload = tuple(fields[6:])
    # Decoded values have exact types, so ``type(v) is int`` is _is_nat's "int, not bool".
    if type(version) is not int or version not in KNOWN_PROTOCOLS:
        raise RemoteProtocolError("version", f"unknown protocol version {version!r}")
    msg_type = _TYPES.get(type_code) if type(type_code) is int else None
    if msg_type is None:
        raise RemoteProtocolError("unknown-type", f"unknown message type {type_code!r}")
    if not (
        type(game_id) is bytes
        and len(game_id) == 32
        and type(step) is int
        and 0 <= step < 2**32
        and type(seat) is int
        and 0 <= seat < 65536
    ):
        raise RemoteProtocolError("malformed", "bad game id, step or seat")
    if type(state_hash) is not bytes or len(state_hash) != HASH_SIZE:
        raise RemoteProtocolError("malformed", "bad state hash")
    checks = _PAYLOAD[msg_type]
    if msg_type is MsgType.REVEAL and Features.of(version).round_acks:
        checks = (*checks, _is_hash)  # the vector of commitments its seat holds (§4.4)
    core = payload
    if msg_type in ADMITTING and len(payload) == len(checks) + 1:
        if not _is_admission(payload[-1], game_id, version, seat):
            raise RemoteProtocolError("malformed", f"bad admission in a {msg_type.name}")
        core = payload[:-1]
    if len(core) != len(checks):
        raise RemoteProtocolError("malformed", f"bad {msg_type.name} payload")
    for ok, value in zip(checks, core, strict=True):
        if not ok(value):
            raise RemoteProtocolError("malformed", f"bad {msg_type.name} payload")
    action = Action.from_msgpack(payload[0]) if msg_type in _ACTION_TYPES else None
    return Signed(msg_type, game_id, step, seat, state_hash, payload, body, signature, raw, action)


_ACTION_TYPES = (MsgType.MOVE, MsgType.REVEAL)


def _reveal_fields(version: int) -> int:
    """A REVEAL's payload length: the vector it names from protocol 6 on (SPEC §3, §4.4)."""
    return 4 if Features.of(version).round_acks else 3


# The contributions that may carry an admission of a dropped seat (protocol 5, SPEC §5.6),
# with their payload length without it: each is held by every peer before it decides its step.
ADMITTING = {t: len(spec.payload) for t, spec in SPECS.items() if spec.admits}


def _is_admission(blob: object, game_id: object, version: object, seat: object) -> bool:
    """A contribution's trailing field (protocol 5): a signed REJOIN of this game and protocol
    by another seat, whole (its signature is checked where the seat's key is known: the
    session).  Anything else makes the contribution malformed."""
    if type(blob) is not bytes or len(blob) > MAX_ADMISSION:
        return False
    if type(version) is not int or not Features.of(version).handback:
        return False
    try:
        inner = parse_unverified(blob)
    except RemoteProtocolError:
        return False
    return (
        inner.type is MsgType.REJOIN
        and inner.game_id == game_id
        and inner.version == version
        and inner.seat != seat
    )


_SIG_HEADER = bytes([0xC4, SIGNATURE_SIZE])  # canonical bin 8 header of a signature


def _split_signed(raw: object) -> list[bytes] | None:
    """``wire.unpack(raw)`` for the usual canonical ``[bin body, bin 64 signature]``, read
    off the bytes without a decode and re-encode; None for anything else (then
    ``wire.unpack`` decides, with its own error)."""
    if type(raw) is not bytes or len(raw) > wire.DATAGRAM_BUDGET or len(raw) < 3 + 66:
        return None
    if raw[0] != 0x92:  # fixarray of 2
        return None
    if raw[1] == 0xC4:  # bin 8: the canonical header below 256 bytes
        start, n = 3, raw[2]
    elif raw[1] == 0xC5 and raw[2] != 0:  # bin 16, canonical from 256 bytes on
        start, n = 4, (raw[2] << 8) | raw[3]
    else:
        return None
    end = start + n
    if len(raw) != end + 2 + SIGNATURE_SIZE or raw[end : end + 2] != _SIG_HEADER:
        return None
    return [raw[start:end], raw[end + 2 :]]


_TYPES = {int(t): t for t in MsgType}  # MsgType(code) without the enum machinery


def verify_signature(msg: Signed, public_key: bytes, verifier: Verifier) -> bool:
    return verifier.verify(public_key, msg.signature, SIGN_DOMAIN + msg.body)


def reveal_vector(msg: Signed) -> bytes | None:
    """The vector of commitments a protocol-6 REVEAL names (SPEC §4.4), else None."""
    return msg.payload[3] if len(msg.payload) > 3 else None


def reveal_value(msg: Signed) -> bytes:
    """The committed value of a REVEAL: its action's canonical bytes, without building the
    Action (``Action.from_msgpack`` keeps the verb and arguments as they are, so the received
    array packs to the same bytes).  The array was decoded from a canonical body, so it holds
    only values ``wire.pack`` accepts and packs them the same: its type walk is skipped."""
    return canonical_pack(msg.payload[0])


def signed_by_seat(msg: Signed, keys: tuple[bytes | None, ...], verifier: Verifier) -> bool:
    """``msg`` carries a valid signature of its seat's key (``keys``: one per seat, None for
    a bot seat, which never signs): what ``Session.receive_parsed`` checks on receipt."""
    key = keys[msg.seat] if msg.seat < len(keys) else None
    return key is not None and verify_signature(msg, key, verifier)


# Messages whose state hash is a claim about the game (SPEC §5.2).
CLAIMS = (
    MsgType.MOVE,
    MsgType.ENTROPY,
    MsgType.COMMIT,
    MsgType.REVEAL,
    MsgType.VOTE,
    MsgType.HAVE,
    MsgType.NUDGE,
)


def have_within(inner: Signed, outer: Signed) -> bool:
    """Whether ``inner`` and ``outer`` are HAVEs and ``outer`` names every digest ``inner``
    names: one acknowledgement as it grows (a COMMIT, then COMMIT and REVEAL), not two.
    The one rule behind contradiction() here and the session's supersedes / stale_have."""
    if inner.type != MsgType.HAVE or outer.type != MsgType.HAVE:
        return False
    return set(inner.payload[1]) <= set(outer.payload[1])


def contradiction(first: Signed, second: Signed) -> str | None:
    """The blame code two signed messages of one seat prove by themselves, or None.

    ``equivocation``: two different messages in one slot (two HAVEs of which one names
    every digest the other names are one acknowledgement that grew: no proof, in either
    order).  ``desync``: two claims for one step with different
    state hashes (SPEC §5.2; a session excuses it after a rollback it knows of).
    """
    if first.seat != second.seat or first.game_id != second.game_id or first.raw == second.raw:
        return None
    if first.slot == second.slot:
        if have_within(first, second) or have_within(second, first):
            return None  # one acknowledgement grew into the other: no contradiction
        return "equivocation"
    if (
        first.step == second.step
        and first.type in CLAIMS
        and second.type in CLAIMS
        and first.state_hash != second.state_hash
    ):
        return "desync"
    return None


def pack_bundle(messages: list[bytes]) -> bytes:
    """Several signed messages in one link payload."""
    return wire.pack(messages)


def unpack_bundle(data: bytes, limit: int) -> list[bytes]:
    items = wire.unpack(data, limit=limit)
    if not isinstance(items, list) or not all(isinstance(m, bytes) for m in items):
        raise RemoteProtocolError("malformed", "a bundle is an array of signed messages")
    return items
