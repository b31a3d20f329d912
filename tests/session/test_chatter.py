"""Bounded chatter (issue #38 item 4, protocol 6, SPEC §5.3): CHAT, PRIVATE, SYNC and REJOIN
are capped per seat and step; the first distinct one over the cap, with the ones taken,
proves a flood, and every honest peer ends with the same blame, drop and state."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.errors import LocalProtocolError
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.chatter import CHATTER_LIMITS
from lanTag.session.features import FIRST_PROTOCOL
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, pack_bundle, sign_message
from tests.session.harness import SimNet, addr_of, make_record, make_sessions


def _table(seed: str, protocol: int | None = None) -> tuple[list[Identity], list[Session], SimNet]:
    record, ids, secrets = make_record("toy", 3, seed=seed)
    if protocol is not None:
        record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    return ids, sessions, SimNet(sessions, seed=11)


def _events(net: SimNet, seat: int, kind: type) -> list:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, kind)]


def _signed(ids: list[Identity], s: Session, kind: MsgType, payloads: list[tuple]) -> list[bytes]:
    """Messages of seat 2 at ``s``'s step and state, one per payload."""
    h, step = s.state.state_hash(), s.step
    return [
        sign_message(ids[2].signer(), kind, s.game_id, step, 2, h, p, version=s.record.protocol).raw
        for p in payloads
    ]


def _chat_flood(ids: list[Identity], s: Session, count: int) -> list[bytes]:
    return _signed(ids, s, MsgType.CHAT, [(f"junk {i}",) for i in range(count)])


@pytest.mark.parametrize("kind", [MsgType.CHAT, MsgType.SYNC])
def test_one_chatter_message_over_the_cap_convicts_the_seat_at_every_honest_peer(
    kind: MsgType,
) -> None:
    """The flood goes to seat 0 only; seat 1 convicts on the proof seat 0 sends on.  Both
    blame seat 2 `flood` (never each other), drop it once, end in one state, and their logs
    verify with the same blame (the verifier counts the logged proof the same way)."""
    ids, sessions, net = _table(f"chat-{kind.name}")
    net.run_until(lambda: all(s.step >= 2 for s in sessions))
    cheat, cap = sessions[2], CHATTER_LIMITS[kind]
    if kind is MsgType.CHAT:
        raws = _chat_flood(ids, cheat, cap + 1)
    else:
        raws = _signed(ids, cheat, kind, [(k,) for k in range(cap + 1)])  # SYNC(from k)
    sessions[0].receive_datagram(pack_bundle(raws), addr_of(2), net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for s in (0, 1):
        blames = [(e.seat, e.code) for e in _events(net, s, ev.Blame)]
        # convicted, then voted out at the next step that waits for it (its drop: `timeout`)
        assert blames == [(2, "flood"), (2, "timeout")], (s, blames)
        assert [d.seats for d in _events(net, s, ev.SeatsDropped)] == [(2,)], s
        log = sessions[s].take_log()
        report = verify_log(log)
        assert report.valid and report.complete, report.failure
        assert (2, "flood") in {(seat, code) for seat, _, code, _ in report.blames}
        logged = [e for e in parse_log(log).entries if e.kind is EntryKind.MSG]
        assert sum(e.data in raws for e in logged) == cap + 1  # the proof, once


def test_a_person_may_say_the_cap_and_is_told_to_wait_past_it() -> None:
    """An honest peer never signs the line over the cap: ``say`` refuses it in words, and
    the others take every line it did send without blaming anyone."""
    _ids, sessions, net = _table("talker")
    net.run_until(lambda: all(s.step >= 1 for s in sessions))
    talker = sessions[1]
    cap = CHATTER_LIMITS[MsgType.CHAT]
    for i in range(cap):
        talker.say(f"line {i}", net.now)
    with pytest.raises(LocalProtocolError, match="wait for the next"):
        talker.say("one more", net.now)
    talker.say("line 0", net.now)  # the very same line again: a copy, never counted
    net.run_until(lambda: all(len(_events(net, s, ev.Chat)) >= cap for s in (0, 2)))
    net.run(max_time=net.now + 1.0)
    for s in (0, 2):
        chats = [e.text for e in _events(net, s, ev.Chat)]
        assert chats == [f"line {i}" for i in range(cap)]  # the copy is shown once
        assert _events(net, s, ev.Blame) == []


def test_copies_of_one_chat_line_are_free_and_shown_once() -> None:
    ids, sessions, net = _table("copies")
    net.run_until(lambda: all(s.step >= 1 for s in sessions))
    [raw] = _chat_flood(ids, sessions[2], 1)
    for _ in range(5 * CHATTER_LIMITS[MsgType.CHAT]):
        sessions[0].receive_datagram(pack_bundle([raw]), addr_of(2), net.now)
    assert [e.text for e in _events(net, 0, ev.Chat)] == ["junk 0"]
    assert sessions[0].counters["duplicate"] >= 5 * CHATTER_LIMITS[MsgType.CHAT] - 1
    assert _events(net, 0, ev.Blame) == []


def test_a_convicted_flooders_chatter_is_dropped_before_its_signature_is_checked() -> None:
    ids, sessions, net = _table("after")
    net.run_until(lambda: all(s.step >= 1 for s in sessions))
    cap = CHATTER_LIMITS[MsgType.CHAT]
    s0 = sessions[0]
    s0.receive_datagram(pack_bundle(_chat_flood(ids, sessions[2], cap + 1)), addr_of(2), net.now)
    shown = len(_events(net, 0, ev.Chat))
    more = _signed(ids, sessions[2], MsgType.CHAT, [(f"more {i}",) for i in range(50)])
    s0.receive_datagram(pack_bundle(more), addr_of(2), net.now)
    assert len(_events(net, 0, ev.Chat)) == shown
    assert s0.counters["from-flooder"] == 50


def test_chat_far_from_our_step_is_dropped_unchecked() -> None:
    ids, sessions, net = _table("far")
    net.run_until(lambda: all(s.step >= 1 for s in sessions))
    s0, cheat = sessions[0], sessions[2]
    h = cheat.state.state_hash()
    ahead = [
        sign_message(ids[2].signer(), MsgType.CHAT, s0.game_id, s0.step + 65 + i, 2, h, ("x",)).raw
        for i in range(100)
    ]
    s0.receive_datagram(pack_bundle(ahead), addr_of(2), net.now)
    assert s0.counters["chatter-far"] == 100 and _events(net, 0, ev.Chat) == []


def test_a_protocol_5_game_takes_chatter_as_before() -> None:
    assert FIRST_PROTOCOL["chatter_cap"] == 6
    ids, sessions, net = _table("old", protocol=5)
    net.run_until(lambda: all(s.step >= 1 for s in sessions))
    cap = CHATTER_LIMITS[MsgType.CHAT]
    raws = _chat_flood(ids, sessions[2], cap + 5)
    sessions[0].receive_datagram(pack_bundle(raws), addr_of(2), net.now)
    assert len(_events(net, 0, ev.Chat)) == cap + 5
    assert _events(net, 0, ev.Blame) == []
