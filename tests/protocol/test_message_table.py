"""SPEC §3's message table and lanTag's (lanTag.session.messages.SPECS) say the same thing:
the same types, codes, payload lengths and first protocols, and every layer's set of types
is read from the one table."""

from __future__ import annotations

import inspect
import re
from operator import attrgetter
from pathlib import Path

from lanTag.log import audit, plain_replay
from lanTag.session import chatter, core, lockstep, steps
from lanTag.session.messages import ADMITTING, SPECS, MsgType
from tests.session.harness import make_record, make_sessions

SPEC = Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md"
_ROW = re.compile(r"^\| (\d+) \| ([A-Z]+) \| (.+?) \| (.+) \|$")


def _spec_rows() -> dict[int, tuple[str, str, str]]:
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("\n## 3") : text.index("\n## 4")]
    rows = {}
    for line in section.splitlines():
        m = _ROW.match(line)
        if m and m.group(2) in MsgType.__members__:
            rows[int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
    return rows


def _top_level_fields(payload: str) -> int:
    inner = payload.strip("`").split("`")[0].strip()
    assert inner.startswith("[") and inner.endswith("]"), payload
    body, depth, fields = inner[1:-1].strip(), 0, 1
    if not body:
        return 0
    for ch in body:
        depth += ch == "["
        depth -= ch == "]"
        fields += ch == "," and depth == 0
    return fields


def test_spec_lists_every_message_type_by_its_code_and_name() -> None:
    rows = _spec_rows()
    assert {code: name for code, (name, _, _) in rows.items()} == {
        int(t): t.name for t in MsgType
    }
    assert set(SPECS) == set(MsgType)


def test_payload_lengths_and_first_protocols_agree_with_spec() -> None:
    for code, (name, payload, meaning) in _spec_rows().items():
        spec = SPECS[MsgType(code)]
        assert _top_level_fields(payload) == len(spec.payload), name
        row = f"{payload} {meaning}"
        if spec.since > 1:
            assert f"protocol {spec.since}" in row, name
        else:
            assert "(protocol" not in payload, name


def test_every_layer_reads_its_types_from_the_table() -> None:
    by = {t: s for t, s in SPECS.items()}
    assert set(core.CONTRIBUTIONS) == {t for t, s in by.items() if s.answers}
    assert {t: k.name for t, k in core.FITS.items()} == {
        t: s.answers for t, s in by.items() if s.answers
    }
    assert steps.REQUEST_LIMITS == {MsgType.VOTE: 32, MsgType.NUDGE: 4}
    assert set(lockstep._LATE_TYPES) == {MsgType.VOTE, MsgType.NUDGE, MsgType.HAVE}
    assert set(lockstep._ACKED) == {MsgType.MOVE, MsgType.COMMIT}
    assert ADMITTING == {MsgType.MOVE: 1, MsgType.ENTROPY: 1, MsgType.COMMIT: 1}
    assert audit._LINK_AT == {MsgType.ENTROPY: 0, MsgType.REVEAL: 2}
    assert {t for t, s in by.items() if not s.plain} == plain_replay._RARE
    assert chatter.CHATTER_LIMITS == {
        MsgType.CHAT: 32,
        MsgType.PRIVATE: 32,
        MsgType.SYNC: 8,
        MsgType.REJOIN: 8,
        MsgType.SEAL: 4,
        MsgType.LEAVE: 4,
    }
    assert {MsgType.CHAT, MsgType.PRIVATE, MsgType.SYNC, MsgType.REJOIN} == chatter.PROVEN
    assert {MsgType.CHAT, MsgType.PRIVATE} == chatter.WINDOWED


def test_the_session_dispatches_by_the_tables_handler_column() -> None:
    # A message type is one row plus its handler: the Session method named in the row takes
    # (msg, now); the types without one are a step's inputs and acknowledgements, filed in
    # its step's box (and checked for equivocation) by receive_parsed itself.
    named = {t: s.handler for t, s in SPECS.items() if s.handler is not None}
    record, ids, secrets = make_record("prototag", 2)
    session = make_sessions(record, ids, secrets)[0]
    assert isinstance(session, lockstep.Session)
    for msg_type, name in named.items():
        method = attrgetter(name)(session)  # the Session's own, or "part.method"
        assert list(inspect.signature(method).parameters) == ["msg", "now"], msg_type
    filed = {MsgType.MOVE, MsgType.ENTROPY, MsgType.COMMIT, MsgType.REVEAL}
    assert set(SPECS) - set(named) == filed | {MsgType.VOTE, MsgType.NUDGE, MsgType.HAVE}
