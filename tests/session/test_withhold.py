"""Absence never pays (protocol 6, SPEC §5.5, §5.6; issue #38 item 1), on the simulated
network with virtual time: a seat that withholds its link of a roll (or its REVEAL) and asks
back is named ``withheld`` at every honest peer and in every verified log, its REVEAL's
share is its forfeit, and it is given back only after its turn and at most HANDBACK_LIMIT
times: the loop drops it (one vote deadline each) HANDBACK_LIMIT + 1 times a game, then a
bot plays its seat to the end."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from lanTag.log.inspect import SecretDetail
from lanTag.log.verify import verify_log
from lanTag.peer.resume import dropped_seat_line
from lanTag.rules.base import FORFEIT, Chance, Joint, Roll, Turn
from lanTag.session import events as ev
from lanTag.session.absence import MAX_EXPLANATIONS
from lanTag.session.handback import HANDBACK_LIMIT
from lanTag.session.lockstep import MAX_LINK_PAYLOAD, Session
from lanTag.session.messages import (
    MsgType,
    pack_bundle,
    parse_unverified,
    sign_message,
    unpack_bundle,
)
from lanTag.session.steps import ROUND_SUBJECT, StepBox
from lanTag.ui.replay_model import ReplayModel
from tests.session.harness import SimNet, addr_of, make_record, make_sessions, two_versions
from tests.support.no_engines import no_engines
from tests.support.withholder import Withholder, lands_on_me

CHEAT = 2
HONEST = (0, 1)


def _events(net: SimNet, seat: int, kind: type) -> list:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, kind)]


def _table(
    seed: str, *, rounds: int = 6, round_turn: int = 0, protocol: int | None = None
) -> tuple[list[Session], SimNet]:
    options = (("rounds", rounds), ("round_turn", round_turn))
    record, ids, secrets = make_record("toy", 3, options=options, seed=seed)
    if protocol is not None:
        record = dataclasses.replace(record, protocol=protocol)
    sessions = make_sessions(record, ids, secrets)
    return sessions, SimNet(sessions, seed=3)


def _turn_starts(session: Session) -> list[int]:
    """The steps of the agreed history that start a turn (``awaited().turn_starts``)."""
    return [k for k, snap in enumerate(session.history) if snap.state.awaited().turn_starts]


def _votes_naming(session: Session, seat: int) -> int:
    """How many VOTEs ``session``'s own seat signed naming ``seat``: the deadlines it waited
    out for that seat (a LEAVE is voted at once, without one)."""
    return sum(
        1
        for m in session.inbox.slots.values()
        if m.seat == session.seat and m.type is MsgType.VOTE and seat in m.payload[0]
    )


@pytest.mark.parametrize("round_turn", [0, 1], ids=["turn-per-step", "round-is-a-turn"])
@pytest.mark.parametrize("leave", [False, True], ids=["silent", "leave"])
def test_the_withhold_and_rejoin_loop_is_bounded_and_named_everywhere(
    leave: bool, round_turn: int
) -> None:
    """Seat 2 withholds its link at every roll it may (silent, or with a LEAVE) and asks back
    each time.  Every honest peer ends with the same state, drops seat 2 exactly
    HANDBACK_LIMIT + 1 times, each at a roll, blamed `withheld` there and nowhere else, gives
    it back HANDBACK_LIMIT times, each only after the turn it was dropped in ended, and then
    never again; it signs one VOTE per drop (the only vote deadlines the loop costs; after a
    LEAVE the vote is at once); every log verifies with the same blames."""
    sessions, net = _table("loop", round_turn=round_turn)
    cheat = Withholder(sessions[CHEAT], always=True, leave=leave)
    net.run()
    assert net.all_over()
    assert len({s.state.state_hash() for s in sessions}) == 1
    withheld = [c.step for c in cheat.choices if c.withheld]
    assert len(withheld) == HANDBACK_LIMIT + 1
    for i in HONEST:
        s = sessions[i]
        drops = [(d.step, d.seats) for d in _events(net, i, ev.SeatsDropped)]
        assert drops == [(k, (CHEAT,)) for k in withheld], (i, drops)
        for k in withheld:
            assert s.history[k].state.decision().__class__.__name__ == "Chance"
        blames = [(b.seat, b.step, b.code) for b in _events(net, i, ev.Blame)]
        assert blames == [(CHEAT, k, "withheld") for k in withheld], (i, blames)
        backs = [b.step for b in _events(net, i, ev.SeatsBack)]
        assert len(backs) == HANDBACK_LIMIT, (i, backs)
        starts = _turn_starts(s)
        for dropped, back in zip(withheld, backs, strict=False):
            first = min(k for k in starts if k > dropped)  # the next turn's first step
            assert back > first, (i, dropped, back, first)  # after it: the bot played it
        assert CHEAT not in s.live  # out for good after the last drop
        assert _votes_naming(s, CHEAT) == HANDBACK_LIMIT + 1, i  # one vote per drop
        assert [s.vote_book.seq.get(k) for k in withheld] == [1] * len(withheld)  # the first
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure
        assert [(seat, k, c) for seat, k, c, _why in report.blames] == blames


def test_protocol_5_still_gives_the_seat_back_every_time() -> None:
    """Protocol-5 games keep protocol 5's rule (SPEC §5.6): a drop by timeout is no fault, and
    the seat is given back at the first contribution after each of its requests."""
    sessions, net = _table("p5", protocol=5)
    cheat = Withholder(sessions[CHEAT], always=True)
    net.run()
    assert net.all_over()
    withheld = [c.step for c in cheat.choices if c.withheld]
    assert len(withheld) > HANDBACK_LIMIT + 1  # it came back every time
    for i in HONEST:
        backs = _events(net, i, ev.SeatsBack)
        assert len(backs) == len(withheld)
        assert {b.code for b in _events(net, i, ev.Blame)} == {"timeout"}
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_a_seat_that_withholds_only_when_it_pays_gains_a_bounded_number_of_rolls() -> None:
    """The issue's attacker: it withholds when the roll without its link lands the bonus on
    it.  It re-draws at most HANDBACK_LIMIT + 1 rolls a game, each one blamed."""
    sessions, net = _table("pays", rounds=20)
    cheat = Withholder(sessions[CHEAT], gain=lands_on_me)
    net.run()
    assert net.all_over()
    withheld = [c for c in cheat.choices if c.withheld]
    assert 1 <= len(withheld) <= HANDBACK_LIMIT + 1
    for i in HONEST:
        applied = {a.step: a.input for a in _events(net, i, ev.StepApplied)}
        for choice in withheld:
            assert applied[choice.step] == choice.without  # drawn without its link
        codes = [(b.step, b.code) for b in _events(net, i, ev.Blame)]
        assert codes == [(c.step, "withheld") for c in withheld]
    # Its other rolls were drawn with its link, as an honest seat's.
    kept = [c for c in cheat.choices if not c.withheld]
    applied = {a.step: a.input for a in _events(net, 0, ev.StepApplied)}
    assert kept and all(applied[c.step] == c.with_link for c in kept)
    assert all(isinstance(applied[c.step], Roll) for c in cheat.choices)


def test_a_leave_before_the_roll_is_no_fault() -> None:
    """A seat that sends its LEAVE during another seat's turn owes nothing then: dropped at the
    next roll (the first step that needs it), it left, blamed by nobody."""
    sessions, net = _table("left-early")
    me = sessions[CHEAT]

    def moved() -> bool:  # its own move of the round is signed: the roll comes next
        needs = me.needs()
        return needs.humans == (CHEAT,) and me._box(me.step).own_move_at is not None

    net.run_until(moved)
    step = me.step
    sessions[CHEAT].leave(net.now)
    net.flush()
    net.silent.add(CHEAT)
    net.run()
    for i in HONEST:
        [drop] = _events(net, i, ev.SeatsDropped)
        assert drop.step > step and drop.left == (CHEAT,)
        assert sessions[i].history[drop.step].state.decision().__class__.__name__ == "Chance"
        assert not _events(net, i, ev.Blame)
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete and not report.blames


# ------------------------------------------------------------------ a withheld REVEAL


def _at_guess(seed: str) -> tuple[list[Session], SimNet]:
    sessions, net = _table(seed, rounds=1)
    net.hold_secret = {0, 1, 2}
    net.run_until(lambda: all(s.needs().kind.value == "secret" for s in sessions))
    return sessions, net


def _blind_to_commit(session: Session, of_seat: int) -> None:
    """``session`` gets no COMMIT of ``of_seat`` (direct or relayed) while that seat is live."""
    deliver = session.receive_message

    def receive_payload(payload: bytes, now: float) -> None:
        for raw in unpack_bundle(payload, MAX_LINK_PAYLOAD):
            msg = parse_unverified(raw)
            lost = msg.type is MsgType.COMMIT and msg.seat == of_seat and of_seat in session.live
            if not lost:
                deliver(raw, now)

    session.receive_payload = receive_payload  # type: ignore[method-assign]


def test_a_reveal_from_before_the_drop_is_read_the_same_by_a_peer_that_lacked_the_commit() -> None:
    """Seat 2 commits and never reveals; seat 0 reveals first, naming seat 2's COMMIT.  Seat 1
    never got that COMMIT (lost, relays too) until seat 2 was dropped: it then holds a REVEAL
    naming a vector it cannot rebuild, and waits; the relay its request brings carries the
    dropped COMMIT, and seat 1 decides the round as seat 0 did: seat 2 withheld, its choice
    its forfeit, at both peers and in both logs."""
    sessions, net = _at_guess("explain")
    step = sessions[0].step
    _blind_to_commit(sessions[1], CHEAT)
    net.hold_secret.discard(CHEAT)
    net.run_until(lambda: CHEAT in sessions[0]._box(step).of(MsgType.COMMIT))
    net.flush()
    net.silent.add(CHEAT)  # it withholds its REVEAL from here on
    net.hold_secret.clear()
    box1 = sessions[1]._box(step)
    # Seat 1 dropped seat 2 and holds seat 0's acknowledgement of the round after the drop
    # (a round HAVE naming the live seats' vector), but not seat 2's COMMIT.
    net.run_until(lambda: 0 in box1.haves.get(ROUND_SUBJECT, {}))
    assert CHEAT not in sessions[1].live
    assert 0 in box1.of(MsgType.REVEAL) and CHEAT not in box1.dropped_commits
    assert sessions[1].agreement.missing() == {0}  # it waits for (and asks) the seat that named it
    # What explains nothing is not kept in its place: seat 2's COMMIT on another state, or
    # another message of it at the step.
    me = sessions[CHEAT]
    assert me._signer is not None
    h, game = sessions[1].state.state_hash(), me.game_id
    decoys = [
        sign_message(me._signer, MsgType.COMMIT, game, step, CHEAT, bytes(32), (bytes(32),)),
        sign_message(me._signer, MsgType.ENTROPY, game, step, CHEAT, h, (bytes(32),)),
    ]
    sessions[1].receive_payload(pack_bundle([d.raw for d in decoys]), net.now)
    assert CHEAT not in box1.dropped_commits
    net.run()
    for i in HONEST:
        applied = [a for a in _events(net, i, ev.StepApplied) if a.step == step]
        assert len(applied) == 1 and isinstance(applied[0].input, Joint)
        assert applied[0].input.of(CHEAT) == FORFEIT, i
        assert [(b.seat, b.code) for b in _events(net, i, ev.Blame)] == [(CHEAT, "withheld")]
        log = sessions[i].take_log()
        report = verify_log(log)
        assert report.valid and report.complete, report.failure
        # `lantag replay` derives that round as the verifier did: seat 2's forfeit.
        details = [d for d in ReplayModel(log, report).details if isinstance(d, SecretDetail)]
        assert details and all(d.ok for d in details), [d for d in details if not d.ok]
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()


def test_a_reveal_naming_a_made_up_vector_blames_no_honest_seat() -> None:
    """Seat 2 dies before committing (an honest crash).  Seat 1, a cheater, commits, votes
    seat 2 out with seat 0, then reveals naming a vector that holds no COMMIT of seat 2 (a
    claim that seat 2 was in the round when it revealed).  Seat 0 cannot rebuild it, so it
    reads nothing from it: it waits for seat 1 and votes it out.  Seat 2's choice stays its
    default, blamed `timeout`; seat 1, dropped after seat 0 revealed, withheld."""
    sessions, net = _at_guess("claim")
    step = sessions[0].step
    net.silent.update({1, CHEAT})  # seat 1's messages are written by hand below
    liar, s0 = sessions[1], sessions[0]
    assert liar._signer is not None
    net.hold_secret.discard(1)
    liar.commit(liar.state.legal_actions(1)[0], bytes(range(32)), net.now)
    commit = liar._box(step).of(MsgType.COMMIT)[1]
    s0.receive_datagram(pack_bundle([commit.raw]), addr_of(1), net.now)
    h = s0.state.state_hash()
    vote = sign_message(liar._signer, MsgType.VOTE, s0.game_id, step, 1, h, ([CHEAT], 1))
    net.hold_secret.clear()
    net.run_until(lambda: 0 in s0._box(step).votes)
    s0.receive_datagram(pack_bundle([vote.raw]), addr_of(1), net.now)
    assert CHEAT not in s0.live
    secret = liar.sealed.at(step)
    link = liar._next_reveal()
    made_up = (secret[0].to_msgpack(), secret[1], link, bytes(32))
    reveal = sign_message(liar._signer, MsgType.REVEAL, s0.game_id, step, 1, h, made_up)
    s0.receive_datagram(pack_bundle([reveal.raw]), addr_of(1), net.now)
    net.run()
    applied = [a for a in _events(net, 0, ev.StepApplied) if a.step == step]
    assert len(applied) == 1 and isinstance(applied[0].input, Joint)
    state = s0.history[step].state
    assert applied[0].input.of(CHEAT) == state.default_action(CHEAT)
    assert applied[0].input.of(1) == FORFEIT
    blames = {(b.seat, b.code) for b in _events(net, 0, ev.Blame)}
    assert blames == {(CHEAT, "timeout"), (1, "withheld")}, blames
    report = verify_log(s0.take_log())
    assert report.valid and report.complete, report.failure


def test_a_reveal_holding_a_split_seats_other_commit_still_names_the_absent_seat() -> None:
    """Four seats guess.  Seat 2 signs two COMMITs (one to seat 0, one to seat 1: the round
    is split, seat 2 convicted there with its forfeit, SPEC §5.7); seat 3 commits and never
    reveals.  Each honest REVEAL names seat 3's COMMIT beside its own version of seat 2's: a
    peer reads the other peer's REVEAL with the other version of seat 2's COMMIT (from the
    proof), so both find seat 3 withheld, its forfeit, and decide alike."""
    record, ids, secrets = make_record("toy", 4, options=(("rounds", 1),), seed="split-absent")
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=3)
    split, absent = 2, 3
    net.hold_secret = {0, 1, 2, 3}
    net.run_until(lambda: all(s.needs().kind.value == "secret" for s in sessions))
    step = sessions[0].step
    net.silent.add(split)  # its messages are written by hand
    net.hold_secret = {split}
    net.run_until(
        lambda: all(
            set(sessions[i]._box(step).of(MsgType.COMMIT)) == {0, 1, absent} for i in (0, 1)
        )
    )
    net.flush()
    net.silent.add(absent)  # committed; it never reveals
    pairs = two_versions(sessions, ids[split].signer(), split, step, {0: 1, 1: 2})
    for victim, (commit, reveal) in pairs.items():
        for msg in (commit, reveal):
            sessions[victim].receive_datagram(pack_bundle([msg.raw]), addr_of(split), net.now)
    net.run()
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for i in HONEST:
        applied = [a for a in _events(net, i, ev.StepApplied) if a.step == step]
        assert len(applied) == 1 and isinstance(applied[0].input, Joint)
        assert applied[0].input.of(split) == FORFEIT and applied[0].input.of(absent) == FORFEIT
        codes = {(b.seat, b.code) for b in _events(net, i, ev.Blame)}
        assert codes == {(split, "equivocation"), (absent, "withheld")}, (i, codes)
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_the_vectors_tried_to_read_a_reveal_are_bounded() -> None:
    """Explaining a REVEAL tries each set of the step's dropped seats in each version held of
    each one's COMMIT: exponential in the seats dropped at the step (and those that signed
    two COMMITs), so capped (a cheat cannot make a peer hash without end); an honest round
    needs a handful."""
    sessions, _net = _table("bound")
    s = sessions[0]
    box = StepBox()
    seats = range(1, 9)
    for seat in seats:
        box.drop_batches.append(frozenset({seat}))
        box.dropped_commits[seat] = SimpleNamespace(digest=bytes([seat]) * 32)  # type: ignore[assignment]
        s.late.commits[(seat, s.step)] = (bytes(32), b"", bytes([seat + 100]) * 32)
    known = s.absence.explained(box, {0: bytes(32)}, s.step)
    assert len(known) == MAX_EXPLANATIONS
    box.drop_batches = box.drop_batches[-2:]  # two drops, two versions each: 4 + 2 + 2
    assert len(s.absence.explained(box, {0: bytes(32)}, s.step)) == 8


def _times() -> str:
    return {1: "once", 2: "twice"}.get(HANDBACK_LIMIT, f"{HANDBACK_LIMIT} times")


def test_past_the_limit_the_dropped_person_reads_why_in_one_line() -> None:
    """Once its seat was given back HANDBACK_LIMIT times, the person dropped again is told in
    one line that it only watches now, and why."""
    sessions, net = _table("limit-line", rounds=8)
    me = sessions[CHEAT]
    Withholder(me, always=True)
    net.run_until(lambda: len(_events(net, CHEAT, ev.SeatsDropped)) == HANDBACK_LIMIT + 1)
    assert CHEAT not in me.live and not me.state.is_over
    assert me.rejoin.handbacks_left(CHEAT) == 0
    assert me.rejoin.refusal() == "limit"
    line = dropped_seat_line(me, me.step)
    assert line.startswith("watching only:"), line
    assert f"given back at most {_times()} a game" in line, line


def test_a_seat_that_talks_while_it_withholds_holds_a_step_one_step_timeout_more() -> None:
    """Seat 2 withholds and keeps talking at the step (HAVEs of made-up subjects, which no
    bound counts), so the others hear it there.  A seat heard at a step is spared its
    first vote deadline only (protocol 6, SPEC §5.5): each honest peer reaches at most two
    deadlines at each withheld step, and the loop ends as a silent one does."""
    sessions, net = _table("chatty")
    cheat = Withholder(sessions[CHEAT], always=True, chatty=True)
    net.run()
    assert net.all_over()
    withheld = [c.step for c in cheat.choices if c.withheld]
    assert len(withheld) == HANDBACK_LIMIT + 1
    for i in HONEST:
        s = sessions[i]
        assert [d.step for d in _events(net, i, ev.SeatsDropped)] == withheld
        deadlines = [s.vote_book.seq.get(k, 0) for k in withheld]
        assert all(1 <= n <= 2 for n in deadlines), (i, deadlines)
        assert any(n == 2 for n in deadlines), (i, deadlines)  # it was heard: spared once
        report = verify_log(s.take_log())
        assert report.valid and report.complete, report.failure


def test_a_convicted_seat_voted_out_at_a_round_is_dropped_for_its_proof() -> None:
    """Seat 2 commits, then floods (one NUDGE over the cap: a conviction, SPEC §5.3); the
    others reveal and vote it out at once.  Its REVEAL is missing after theirs named its
    COMMIT, so its choice is its forfeit, agreed from the REVEALs; it is blamed for its
    proof, and the drop is a `timeout`, not `withheld` (it was refused, not absent)."""
    sessions, net = _at_guess("liar-round")
    step = sessions[0].step
    me = sessions[CHEAT]
    assert me._signer is not None
    net.hold_secret.discard(CHEAT)
    net.run_until(lambda: all(CHEAT in s._box(step).of(MsgType.COMMIT) for s in sessions[:2]))
    net.flush()
    net.silent.add(CHEAT)
    h = me.state.state_hash()
    flood = [
        sign_message(me._signer, MsgType.NUDGE, me.game_id, step, CHEAT, h, ([0], seq))
        for seq in range(1, 6)
    ]
    for i in HONEST:
        sessions[i].receive_payload(pack_bundle([m.raw for m in flood]), net.now)
    net.hold_secret.clear()
    net.run()
    for i in HONEST:
        applied = [a for a in _events(net, i, ev.StepApplied) if a.step == step]
        assert len(applied) == 1 and isinstance(applied[0].input, Joint)
        assert applied[0].input.of(CHEAT) == FORFEIT, i
        codes = [(b.step, b.code) for b in _events(net, i, ev.Blame)]
        assert codes == [(step, "flood"), (step, "timeout")], (i, codes)
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_a_hand_back_at_the_next_turns_first_step_verifies_without_the_rules() -> None:
    """A round is one turn, started by its roll.  Seat 2 is dropped at its own move (the
    round's last) with its REJOIN already held by the others: the roll that starts the
    next turn carries it, and seat 2 plays on (its link in the next round's roll).  A
    verifier without the engine cannot tell where turns start (no STEP entry says): it
    takes that on the carriers' word (SPEC §9.2), and finds the honest logs valid, as the
    full replay does."""
    sessions, net = _table("next-turn", rounds=3, round_turn=1)
    me = sessions[CHEAT]
    assert me._signer is not None
    net.hold.add(CHEAT)

    def its_turn() -> bool:
        return all(isinstance(s.state.decision(), Turn) for s in sessions) and all(
            s.needs().humans == (CHEAT,) for s in sessions
        )

    net.run_until(its_turn)
    dropped = me.step
    h = me.state.state_hash()
    request = sign_message(me._signer, MsgType.REJOIN, me.game_id, dropped, CHEAT, h, ())
    for i in HONEST:
        sessions[i].receive_message(request.raw, net.now)
    net.run_until(lambda: all(_events(net, i, ev.SeatsDropped) for i in HONEST))  # too long
    net.hold.discard(CHEAT)  # back at the keyboard: it plays its seat again
    net.run()
    assert net.all_over()
    for i in HONEST:
        [back] = _events(net, i, ev.SeatsBack)
        assert back.step == dropped + 2  # admitted by the next turn's roll, at dropped + 1
        # the roll: the recorded rules know it as a roll, not as a turn's first step
        assert isinstance(sessions[i].history[dropped + 1].state.decision(), Chance)
        assert CHEAT in sessions[i].live
        log = sessions[i].take_log()
        report = verify_log(log)
        assert report.valid and report.complete, report.failure
        with no_engines():
            blind = verify_log(log)
        assert blind.valid and not blind.replayed, blind.failure
