"""The table signs the result (protocol 3, SPEC §3 SEAL): at game over every live seat seals
the final state; a peer takes the others' seals for a bounded time, logs only seals of its own
final state, and blames a seal of another state (``bad-seal``) without logging it as one."""

from __future__ import annotations

import dataclasses

from lanTag.cli.log_commands import format_report
from lanTag.identity import Identity
from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, pack_bundle, parse_unverified, sign_message
from lanTag.session.sealing import SEAL_WAIT
from tests.session.harness import SimNet, addr_of, make_record, make_sessions


def _table(seed: str, protocol: int | None = None) -> tuple[list[Identity], list[Session], SimNet]:
    record, ids, secrets = make_record("toy", 3, seed=seed)
    if protocol is not None:
        record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    return ids, sessions, SimNet(sessions, seed=5)


def _never_seals(session: Session) -> None:
    """``session`` plays honestly but its SEAL never leaves (a peer that quits at game over)."""
    broadcast = session.journal.broadcast

    def without_seals(raws: list[bytes]) -> None:
        broadcast([r for r in raws if parse_unverified(r).type is not MsgType.SEAL])

    session.journal.broadcast = without_seals  # type: ignore[method-assign]


def _seal(ids: list[Identity], session: Session, seat: int, state_hash: bytes) -> Signed:
    return sign_message(
        ids[seat].signer(), MsgType.SEAL, session.game_id, session.step, seat, state_hash, ()
    )


def _events(net: SimNet, i: int, kind: type) -> list[object]:
    net.collect()
    return [e for e in net.events.get(i, []) if isinstance(e, kind)]


def test_every_live_seat_seals_and_every_log_lists_the_seals() -> None:
    _ids, sessions, net = _table("seal-all")
    net.run()
    assert net.all_over()
    for i, s in enumerate(sessions):
        assert s.sealed_by() == (0, 1, 2)
        assert not s.sealing(net.now)
        assert (
            sorted(e.seat for e in _events(net, i, ev.Sealed)) == [0, 1, 2][:i] + [0, 1, 2][i + 1 :]
        )  # the others' (our own is not news)
        report = verify_log(s.take_log())
        assert report.valid and report.complete and report.sealed_by == [0, 1, 2], report.failure
        assert "VALID, complete, sealed by seats 0 1 2: " in format_report("g.log", report)


def test_a_seat_that_never_seals_is_not_listed_and_the_wait_is_bounded() -> None:
    _ids, sessions, net = _table("seal-missing")
    _never_seals(sessions[2])
    net.run()
    s0 = sessions[0]
    assert s0.sealed_by() == (0, 1) and sessions[2].sealed_by() == (0, 1, 2)
    over = s0.over_at
    assert over is not None
    assert s0.sealing(over) and s0.sealing(over + SEAL_WAIT - 0.001)
    assert not s0.sealing(over + SEAL_WAIT)  # then it stops waiting, whatever seat 2 does
    report = verify_log(s0.take_log())
    assert report.valid and report.complete and report.sealed_by == [0, 1]


def test_a_seal_of_another_state_is_blamed_and_never_logged_as_a_seal() -> None:
    ids, sessions, net = _table("seal-bad")
    _never_seals(sessions[2])
    net.run()
    s0 = sessions[0]
    bad = _seal(ids, s0, 2, bytes(32))
    s0.receive_datagram(pack_bundle([bad.raw]), addr_of(2), net.now)
    assert [(e.seat, e.code) for e in _events(net, 0, ev.Blame)] == [(2, "bad-seal")]
    assert s0.sealed_by() == (0, 1)
    log = s0.take_log()
    report = verify_log(log)
    assert report.valid and report.complete and report.sealed_by == [0, 1], report.failure
    # Issue "[comeback]" item 7: the blame shows in the report and its summary like any
    # other, as the writer's word (the SEAL it refused is not in its log, SPEC §3).
    [(seat, step, code, reason)] = report.blames
    assert (seat, step, code) == (2, s0.step, "bad-seal") and "the writer's note" in reason
    summary = format_report("g.log", report)
    assert f"blame: seat 2 at step {s0.step}: bad-seal (sealed state 0000000000000000" in summary
    assert "VALID, complete, sealed by seats 0 1: " in summary
    for s in sessions[1:]:  # the others' logs hold no such note: no blame there
        other = verify_log(s.take_log())
        assert other.valid and other.complete and other.blames == [], other.blames


def test_a_seal_of_the_final_state_at_another_step_is_blamed_and_never_logged() -> None:
    # A seal names the final step and state together: the true final state hash signed for
    # another step is evidence against its signer too (issue "[proofs]").
    ids, sessions, net = _table("seal-step")
    _never_seals(sessions[2])
    net.run()
    s0 = sessions[0]
    final = s0.state.state_hash()
    for step in (s0.step - 1, s0.step + 1):
        bad = sign_message(ids[2].signer(), MsgType.SEAL, s0.game_id, step, 2, final, ())
        s0.receive_datagram(pack_bundle([bad.raw]), addr_of(2), net.now)
        s0.seal_book.seals.pop(2, None)  # each on its own: the first seal of a seat would count
    assert [(e.seat, e.code) for e in _events(net, 0, ev.Blame)] == [(2, "bad-seal")] * 2
    assert s0.sealed_by() == (0, 1)
    report = verify_log(s0.take_log())
    assert report.valid and report.complete and report.sealed_by == [0, 1], report.failure
    assert [(s, c) for s, _k, c, _r in report.blames] == [(2, "bad-seal")] * 2


def test_a_seal_that_comes_before_our_game_over_is_checked_when_we_get_there() -> None:
    # Peer 1 hears nothing until the others have finished.  (A joiner: the host cut off
    # at the start would drop the others as never played and play on alone, SPEC §5.4.)
    ids, sessions, net = _table("seal-early")
    _never_seals(sessions[2])
    net.silent.add(1)
    net.run()
    s0, s1 = sessions[0], sessions[1]
    assert s0.state.is_over and not s1.state.is_over
    final = s0.state.state_hash()
    good = sign_message(ids[2].signer(), MsgType.SEAL, s1.game_id, s0.step, 2, final, ())
    wrong = sign_message(ids[0].signer(), MsgType.SEAL, s1.game_id, s0.step, 0, bytes(32), ())
    # ...and a second seal of seat 2, of another state: the first seal of a seat counts.
    again = sign_message(ids[2].signer(), MsgType.SEAL, s1.game_id, s0.step, 2, bytes(32), ())
    for raw in (good.raw, wrong.raw, again.raw):
        s1.receive_datagram(pack_bundle([raw]), addr_of(2), net.now)
    assert s1.sealed_by() == ()  # not checked yet: we have not reached the end
    net.silent.clear()
    net.run()
    assert s1.state.is_over and s1.state.state_hash() == final
    assert 2 in s1.sealed_by() and 0 not in s1.sealed_by()
    blames = [(e.seat, e.code) for e in _events(net, 1, ev.Blame)]
    assert (0, "bad-seal") in blames and (2, "bad-seal") not in blames


def test_a_protocol_2_game_has_no_seals_and_refuses_one() -> None:
    ids, sessions, net = _table("seal-p2", protocol=2)
    net.run()
    s0 = sessions[0]
    assert s0.state.is_over and s0.sealed_by() == () and not s0.sealing(net.now)
    assert s0.over_at is not None and not s0.sealing(s0.over_at)  # nothing to wait for
    seal = sign_message(
        ids[1].signer(), MsgType.SEAL, s0.game_id, s0.step, 1, s0.state.state_hash(), (), 2
    )
    s0.receive_datagram(pack_bundle([seal.raw]), addr_of(1), net.now)
    assert [e.code for e in _events(net, 0, ev.Rejected)] == ["unknown-type"]
    report = verify_log(s0.take_log())
    assert report.valid and report.complete and report.sealed_by == []
    assert "sealed by" not in format_report("g.log", report)


def test_the_wait_ends_once_every_person_has_sealed_a_bot_seat_seals_nothing() -> None:
    record, ids, secrets = make_record("toy", 3, 1, seed="seal-bot")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.run()
    for s in sessions:
        assert s.sealed_by() == (0, 1, 2)  # the three people; seat 3 is a bot
        assert s.over_at is not None and not s.sealing(s.over_at + SEAL_WAIT / 2)
        report = verify_log(s.take_log())
        assert report.valid and report.complete and report.sealed_by == [0, 1, 2]


def test_a_dropped_seat_signs_no_seal() -> None:
    # A seat dropped (and never given back) follows the game to its end; only the live
    # seats seal the final state (SPEC §3), at every peer and in every log.
    from tests.session.test_handback import GONE, _dropped_table

    sessions, net = _dropped_table("seal-dropped")
    net.silent.discard(GONE)  # it follows the game on what the others send
    net.run()
    assert all(s.state.is_over for s in sessions)
    assert len({s.state.state_hash() for s in sessions}) == 1
    for s in sessions:
        assert GONE not in s.live and s.sealed_by() == (0, 1), s.seat
        report = verify_log(s.take_log())
        assert report.valid and report.complete and report.sealed_by == [0, 1], report.failure
