from __future__ import annotations

import pytest

from lanTag.log.entries import EntryKind, LogFormatError, parse_log
from lanTag.log.verify import verify_log
from tests.session.harness import toy_game_logs


@pytest.fixture(scope="module")
def finished_logs() -> list[bytes]:
    return toy_game_logs("logs", 5)


def test_every_peer_log_verifies_and_agrees(finished_logs: list[bytes]) -> None:
    reports = [verify_log(data) for data in finished_logs]
    for r in reports:
        assert r.valid, r.failure
        assert r.complete
        assert r.rolls_verified == 3 and r.secrets_verified == 3
    assert len({tuple(map(tuple, r.ranking)) for r in reports}) == 1
    assert len({tuple(a.state_hash for a in r.applied) for r in reports}) == 1


def test_flipped_byte_in_each_entry_is_rejected_naming_the_entry(
    finished_logs: list[bytes],
) -> None:
    data = finished_logs[0]
    entries = parse_log(data).entries
    for entry in entries[1:40]:
        start = data.index(entry.raw)
        for offset in (5, len(entry.raw) - 3):  # inside the header fields and inside the payload
            tampered = bytearray(data)
            tampered[start + offset] ^= 0x01
            report = verify_log(bytes(tampered))
            failure = report.failure
            assert failure is not None, f"entry {entry.index} offset {offset} went unnoticed"
            # Refused at the flipped entry itself, or, when that entry still checks out
            # (a NOTE's text), at the next one, which no longer chains to it: never elsewhere.
            if failure.entry == entry.index + 1:
                assert failure.reason == f"entry {entry.index + 1}: hash chain broken", failure
            else:
                assert failure.entry == entry.index, (entry.index, offset, failure)


def test_swapped_or_dropped_entries_are_rejected(finished_logs: list[bytes]) -> None:
    data = finished_logs[1]
    entries = parse_log(data).entries
    raws = [e.raw for e in entries]
    swapped = b"".join([*raws[:5], raws[6], raws[5], *raws[7:]])
    report = verify_log(swapped)
    assert not report.valid and report.failure is not None and report.failure.entry == 5
    dropped = b"".join([*raws[:8], *raws[9:]])
    report = verify_log(dropped)
    assert not report.valid and report.failure is not None and report.failure.entry == 8


def test_truncated_log_is_incomplete_but_valid(finished_logs: list[bytes]) -> None:
    data = finished_logs[2]
    cut = data[: len(data) * 2 // 3]
    entries = parse_log(data).entries
    whole, end = 0, 0  # the entries wholly inside the cut, and where the last one ends
    while end + len(entries[whole].raw) <= len(cut):
        end += len(entries[whole].raw)
        whole += 1
    report = verify_log(cut)
    assert report.valid
    assert not report.complete
    assert report.entries == whole
    assert report.truncated_bytes == len(cut) - end > 0  # the cut falls inside an entry
    kept_steps = [e.step for e in entries[:whole] if e.kind == EntryKind.STEP]
    assert report.steps == max(kept_steps) + 1


def test_not_a_log() -> None:
    with pytest.raises(LogFormatError):
        verify_log(b"hello world")
    with pytest.raises(LogFormatError):
        verify_log(b"")


@pytest.mark.parametrize("writer", [[0], True, 4, -1, "0", "missing"])
def test_a_header_whose_writer_is_missing_or_not_a_seat_is_invalid(
    finished_logs: list[bytes], writer: object
) -> None:
    """A lanTag log (its magic and record are fine) whose writer field is missing or not a
    seat of the game (nor nil): invalid at its header, exit 1 (SPEC §9)."""
    from lanTag.cli.log_commands import verify_exit_code
    from lanTag.log.entries import LogChain

    entries = parse_log(finished_logs[0]).entries
    magic, record_bytes, _seat = entries[0].data
    chain = LogChain()
    header = [magic, record_bytes] if writer == "missing" else [magic, record_bytes, writer]
    forged = [chain.append(0, entries[0].kind, header)]
    forged += [chain.append(e.step, e.kind, e.data) for e in entries[1:]]
    report = verify_log(b"".join(forged))
    assert report.failure is not None and (report.failure.entry, report.failure.step) == (0, 0)
    assert "writer" in report.failure.reason and verify_exit_code(report) == 1
    assert not report.complete and report.signatures_verified == 0  # nothing more is read


def test_a_spectators_log_names_a_nil_writer_and_verifies(finished_logs: list[bytes]) -> None:
    from lanTag.log.entries import LogChain

    entries = parse_log(finished_logs[0]).entries
    magic, record_bytes, _seat = entries[0].data
    chain = LogChain()
    forged = [chain.append(0, entries[0].kind, [magic, record_bytes, None])]
    forged += [chain.append(e.step, e.kind, e.data) for e in entries[1:]]
    report = verify_log(b"".join(forged))
    assert report.valid and report.writer_seat is None, report.failure


def test_the_json_report_holds_every_field_under_its_name() -> None:
    from lanTag.log.report import Failure, Player, VerifyReport

    report = VerifyReport(
        engine="toy",
        game_id="ab" * 32,
        writer_seat=1,
        players=[Player(0, "ann", "0123456789abcdef", ""), Player(1, "bot-1", "bot", "random")],
        entries=11,
        steps=7,
        rolls_verified=2,
        secrets_verified=3,
        signatures_verified=5,
        blames=[(0, 4, "bad-reveal", "reveal does not open its commitment")],
        complete=False,
        outcome="",
        ranking=[],
        truncated_bytes=9,
        failure=Failure(10, 6, None, "state hash after step 6 differs"),
        protocol=2,
        rules_version=3,
        lantag_version="0.1.0",
        replayed=False,
        needs="toy rules 3",
        unchecked="bot moves",
        sealed_by=[0, 2],
        unacknowledged="the last move",
    )
    assert report.to_json() == {
        "valid": False,
        "complete": False,
        "engine": "toy",
        "game_id": "ab" * 32,
        "writer_seat": 1,
        "players": [
            {"seat": 0, "nickname": "ann", "fingerprint": "0123456789abcdef", "bot": ""},
            {"seat": 1, "nickname": "bot-1", "fingerprint": "bot", "bot": "random"},
        ],
        "entries": 11,
        "steps": 7,
        "rolls_verified": 2,
        "secrets_verified": 3,
        "signatures_verified": 5,
        "blames": [
            {
                "seat": 0,
                "step": 4,
                "code": "bad-reveal",
                "reason": "reveal does not open its commitment",
            }
        ],
        "outcome": "",
        "ranking": [],
        "truncated_bytes": 9,
        "failure": {
            "entry": 10,
            "step": 6,
            "seat": None,
            "reason": "state hash after step 6 differs",
        },
        "protocol": 2,
        "rules_version": 3,
        "lantag_version": "0.1.0",
        "replayed": False,
        "needs": "toy rules 3",
        "unchecked": "bot moves",
        "sealed_by": [0, 2],
        "unacknowledged": "the last move",
    }


def test_a_finished_replay_reports_the_outcome_and_ranking(finished_logs: list[bytes]) -> None:
    report = verify_log(finished_logs[0])
    assert report.to_json()["valid"] is True and report.to_json()["failure"] is None
    assert report.complete and report.outcome == "done"
    assert sorted(s for group in report.ranking for s in group) == [0, 1, 2, 3]
    assert all(type(group) is list for group in report.ranking)
