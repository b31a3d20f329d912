"""verify_log checks every signature in one loop before the replay (``_check_signatures``).

Its reports must be exactly those of the replay that parses and verifies each message as it
reaches it (``Session.receive_message``), on the untouched log and on logs whose messages
were tampered with and whose hash chain was then recomputed (so only the replay notices).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lanTag.log import verify as verify_module
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.plain_replay import PlainReplay
from lanTag.log.verify import verify_log
from tests.log.test_verify_paths import rechain
from tests.session.harness import toy_game_logs


@pytest.fixture(scope="module")
def log() -> bytes:
    return toy_game_logs("signature-pass", 13)[1]


def inline_report(data: bytes, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The report of the replay that verifies each message on receipt, as before."""
    with monkeypatch.context() as m:
        m.setattr(verify_module, "_check_signatures", lambda rows, keys: [None] * len(rows))
        m.setattr(PlainReplay, "report", lambda *args: False)  # the Session, message by message
        return verify_log(data).to_json()


def message_entries(data: bytes) -> list[tuple[int, bytes]]:
    return [(e.index, e.data) for e in parse_log(data).entries if e.kind == EntryKind.MSG]


def flip(data: bytes, at: int) -> bytes:
    out = bytearray(data)
    out[at] ^= 0x01
    return bytes(out)


TAMPERS: dict[str, Callable[[bytes, bytes], Any]] = {
    "signature bit": lambda raw, _other: flip(raw, len(raw) - 10),
    "body bit": lambda raw, _other: flip(raw, len(raw) // 3),
    "not msgpack": lambda raw, _other: b"\xc1" + raw[1:],
    "not bytes": lambda _raw, _other: 7,
    "another message": lambda _raw, other: other,
}


def test_the_untouched_log_gives_the_same_report(
    log: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = verify_log(log)
    assert report.valid and report.complete, report.failure
    assert report.signatures_verified == len(message_entries(log))
    assert report.to_json() == inline_report(log, monkeypatch)


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_tampered_messages_give_the_same_report(
    log: bytes, tamper: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = message_entries(log)
    for n, (index, raw) in enumerate(messages[::4]):
        other = messages[(4 * n + 7) % len(messages)][1]
        forged = rechain(log, index, TAMPERS[tamper](raw, other))
        report = verify_log(forged)
        assert report.to_json() == inline_report(forged, monkeypatch), (tamper, index)
        if tamper == "signature bit":
            assert report.failure is not None and report.failure.entry == index
            assert report.failure.reason.endswith("does not verify")
