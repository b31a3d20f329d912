"""The corpora of real signed logs stay checkable (tests/corpus/, SPEC "Versions").

tests/corpus/protocol1/ holds logs written by the last protocol-1 release (cb686e4):
rules version 1 of their engines.  Each verifies with exit 0 while this lanTag still holds
rules 1 of its engine, else 3 (authentic, not replayed); a tampered copy fails with 1
either way.  tests/corpus/protocol2/ to protocol6/ hold one log per engine of
each protocol; without their rules their draws are recomputed and their commitments opened
from the log alone.  Every protocol-3 (or later) log is sealed by every seat of its game.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lanTag.cli.log_commands import verify_exit_code
from lanTag.log.entries import EntryKind, LogChain, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.registry import get_game
from lanTag.session.compatibility import rules_version_of
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, parse_unverified
from tests.cli.helpers import Home, lantag, make_home

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PROTOCOL1 = sorted((CORPUS / "protocol1").glob("*.log"))
PROTOCOL2 = sorted((CORPUS / "protocol2").glob("*.log"))
PROTOCOL3 = sorted((CORPUS / "protocol3").glob("*.log"))
PROTOCOL4 = sorted((CORPUS / "protocol4").glob("*.log"))
PROTOCOL5 = sorted((CORPUS / "protocol5").glob("*.log"))
PROTOCOL6 = sorted((CORPUS / "protocol6").glob("*.log"))


def _record(data: bytes) -> LobbyRecord:
    return LobbyRecord.decode(parse_log(data).entries[0].data[1])


def _expected_exit(data: bytes) -> int:
    record = _record(data)
    return 0 if rules_version_of(record.engine) == record.rules_version else 3


def _rechain(data: bytes, index: int, new_data: Any) -> bytes:
    chain = LogChain()
    return b"".join(
        chain.append(e.step, e.kind, new_data if e.index == index else e.data)
        for e in parse_log(data).entries
    )


def _forged_signature(data: bytes) -> bytes:
    """The log with one message's signature bit-flipped, the hash chain redone."""
    entry = next(e for e in parse_log(data).entries if e.kind == EntryKind.MSG)
    raw = entry.data
    return _rechain(data, entry.index, raw[:-1] + bytes([raw[-1] ^ 1]))


@pytest.fixture
def without_rules(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This lanTag holds other rules of every engine than the ones the corpora played."""
    for engine in ("prototag", "assassination", "boardtag", "stomptag", "tagem"):
        game = get_game(engine)
        monkeypatch.setattr(game, "rules_version", 1000, raising=False)
    yield


def test_the_corpora_hold_a_log_per_engine() -> None:
    for corpus in (PROTOCOL1, PROTOCOL2, PROTOCOL3, PROTOCOL4, PROTOCOL5, PROTOCOL6):
        engines = {_record(p.read_bytes()).engine for p in corpus}
        assert engines == {"prototag", "assassination", "boardtag", "stomptag", "tagem"}
    assert all(_record(p.read_bytes()).protocol == 1 for p in PROTOCOL1)
    assert all(_record(p.read_bytes()).protocol == 2 for p in PROTOCOL2)
    assert all(_record(p.read_bytes()).protocol == 3 for p in PROTOCOL3)
    assert all(_record(p.read_bytes()).protocol == 4 for p in PROTOCOL4)
    assert all(_record(p.read_bytes()).protocol == 5 for p in PROTOCOL5)
    assert all(_record(p.read_bytes()).protocol == 6 for p in PROTOCOL6)


ALL = PROTOCOL1 + PROTOCOL2 + PROTOCOL3 + PROTOCOL4 + PROTOCOL5 + PROTOCOL6


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_log_verifies_as_its_rules_allow(path: Path) -> None:
    data = path.read_bytes()
    report = verify_log(data)
    assert report.valid, report.failure
    assert verify_exit_code(report) == _expected_exit(data)
    assert report.signatures_verified > 0 and report.steps > 0
    assert verify_exit_code(verify_log(_forged_signature(data))) == 1


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_without_its_rules_a_log_is_authentic_but_not_replayed(
    path: Path, without_rules: None
) -> None:
    data = path.read_bytes()
    report = verify_log(data)
    assert report.valid and not report.replayed, report.failure
    assert verify_exit_code(report) == 3
    record = _record(data)
    assert report.needs == (
        f"a full replay needs {record.engine} rules {record.rules_version} "
        "(this lanTag has rules 1000)"
    )
    assert verify_exit_code(verify_log(_forged_signature(data))) == 1


@pytest.mark.parametrize(
    "path",
    PROTOCOL2 + PROTOCOL3 + PROTOCOL4 + PROTOCOL5 + PROTOCOL6,
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_without_its_rules_every_draw_and_opening_is_still_checked(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = path.read_bytes()
    if _expected_exit(data) != 0:
        pytest.skip("this lanTag plays other rules than the log: no full replay to compare")
    full = verify_log(data)
    assert full.replayed and full.rolls_verified > 0
    engine = _record(data).engine
    monkeypatch.setattr(get_game(engine), "rules_version", 1000, raising=False)
    audit = verify_log(data)
    assert verify_exit_code(audit) == 3 and audit.unchecked == ""
    assert (audit.rolls_verified, audit.secrets_verified, audit.signatures_verified) == (
        full.rolls_verified,
        full.secrets_verified,
        full.signatures_verified,
    )
    assert audit.sealed_by == full.sealed_by
    assert audit.steps == full.steps
    # Another roll recorded than its links draw: caught without the rules.
    entries = parse_log(data).entries
    roll = next(e for e in entries if e.kind == EntryKind.STEP and e.data[0][0] == 2)
    inp, digest, purpose, draws = roll.data
    values = [[v + 1 for v in vs] for vs in inp[1]]
    forged = verify_log(_rechain(data, roll.index, [[2, values], digest, purpose, draws]))
    assert forged.failure is not None and forged.failure.entry == roll.index
    assert forged.failure.reason == (
        f"recorded input for step {roll.step} differs from the one its signed messages decide"
    )
    # Another purpose: another seed, so the recorded roll no longer follows (a one-die roll
    # may come out the same by chance, so several purposes are tried: one must be caught).
    caught = [
        verify_log(_rechain(data, roll.index, [inp, digest, purpose + x, draws])).failure
        for x in "abcdefgh"
    ]
    assert any(f is not None and f.entry == roll.index for f in caught)


def test_a_recorded_secret_choice_must_be_the_revealed_one_without_the_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = (CORPUS / "protocol2" / "prototag.log").read_bytes()
    monkeypatch.setattr(get_game("prototag"), "rules_version", 1000, raising=False)
    entries = parse_log(data).entries
    joint = next(e for e in entries if e.kind == EntryKind.STEP and e.data[0][0] == 1)
    revealed = {
        m.seat
        for m in (parse_unverified(e.data) for e in entries if e.kind == EntryKind.MSG)
        if m.type == MsgType.REVEAL and m.step == joint.step
    }
    inp, digest, purpose = joint.data
    seat, action = next((s, a) for s, a in inp[1] if s in revealed)
    other = next(w for w in ("rock", "paper", "scissors") if w != action[1])
    choices = [[s, ["rps", other] if s == seat else a] for s, a in inp[1]]
    report = verify_log(_rechain(data, joint.index, [[1, choices], digest, purpose]))
    assert report.failure is not None
    assert (report.failure.entry, report.failure.step) == (joint.index, joint.step)
    assert report.failure.reason == (
        f"recorded input for step {joint.step} differs from the one its signed messages decide"
    )
    assert report.blames == []  # the seat's REVEAL opens: it is the recorded choice that lies
    # With the commitment purpose changed no reveal opens: each is listed as a bad reveal.
    report = verify_log(_rechain(data, joint.index, [inp, digest, purpose + "x"]))
    assert {(s, code) for s, _step, code, _r in report.blames} >= {
        (s, "bad-reveal") for s in revealed
    }


def test_the_purposes_of_a_replayed_log_are_checked_against_the_rules() -> None:
    data = (CORPUS / "protocol2" / "prototag.log").read_bytes()
    if _expected_exit(data) != 0:
        pytest.skip("this lanTag plays other Prototag rules than the corpus log")
    entries = parse_log(data).entries
    roll = next(e for e in entries if e.kind == EntryKind.STEP and e.data[0][0] == 2)
    inp, digest, purpose, _draws = roll.data
    report = verify_log(_rechain(data, roll.index, [inp, digest, purpose, [[2, 7]]]))
    assert report.failure is not None and report.failure.entry == roll.index
    assert "purpose of step" in report.failure.reason


@pytest.mark.parametrize("path", PROTOCOL1[:1] + PROTOCOL2[:1], ids=lambda p: p.parent.name)
def test_the_cli_exit_code(path: Path, tmp_path: Path) -> None:
    home: Home = make_home(tmp_path / "home")
    data = path.read_bytes()
    done = lantag(home, "verify", str(path))
    assert done.returncode == _expected_exit(data), done.stdout + done.stderr
    forged = tmp_path / "forged.log"
    forged.write_bytes(_forged_signature(data))
    done = lantag(home, "verify", str(forged))
    assert done.returncode == 1 and "INVALID" in done.stdout


@pytest.mark.parametrize(
    "path", PROTOCOL3 + PROTOCOL4 + PROTOCOL5 + PROTOCOL6, ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_every_protocol_3_or_later_log_is_sealed_by_every_seat(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = path.read_bytes()
    record = _record(data)
    seats = [i for i, s in enumerate(record.seats) if not s.is_bot]
    report = verify_log(data)
    assert report.valid and report.sealed_by == seats, report.failure
    if report.replayed:
        assert report.complete and report.unacknowledged == ""
    monkeypatch.setattr(get_game(record.engine), "rules_version", 1000, raising=False)
    audit = verify_log(data)  # without the rules: the seals of the last recorded state
    assert audit.valid and not audit.replayed and audit.sealed_by == seats, audit.failure
