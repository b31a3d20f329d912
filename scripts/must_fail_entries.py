"""Must-fail logs that break the rules of the log's entries and header (SPEC §9).

Part of scripts/gen_must_fail.py; each function is one
cheat of the cheating writer (must_fail_game.Game) and returns its vector.
"""

from __future__ import annotations

import dataclasses
import hashlib

from lanTag.games.prototag.engine import PrototagState
from lanTag.log.entries import MAGICS, MAX_ENTRY, EntryKind, LogChain
from lanTag.rules.base import (
    Roll,
    decode_input,
)
from lanTag.session.lobby_record import start_state
from lanTag.session.messages import (
    MsgType,
)
from scripts.must_fail_game import Expect, Game, Vector, turn_of, vector, write
from scripts.must_fail_game import h as _h

# --------------------------------------------------------------------------- the cheats
#
# Each function returns one vector.  ``k`` is always the index of the entry that breaks the
# rule (or of the STEP entry at which the verifier sees it), so the expected failing entry is
# exact; everything before it is the honest game's log, byte for byte.

# -- the entries (SPEC §9: parsing and the hash chain) ------------------------------------


@vector
def chain_prev_hash_last_byte(game: Game) -> Vector:
    k = turn_of(game, 1)
    head, chain = game.head(k)
    wrong = chain.last_hash[:-1] + bytes([chain.last_hash[-1] ^ 1])
    tail = write(game.items[k : k + 3], LogChain(k, wrong))
    return Vector(
        "chain_prev_hash_last_byte",
        "§9 entries: prev_hash is the SHA-256 of the previous entry (all 32 bytes)",
        f"entry {k} holds the previous entry's hash with its LAST byte flipped; the entries "
        "after it chain to it",
        head + tail,
        Expect(1, "hash chain broken", k, game.items[k][0]),
    )


@vector
def index_skipped(game: Game) -> Vector:
    k = turn_of(game, 1)
    head, chain = game.head(k)
    tail = write(game.items[k : k + 3], LogChain(k + 1, chain.last_hash))
    return Vector(
        "index_skipped",
        "§9 entries: indices are 0, 1, 2, ...",
        f"entry {k} is numbered {k + 1} (chained correctly)",
        head + tail,
        Expect(1, "out of order", k, None),
    )


@vector
def first_entry_not_a_header(game: Game) -> Vector:
    items = game.with_header(EntryKind.NOTE, game.items[0][2])
    return Vector(
        "first_entry_not_a_header",
        "§9 entries: entry 0 is the HEADER",
        "the header's data written as a NOTE entry",
        write(items),
        Expect(2, "the first entry is not a header"),
    )


@vector
def first_entry_index_not_zero(game: Game) -> Vector:
    return Vector(
        "first_entry_index_not_zero",
        "§9 entries: entry 0 is the HEADER, index 0",
        "the header numbered 1 (the entries after it chain to it)",
        write(game.items[:20], LogChain(1)),
        Expect(2, "the first entry is not a header"),
    )


@vector
def non_canonical_entry(game: Game) -> Vector:
    k = turn_of(game, 1)
    head, chain = game.head(k)
    canonical = LogChain(k, chain.last_hash).append(*game.items[k])
    # [index, ...]: the index as a one-byte uint (0xcc k) instead of a fixint, which msgpack
    # decodes to the same value; the next entry chains to these bytes.
    if not (canonical[0] == 0x95 and canonical[1] == k < 0x80):
        raise RuntimeError("the entry layout changed: update non_canonical_entry")
    raw = canonical[:1] + bytes([0xCC]) + canonical[1:]
    tail = write(game.items[k + 1 : k + 3], LogChain(k + 1, hashlib.sha256(raw).digest()))
    return Vector(
        "non_canonical_entry",
        "§9 entries: every entry is canonical msgpack (§1)",
        f"entry {k} (a MSG) encodes its index {k} in two bytes instead of one; the entries "
        "after it chain to these bytes",
        head + raw + tail,
        Expect(1, "malformed", k, None),
    )


@vector
def oversize_entry(game: Game) -> Vector:
    k = turn_of(game, 1)
    head, chain = game.head(k)
    step = game.items[k][0]

    def note(size: int) -> bytes:
        return LogChain(k, chain.last_hash).append(step, EntryKind.NOTE, ["x", [], "a" * size])

    text = MAX_ENTRY - (len(note(MAX_ENTRY)) - MAX_ENTRY) + 1  # the entry: MAX_ENTRY + 1 bytes
    raw = note(text)
    if len(raw) != MAX_ENTRY + 1:
        raise RuntimeError(f"oversize entry is {len(raw)} bytes")
    return Vector(
        "oversize_entry",
        "§9 entries: an entry is at most 1 MiB",
        f"entry {k} is a NOTE of exactly {MAX_ENTRY + 1} bytes",
        head + raw,
        Expect(1, "malformed", k, None),
    )


# -- the header (SPEC §9) -----------------------------------------------------------------


@vector
def wrong_header_magic(game: Game) -> Vector:
    _step, kind, (magic, record, writer) = game.items[0]
    items = game.with_header(kind, [magic.upper(), record, writer])
    return Vector(
        "wrong_header_magic",
        "§9 header: [magic, lobby record, writer seat]",
        f"the header's magic is {magic.upper()!r}",
        write(items),
        Expect(2, "header"),
    )


@vector
def header_magic_of_another_protocol(game: Game) -> Vector:
    _step, kind, (_magic, record, writer) = game.items[0]
    protocol = game.record.protocol
    other = MAGICS[protocol - 1]
    return Vector(
        "header_magic_of_another_protocol",
        "§9 header: the magic is the one of the record's protocol",
        f"the header's magic is {other!r}, its record is of protocol {protocol}",
        write(game.with_header(kind, [other, record, writer])),
        Expect(2, f"a {other} header holding a protocol-{protocol} record"),
    )


@vector
def writer_not_a_seat(game: Game) -> Vector:
    _step, kind, (magic, record, _writer) = game.items[0]
    seats = len(game.record.seats)
    items = game.with_header(kind, [magic, record, seats])
    return Vector(
        "writer_not_a_seat",
        "§9 header: the writer is a seat of the record, or nil",
        f"the header names seat {seats} as its writer (the game has {seats} seats)",
        write(items),
        Expect(1, "writer", 0, 0),
    )


@vector
def start_position_not_a_position(game: Game) -> Vector:
    _step, kind, (magic, _record, writer) = game.items[0]
    start = start_state(game.record)
    assert isinstance(start, PrototagState)
    # seats 0 and 1 on one tile, with no battle between them: no Prototag position
    tiles = (start.positions[0], *start.positions)[: len(start.positions)]
    bad = dataclasses.replace(start, positions=tiles).encode()
    record = dataclasses.replace(game.record, start_position=bad).encode()
    return Vector(
        "start_position_not_a_position",
        "§2 record: a start position is a position of the record's game (protocol 4)",
        "the record's start_position holds a Prototag state with seats 0 and 1 on one tile "
        "(no battle): canonical bytes the engine decodes, no position of its rules; the log "
        "is that header alone (without the rules nothing in it can be refuted: exit 3)",
        write(game.with_header(kind, [magic, record, writer])[:1]),
        Expect(1, "start position: ", 0, 0),
    )


@vector
def second_header(game: Game) -> Vector:
    k = turn_of(game, 1)
    items = game.forged(k, game.items[0], *game.items[k : k + 2])
    return Vector(
        "second_header",
        "§9 entries: one HEADER, entry 0",
        f"a copy of the header inserted as entry {k}",
        write(items),
        Expect(1, "a second header", k, 0),
    )


# -- the entries' contents, as the replay reads them (SPEC §9) --------------------------------


@vector
def message_entry_not_bytes(game: Game) -> Vector:
    k = turn_of(game, 1)
    step = game.items[k][0]
    items = game.forged(k, (step, EntryKind.MSG, [game.items[k][2]]))
    return Vector(
        "message_entry_not_bytes",
        "§9 entries: a MSG entry holds a signed message's bytes",
        f"entry {k} is a MSG entry whose data is an array holding the message",
        write(items),
        Expect(1, "does not hold bytes", k, step),
    )


@vector
def message_does_not_parse(game: Game) -> Vector:
    k = turn_of(game, 1)
    step, kind, raw = game.items[k]
    items = game.forged(k, (step, kind, raw[:-1]))
    return Vector(
        "message_does_not_parse",
        "§3 messages: [body, signature], canonical",
        f"entry {k} holds a message cut one byte short",
        write(items),
        Expect(1, "stored message rejected", k, step),
    )


@vector
def step_entry_malformed(game: Game) -> Vector:
    k, step, data = game.first_turn_step()
    items = game.forged(k, (step, EntryKind.STEP, [data[0]]))
    return Vector(
        "step_entry_malformed",
        "§9 entries: a STEP entry holds [input, state hash after]",
        f"the STEP entry {k} holds [input] without the state hash",
        write(items),
        Expect(1, "malformed step record", k, step),
    )


@vector
def step_entry_not_decided(game: Game) -> Vector:
    k, _step, _data = game.first_turn_step()
    items = game.forged(k + 1, game.items[k])
    return Vector(
        "step_entry_not_decided",
        "§9 verification: every STEP entry records the step its messages decide",
        f"the STEP entry {k} written twice (entry {k + 1}): nothing decides the second",
        write(items),
        Expect(1, "do not decide", k + 1, game.items[k][0]),
    )


@vector
def step_entry_wrong_step_number(game: Game) -> Vector:
    k, step, data = game.first_turn_step()
    items = game.forged(k, (step + 1, EntryKind.STEP, data))
    return Vector(
        "step_entry_wrong_step_number",
        "§9 verification: a STEP entry's step is the step decided",
        f"the STEP entry {k} for step {step} says step {step + 1} (input and hash right)",
        write(items),
        Expect(1, "recorded input for step", k, step + 1),
    )


@vector
def step_entry_wrong_state_hash(game: Game) -> Vector:
    k, step, data = game.first_turn_step()
    items = game.forged(k, (step, EntryKind.STEP, [data[0], _h("another state"), *data[2:]]))
    return Vector(
        "step_entry_wrong_state_hash",
        "§9 verification: a STEP entry's state hash is the replay's",
        f"the STEP entry {k} records another state hash after step {step}",
        write(items),
        Expect(1, "state hash after step", k, step),
    )


@vector
def step_entry_wrong_input(game: Game) -> Vector:
    k = game.find(lambda m: m.type == MsgType.ENTROPY)
    step = game.msg(k).step
    s = game.step_entry(step)
    roll = decode_input(game.items[s][2][0])
    assert isinstance(roll, Roll)
    first = roll.values[0]
    other = Roll((((first[0] % 6) + 1, *first[1:]), *roll.values[1:]))  # another face
    items = game.forged(s, game.claimed_step(step, other))
    return Vector(
        "step_entry_wrong_input",
        "§9 verification: a STEP entry's input is the one its signed messages decide",
        f"the STEP entry {s} records another roll for step {step} (and the hash it gives)",
        write(items),
        Expect(1, "recorded input for step", s, step),
    )


@vector
def step_entry_input_spelled_otherwise(game: Game) -> Vector:
    # The input written non-canonically: its tag `true` for 1 (msgpack decodes it to True,
    # which Python compares equal to 1).  Bytes are the truth: it is not the decided input.
    k = game.find(lambda m: m.type == MsgType.REVEAL)
    step = game.msg(k).step
    s = game.step_entry(step)
    data = game.items[s][2]
    if data[0][0] != 1:
        raise RuntimeError("the secret step's input is not a Joint [1, ...]")
    spelled = [True, *data[0][1:]]
    items = game.forged(s, (step, EntryKind.STEP, [spelled, *data[1:]]))
    return Vector(
        "step_entry_input_spelled_otherwise",
        "§9 verification: a STEP entry's input is the decided input, byte for byte",
        f"the STEP entry {s} writes its Joint input's tag as true (not 1); the state hash is right",
        write(items),
        Expect(1, "recorded input for step", s, step),
    )


@vector
def step_entry_wrong_draw_purpose(game: Game) -> Vector:
    s = next(
        k for k, (_, kind, data) in enumerate(game.items) if kind == EntryKind.STEP and data[2:]
    )
    step, kind, data = game.items[s]
    items = game.forged(s, (step, kind, [data[0], data[1], "another purpose", *data[3:]]))
    return Vector(
        "step_entry_wrong_draw_purpose",
        "§9 entries: a roll's STEP entry records its draw purpose and kinds (protocol 2)",
        f"the STEP entry {s} of a roll records another draw purpose (input and hash right)",
        write(items),
        Expect(1, "draw or commitment purpose", s, step),
    )


@vector
def step_entry_input_undecodable(game: Game) -> Vector:
    k, step, data = game.first_turn_step()
    items = game.forged(k, (step, EntryKind.STEP, [[9, "no such input"], *data[1:]]))
    return Vector(
        "step_entry_input_undecodable",
        "§9 entries: a STEP entry's input is [0, seat, action], [1, choices] or [2, values]",
        f"the STEP entry {k} records an input of an unknown form",
        write(items),
        Expect(1, "malformed step record", k, step),
    )
