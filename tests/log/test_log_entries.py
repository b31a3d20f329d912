"""How lanTag.log.entries reads a log's entries, beyond what the must-fail vectors show: how
msgpack is asked to decode them (the mutation run's survivors of parse_rows, issue #27)."""

from __future__ import annotations

import msgpack
import pytest

from lanTag.log.entries import EntryKind, LogFormatError, parse_log
from tests.log.honest_log import HONEST


def _header() -> bytes:
    return parse_log(HONEST).entries[0].raw


def test_a_log_larger_than_msgpacks_default_buffer_is_read() -> None:
    # msgpack.Unpacker refuses to be fed more than 100 MiB unless told otherwise: a long log
    # must still be read entry by entry (here: its header, then garbage judged at entry 1).
    data = _header() + bytes(100 * 1024 * 1024)
    parsed = parse_log(data)
    assert len(parsed.entries) == 1
    assert parsed.error == "entry 1: malformed (cannot unpack non-iterable int object)"


def test_a_map_keyed_by_a_number_is_refused_as_it_is_decoded() -> None:
    # Maps are never canonical (SPEC §1).  One keyed by a number is refused by the decoder
    # itself (strict_map_key: "not msgpack"), one keyed by a string by the canonical check.
    head = parse_log(HONEST).entries[0]
    for key, said in ((1, "entry 1: not msgpack"), ("a", "entry 1: malformed")):
        entry = msgpack.packb([1, 0, head.hash, int(EntryKind.NOTE), {key: 2}])
        parsed = parse_log(head.raw + entry)
        assert len(parsed.entries) == 1 and parsed.error.startswith(said), parsed.error


def test_bytes_msgpack_cannot_decode_are_no_log_at_the_start_and_a_broken_entry_later() -> None:
    head = parse_log(HONEST).entries[0].raw
    with pytest.raises(LogFormatError) as refused:
        parse_log(b"\xc1" + head)  # 0xc1: a byte msgpack never uses
    assert str(refused.value) == "not a lanTag log (it does not start with a log entry)"
    parsed = parse_log(head + b"\xc1" + head)
    assert len(parsed.entries) == 1 and parsed.error.startswith("entry 1: not msgpack (")
    assert parsed.truncated_tail == 0  # no entry was cut short: one is broken


def test_an_entry_of_the_wrong_length_is_refused_by_the_full_canonical_check() -> None:
    # Only a 5-item entry may take the inline check of the common MSG entry; any other is
    # checked whole (a float in its sixth item is not canonical) and refused as malformed.
    head = parse_log(HONEST).entries[0]
    for entry, said in (
        ([1, 0, head.hash], "not enough values to unpack (expected 5, got 3)"),
        ([1, 0, head.hash, 1, b"x", 1.5], "malformed: type float is not allowed in canonical"),
    ):
        parsed = parse_log(head.raw + msgpack.packb(entry))
        assert parsed.error.startswith(f"entry 1: malformed ({said}"), parsed.error


@pytest.mark.parametrize("position", [0, 1, 2, 3, 4])
def test_a_float_in_any_field_of_an_entry_is_refused_as_not_canonical(position: int) -> None:
    # 1.0 == 1 in Python: an index, step or kind written as a float would pass every later
    # comparison, so only the canonical check (no floats, SPEC §1) can refuse it; a float
    # for the previous hash or the data is refused there too, not as a broken chain.
    head = parse_log(HONEST).entries[0]
    entry: list[object] = [1, 0, head.hash, int(EntryKind.MSG), b"x"]
    field = entry[position]
    entry[position] = float(field) if type(field) is int else 1.5
    parsed = parse_log(head.raw + msgpack.packb(entry))
    assert len(parsed.entries) == 1
    assert parsed.error.startswith("entry 1: malformed (malformed: type float"), parsed.error


@pytest.mark.parametrize("kind", [7, -1, True, False, "1"])
def test_an_entry_kind_is_one_of_the_four_numbers(kind: object) -> None:
    # true and false are canonical msgpack, and True == 1 in Python: a kind written as a
    # bool was read as MSG (or HEADER); only the numbers 0 to 3 are kinds (SPEC §9).
    head = parse_log(HONEST).entries[0]
    parsed = parse_log(head.raw + msgpack.packb([1, 0, head.hash, kind, b"x"]))
    assert len(parsed.entries) == 1
    assert parsed.error == f"entry 1: malformed ({kind!r} is not a valid EntryKind)"


def test_a_first_entry_that_is_no_entry_is_no_log() -> None:
    with pytest.raises(LogFormatError) as refused:
        parse_log(msgpack.packb([0]))
    assert str(refused.value) == "not a lanTag log (it does not start with a log entry)"


def test_a_broken_entry_is_named_and_is_no_torn_tail() -> None:
    head = parse_log(HONEST).entries[0]
    for entry, said in (
        ([5, 0, head.hash, int(EntryKind.NOTE), b"x"], "entry 1: index 5 out of order"),
        ([1, 0, bytes(32), int(EntryKind.NOTE), b"x"], "entry 1: hash chain broken"),
        ([1, 0, head.hash, 9, b"x"], "entry 1: malformed (9 is not a valid EntryKind)"),
    ):
        parsed = parse_log(head.raw + msgpack.packb(entry))
        assert (len(parsed.entries), parsed.error, parsed.truncated_tail) == (1, said, 0)


def test_no_bytes_are_no_log() -> None:
    with pytest.raises(LogFormatError) as refused:
        parse_log(b"")
    assert str(refused.value) == "not a lanTag log: empty or unreadable"
