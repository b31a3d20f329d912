"""The must-fail logs of protocol/vectors/must_fail/: each validly signed and chained, each
breaking exactly one rule (or, at an edge SPEC decides, none), each answered as its index says
by both lanes of the verifier, by `lantag verify`, and with no engine registered at all by the
check without the rules (scripts/gen_must_fail.py writes them; SPEC §9.1 lists them).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lanTag.cli.entry import main as lantag_main
from lanTag.cli.log_commands import verify_exit_code
from lanTag.log import plain_replay
from lanTag.log.entries import EntryKind, LogFormatError, parse_log
from lanTag.log.report import VerifyReport
from lanTag.log.verify import verify_log
from lanTag.rules.registry import engine_ids, get_game
from lanTag.wire import PROTOCOL_VERSION
from tests.support.no_engines import no_engines

ROOT = Path(__file__).resolve().parents[2]
MUST_FAIL = ROOT / "protocol" / "vectors" / "must_fail"
INDEX: dict[str, Any] = json.loads((MUST_FAIL / "must_fail.json").read_text(encoding="utf-8"))
VECTORS: list[dict[str, Any]] = INDEX["vectors"]
IDS = [v["file"].removesuffix(".log") for v in VECTORS]


def data_of(vector: dict[str, Any]) -> bytes:
    return (MUST_FAIL / vector["file"]).read_bytes()


@pytest.fixture
def plain_verdicts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """What the fast lane (PlainReplay.report) answered during each verify_log call."""
    verdicts: list[bool] = []
    real = plain_replay.PlainReplay.report

    def spy(self: plain_replay.PlainReplay, *args: Any) -> bool:
        verdict = real(self, *args)
        verdicts.append(verdict)
        return verdict

    monkeypatch.setattr(plain_replay.PlainReplay, "report", spy)
    yield verdicts


@pytest.fixture
def slow_lane_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force the full Session replay: the fast lane calls no log plain."""
    monkeypatch.setattr(plain_replay.PlainReplay, "report", lambda self, *args: False)


def check_report(vector: dict[str, Any], data: bytes) -> VerifyReport | None:
    """verify_log's answer is the one the index expects (None for "not a log")."""
    expect = vector["expect"]
    if expect["exit"] == 2:
        with pytest.raises(LogFormatError, match=expect["reason_contains"]) as refused:
            verify_log(data)
        assert str(refused.value) == vector["reference_verifier_says"]["error"]
        return None
    report = verify_log(data)
    blames = [[seat, code] for seat, _step, code, _reason in report.blames]
    if expect["blame"] is not None:
        assert expect["blame"] in blames, blames
    if expect["exit"] == 0:  # valid: blamed, not complete, or an edge SPEC decides
        said = vector["reference_verifier_says"]
        assert report.valid, report.failure
        assert report.complete is expect["complete"] is said["complete"]
        assert expect["reason_contains"] in report.unacknowledged
        assert report.unacknowledged == said.get("unacknowledged", "")
        assert blames == said["blames"]
        return report
    failure = report.failure
    assert failure is not None, "the verifier accepts it"
    assert (failure.entry, failure.step) == (expect["entry"], expect["step"]), failure
    assert expect["reason_contains"] in failure.reason, failure
    assert failure.reason == vector["reference_verifier_says"]["reason"]
    return report


def expect_unacked(vector: dict[str, Any]) -> str:
    return str(vector["reference_verifier_says"].get("unacknowledged", ""))


def test_there_is_a_must_fail_log_per_check() -> None:
    assert len(VECTORS) >= 15
    assert len(set(IDS)) == len(IDS)
    on_disk = {p.name for p in MUST_FAIL.glob("*.log")}
    assert on_disk == {v["file"] for v in VECTORS}  # nothing stale, nothing missing


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_the_file_is_the_one_indexed(vector: dict[str, Any]) -> None:
    assert hashlib.sha256(data_of(vector)).hexdigest() == vector["sha256"]


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_verify_log_refuses_it_as_indexed(
    vector: dict[str, Any], plain_verdicts: list[bool]
) -> None:
    report = check_report(vector, data_of(vector))
    if report is None:
        return
    if report.failure is not None and report.failure.entry == 0:
        assert plain_verdicts == []  # a broken header: decided before either lane
    elif vector["rule"].startswith("§9 seals"):
        # The seals are checked after either lane, against the final state it reached
        # (lanTag.log.seals); test_the_full_replay_alone_... covers the other lane.
        assert len(plain_verdicts) == 1
    else:
        # The fast lane was asked, and did not call the log plain (a rule of its own caught
        # it, or it handed the log to the full replay): a plain verdict would skip the check.
        assert plain_verdicts == [False]


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_the_full_replay_alone_refuses_it_as_indexed(
    vector: dict[str, Any], slow_lane_only: None
) -> None:
    check_report(vector, data_of(vector))


@pytest.mark.parametrize("vector", VECTORS, ids=IDS)
def test_lantag_verify_refuses_it(
    vector: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    expect = vector["expect"]
    path = str(MUST_FAIL / vector["file"])
    code = lantag_main(["verify", path])
    out, err = capsys.readouterr()
    assert code == expect["exit"], out + err
    said = " ".join(out.split())  # the summary wraps long lines at 80 columns
    if expect["exit"] == 2:
        assert err.startswith("lantag: ") and expect["reason_contains"] in err, err
        assert "internal error" not in err
    elif expect["exit"] == 1:
        f = vector["reference_verifier_says"]
        assert said.endswith(f"INVALID at entry {f['entry']} (step {f['step']}): {f['reason']}")
    else:
        assert "VALID" in said and "INVALID" not in said
        if expect_unacked(vector):
            assert said.endswith(f"; not complete: {expect_unacked(vector)}"), out
        if not expect["complete"]:
            assert "VALID but incomplete: valid up to step" in said
        else:
            assert "VALID, complete" in said
        if expect["blame"] is not None:
            seat, code_name = expect["blame"]
            assert f"blame: seat {seat} at step" in said and code_name in said, out
    assert lantag_main(["verify", "--json", path]) == expect["exit"]
    as_json = json.loads(capsys.readouterr().out)
    if expect["exit"] == 2:
        assert as_json["log"] is False and expect["reason_contains"] in as_json["error"]
    elif expect["exit"] == 1:
        f = vector["reference_verifier_says"]
        assert as_json["failure"] == {
            "entry": f["entry"],
            "step": f["step"],
            "seat": f["seat"],
            "reason": f["reason"],
        }
    else:
        assert as_json["valid"] is True and as_json["failure"] is None
        assert as_json["complete"] is expect["complete"]
        assert as_json["unacknowledged"] == expect_unacked(vector)


@pytest.mark.parametrize("name", ["out_of_turn", "wrong_header_magic"])
def test_the_lantag_process_exits_with_the_indexed_code(name: str) -> None:
    vector = next(v for v in VECTORS if v["file"] == f"{name}.log")
    run = subprocess.run(
        [sys.executable, "-m", "lanTag", "verify", str(MUST_FAIL / vector["file"])],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard only
    )
    assert run.returncode == vector["expect"]["exit"], run.stdout + run.stderr
    assert "Traceback" not in run.stderr


def test_regenerating_writes_the_same_vectors() -> None:
    from scripts import gen_must_fail

    files = gen_must_fail.render()
    assert set(files) == {p.name for p in MUST_FAIL.iterdir()}
    for name, data in files.items():
        stale = f"{name} differs: run python -m scripts.gen_must_fail"
        assert (MUST_FAIL / name).read_bytes() == data, stale


def test_the_honest_game_verifies_and_takes_the_fast_lane(
    plain_verdicts: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The game every vector starts from is an ordinary one: the fast lane must take it
    # (a fast lane that refuses what it should take only costs time, but it costs it on
    # every log) and report exactly what the full replay reports.
    honest = INDEX["honest"]
    data = (MUST_FAIL / honest["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == honest["sha256"]
    fast = verify_log(data)
    assert fast.valid and fast.complete, fast.failure
    assert plain_verdicts == [True]
    assert fast.rolls_verified > 0 and fast.secrets_verified > 0 and fast.signatures_verified > 0
    game = get_game(INDEX["engine"])
    assert (fast.engine, fast.protocol, fast.rules_version) == (
        INDEX["engine"],
        PROTOCOL_VERSION,
        game.rules_version,
    )
    monkeypatch.setattr(plain_replay.PlainReplay, "report", lambda self, *args: False)
    slow = verify_log(data)
    assert fast.to_json() == slow.to_json()
    assert fast.applied == slow.applied


def test_the_hand_back_game_verifies_with_its_drop_and_hand_back(
    plain_verdicts: list[bool],
) -> None:
    # The admission_* vectors' game: a log with a drop and a hand-back that every verifier
    # must accept whole (the full replay: the fast lane hands a drop over to it).
    handback = INDEX["handback"]
    data = data_of(handback)
    assert hashlib.sha256(data).hexdigest() == handback["sha256"]
    report = verify_log(data)
    assert report.valid and report.complete, report.failure
    assert plain_verdicts == [False]
    # killed at a roll: its link of it withheld (protocol 6, SPEC §5.5)
    assert [(seat, code) for seat, _k, code, _r in report.blames] == [(2, "withheld")]
    notes = [e.data for e in parse_log(data).entries if e.kind == EntryKind.NOTE]
    assert ["back", [2], "admitted"] in notes
    assert report.sealed_by == [0, 1, 2]  # the seat given back played to the end


EVERY = [INDEX["honest"], INDEX["handback"], *VECTORS]


@pytest.mark.parametrize("vector", EVERY, ids=[v["file"].split(".")[0] for v in EVERY])
def test_without_any_engine_the_check_says_what_the_index_says(vector: dict[str, Any]) -> None:
    # A lanTag with no engine registered at all checks the log with the rules as the log
    # records them (SPEC §9.2, exit 3 when valid): every check that needs no rules refuses
    # the log at the entry the full replay names, and the report's counts and blames are
    # the reference's.  A file that is no lanTag log is none without the rules either.
    want = vector.get("reference_audit_says")
    with no_engines():
        assert engine_ids() == ()
        if want is None:  # exit 2
            with pytest.raises(LogFormatError, match=vector["expect"]["reason_contains"]):
                verify_log(data_of(vector))
            return
        report = verify_log(data_of(vector))
    said = report.to_json()
    assert report.replayed is False
    assert verify_exit_code(report) == want["exit"]  # 3: not replayed, yet valid
    assert {k: said[k] for k in want if k != "exit"} == {
        k: v for k, v in want.items() if k != "exit"
    }
    if vector not in (INDEX["honest"], INDEX["handback"]) and want["exit"] == 1:
        assert want["failure"]["entry"] == vector["expect"]["entry"]  # the same entry
        assert vector["expect"]["exit"] == 1  # never a valid log refused


def test_every_vector_but_those_no_log_has_its_verdict_without_the_rules() -> None:
    assert all((v["reference_audit_says"] is None) == (v["expect"]["exit"] == 2) for v in VECTORS)
    assert INDEX["honest"]["reference_audit_says"]["exit"] == 3


AUDITED = [v for v in EVERY if v.get("reference_audit_says") is not None]
REFUSED_WITHOUT_RULES = [v for v in AUDITED if v["reference_audit_says"]["exit"] == 1]


@pytest.mark.parametrize("vector", REFUSED_WITHOUT_RULES, ids=lambda v: v["file"])
def test_lantag_verify_without_any_engine_exits_1_at_the_indexed_entry(
    vector: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(MUST_FAIL / vector["file"])
    with no_engines():
        code = lantag_main(["verify", "--json", path])
    said = json.loads(capsys.readouterr().out)
    assert code == 1
    assert said["replayed"] is False and said["valid"] is False
    assert said["failure"] == vector["reference_audit_says"]["failure"]
