"""Cheating peers: each cheat is rejected or blamed, named, and the game goes on."""

from __future__ import annotations

import hashlib

from lanTag.fair.commit import commitment
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import FORFEIT, Action
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, pack_bundle, sign_message
from lanTag.wire import pack
from tests.session.harness import (
    SimNet,
    addr_of,
    make_record,
    make_sessions,
    reveal_payload,
    two_versions,
)


def _events(net: SimNet, seat: int, kind: type) -> list:
    net.collect()
    return [e for e in net.events.get(seat, []) if isinstance(e, kind)]


def _setup(seed: str, humans: int = 3) -> tuple[LobbyRecord, list[Identity], list[Session], SimNet]:
    record, ids, secrets = make_record("toy", humans, seed=seed)
    sessions = make_sessions(record, ids, secrets)
    return record, ids, sessions, SimNet(sessions, seed=11)


def _inject(session: Session, raw: bytes, from_seat: int, now: float = 0.0) -> None:
    session.receive_datagram(pack_bundle([raw]), addr_of(from_seat), now)


def test_forged_signature_and_wrong_game_are_rejected_without_effect() -> None:
    _record, ids, sessions, _net = _setup("forge")
    s0 = sessions[0]
    before = s0.state.state_hash()
    impostor = Identity(hashlib.sha256(b"not seat 1").digest()).signer()
    forged = sign_message(impostor, MsgType.ENTROPY, s0.game_id, 0, 1, before, (bytes(32),))
    _inject(s0, forged.raw, 1)
    other_game = sign_message(
        ids[1].signer(), MsgType.ENTROPY, bytes(32), 0, 1, before, (bytes(32),)
    )
    _inject(s0, other_game.raw, 1)
    _inject(s0, b"\x93\x01\x02", 1)  # not a bundle of signed messages
    codes = [e.code for e in iter(s0.next_event, None) if isinstance(e, ev.Rejected)]
    assert codes == ["bad-signature", "wrong-game", "malformed"]
    assert s0.state.state_hash() == before and s0.step == 0


def test_out_of_turn_and_illegal_moves_are_blamed_and_ignored() -> None:
    _record, ids, sessions, net = _setup("turns")
    net.hold.add(0)
    net.run_until(lambda: all(s.step == 2 for s in sessions))  # toy step 2: seat 0's turn
    s1 = sessions[1]
    h = s1.state.state_hash()
    early = sign_message(
        ids[2].signer(), MsgType.MOVE, s1.game_id, 2, 2, h, (Action("add", (1,)).to_msgpack(),)
    )
    illegal = sign_message(
        ids[0].signer(), MsgType.MOVE, s1.game_id, 2, 0, h, (Action("add", (7,)).to_msgpack(),)
    )
    _inject(s1, early.raw, 2)
    _inject(s1, illegal.raw, 0)
    net.collect()
    blames = [(e.seat, e.code) for e in _events(net, 1, ev.Blame)]
    assert blames == [(2, "out-of-turn"), (0, "illegal-action")]
    assert s1.step == 2


def test_reveal_that_does_not_open_its_commitment_convicts_and_forfeits() -> None:
    _record, ids, sessions, net = _setup("badreveal")
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))  # toy step 1: secret guess
    # Seat 2's process is replaced by a cheater that commits to one guess, reveals another.
    net.silent.add(2)
    cheat = sessions[2]
    step, h = 1, cheat.state.state_hash()
    nonce = bytes(range(32))
    sealed = commitment(cheat.game_id, step, 2, "guess", nonce, pack(["guess", 1]))
    c = sign_message(ids[2].signer(), MsgType.COMMIT, cheat.game_id, step, 2, h, (sealed,))
    for s in (0, 1):
        _inject(sessions[s], c.raw, 2, net.now)
    net.run_until(
        lambda: all(len(sessions[s].inbox.boxes[1].of(MsgType.COMMIT)) == 3 for s in (0, 1))
    )
    link = cheat._chain.reveal(cheat.history[-1].chain_used[2] + 1)  # type: ignore[union-attr]
    payload = reveal_payload(sessions, step, ["guess", 2], nonce, link, {2: c})
    r = sign_message(ids[2].signer(), MsgType.REVEAL, cheat.game_id, step, 2, h, payload)
    for s in (0, 1):
        _inject(sessions[s], r.raw, 2, net.now)
    net.run_until(lambda: sessions[0].step > 1 and sessions[1].step > 1)
    for s in (0, 1):
        # The proof is its one blame: a seat convicted at the round is not also named for
        # its absence from it (protocol 6, SPEC §5.5).
        assert [(e.seat, e.code) for e in _events(net, s, ev.Blame)] == [(2, "bad-reveal")]
        applied = next(e for e in _events(net, s, ev.StepApplied) if e.step == 1)
        assert applied.input.of(2) == FORFEIT  # not the reveal, not the default (SPEC §4.4)
        # convicted: dropped at that very step by every honest peer, a bot plays on
        assert [(e.step, e.seats) for e in _events(net, s, ev.SeatsDropped)] == [(1, (2,))]
        assert 2 not in sessions[s].live
        assert sessions[s].proofs == [(c, r)]  # the signed COMMIT and REVEAL: the proof
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()


def test_an_opening_reveal_to_one_peer_and_a_bad_one_to_another_forfeits_at_both() -> None:
    # The cheater opens its commitment for seat 0 and not for seat 1: seat 1 convicts and
    # sends the proof, seat 0 holds two REVEALs of one slot (an equivocation), rolls back
    # if it had applied the step, and both decide the step with the same forfeit.
    _record, ids, sessions, net = _setup("badreveal-split")
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(2)
    cheat = sessions[2]
    step, h = 1, cheat.state.state_hash()
    nonce = bytes(range(32))
    sealed = commitment(cheat.game_id, step, 2, "guess", nonce, pack(["guess", 1]))
    c = sign_message(ids[2].signer(), MsgType.COMMIT, cheat.game_id, step, 2, h, (sealed,))
    for s in (0, 1):
        _inject(sessions[s], c.raw, 2, net.now)
    net.run_until(
        lambda: all(len(sessions[s].inbox.boxes[1].of(MsgType.COMMIT)) == 3 for s in (0, 1))
    )
    link = cheat._chain.reveal(cheat.history[-1].chain_used[2] + 1)  # type: ignore[union-attr]
    good, bad = (
        sign_message(
            ids[2].signer(),
            MsgType.REVEAL,
            cheat.game_id,
            step,
            2,
            h,
            reveal_payload(sessions, step, ["guess", g], nonce, link, {2: c}),
        )
        for g in (1, 2)
    )
    _inject(sessions[0], good.raw, 2, net.now)
    _inject(sessions[1], bad.raw, 2, net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    for s in (0, 1):
        applied = [e for e in _events(net, s, ev.StepApplied) if e.step == 1][-1]
        assert applied.input.of(2) == FORFEIT, s
        assert 2 not in sessions[s].live
        codes = {(e.seat, e.code) for e in _events(net, s, ev.Blame)}
        assert {seat for seat, _ in codes} == {2}, codes
        report = verify_log(sessions[s].take_log())  # the replay reaches the same forfeit
        assert report.valid and report.complete, report.failure
        assert {(seat, code) for seat, _, code, _ in report.blames} == codes
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()


def test_equivocation_is_proven_blamed_and_the_cheater_dropped_by_all() -> None:
    _record, ids, sessions, net = _setup("equivocate", humans=4)
    net.hold.add(1)
    net.run_until(lambda: all(s.step == 3 for s in sessions))  # toy step 3: seat 1's turn
    net.silent.add(1)
    h = sessions[0].state.state_hash()
    gid = sessions[0].game_id
    one = sign_message(ids[1].signer(), MsgType.MOVE, gid, 3, 1, h, (["add", 1],))
    two = sign_message(ids[1].signer(), MsgType.MOVE, gid, 3, 1, h, (["add", 2],))
    _inject(sessions[0], one.raw, 1, net.now)
    _inject(sessions[2], two.raw, 1, net.now)
    _inject(sessions[3], two.raw, 1, net.now)
    net.run(max_time=net.now + 200)
    honest = (0, 2, 3)
    assert all(sessions[i].state.is_over for i in honest)
    assert len({sessions[i].state.state_hash() for i in honest}) == 1
    for i in honest:
        codes = [(e.seat, e.code) for e in _events(net, i, ev.Blame)]
        assert (1, "equivocation") in codes
        assert sessions[i].proofs and {p.raw for p in sessions[i].proofs[0]} == {one.raw, two.raw}
        assert [(d.step, d.seats) for d in _events(net, i, ev.SeatsDropped)] == [(3, (1,))]
        # A peer may see a hash mismatch before the proof reaches it; it must not end there.
        report = verify_log(sessions[i].take_log())
        assert report.valid and report.complete, report.failure


def test_withheld_reveal_leads_to_an_agreed_drop_and_the_game_goes_on() -> None:
    _record, _ids, sessions, net = _setup("withhold")
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    # Seat 2 commits (its bot acts), then its process dies before revealing.
    net.run_until(
        lambda: (
            all(len(s.inbox.boxes[1].of(MsgType.COMMIT)) >= 1 for s in sessions)
            and sessions[2].step == 1
            and sessions[2].sealed.holds(1)
        ),
    )
    net.silent.add(2)
    net.run(max_time=net.now + 300)
    assert sessions[0].state.is_over and sessions[1].state.is_over
    for i in (0, 1):
        assert [d.seats for d in _events(net, i, ev.SeatsDropped)] == [(2,)]


def test_a_false_state_hash_to_one_peer_costs_it_nothing_and_convicts_the_signer() -> None:
    # Issue #22: one validly signed HAVE with a made-up state hash, sent to seat 0 only,
    # put seat 2 on seat 0's desynced list for good: seat 0 stalled and was dropped.
    # Now the claim is weighed: seat 2 signed two state hashes for one step (its honest
    # HAVE and the false one), which convicts it (`desync`) at every honest peer; it is
    # voted out at the next step that needs it, and seats 0 and 1 play on, unblamed.
    _record, ids, sessions, net = _setup("falsehash")
    net.run_until(lambda: all(s.step >= 4 for s in sessions))
    cheat = sessions[2]
    # step 2 is seat 0's turn: seat 2 acked seat 0's move there with its true hash
    honest_have = next(
        m for m in cheat.inbox.boxes[2].haves[0].values() if m.seat == 2 and m.type == MsgType.HAVE
    )
    digests = list(honest_have.payload[1])
    false = sign_message(
        ids[2].signer(), MsgType.HAVE, cheat.game_id, 2, 2, bytes(32), (0, digests)
    )
    _inject(sessions[0], false.raw, 2, net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for s in (0, 1):
        blames = {(e.seat, e.code) for e in _events(net, s, ev.Blame)}
        # Convicted, then voted out at the next step that waits for it: dropped for its
        # proof, a `timeout` there, never `withheld` (protocol 6, SPEC §5.5).
        assert blames == {(2, "desync"), (2, "timeout")}, (s, blames)
        assert [d.seats for d in _events(net, s, ev.SeatsDropped)] == [(2,)], s
        assert (honest_have, false) in sessions[s].proofs or (false, honest_have) in sessions[
            s
        ].proofs
        assert not sessions[s].claims.desynced
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure
        assert {(seat, code) for seat, _, code, _ in report.blames} == blames


def test_a_liar_is_blamed_once_whatever_number_of_false_hashes_it_signs() -> None:
    # Once convicted of two state hashes for one step, further pairs prove nothing new:
    # no second blame, no second proof sent on (each would cost every peer a relay), and
    # the seat is voted out once, as after one false hash.
    _record, ids, sessions, net = _setup("falsehashes")
    net.run_until(lambda: all(s.step >= 5 for s in sessions))
    cheat = sessions[2]
    falses = []
    for step in (2, 3):  # seat 0's turn and seat 1's: seat 2 acked each move
        subject = next(iter(cheat.inbox.boxes[step].haves))
        honest_have = cheat.inbox.boxes[step].haves[subject][2]
        falses += [
            sign_message(
                ids[2].signer(), MsgType.HAVE, cheat.game_id, step, 2, bad, honest_have.payload
            )
            for bad in (bytes(32), bytes([1]) * 32)
        ]
    for s in sessions[:2]:
        for false in falses:
            _inject(s, false.raw, 2, net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for s in (0, 1):
        blames = [(e.seat, e.code) for e in _events(net, s, ev.Blame)]
        assert blames.count((2, "desync")) == 1 and {b[0] for b in blames} == {2}, (s, blames)
        assert len(sessions[s].proofs) == 1, s
        assert [d.seats for d in _events(net, s, ev.SeatsDropped)] == [(2,)], s
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure


def test_two_commitments_to_two_peers_are_an_equivocation_and_the_cheater_forfeits() -> None:
    # Issue #22: the cheater sends COMMIT+REVEAL pair A to seat 0 and pair B to seat 1,
    # each opening correctly.  Every peer acknowledges the commitments it takes (HAVE with
    # the COMMIT's digest), so each honest peer sees a digest it does not hold, sends its
    # own copy, and the two COMMITs meet: an equivocation proof, the seat dropped at that
    # step with its forfeit, the same history at both honest peers.
    _record, ids, sessions, net = _setup("twocommits")
    net.hold_secret.add(2)
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(2)
    cheat = sessions[2]
    step, h = 1, cheat.state.state_hash()
    link = cheat._chain.reveal(cheat.history[-1].chain_used[2] + 1)  # type: ignore[union-attr]
    pairs = []
    for guess, nonce in ((1, bytes(range(32))), (2, bytes(range(1, 33)))):
        sealed = commitment(cheat.game_id, step, 2, "guess", nonce, pack(["guess", guess]))
        c = sign_message(ids[2].signer(), MsgType.COMMIT, cheat.game_id, step, 2, h, (sealed,))
        r = sign_message(
            ids[2].signer(),
            MsgType.REVEAL,
            cheat.game_id,
            step,
            2,
            h,
            reveal_payload(sessions, step, ["guess", guess], nonce, link, {2: c}),
        )
        pairs.append((c, r))
    for s, (c, r) in zip((0, 1), pairs, strict=True):
        _inject(sessions[s], c.raw, 2, net.now)
        _inject(sessions[s], r.raw, 2, net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    commits = {pairs[0][0].raw, pairs[1][0].raw}
    for s in (0, 1):
        blames = {(e.seat, e.code) for e in _events(net, s, ev.Blame)}
        assert (2, "equivocation") in blames, (s, blames)
        assert {seat for seat, _ in blames} == {2}, (s, blames)
        assert any({a.raw, b.raw} == commits for a, b in sessions[s].proofs), s
        assert [(d.step, d.seats) for d in _events(net, s, ev.SeatsDropped)] == [(1, (2,))]
        applied = [e for e in _events(net, s, ev.StepApplied) if e.step == 1][-1]
        assert applied.input.of(2) == FORFEIT, s
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure


def test_a_flood_of_nudges_and_votes_is_dropped_unlogged_and_counted() -> None:
    # Issue #22: 100k future-step NUDGEs grew every honest log 190-fold.  Per seat and
    # step only REQUEST_LIMITS of each kind are kept, none further than REQUEST_AHEAD steps
    # ahead; the rest are dropped unlogged (counted `flood`) and the game goes on.
    from lanTag.session.steps import REQUEST_AHEAD, REQUEST_LIMITS

    _record, ids, sessions, net = _setup("flood")
    net.run_until(lambda: all(s.step >= 2 for s in sessions))
    cheat = sessions[2]
    h = cheat.state.state_hash()
    sent = 0
    for step in (cheat.step, cheat.step + 1, cheat.step + REQUEST_AHEAD + 5):
        for kind in (MsgType.NUDGE, MsgType.VOTE):
            raws = [
                sign_message(ids[2].signer(), kind, cheat.game_id, step, 2, h, ([1], seq)).raw
                for seq in range(1, 60)
            ]
            sent += len(raws)
            for s in (0, 1):
                sessions[s].receive_datagram(pack_bundle(raws[:30]), addr_of(2), net.now)
                sessions[s].receive_datagram(pack_bundle(raws[30:]), addr_of(2), net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    kept_at_most = 2 * (REQUEST_LIMITS[MsgType.NUDGE] + REQUEST_LIMITS[MsgType.VOTE])
    for s in (0, 1):
        assert sessions[s].counters.get("flood", 0) >= sent - kept_at_most, s
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure
        assert report.blames == [] or {b[0] for b in report.blames} == {2}


def _flood(ids: list[Identity], cheat: Session, step: int, kind: MsgType, count: int) -> bytes:
    """``count`` validly signed VOTEs or NUDGEs of seat 2 for ``step`` (distinct seqs,
    naming nobody), as one bundle."""
    h = cheat.state.state_hash()
    return pack_bundle(
        [
            sign_message(ids[2].signer(), kind, cheat.game_id, step, 2, h, ([], seq)).raw
            for seq in range(1, count + 1)
        ]
    )


def test_a_seat_that_floods_past_the_cap_is_convicted_and_dropped_by_every_honest_peer() -> None:
    # Issue #22: one VOTE more than the cap for one step, to seat 0 only.  No honest peer
    # sends it (each caps its own), so with the kept ones it proves a flood: seat 0 blames
    # seat 2 `flood`, logs the proof and sends it on, seat 1 finds the same by counting,
    # and both vote seat 2 out at the first step that waits for it.
    from lanTag.session.steps import REQUEST_LIMITS

    _record, ids, sessions, net = _setup("floodcap")
    net.run_until(lambda: all(s.step >= 2 for s in sessions))
    cheat = sessions[2]
    flood = _flood(ids, cheat, cheat.step, MsgType.VOTE, REQUEST_LIMITS[MsgType.VOTE] + 1)
    sessions[0].receive_datagram(flood, addr_of(2), net.now)
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for s in (0, 1):
        blames = {(e.seat, e.code) for e in _events(net, s, ev.Blame)}
        assert (2, "flood") in blames, (s, blames)
        assert {seat for seat, _ in blames} == {2}, (s, blames)  # honest seats: never
        assert [d.seats for d in _events(net, s, ev.SeatsDropped)] == [(2,)], s
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure
        assert (2, "flood") in {(seat, code) for seat, _, code, _ in report.blames}


def test_honest_peers_never_send_more_requests_than_the_flood_cap() -> None:
    # An honest peer that lacks a seat for a long time votes again whenever the set it
    # lacks changes: past the cap it keeps its last vote, or it would convict itself.
    from lanTag.session.steps import REQUEST_LIMITS

    _record, _ids, sessions, net = _setup("ownroom")
    net.run_until(lambda: all(s.step >= 2 for s in sessions))
    s0 = sessions[0]
    for i in range(REQUEST_LIMITS[MsgType.VOTE] + 5):
        s0.agreement.vote(frozenset({1 + i % 2}), net.now)  # a new set every time
    votes = [
        m
        for (seat, _), m in s0.inbox.slots.items()
        if seat == 0 and m.type == MsgType.VOTE and m.step == s0.step
    ]
    assert len(votes) == REQUEST_LIMITS[MsgType.VOTE]


def test_a_flood_at_the_cap_grows_a_log_by_the_bounded_factor_of_spec_5_3() -> None:
    # The worst a flooder can do unconvicted: exactly the cap (32 VOTEs and 4 NUDGEs) at
    # every step it reaches, to every peer.  SPEC §5.3 bounds the growth: each honest log
    # gains at most 36 messages per step, so about 12 times an honest log's size.
    from lanTag.session.steps import REQUEST_LIMITS

    honest = _setup("floodsize")
    honest[3].run_until(lambda: all(s.state.is_over for s in honest[2]))
    _record, ids, sessions, net = _setup("floodsize")
    flooded: set[int] = set()

    def pump() -> bool:
        cheat = sessions[2]
        if cheat.step not in flooded and not cheat.state.is_over:
            flooded.add(cheat.step)
            for kind in (MsgType.VOTE, MsgType.NUDGE):
                raws = _flood(ids, cheat, cheat.step, kind, REQUEST_LIMITS[kind])
                for s in (0, 1):
                    sessions[s].receive_datagram(raws, addr_of(2), net.now)
        return all(s.state.is_over for s in sessions)

    net.run_until(pump)
    for s in (0, 1):
        assert not [e for e in _events(net, s, ev.Blame)]  # at the cap: no proof, no blame
        plain = len(honest[2][s].take_log())
        grown = sessions[s].take_log()
        assert verify_log(grown).valid
        steps_plain, steps_grown = honest[2][s].step, sessions[s].step
        ratio = (len(grown) / steps_grown) / (plain / steps_plain)
        print(f"seat {s}: {plain} -> {len(grown)} bytes, x{ratio:.1f} per step")
        assert ratio <= 13, ratio


def test_two_commitments_never_make_an_honest_peer_roll_a_secret_round_back() -> None:
    # SPEC §4.4: a secret round is applied only once no live seat's acknowledgement names
    # another commitment than the one we took.  Each honest peer's acknowledgement (its
    # REVEAL's vector, protocol 6) shows the other a vector it does not hold, which answers
    # with its COMMITs: both wait for the proof instead of applying one version and rolling
    # it back.
    for seed in ("twocommits", "twocommits/2", "twocommits/3"):
        _record, ids, sessions, net = _setup(seed)
        net.hold_secret.add(2)
        net.run_until(lambda: all(s.step == 1 for s in sessions))  # noqa: B023
        net.silent.add(2)
        for s, pair in two_versions(sessions, ids[2].signer(), 2, 1, {0: 1, 1: 2}).items():
            for msg in pair:
                _inject(sessions[s], msg.raw, 2, net.now)
        net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)  # noqa: B023
        for s in (0, 1):
            applied = [e.step for e in _events(net, s, ev.StepApplied) if e.step == 1]
            assert applied == [1], (seed, s, applied)  # decided once: never rolled back
            notes = [
                e.data[0]
                for e in parse_log(sessions[s].take_log()).entries
                if e.kind == EntryKind.NOTE
            ]
            assert "rollback" not in notes, (seed, s)


def test_an_acknowledgement_of_a_commitment_nobody_sent_is_not_counted() -> None:
    # Seat 2 (a modified peer, silent otherwise) commits and reveals correctly but tells
    # each honest peer it took another commitment from the other honest seat.  A HAVE is
    # a claim: only a second signed COMMIT proves anything, so nobody is blamed for it; and
    # since protocol 4 an acknowledgement counts only for the commitment it names (SPEC
    # §4.4), so the round waits for seat 2's true one, which never comes: seat 2 is voted
    # out at that step like any silent seat, the honest peers decide the round once, alike,
    # never blamed.  Protocol 6 (SPEC §5.5): the honest seats revealed before the drop (their
    # REVEALs name seat 2's COMMIT), so seat 2 withheld: its choice is its forfeit.
    _record, ids, sessions, net = _setup("lyinghave")
    net.hold_secret.update({0, 1, 2})
    net.run_until(lambda: all(s.step == 1 for s in sessions))
    net.silent.add(2)
    cheat = sessions[2]
    h = cheat.state.state_hash()
    link = cheat._chain.reveal(cheat.history[-1].chain_used[2] + 1)  # type: ignore[union-attr]
    nonce = bytes(range(32))
    sealed = commitment(cheat.game_id, 1, 2, "guess", nonce, pack(["guess", 1]))
    signer = ids[2].signer()
    commit = sign_message(signer, MsgType.COMMIT, cheat.game_id, 1, 2, h, (sealed,))
    payload = reveal_payload(sessions, 1, ["guess", 1], nonce, link, {2: commit})
    reveal = sign_message(signer, MsgType.REVEAL, cheat.game_id, 1, 2, h, payload)
    for victim, subject in ((0, 1), (1, 0)):
        lie = sign_message(signer, MsgType.HAVE, cheat.game_id, 1, 2, h, (subject, [bytes(32)]))
        for msg in (commit, lie, reveal):
            _inject(sessions[victim], msg.raw, 2, net.now)
    net.hold_secret.clear()
    net.run_until(lambda: sessions[0].state.is_over and sessions[1].state.is_over)
    assert sessions[0].state.state_hash() == sessions[1].state.state_hash()
    for s in (0, 1):
        applied = [e for e in _events(net, s, ev.StepApplied) if e.step == 1]
        assert len(applied) == 1 and applied[0].input.of(2) == FORFEIT, s
        assert [(d.step, d.seats) for d in _events(net, s, ev.SeatsDropped)] == [(1, (2,))]
        assert {e.seat for e in _events(net, s, ev.Blame)} <= {2}, s
        assert [(b.step, b.code) for b in _events(net, s, ev.Blame)] == [(1, "withheld")], s
        report = verify_log(sessions[s].take_log())
        assert report.valid and report.complete, report.failure
