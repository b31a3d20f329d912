"""The verification fast paths keep every verdict: re-chained tampering (a log whose hash
chain was recomputed after the edit, so only the replay can notice) and the engine's
``apply(..., actions_checked=True)`` path the session uses after its own legality check."""

from __future__ import annotations

from typing import Any

import pytest

from lanTag.log.entries import EntryKind, LogChain, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import Action, IllegalAction, Joint, Move, Roll
from lanTag.session.messages import MsgType, parse_unverified
from tests.session.harness import toy_game_logs


@pytest.fixture(scope="module")
def log() -> bytes:
    return toy_game_logs("fast-paths", 9)[0]


def rechain(data: bytes, index: int, new_data: Any) -> bytes:
    """The log with entry ``index`` holding ``new_data``, every hash link recomputed."""
    chain = LogChain()
    out = []
    for e in parse_log(data).entries:
        out.append(chain.append(e.step, e.kind, new_data if e.index == index else e.data))
    return b"".join(out)


def step_entries(data: bytes, tag: int) -> list[tuple[int, int, Any]]:
    """(entry index, step, data) of the STEP entries whose input has this tag (0 = move)."""
    return [
        (e.index, e.step, e.data)
        for e in parse_log(data).entries
        if e.kind == EntryKind.STEP and e.data[0][0] == tag
    ]


def test_the_untouched_log_verifies(log: bytes) -> None:
    report = verify_log(log)
    assert report.valid and report.complete, report.failure
    assert verify_log(rechain(log, -1, None)).to_json() == report.to_json()


@pytest.mark.parametrize("which", [0, -1])
def test_a_bool_for_the_seat_of_a_recorded_move_is_malformed(log: bytes, which: int) -> None:
    index, _step, (inp, digest) = step_entries(log, 0)[which]
    forged = [[0, bool(inp[1]), inp[2]], digest]  # True == 1 and False == 0 in Python
    report = verify_log(rechain(log, index, forged))
    assert report.failure is not None and report.failure.entry == index
    assert report.failure.reason.startswith("malformed step record")


@pytest.mark.parametrize("tag", [0, 1, 2])
def test_another_recorded_input_differs(log: bytes, tag: int) -> None:
    index, step, (inp, digest, *facts) = step_entries(log, tag)[0]
    if tag == 0:
        other = [0, inp[1], ["add", 3 - inp[2][1]]]
    elif tag == 1:
        other = [1, [[s, ["guess", (a[1] + 1) % 3]] for s, a in inp[1]]]
    else:
        other = [2, [[inp[1][0][0] % 6 + 1]]]
    report = verify_log(rechain(log, index, [other, digest, *facts]))
    assert report.failure is not None and report.failure.entry == index
    assert "differs from the one its signed messages decide" in report.failure.reason
    report = verify_log(rechain(log, index, [inp, bytes(32), *facts]))
    assert report.failure is not None and report.failure.entry == index
    assert report.failure.reason == f"state hash after step {step} differs"


def test_a_bad_signature_on_any_have_is_reported_at_its_entry(log: bytes) -> None:
    entries = parse_log(log).entries
    haves = [
        e
        for e in entries
        if e.kind == EntryKind.MSG and parse_unverified(e.data).type == MsgType.HAVE
    ]
    assert len(haves) >= 6
    for e in haves[:3] + haves[-3:]:  # early ones and late ones (the replay's short path)
        forged = e.data[:-5] + bytes([e.data[-5] ^ 0x40]) + e.data[-4:]  # inside the signature
        report = verify_log(rechain(log, e.index, forged))
        assert report.failure is not None and report.failure.entry == e.index
        assert "does not verify" in report.failure.reason


def test_apply_with_actions_checked_still_matches_the_decision() -> None:
    from tests.session.toygame import Toy

    state = Toy.new_state(3, {"rounds": 1})
    with pytest.raises(IllegalAction):
        state.apply(Move(0, Action("add", (1,))), actions_checked=True)  # a roll is due
    state = state.apply(Roll(((1,),)))
    with pytest.raises(IllegalAction):
        state.apply(Move(0, Action("add", (1,))), actions_checked=True)  # a joint choice is due
    with pytest.raises(IllegalAction):  # not every seat
        state.apply(Joint(((0, Action("guess", (0,))),)), actions_checked=True)
    joint = Joint(tuple((s, Action("guess", (s,))) for s in range(3)))
    state = state.apply(joint, actions_checked=True)
    assert state == Toy.new_state(3, {"rounds": 1}).apply(Roll(((1,),))).apply(joint)
    turn = state.decision()
    seat = turn.seat  # type: ignore[union-attr]
    with pytest.raises(IllegalAction):  # another seat's turn
        state.apply(Move((seat + 1) % 3, Action("add", (1,))), actions_checked=True)
    with pytest.raises(IllegalAction):  # the default path still looks the action up
        state.apply(Move(seat, Action("add", (7,))))
    legal = Move(seat, Action("add", (2,)))
    assert state.apply(legal, actions_checked=True) == state.apply(legal)


def test_a_header_of_the_wrong_shape_is_not_a_lanTag_log_header_and_says_why() -> None:
    from lanTag.log.entries import MAGIC, LogFormatError

    for header in ([MAGIC], [MAGIC, b"", 0, 0], "ab"):
        chain = LogChain()
        chain.append(0, EntryKind.HEADER, header)
        with pytest.raises(LogFormatError) as caught:
            verify_log(chain.take())
        assert str(caught.value) == (
            "not a lanTag log header: the header is not [magic, record, writer seat]"
        ), header


@pytest.mark.parametrize("protocol", [1, 2, 3, 4])
def test_the_report_names_the_header_as_recorded(protocol: int) -> None:
    from pathlib import Path

    from lanTag.session.lobby_record import LobbyRecord

    corpus = Path(__file__).resolve().parents[1] / "corpus" / f"protocol{protocol}"
    data = (corpus / "tagem.log").read_bytes()
    header = parse_log(data).entries[0].data
    record = LobbyRecord.decode(header[1])
    report = verify_log(data)
    assert report.protocol == protocol == record.protocol
    assert report.to_json()["protocol"] == protocol
    assert (report.rules_version, report.lantag_version, report.engine) == (
        record.rules_version,
        record.lantag_version,
        "tagem",
    )
    assert report.game_id == record.game_id.hex()
    assert report.previous_game == record.previous_game.hex()
    assert report.writer_seat == (header[2] if len(header) == 3 else None)
    assert [(p.seat, p.nickname, p.fingerprint, p.bot) for p in report.players] == [
        (i, s.nickname, s.fingerprint, s.bot) for i, s in enumerate(record.seats)
    ]
