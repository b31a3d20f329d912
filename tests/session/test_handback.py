"""A dropped seat given back (protocol 5, SPEC §5.6): its signed REJOIN rides in a live seat's
next MOVE, ENTROPY or COMMIT, and every peer (a verifier of any log too) makes it live from
the step after that contribution's.  Simulated table, virtual time, no sleeps."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.features import Features
from lanTag.session.lockstep import Session
from lanTag.session.messages import (
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
)
from lanTag.session.referee import NeedKind
from tests.session.harness import SimNet, make_record, make_sessions

GONE = 2  # the seat whose process dies and comes back


def _run_to(net: SimNet, pred: Callable[[], bool]) -> None:
    net.run_until(pred, max_steps=200_000)


def _events(net: SimNet, seat: int, kind: type) -> list[ev.Event]:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, kind)]


def _dropped_table(seed: str, humans: int = 3) -> tuple[list[Session], SimNet]:
    """A table whose seat GONE died at step 4 and was dropped by every other seat."""
    record, ids, secrets = make_record("toy", humans, 1, seed=seed)
    assert Features.of(record.protocol).handback
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    _run_to(net, lambda: sessions[GONE].step >= 4)
    net.silent.add(GONE)
    others = [i for i in range(humans) if i != GONE]
    _run_to(net, lambda: all(_events(net, i, ev.SeatsDropped) for i in others))
    return sessions, net


def _back(net: SimNet, sessions: list[Session]) -> None:
    """The process of seat GONE is back and asks for its seat (what a resume does)."""
    net.silent.discard(GONE)
    sessions[GONE].rejoin.ask_back(net.now)


def _own_contributions(log: bytes, seat: int, from_step: int) -> list[Signed]:
    out = []
    for entry in parse_log(log).entries:
        if entry.kind == EntryKind.MSG:
            msg = parse_unverified(entry.data)
            if (
                msg.seat == seat
                and msg.step >= from_step
                and msg.type
                in (
                    MsgType.MOVE,
                    MsgType.ENTROPY,
                    MsgType.COMMIT,
                )
            ):
                out.append(msg)
    return out


def _carried_since(session: Session, step: int) -> bool:
    """``session`` signed a contribution carrying an admission at ``step`` or later."""
    return any(
        m.seat == session.seat and m.step >= step and m.admission is not None
        for m in session.inbox.slots.values()
    )


def _carriers(log: bytes) -> list[Signed]:
    """The contributions of a log that carry an admission."""
    msgs = [parse_unverified(e.data) for e in parse_log(log).entries if e.kind == EntryKind.MSG]
    return [m for m in msgs if m.admission is not None]


@pytest.mark.parametrize("seed", ["back-a", "back-b", "back-c"])
def test_a_dropped_seat_that_asks_back_plays_again_at_one_step_for_everyone(seed: str) -> None:
    sessions, net = _dropped_table(seed)
    assert GONE not in sessions[0].live
    _back(net, sessions)
    _run_to(net, lambda: bool(_events(net, GONE, ev.SeatsBack)))
    net.run()
    assert net.all_over()
    backs = {i: _events(net, i, ev.SeatsBack) for i in range(3)}
    steps = {tuple((b.step, b.seats) for b in got) for got in backs.values()}  # type: ignore[attr-defined]
    assert len(steps) == 1, backs  # the same admission, at the same step, at every peer
    [(back_step, seats)] = next(iter(steps))
    assert seats == (GONE,)
    assert len({s.state.state_hash() for s in sessions}) == 1
    assert all(GONE in s.live for s in sessions)
    logs = [s.take_log() for s in sessions]
    carried = _carriers(logs[0])
    assert carried and {parse_unverified(c.admission or b"").seat for c in carried} == {GONE}
    assert carried[0].step == back_step - 1  # live from the step after its carrier's
    # It plays its own seat again: its contributions from the admission on, in every log.
    for log in logs:
        assert _own_contributions(log, GONE, back_step), "no move of the seat given back"
    reports = [verify_log(log) for log in logs]
    for report in reports:
        assert report.valid and report.complete, report.failure
        assert not [b for b in report.blames if b[0] != GONE]
    assert len({tuple((a.step, a.state_hash) for a in r.applied) for r in reports}) == 1


def _request(sessions: list[Session], step: int) -> Signed:
    """Seat GONE's signed REJOIN at ``step`` (its key is the toy record's, by seed)."""
    me = sessions[GONE]
    assert me._signer is not None
    return sign_message(
        me._signer,
        MsgType.REJOIN,
        me.game_id,
        step,
        GONE,
        bytes(32),
        (),
        version=me.record.protocol,
    )


def _ready(kind: MsgType) -> Callable[[list[Session]], bool]:
    """When a REJOIN that reaches seats 0 and 1 now rides in a ``kind`` first."""

    def ready(sessions: list[Session]) -> bool:
        s0, s1 = sessions[0], sessions[1]
        if kind is MsgType.ENTROPY:
            # Seat 0 then seat 1 played the round's human turns (the last one, seat 1's, is
            # not decided yet): the next thing either signs is the roll's chain link.
            needs = s1.needs()
            return (
                needs.kind is NeedKind.TURN
                and needs.humans == (1,)
                and bool(s1._box(s1.step).of(MsgType.MOVE))
                and any(
                    m.seat == 0 and m.type is MsgType.MOVE and m.step == s1.step - 1
                    for m in s0.inbox.slots.values()
                )
            )
        needs = s0.needs()
        if s0.step != s1.step:
            return False
        if kind is MsgType.COMMIT:
            return needs.kind is NeedKind.SECRET and s0.my_turn() == "secret"
        return needs.kind is NeedKind.TURN and s0.my_turn() == "turn"

    return ready


def _reach(sessions: list[Session], net: SimNet, kind: MsgType) -> None:
    """Run until a REJOIN that reaches seats 0 and 1 now rides in a ``kind`` first (people
    think meanwhile: nothing is signed before the test looks)."""
    net.hold, net.hold_secret = {0, 1}, {0, 1}
    ready = _ready(kind)
    for _ in range(200_000):
        if ready(sessions):
            break
        net.hold = {0, 1} if kind is MsgType.MOVE else set()
        net.hold_secret = {0, 1} if kind is MsgType.COMMIT else set()
        assert net.step()


@pytest.mark.parametrize("kind", [MsgType.MOVE, MsgType.ENTROPY, MsgType.COMMIT], ids=str)
def test_every_input_a_step_waits_for_at_every_peer_can_carry_the_admission(
    kind: MsgType,
) -> None:
    """The toy round is a roll (every live seat's ENTROPY), a secret guess (their COMMITs)
    and turns (a MOVE): whichever carries the REJOIN, every peer admits the seat at the
    step after that contribution's, and so does a verifier of either log."""
    sessions, net = _dropped_table("kind")
    _reach(sessions, net, kind)
    request = _request(sessions, sessions[0].step)
    for i in (0, 1):
        sessions[i].receive_message(request.raw, net.now)
    net.hold, net.hold_secret = set(), set()
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in (0, 1)))
    backs = [_events(net, i, ev.SeatsBack) for i in (0, 1)]
    assert backs[0] == backs[1] and len(backs[0]) == 1
    logs = [sessions[i].take_log() for i in (0, 1)]
    carried = _carriers(logs[0])
    assert carried[0].type is kind, carried
    assert backs[0][0].step == carried[0].step + 1  # type: ignore[union-attr]
    for log in logs:
        report = verify_log(log)
        assert report.valid, report.failure


def test_an_admission_of_a_forged_request_is_void_everywhere() -> None:
    """A live seat carrying a REJOIN that the dropped seat did not sign admits nobody: every
    peer checks its signature against the seat's key in the record, and so does a verifier."""
    sessions, net = _dropped_table("forged")
    carrier = sessions[0]
    impostor = Identity(hashlib.sha256(b"not seat 2").digest()).signer()
    forged = sign_message(
        impostor,
        MsgType.REJOIN,
        carrier.game_id,
        carrier.step,
        GONE,
        carrier.state.state_hash(),
        (),
        version=carrier.record.protocol,
    )
    carrier.handback.rejoins[GONE] = forged  # a cheating carrier: it keeps what it never verified
    step = carrier.step
    _run_to(net, lambda: _carried_since(carrier, step))
    net.run()
    assert net.all_over()
    for i in (0, 1):
        assert not _events(net, i, ev.SeatsBack)
        assert GONE not in sessions[i].live
    log = sessions[1].take_log()
    assert _carriers(log), "the forged request was carried"
    report = verify_log(log)
    assert report.valid and report.complete, report.failure


def test_a_seat_convicted_of_cheating_is_never_given_back() -> None:
    """A seat dropped for a proven equivocation asks back with a validly signed REJOIN; even a
    carrier that takes it admits nobody: every peer holds the proof."""
    record, ids, secrets = make_record("toy", 3, 1, seed="liar")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    _run_to(net, lambda: sessions[0].step >= 3)
    liar = sessions[GONE]
    # Two different ENTROPYs or MOVEs of one slot: sign a second one for the step it is at.
    kinds = (MsgType.MOVE, MsgType.ENTROPY)
    first = next(m for m in liar.inbox.slots.values() if m.seat == GONE and m.type in kinds)
    second = sign_message(
        ids[GONE].signer(),
        first.type,
        first.game_id,
        first.step,
        GONE,
        first.state_hash,
        (["add", 9],) if first.type is MsgType.MOVE else (bytes(32),),
        version=record.protocol,
    )
    for s in sessions[:2]:
        s.receive_message(second.raw, net.now)
    net.silent.add(GONE)
    _run_to(net, lambda: all(GONE not in sessions[i].live for i in (0, 1)))
    assert all(any(b.code == "equivocation" for b in _events(net, i, ev.Blame)) for i in (0, 1))  # type: ignore[attr-defined]
    request = sign_message(
        ids[GONE].signer(),
        MsgType.REJOIN,
        record.game_id,
        sessions[0].step,
        GONE,
        sessions[0].state.state_hash(),
        (),
        version=record.protocol,
    )
    for s in sessions[:2]:
        s.receive_message(request.raw, net.now)
        assert s._admission_for() is None  # an honest carrier does not even carry it
    carrier = sessions[0]
    carrier._admission_for = lambda: request.raw  # type: ignore[method-assign]
    step = carrier.step
    _run_to(net, lambda: _carried_since(carrier, step))
    net.run()
    for i in (0, 1):
        assert not _events(net, i, ev.SeatsBack)
        assert GONE not in sessions[i].live
    for i in (0, 1):
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_why_a_dropped_seat_can_only_watch_is_one_fact() -> None:
    sessions, net = _dropped_table("refusals")
    me = sessions[GONE]
    net.silent.discard(GONE)
    _run_to(net, lambda: GONE not in me.live)  # it learns its drop from the others
    assert me.rejoin.refusal() is None  # the table may give it back
    me.handback.leaves[0] = me.step  # one other person has left: the other may still admit it
    assert me.rejoin.refusal() is None
    for seat in (0, 1):
        me.handback.leaves[seat] = me.step  # every other person has left (signed LEAVEs)
    assert me.rejoin.refusal() == "nobody"
    me.handback.leaves.clear()
    me.convictions.banned[GONE] = me.step  # a proof that it cheated
    assert me.rejoin.refusal() == "convicted"


# ------------------------------------------------------------------ the wire shape

_KEYS = [Identity(hashlib.sha256(f"hb/key/{i}".encode()).digest()) for i in range(3)]
_GAME, _STATE = hashlib.sha256(b"hb/game").digest(), hashlib.sha256(b"hb/state").digest()


def _rejoin(seat: int = 2, game: bytes = _GAME, version: int = 5) -> bytes:
    signer = _KEYS[seat].signer()
    return sign_message(signer, MsgType.REJOIN, game, 7, seat, _STATE, (), version=version).raw


def _carrying(kind: MsgType, admission: object, version: int = 5, seat: int = 0) -> bytes:
    from lanTag import wire
    from lanTag.session.messages import SIGN_DOMAIN

    base = {MsgType.MOVE: ["add", 1], MsgType.ENTROPY: bytes(32), MsgType.COMMIT: bytes(32)}
    body = wire.pack([version, int(kind), _GAME, 7, seat, _STATE, base[kind], admission])
    return wire.pack([body, _KEYS[seat].signer().sign(SIGN_DOMAIN + body)])


@pytest.mark.parametrize("kind", [MsgType.MOVE, MsgType.ENTROPY, MsgType.COMMIT], ids=str)
def test_a_contribution_carries_a_whole_signed_rejoin_on_both_parse_paths(kind: MsgType) -> None:
    from lanTag.session import messages

    raw = _carrying(kind, _rejoin())
    msg = parse_unverified(raw)
    assert msg.admission == _rejoin() and msg.type is kind
    strict = messages._parse_strict(raw)
    assert strict == msg and strict.admission == msg.admission
    assert parse_unverified(_rejoin()).admission is None  # a REJOIN carries nothing


_BAD_ADMISSIONS: dict[str, Callable[[], tuple[object, int]]] = {  # (admission, outer version)
    "garbage": lambda: (b"not a message", 5),
    "other-game": lambda: (_rejoin(game=bytes(32)), 5),
    "itself": lambda: (_rejoin(seat=0), 5),  # a seat admitting itself
    "inner-v4": lambda: (_rejoin(version=4), 5),
    "outer-v4": lambda: (_rejoin(), 4),  # protocol 4 has no admissions
    "not-rejoin": lambda: (
        sign_message(_KEYS[2].signer(), MsgType.LEAVE, _GAME, 7, 2, _STATE, (), version=5).raw,
        5,
    ),
    "big": lambda: (_rejoin() + b"\x00" * 400, 5),  # over the size bound
    "int": lambda: (7, 5),
}


@pytest.mark.parametrize("case", list(_BAD_ADMISSIONS))
def test_a_contribution_with_anything_else_in_the_admission_field_is_malformed(case: str) -> None:
    from lanTag.errors import RemoteProtocolError
    from lanTag.session import messages

    admission, version = _BAD_ADMISSIONS[case]()
    raw = _carrying(MsgType.MOVE, admission, version)
    for parse in (parse_unverified, messages._parse_strict):
        with pytest.raises(RemoteProtocolError) as info:
            parse(raw)
        assert info.value.code == "malformed"


def test_a_request_older_than_the_drop_admits_nobody() -> None:
    """A REJOIN signed before the seat's drop (replayed by a carrier) is void: only a request
    made after the drop it asks to undo counts."""
    sessions, net = _dropped_table("stale")
    stale = _request(sessions, 1)  # the seat was dropped at step 4 or later
    carrier = sessions[0]
    assert carrier._admission_for() is None
    carrier.handback.rejoins[GONE] = stale  # as if an honest carrier had kept it: not carried
    assert carrier._admission_for() is None
    carrier._admission_for = lambda: stale.raw  # type: ignore[method-assign]
    step = carrier.step
    _run_to(net, lambda: _carried_since(carrier, step))
    net.run()
    for i in (0, 1):
        assert not _events(net, i, ev.SeatsBack) and GONE not in sessions[i].live
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_a_conviction_learnt_after_the_admission_takes_it_back() -> None:
    """The seat was admitted, then a proof arrives that it signed two state hashes for a step
    before its admission: every peer decides again from the admission's step, where the
    admission is now void, and the seat stays the bot's (SPEC §5.6)."""
    sessions, net = _dropped_table("late-proof")
    request = _request(sessions, sessions[0].step)
    for i in (0, 1):
        sessions[i].receive_message(request.raw, net.now)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in (0, 1)))
    [back] = _events(net, 0, ev.SeatsBack)
    admitted_at = back.step - 1  # type: ignore[attr-defined]
    assert all(GONE in sessions[i].history[admitted_at + 1].live for i in (0, 1))
    # A message the seat signed before its drop, and another claim for that step.
    old = next(
        m
        for m in sessions[0].inbox.slots.values()
        if m.seat == GONE and m.type is MsgType.HAVE and m.step < admitted_at
    )
    me = sessions[GONE]
    assert me._signer is not None
    liar = sign_message(
        me._signer,
        MsgType.HAVE,
        old.game_id,
        old.step,
        GONE,
        bytes(32),
        old.payload,
        version=old.version,
    )
    for i in (0, 1):
        sessions[i].receive_message(liar.raw, net.now)
    net.run()
    for i in (0, 1):
        assert any(b.code == "desync" for b in _events(net, i, ev.Blame))  # type: ignore[attr-defined]
        assert len(sessions[i].history) > admitted_at + 1
        assert GONE not in sessions[i].history[admitted_at + 1].live  # decided again
        assert GONE not in sessions[i].live
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()


def test_a_rejoin_in_a_protocol_4_game_is_an_unknown_type() -> None:
    import dataclasses

    record, ids, secrets = make_record("toy", 2, 1, seed="old")
    old = dataclasses.replace(record, protocol=4)
    session = Session(old, seat=0, identity=ids[0], chain_secret=secrets[0], peers={})
    request = sign_message(
        ids[1].signer(), MsgType.REJOIN, old.game_id, 0, 1, bytes(32), (), version=4
    )
    session.receive_message(request.raw, 0.0)
    rejected = [e for e in iter(session.next_event, None) if isinstance(e, ev.Rejected)]
    assert [e.code for e in rejected] == ["unknown-type"]
    assert not session.handback.rejoins


def test_a_second_admission_at_a_later_step_changes_nothing() -> None:
    """Two live seats carry the seat's REJOIN at different steps: the first, in the agreed
    order, gives it back; the later one names a live seat and is a no-op everywhere."""
    sessions, net = _dropped_table("twice")
    _back(net, sessions)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in range(3)))
    request = _request(sessions, sessions[GONE].step)  # a fresh, validly signed request
    late = sessions[1]
    step = late.step
    late._admission_for = lambda: request.raw  # type: ignore[method-assign]
    _run_to(net, lambda: _carried_since(late, step))
    net.run()
    logs = [s.take_log() for s in sessions]
    carriers = {(m.seat, m.step) for m in _carriers(logs[0])}
    assert 1 in {seat for seat, _ in carriers}, carriers
    later = max(k for seat, k in carriers if seat == 1)
    assert GONE in late.history[later].live  # it named a seat live again already
    for i in range(3):
        assert len(_events(net, i, ev.SeatsBack)) == 1
    for log in logs:
        report = verify_log(log)
        assert report.valid and report.complete, report.failure


def test_a_rejoin_written_into_a_log_changes_nothing_in_either_replay_lane() -> None:
    """A REJOIN is never logged by itself; one a writer puts in its log anyway is taken by
    the replay like any REJOIN (kept, carried by nobody): the log stays valid.  The fast
    lane hands such a log to the full replay instead of reading it as a contribution."""
    from lanTag.log.entries import LogChain

    record, ids, secrets = make_record("toy", 3, 1, seed="logged-rejoin")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.run()
    entries = parse_log(sessions[0].take_log()).entries
    # After the bot's turn (seat 3) comes a roll, which waits for seat 1's link: the REJOIN
    # is at the very step the replay is at, from a seat that step asks something of.
    at = next(
        k
        for k, e in enumerate(entries)
        if e.kind == EntryKind.STEP and e.data[0][0] == 0 and e.data[0][1] == 3
    )
    step, after = entries[at].step + 1, entries[at].data[1]
    request = sign_message(
        ids[1].signer(), MsgType.REJOIN, record.game_id, step, 1, after, (), version=record.protocol
    )
    chain = LogChain()
    for k, entry in enumerate(entries):
        chain.append(entry.step, entry.kind, entry.data)
        if k == at:
            chain.append(step, EntryKind.MSG, request.raw)
    report = verify_log(chain.take())
    assert report.valid and report.complete, report.failure


@pytest.mark.parametrize("humans", [2, 3])
def test_a_seat_that_left_and_was_given_back_is_never_dropped_again_for_that_leave(
    humans: int,
) -> None:
    """Issue "[comeback]" item 2: a seat that sent LEAVE (Ctrl-Q), was dropped as "left",
    then asked back (``join --resume``) and was admitted plays on: its old LEAVE no longer
    makes the others vote it silent, at 2 and 3 seats, and every log verifies."""
    gone = humans - 1
    record, ids, secrets = make_record("toy", humans, 1, options=(("rounds", 4),), seed="lb")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    others = [i for i in range(humans) if i != gone]
    _run_to(net, lambda: sessions[gone].step >= 4)
    sessions[gone].leave(net.now)
    leave = next(iter(sessions[gone].journal.outbox.values()))[-1]  # its signed LEAVE
    assert parse_unverified(leave).type is MsgType.LEAVE
    net.flush()
    net.silent.add(gone)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsDropped) for i in others))
    net.silent.discard(gone)
    sessions[gone].rejoin.ask_back(net.now)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in range(humans)))
    # A copy of the old LEAVE that comes late (a relay, a retransmission) changes nothing.
    sessions[others[0]].receive_message(leave, net.now)
    net.run()
    assert net.all_over()
    for i in range(humans):
        drops = [(e.seats, e.left) for e in _events(net, i, ev.SeatsDropped)]  # type: ignore[attr-defined]
        assert drops == [((gone,), (gone,))], (i, drops)  # the leave, once: never again
        assert gone in sessions[i].live and gone not in sessions[i].leaving, i
    assert len({s.state.state_hash() for s in sessions}) == 1
    for s in sessions:
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure


def test_a_dropped_seats_two_state_hashes_for_one_step_convict_nobody() -> None:
    """SPEC §5.2: a dropped seat is no longer judged.  Its claims may legitimately come from
    two histories (it decided a step alone before learning its drop, then redecided), so two
    of its HAVEs for one step with different state hashes blame nobody at any peer."""
    sessions, net = _dropped_table("dropped-claims")
    others = (0, 1)
    old = next(
        m
        for m in sessions[0].inbox.slots.values()
        if m.seat == GONE and m.type is MsgType.HAVE and m.step < sessions[0].step
    )
    me = sessions[GONE]
    assert me._signer is not None
    other = sign_message(
        me._signer, MsgType.HAVE, old.game_id, old.step, GONE, bytes(32), old.payload
    )
    for i in others:
        assert GONE not in sessions[i].live
        sessions[i].receive_message(other.raw, net.now)
    net.run()
    assert net.all_over()
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for i in others:
        blames = [(b.seat, b.code) for b in _events(net, i, ev.Blame)]  # type: ignore[attr-defined]
        assert blames == [(GONE, "timeout")], (i, blames)
        assert sessions[i].proofs == [], i
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure
        assert [(b[0], b[2]) for b in report.blames] == [(GONE, "timeout")]


@pytest.mark.parametrize("stale_first", [True, False], ids=["stale-first", "stale-after"])
def test_a_stale_rejoin_never_hides_the_fresh_one(stale_first: bool) -> None:
    """A copy of the seat's REJOIN from before its drop (replayed by anyone) and its fresh
    one reach the live seats in either order: each keeps the fresh one and carries it, and
    every peer gives the seat back at one step."""
    sessions, net = _dropped_table("stale-order")
    drop = next(e.step for e in _events(net, 0, ev.SeatsDropped))  # type: ignore[attr-defined]
    stale, fresh = _request(sessions, drop - 1), _request(sessions, sessions[0].step)
    for i in (0, 1):
        for request in (stale, fresh) if stale_first else (fresh, stale):
            sessions[i].receive_message(request.raw, net.now)
        assert sessions[i]._admission_for() == fresh.raw, i
    net.silent.discard(GONE)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in range(3)))
    net.run()
    assert net.all_over()
    backs = {tuple((b.step, b.seats) for b in _events(net, i, ev.SeatsBack)) for i in range(3)}  # type: ignore[attr-defined]
    assert len(backs) == 1 and len(next(iter(backs))) == 1, backs
    assert len({s.state.state_hash() for s in sessions}) == 1
    for s in sessions:
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure
        assert [(b[0], b[2]) for b in report.blames] == [(GONE, "timeout")]


def test_a_seat_dropped_at_the_very_first_step_can_come_back() -> None:
    """A seat silent from the start is dropped at step 0, before any snapshot had it live
    but the first: it asks back like any dropped seat and every peer gives it back."""
    record, ids, secrets = make_record("toy", 3, 1, seed="first-step")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.silent.add(GONE)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsDropped) for i in (0, 1)))
    assert [(e.step, e.seats) for e in _events(net, 0, ev.SeatsDropped)] == [(0, (GONE,))]  # type: ignore[attr-defined]
    _back(net, sessions)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in range(3)))
    net.run()
    assert net.all_over() and all(GONE in s.live for s in sessions)
    assert len({s.state.state_hash() for s in sessions}) == 1
    for s in sessions:
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure


def test_an_admission_a_roll_carries_in_any_seats_link_counts() -> None:
    """Only seat 1 (the last of the roll's people) carries the REJOIN in its ENTROPY: every
    link the roll waits for is a contribution that may admit, not only the first seat's."""
    sessions, net = _dropped_table("kind")
    _reach(sessions, net, MsgType.ENTROPY)
    request = _request(sessions, sessions[1].step)
    sessions[1].receive_message(request.raw, net.now)  # seat 0 never hears it
    net.hold, net.hold_secret = set(), set()
    step = sessions[1].step
    _run_to(net, lambda: _carried_since(sessions[1], step))
    carried = next(
        m for m in sessions[1].inbox.slots.values() if m.seat == 1 and m.admission is not None
    )
    assert carried.type is MsgType.ENTROPY, carried.type
    assert not _carried_since(sessions[0], 0)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in (0, 1)))
    backs = [_events(net, i, ev.SeatsBack) for i in (0, 1)]
    assert backs[0] == backs[1] and len(backs[0]) == 1
    assert backs[0][0].step == carried.step + 1  # type: ignore[attr-defined]
    for i in (0, 1):
        report = verify_log(sessions[i].take_log())
        assert report.valid, report.failure


@pytest.mark.timeout(120)  # a few seconds; a peer that redecides forever must fail fast
def test_a_conviction_for_a_step_after_the_admission_leaves_the_admission_standing() -> None:
    """The seat given back plays again, then signs two MOVEs for one of its later turns:
    every peer drops it there (a ban at that step, SPEC §5.7); its hand-back and what it
    played in between stand (only a conviction at or before the admission voids it)."""
    sessions, net = _dropped_table("convicted-later")
    _back(net, sessions)
    _run_to(net, lambda: all(_events(net, i, ev.SeatsBack) for i in range(3)))
    [back] = _events(net, 0, ev.SeatsBack)
    _run_to(
        net,
        lambda: any(
            m.seat == GONE and m.type is MsgType.MOVE and m.step >= back.step  # type: ignore[attr-defined]
            for m in sessions[0].inbox.slots.values()
        ),
    )
    played = next(
        m
        for m in sessions[0].inbox.slots.values()
        if m.seat == GONE and m.type is MsgType.MOVE and m.step >= back.step  # type: ignore[attr-defined]
    )
    me = sessions[GONE]
    assert me._signer is not None
    other = sign_message(
        me._signer,
        MsgType.MOVE,
        played.game_id,
        played.step,
        GONE,
        played.state_hash,
        (["add", 2 if played.payload[0] == ["add", 1] else 1],),
        version=played.version,
    )
    for i in (0, 1):
        sessions[i].receive_message(other.raw, net.now)
    net.silent.add(GONE)
    net.run()
    assert all(s.state.is_over for s in sessions[:2])
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for i in (0, 1):
        s = sessions[i]
        assert len(_events(net, i, ev.SeatsBack)) == 1, i
        assert GONE in s.history[back.step].live  # type: ignore[attr-defined]
        assert GONE not in s.history[played.step].live and GONE not in s.live, i
        drops = [(e.step, e.seats) for e in _events(net, i, ev.SeatsDropped)]  # type: ignore[attr-defined]
        assert drops[-1] == (played.step, (GONE,)), (i, drops)
        blames = {(b.seat, b.code) for b in _events(net, i, ev.Blame)}  # type: ignore[attr-defined]
        assert blames == {(GONE, "timeout"), (GONE, "equivocation")}, (i, blames)
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure
