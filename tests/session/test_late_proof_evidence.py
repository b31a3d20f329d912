"""What a late proof's round takes as evidence and what not (SPEC §5.7): a seat's two
COMMITs of a secret round.  Protocol 5 splits the round on another live seat's HAVE, on our
state, that does not name the COMMIT we took, and bans the seat there only while it is live;
protocol 6 judges the round from its acknowledgements (tests/session/test_colluders.py).  A
second REVEAL of the seat is exempt only as the REVEAL of the COMMIT we took, when the proof
is of that COMMIT.  Simulated table, virtual time, no sleeps; every test checks what each
honest peer ends with."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.fair.commit import commitment
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import FORFEIT, Action
from lanTag.session import events as ev
from lanTag.session.features import FIRST_PROTOCOL, Features
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, pack_bundle, sign_message
from lanTag.session.steps import (
    ROUND_SUBJECT,
    round_digest,
)
from lanTag.wire import pack
from tests.session.harness import (
    SimNet,
    addr_of,
    make_record,
    make_sessions,
    reveal_payload,
    two_versions,
)

SECRET_STEP = 1  # the toy game's first guess


def _give(sessions: list[Session], to: int, msgs: list[Signed], src: int, now: float) -> None:
    for msg in msgs:
        sessions[to].receive_datagram(pack_bundle([msg.raw]), addr_of(src), now)


def _own(session: Session, kind: MsgType, subject: int | None = None) -> list[Signed]:
    """``session``'s own messages of ``kind`` at the secret step (a HAVE: of ``subject``)."""
    return [
        m
        for m in session.inbox.slots.values()
        if m.seat == session.seat
        and m.step == SECRET_STEP
        and m.type is kind
        and (subject is None or m.payload[0] == subject)
    ]


def _rollbacks(log: bytes) -> int:
    entries = parse_log(log).entries
    return sum(1 for e in entries if e.kind == EntryKind.NOTE and e.data[0] == "rollback")


def test_under_protocol_5_a_seat_that_left_before_its_round_was_split_keeps_its_default() -> None:
    # Seat 1 signs two COMMITs of the guess, A to seat 0 (then B too: the late proof) and B
    # to seat 2, then sends a LEAVE; the honest peers' link is slow, so each drops the seat
    # (its LEAVE, both votes) before the other's HAVE of the other COMMIT shows the split,
    # and before either can decide the round.  Protocol 5 bans a split round's seat only
    # while it is live: the round is decided without it, its default taken (a drop's), at
    # both peers.  (Banned there too, it got its forfeit.)
    cheat, honest = 1, [0, 2]
    record, ids, secrets = make_record("toy", 3, seed="split-after-drop")
    record = dataclasses.replace(record, protocol=FIRST_PROTOCOL["late_proof"])
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.add(cheat)
    net.run_until(lambda: all(s.step == SECRET_STEP for s in sessions))
    net.silent.add(cheat)
    s0, s2 = sessions[0], sessions[2]
    net.drop_to.update({0: {2}, 2: {0}})  # the test carries what crosses, in its own order

    def cross(kind: MsgType, subject: int | None = None) -> None:
        _give(sessions, 0, _own(s2, kind, subject), 2, net.now)
        _give(sessions, 2, _own(s0, kind, subject), 0, net.now)

    net.run_until(lambda: bool(_own(s0, MsgType.COMMIT) and _own(s2, MsgType.COMMIT)))
    cross(MsgType.COMMIT)
    signer = ids[cheat].signer()
    versions = two_versions(sessions, signer, cheat, SECRET_STEP, {0: 1, 2: 2})
    (commit_a, _reveal_a), (commit_b, _reveal_b) = versions[0], versions[2]
    _give(sessions, 0, [commit_a, commit_b], cheat, net.now)
    _give(sessions, 2, [commit_b], cheat, net.now)
    net.run_until(lambda: bool(_own(s0, MsgType.REVEAL) and _own(s2, MsgType.REVEAL)))
    cross(MsgType.REVEAL)
    assert list(s0.late.commits) == [(cheat, SECRET_STEP)] and not s0.convictions.banned
    leave = sign_message(
        signer,
        MsgType.LEAVE,
        record.game_id,
        SECRET_STEP,
        cheat,
        s0.state.state_hash(),
        (),
        record.protocol,
    )
    for i in honest:
        _give(sessions, i, [leave], cheat, net.now)
    net.run_until(lambda: bool(_own(s0, MsgType.VOTE) and _own(s2, MsgType.VOTE)))
    cross(MsgType.VOTE)
    assert all(cheat not in s.live and s.step == SECRET_STEP for s in (s0, s2))
    _give(sessions, 2, [commit_a], 0, net.now)  # seat 0's proof: seat 2 holds it too now
    cross(MsgType.HAVE, cheat)  # the split shows: each named the COMMIT it took
    assert all(s.step == SECRET_STEP for s in (s0, s2))  # each other's acknowledgement lacks
    cross(MsgType.HAVE, 0)
    cross(MsgType.HAVE, 2)
    net.drop_to.clear()
    net.run(max_time=net.now + 600)
    assert s0.state.is_over and s0.state.state_hash() == s2.state.state_hash()
    state = s0.state_at(SECRET_STEP)
    assert state is not None
    for i in honest:
        s, events = sessions[i], net.events[i]
        applied = [e for e in events if isinstance(e, ev.StepApplied) and e.step == SECRET_STEP]
        assert [a.input.of(cheat) for a in applied] == [state.default_action(cheat)], i
        drops = [(e.step, e.seats, e.left) for e in events if isinstance(e, ev.SeatsDropped)]
        assert drops == [(SECRET_STEP, (cheat,), (cheat,))], (i, drops)
        assert s.live == frozenset(honest), i
        blames = {(e.seat, e.code) for e in events if isinstance(e, ev.Blame)}
        assert blames == {(cheat, "equivocation")}, (i, blames)
        report = verify_log(s.take_log())
        assert report.valid and report.complete, (i, report.failure)
        assert {b[0] for b in report.blames} == {cheat}, i


@pytest.mark.parametrize("protocol", [FIRST_PROTOCOL["late_proof"], FIRST_PROTOCOL["round_acks"]])
def test_an_acknowledgement_on_another_state_splits_no_round(protocol: int) -> None:
    # Four seats.  Seat 2 signs two COMMITs of the guess; honest seats 0 and 1 and seat 3
    # take A, seat 0 learns B too (the late proof).  Seat 3, a liar, signs besides its true
    # acknowledgement one naming B on a made-up state hash, which reaches seat 0 first.  A
    # claim on another state is no acknowledgement of the round: it splits nothing (SPEC
    # §5.7), it convicts its signer of two state hashes (§5.8).  The round stands with A
    # at both honest peers; seat 3 is voted out there, seat 2 later, as a liar.  (Counted,
    # it made seat 0 forfeit seat 2 at the round.)
    cheat, liar = 2, 3
    record, ids, secrets = make_record("toy", 4, seed="lateproof-liar")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.add(cheat)
    net.run_until(lambda: all(s.step == SECRET_STEP for s in sessions))
    net.silent.add(cheat)
    takers = [0, 1, liar]
    net.run_until(
        lambda: all(len(sessions[i]._box(SECRET_STEP).of(MsgType.COMMIT)) == 3 for i in takers)
    )
    signer = ids[cheat].signer()
    versions = two_versions(sessions, signer, cheat, SECRET_STEP, {1: 1, 2: 2})
    (commit_a, reveal_a), (commit_b, _reveal_b) = versions[1], versions[2]
    held = sessions[0]._box(SECRET_STEP).of(MsgType.COMMIT)
    h = sessions[cheat].state.state_hash()

    def signed(seat: int, state: bytes, kind: MsgType, payload: tuple[object, ...]) -> Signed:
        return sign_message(
            ids[seat].signer(), kind, record.game_id, SECRET_STEP, seat, state, payload, protocol
        )

    def acks(seat: int, state: bytes, version: Signed) -> list[Signed]:
        """``seat``'s acknowledgements of the round's COMMITs, ``version`` as seat 2's."""
        commits = {**held, cheat: version}
        if Features.of(protocol).round_acks:
            vector = round_digest({s: c.digest for s, c in commits.items()})
            return [signed(seat, state, MsgType.HAVE, (ROUND_SUBJECT, [vector]))]
        return [
            signed(seat, state, MsgType.HAVE, (s, [c.digest]))
            for s, c in commits.items()
            if s != seat
        ]

    false = [m for m in acks(liar, bytes(32), commit_b) if m.payload[0] in (cheat, ROUND_SUBJECT)]
    _give(sessions, 0, [commit_a, commit_b, *false], cheat, net.now)
    assert list(sessions[0].late.commits) == [(cheat, SECRET_STEP)]
    for i in takers:
        if i != 0:
            _give(sessions, i, [commit_a], cheat, net.now)
        _give(sessions, i, [*acks(cheat, h, commit_a), reveal_a], cheat, net.now)
    # The seat then plays on as an honest peer would, as A's author (it votes too).
    sessions[cheat].commit(Action("guess", (1,)), bytes([1]) * 32, net.now)
    assert sessions[cheat].inbox.slots[(cheat, commit_a.slot)].raw == commit_a.raw
    net.silent.discard(cheat)
    net.hold_secret.discard(cheat)
    net.run(max_time=net.now + 600)
    honest = [sessions[0], sessions[1]]
    assert honest[0].state.is_over
    assert honest[0].state.state_hash() == honest[1].state.state_hash()
    drops = []
    for i, s in enumerate(honest):
        events = net.events[i]
        applied = [e for e in events if isinstance(e, ev.StepApplied) and e.step == SECRET_STEP]
        assert [a.input.of(cheat) for a in applied] == [Action("guess", (1,))], i  # it stood
        blames = {(e.seat, e.code) for e in events if isinstance(e, ev.Blame)}
        assert {(cheat, "equivocation"), (liar, "desync")} <= blames, (i, blames)
        assert {seat for seat, _code in blames} == {cheat, liar}, (i, blames)
        drops.append([(e.step, e.seats) for e in events if isinstance(e, ev.SeatsDropped)])
        assert s.live == frozenset({0, 1}), i
        log = s.take_log()
        assert _rollbacks(log) == 0, i
        report = verify_log(log)
        assert report.valid and report.complete, (i, report.failure)
        assert {b[0] for b in report.blames} == {cheat, liar}, i
    assert drops[0] == drops[1], drops
    assert [d[1] for d in drops[0]] == [(liar,), (cheat,)], drops  # the liar at the round
    assert drops[0][0][0] == SECRET_STEP and drops[0][1][0] > SECRET_STEP, drops


@pytest.mark.parametrize("protocol", [FIRST_PROTOCOL["late_proof"], FIRST_PROTOCOL["round_acks"]])
def test_two_commits_of_a_round_its_two_reveals_split_already_change_nothing(
    protocol: int,
) -> None:
    # Seat 2 gives honest seat 0 COMMIT A and REVEAL A, seat 1 COMMIT B and REVEAL B, and
    # each of them the other REVEAL too: two choices, a proof that drops the seat at the
    # round with its forfeit at both.  Neither sees the other COMMIT before it decided the
    # round (seat 1 forgot B with the drop, so it shows seat 0 none).  COMMIT B reaching
    # seat 0 steps later is one more proof of the same round's cheat: blamed, and nothing
    # else, since the seat is dropped there already.  (Taken as a late proof, it showed the
    # round split by seat 1's REVEAL and both peers decided every step again from it.)
    cheat = 2
    record, ids, secrets = make_record("toy", 3, seed="split-by-reveals")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.add(cheat)
    net.run_until(lambda: all(s.step == SECRET_STEP for s in sessions))
    net.silent.add(cheat)
    honest = sessions[:cheat]
    net.run_until(lambda: all(len(s._box(SECRET_STEP).of(MsgType.COMMIT)) == 2 for s in honest))
    versions = two_versions(sessions, ids[cheat].signer(), cheat, SECRET_STEP, {0: 1, 1: 2})
    (commit_a, reveal_a), (commit_b, reveal_b) = versions[0], versions[1]
    _give(sessions, 0, [commit_a, reveal_a, reveal_b], cheat, net.now)
    _give(sessions, 1, [commit_b, reveal_b, reveal_a], cheat, net.now)
    assert all(s.convictions.banned == {cheat: SECRET_STEP} for s in honest)
    net.run_until(lambda: all(s.step > SECRET_STEP + 1 for s in honest))
    assert not any(s.late.commits for s in honest)  # no peer holds both COMMITs yet
    _give(sessions, 0, [commit_b], cheat, net.now)
    net.run(max_time=net.now + 600)
    assert honest[0].state.is_over
    assert honest[0].state.state_hash() == honest[1].state.state_hash()
    for i, s in enumerate(honest):
        events = net.events[i]
        applied = [e for e in events if isinstance(e, ev.StepApplied)]
        assert len({e.step for e in applied}) == len(applied), i  # each step decided once
        assert [e.input.of(cheat) for e in applied if e.step == SECRET_STEP] == [FORFEIT], i
        drops = [(e.step, e.seats) for e in events if isinstance(e, ev.SeatsDropped)]
        assert drops == [(SECRET_STEP, (cheat,))], (i, drops)
        assert s.live == frozenset({0, 1}), i
        blames = [(e.seat, e.code) for e in events if isinstance(e, ev.Blame)]
        assert blames == [(cheat, "equivocation")] * 2, (i, blames)  # the REVEALs, the COMMITs
        log = s.take_log()
        assert _rollbacks(log) == 0, i
        report = verify_log(log)
        assert report.valid and report.complete, (i, report.failure)
        assert {b[0] for b in report.blames} == {cheat}, i


@pytest.mark.parametrize("protocol", [FIRST_PROTOCOL["late_proof"], FIRST_PROTOCOL["round_acks"]])
def test_two_commits_on_another_state_exempt_no_second_reveal(protocol: int) -> None:
    # Both honest peers take the seat's COMMIT A of the guess.  The seat then signs two
    # COMMITs, X and Y, on a made-up state hash (a proof, but of no COMMIT we took), a
    # REVEAL opening Y and one opening A.  The second REVEAL is not the REVEAL of the
    # COMMIT a late proof left open: with the first it is one more proof (two choices),
    # blamed as such.  Protocol 6 drops the seat at the round with its forfeit for it;
    # protocol 5 already did, the round being split for it (the honest HAVEs name A, not
    # the proof's first COMMIT X).  (Taken as the seat's REVEAL, it convicted nothing:
    # protocol 6 voted the seat out at the round for its withheld REVEAL, `timeout`.)
    cheat = 2
    record, ids, secrets = make_record("toy", 3, seed="fake-late-proof")
    record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=5)
    net.hold_secret.add(cheat)
    net.run_until(lambda: all(s.step == SECRET_STEP for s in sessions))
    net.silent.add(cheat)
    honest = sessions[:cheat]
    net.run_until(lambda: all(len(s._box(SECRET_STEP).of(MsgType.COMMIT)) == 2 for s in honest))
    me = sessions[cheat]
    assert me._chain is not None
    link = me._chain.reveal(me.history[-1].chain_used[cheat] + 1)
    h = me.state.state_hash()

    def sign(kind: MsgType, state: bytes, payload: tuple[object, ...]) -> Signed:
        signer = ids[cheat].signer()
        return sign_message(
            signer, kind, record.game_id, SECRET_STEP, cheat, state, payload, protocol
        )

    def commit(guess: int, state: bytes) -> Signed:
        nonce, value = bytes([guess]) * 32, pack(["guess", guess])
        return sign(
            MsgType.COMMIT,
            state,
            (commitment(record.game_id, SECRET_STEP, cheat, "guess", nonce, value),),
        )

    commit_a = commit(1, h)

    def reveal(guess: int) -> Signed:
        nonce = bytes([guess]) * 32
        payload = reveal_payload(
            sessions, SECRET_STEP, ["guess", guess], nonce, link, {cheat: commit_a}
        )
        return sign(MsgType.REVEAL, h, payload)

    msgs = [commit_a, commit(3, bytes(32)), commit(2, bytes(32)), reveal(2), reveal(1)]
    for i in range(cheat):
        _give(sessions, i, msgs, cheat, net.now)
        assert list(sessions[i].late.commits) == [(cheat, SECRET_STEP)], i
    net.run(max_time=net.now + 600)
    assert honest[0].state.is_over
    assert honest[0].state.state_hash() == honest[1].state.state_hash()
    for i, s in enumerate(honest):
        events = net.events[i]
        applied = [e for e in events if isinstance(e, ev.StepApplied) and e.step == SECRET_STEP]
        assert [a.input.of(cheat) for a in applied] == [FORFEIT], i
        drops = [(e.step, e.seats) for e in events if isinstance(e, ev.SeatsDropped)]
        assert drops == [(SECRET_STEP, (cheat,))], (i, drops)
        assert s.live == frozenset({0, 1}), i
        blames = [(e.seat, e.code) for e in events if isinstance(e, ev.Blame)]
        # two state hashes at the step (A's and the made-up one), then the two proofs
        want = [(cheat, "desync")] * 2 + [(cheat, "equivocation")] * 2
        assert blames == want, (i, blames)
        log = s.take_log()
        assert _rollbacks(log) == 0, i
        report = verify_log(log)
        assert report.valid and report.complete, (i, report.failure)
        assert {b[0] for b in report.blames} == {cheat}, i
