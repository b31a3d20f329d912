"""verify and the seals of the final state (SPEC §9): in both replay lanes and without the
rules (lanTag.log.audit), and what the summary line says (sealed by, a torn last entry)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from lanTag.cli.log_commands import format_report, verify_exit_code
from lanTag.log import plain_replay
from lanTag.log.entries import EntryKind, LogChain, parse_log, parse_rows
from lanTag.log.report import VerifyReport
from lanTag.log.seals import check_seals
from lanTag.log.verify import verify_log
from lanTag.rules.base import Move
from lanTag.rules.registry import get_game
from lanTag.session.events import StepApplied
from lanTag.session.features import FIRST_PROTOCOL
from lanTag.session.messages import MsgType, Signed, parse_unverified, sign_message
from tests.log.honest_log import HONEST, chained, first_msg, items_of, signer_of
from tests.session.harness import SimNet, make_record, make_sessions

MUST_FAIL = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "must_fail"


def _vector(name: str) -> bytes:
    return (MUST_FAIL / name).read_bytes()


@pytest.fixture
def without_prototag_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(get_game("prototag"), "rules_version", 1000, raising=False)


def test_without_the_rules_the_seals_are_listed(without_prototag_rules: None) -> None:
    report = verify_log(_vector("honest_game.lantag"))
    assert verify_exit_code(report) == 3 and report.sealed_by == [0, 1, 2]
    assert "AUTHENTIC, NOT REPLAYED" in format_report("g", report)
    assert ", sealed by seats 0 1 2" in format_report("g", report)


def test_without_the_rules_a_seal_of_another_state_is_invalid(
    without_prototag_rules: None,
) -> None:
    report = verify_log(_vector("seal_of_another_state.log"))
    assert report.failure is not None and report.failure.seat == 1, report.failure
    assert verify_exit_code(report) == 1
    assert "evidence against seat 1" in report.failure.reason
    # Whether the game ended where a log stops needs the rules: without them a seal of the
    # last recorded state is listed (exit 3), as the replay that has them refuses it (exit 1).
    report = verify_log(_vector("seal_before_the_end.log"))
    assert verify_exit_code(report) == 3 and report.sealed_by == [1]


def _slow_lane(data: bytes) -> VerifyReport:
    """verify_log with the fast lane calling no log plain: the full replay decides."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(plain_replay.PlainReplay, "report", lambda self, *args: False)
        return verify_log(data)


def _toy_log(protocol: int) -> tuple[bytes, Any]:
    record, ids, secrets = make_record("toy", 3, seed=f"seals-{protocol}")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    net.run()
    s0 = sessions[0]
    assert s0.state.is_over
    return s0.take_log(), (ids, s0)


def _with_entry(data: bytes, step: int, kind: EntryKind, entry: Any) -> bytes:
    chain = LogChain()
    out = [chain.append(e.step, e.kind, e.data) for e in parse_log(data).entries]
    out.append(chain.append(step, kind, entry))
    return b"".join(out)


def test_a_seal_in_a_protocol_2_log_is_refused_by_both_lanes_and_the_audit(
    monkeypatch: pytest.MonkeyPatch, toy_engine: None
) -> None:
    data, (ids, s0) = _toy_log(2)
    seal = sign_message(
        ids[1].signer(), MsgType.SEAL, s0.game_id, s0.step, 1, s0.state.state_hash(), (), 2
    )
    forged = _with_entry(data, s0.step, EntryKind.MSG, seal.raw)
    k = len(parse_log(forged).entries) - 1
    fast = verify_log(forged)
    assert fast.failure is not None and fast.failure.entry == k
    assert fast.failure.reason == "stored message rejected: a SEAL in a protocol-2 game"
    with monkeypatch.context() as m:
        m.setattr(plain_replay.PlainReplay, "report", lambda self, *args: False)
        assert verify_log(forged).failure == fast.failure
    monkeypatch.setattr(get_game("toy"), "rules_version", 1000, raising=False)
    audit = verify_log(forged)  # the replay without the rules: refused as with them
    assert audit.replayed is False and audit.failure == fast.failure


def test_a_torn_last_entry_is_said_on_the_summary_line(toy_engine: None) -> None:
    data, _ = _toy_log(3)
    torn = data + _with_entry(data, 0, EntryKind.NOTE, ["x", [], "y" * 200])[len(data) : -15]
    report = verify_log(torn)
    cut = len(torn) - len(data)
    assert report.valid and report.truncated_bytes == cut
    said = " ".join(format_report("g", report).split())
    assert said.endswith(f"; the last {cut} bytes are a torn entry, ignored")
    assert "VALID, complete, sealed by seats 0 1 2" in said
    # Incomplete: the same words on its summary line.
    entries = parse_log(data).entries
    half = b"".join(e_raw for e_raw in (e.raw for e in entries[: len(entries) // 2]))
    report = verify_log(half + torn[len(data) :])
    assert report.valid and not report.complete and report.unacknowledged == ""  # not over
    said = " ".join(format_report("g", report).split())
    assert said.startswith("g: toy rules ") and "VALID but incomplete" in said
    assert said.endswith(f"; the last {cut} bytes are a torn entry, ignored")


# check_seals on the must-fail vectors' honest game, its entries changed and re-chained: the
# acknowledgement of the last move (SPEC §9 seals), case by case.  Its last move is seat 0's
# MOVE; seats 1 and 2 each name it in a HAVE and all three seal the end.
def _acknowledgement(
    drop: Callable[[Signed], bool],
    add: Sequence[Signed] = (),
    live: frozenset[int] = frozenset({0, 1, 2}),
) -> str:
    """What check_seals says of the honest game's last move once the messages ``drop`` picks
    are taken out and ``add`` put in; ``live``: the seats still at the table at the end."""
    items = [
        it for it in items_of(HONEST) if it[1] != EntryKind.MSG or not drop(parse_unverified(it[2]))
    ]
    items += [(m.step, EntryKind.MSG, m.raw) for m in add]
    rows, _tail, error = parse_rows(chained(items))
    assert error == ""
    last = _honest_end()
    final = (last.step + 1, last.state_hash)
    verdict = check_seals(
        rows, [None] * len(rows), FIRST_PROTOCOL["seals"], final, (last.step, last.input), live
    )
    assert verdict.failure is None and verdict.sealed_by == (0,)  # its author's own seal
    return verdict.unacknowledged


@functools.cache
def _honest_end() -> StepApplied:
    report = verify_log(HONEST)
    last = report.applied[-1]
    # The tests below take seat 0 as the last move's author (which move it is follows the dice).
    assert report.complete and isinstance(last.input, Move) and last.input.seat == 0
    return last


def _last_move() -> Signed:
    items = items_of(HONEST)
    k = first_msg(items, lambda m: m.type is MsgType.MOVE and m.step == _honest_end().step)
    return parse_unverified(items[k][2])


def _others_seals(m: Signed) -> bool:
    return m.type is MsgType.SEAL and m.seat != 0


def _others_acks(m: Signed) -> bool:
    return m.type is MsgType.HAVE and m.step == _honest_end().step and m.payload[0] == 0


def _unacked() -> str:
    return f"the last move (seat 0, step {_honest_end().step}) is acknowledged or sealed by no"


def test_a_last_move_its_author_alone_acknowledges_counts_for_nobody() -> None:
    move = _last_move()
    assert _acknowledgement(_others_seals) == ""  # the others' HAVEs name it
    assert _acknowledgement(lambda m: _others_seals(m) or _others_acks(m)).startswith(_unacked())
    # The author's own HAVE of its own move is no acknowledgement (a re-signing writer
    # could add one).
    own = sign_message(
        signer_of(0), MsgType.HAVE, move.game_id, move.step, 0, move.state_hash, (0, [move.digest])
    )
    said = _acknowledgement(lambda m: _others_seals(m) or _others_acks(m), [own])
    assert said.startswith(_unacked())


def test_a_last_move_nobody_else_was_left_to_acknowledge_counts() -> None:
    def unacked(m: Signed) -> bool:
        return _others_seals(m) or _others_acks(m)

    assert _acknowledgement(unacked).startswith(_unacked())
    assert _acknowledgement(unacked, live=frozenset({1, 2})) == ""  # its author had left
    assert _acknowledgement(unacked, live=frozenset({0})) == ""  # the others had left


def test_the_authors_other_messages_of_that_step_are_no_moves() -> None:
    # A message of the author's at the last move's step that is not a MOVE (here a LEAVE,
    # whose payload is empty) is neither the move nor an acknowledgement of it.
    move = _last_move()
    leave = sign_message(
        signer_of(0), MsgType.LEAVE, move.game_id, move.step, 0, move.state_hash, ()
    )
    assert _acknowledgement(_others_seals, [leave]) == ""


def test_a_log_of_its_header_alone_is_valid_with_nothing_sealed() -> None:
    head = parse_log(HONEST).entries[0].raw  # no step was played: no final state, no last move
    for report in (verify_log(head), _slow_lane(head)):
        assert report.valid and not report.complete and report.steps == 0, report.failure
        assert report.sealed_by == [] and report.unacknowledged == ""


@pytest.mark.parametrize("name", ["seal_of_another_state.log", "last_move_resigned.log"])
def test_a_game_the_seals_do_not_back_is_not_complete_in_its_json(name: str) -> None:
    # Refused for a seal of another state, or valid with a last move nobody acknowledged:
    # "complete" is false (a JSON false, not null) and no result is reported, in both lanes.
    for report in (verify_log(_vector(name)), _slow_lane(_vector(name))):
        said = report.to_json()
        assert (said["complete"], said["outcome"], said["ranking"]) == (False, "", [])


def test_a_bad_seal_the_writer_noted_is_a_blame_in_every_lane(
    without_prototag_rules: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue "[comeback]" item 7: a session blames a SEAL of another state and keeps it out
    # of its log (SPEC §3), so no replay can find that blame again; the report lists it from
    # the writer's NOTE, marked as the writer's word, in the fast lane, the full replay and
    # the check without the rules alike.  Other NOTEs stay annotations, whatever they say.
    items = items_of(HONEST)
    last = items[-1][0]
    reason = "sealed state 00000000, the game ended in 11111111 at step 9"
    notes = [
        (last, EntryKind.NOTE, ["bad-seal", [2], reason]),
        (last, EntryKind.NOTE, ["desync", [1], "state hash differs"]),  # the replay's to find
        (last, EntryKind.NOTE, ["bad-seal", [1, 2], reason]),  # not one seat: no blame
        (last, EntryKind.NOTE, ["bad-seal", [], reason]),
        (last, EntryKind.NOTE, ["bad-seal", ["1"], reason]),
        (last, EntryKind.NOTE, ["bad-seal", [1]]),
    ]
    data = chained([*items, *notes])
    want = [(2, last, "bad-seal", f"{reason} (the writer's note; that SEAL is not logged)")]
    audit = verify_log(data)
    assert verify_exit_code(audit) == 3 and audit.blames == want
    monkeypatch.undo()  # the rules again
    fast = verify_log(data)
    assert fast.valid and fast.complete and fast.blames == want
    assert _slow_lane(data).to_json() == fast.to_json()
    line = f"blame: seat 2 at step {last}: bad-seal (sealed state 00000000"
    assert line in format_report("g", fast)
    assert "VALID, complete, sealed by seats 0 1 2" in " ".join(format_report("g", fast).split())
    assert verify_log(HONEST).blames == []
