"""One-sided silence: a peer whose messages reach only some seats (protocol/SPEC.md §5.4-5.5).

The rule: nothing one peer sends (or withholds) may make an honest peer stall, diverge or
be blamed.  The mute peer's own seat may be dropped (for everybody at one step); the
others must finish the same game, blame nobody else, and keep logs that verify.
"""

from __future__ import annotations

import hashlib

from lanTag.identity import Identity
from lanTag.session import events as ev
from lanTag.session.lockstep import MAX_LINK_PAYLOAD, Session
from lanTag.session.messages import MsgType, pack_bundle, sign_message, unpack_bundle
from tests.session.harness import SimNet, addr_of, make_record, make_sessions


def _three(seed: str) -> tuple[list[Identity], list[Session], SimNet]:
    record, ids, secrets = make_record("toy", 3, seed=seed)
    sessions = make_sessions(record, ids, secrets)
    return ids, sessions, SimNet(sessions, seed=5)


def _have(ids: list[Identity], s: Session, seat: int, step: int, digests: list[bytes]) -> bytes:
    subject, state = 0, s.state.state_hash()
    signed = sign_message(
        ids[seat].signer(), MsgType.HAVE, s.game_id, step, seat, state, (subject, digests)
    )
    return signed.raw


def _blames(s: Session) -> list[tuple[int, str]]:
    out = []
    while (e := s.next_event()) is not None:
        if isinstance(e, ev.Blame):
            out.append((e.seat, e.code))
    return out


def test_an_older_have_relayed_after_a_newer_one_is_no_proof() -> None:
    # An honest seat's HAVEs for one subject grow (COMMIT, then COMMIT and REVEAL); a relay
    # may bring the newer one first.  Seed 16 of the one-sided silence test had every seat
    # of the table blamed `equivocation` for it (SPEC §3, protocol 4).
    ids, sessions, net = _three("stale-have")
    net.run(max_time=0.05)
    s = sessions[0]
    _blames(s)
    step = s.step + 2  # a slot seat 2 has not signed yet (the HAVEs wait for their step)
    a, b, c = (hashlib.sha256(x).digest() for x in (b"a", b"b", b"c"))
    for raw in (_have(ids, s, 2, step, [a, b]), _have(ids, s, 2, step, [a])):
        s.receive_datagram(pack_bundle([raw]), addr_of(2), net.now)
    duplicates = s.counters.get("duplicate", 0)
    assert duplicates >= 1
    assert _blames(s) == []
    # Two lists neither of which holds the other are still an equivocation.
    s.receive_datagram(pack_bundle([_have(ids, s, 2, step, [c])]), addr_of(2), net.now)
    assert _blames(s) == [(2, "equivocation")]
    assert s.counters.get("duplicate", 0) == duplicates


def _sent_to(s: Session, seat: int) -> list[bytes]:
    raws: list[bytes] = []
    for payload, to in s.datagrams_to_send(0.0):
        if to == addr_of(seat):
            raws += unpack_bundle(payload, MAX_LINK_PAYLOAD)
    return raws


def test_a_relay_is_sent_again_when_the_subjects_acknowledgements_grow() -> None:
    # Seed 12 of the one-sided silence scan: peer 0 cannot hear seat 2 and waits, in a
    # secret round seat 2 sits out, for seat 2's HAVEs of both commitments (SPEC §4.4).
    # Its vote asked the others to relay; they answered when they held seat 2's first
    # HAVE only, and seat 2's second one, which came later, was never relayed: peer 0
    # (honest) repeated the same vote, stayed at that step and was dropped for silence.
    record, ids, secrets = make_record("toy", 3, seed="relay-grows")
    relayer = make_sessions(record, ids, secrets)[1]
    step, state = relayer.step, relayer.state.state_hash()
    game = relayer.game_id

    def signed(seat: int, kind: MsgType, payload: tuple[object, ...]) -> bytes:
        return sign_message(ids[seat].signer(), kind, game, step, seat, state, payload).raw

    def give(raw: bytes, seat: int) -> None:
        relayer.receive_datagram(pack_bundle([raw]), addr_of(seat), 0.0)

    _sent_to(relayer, 0)
    give(signed(0, MsgType.VOTE, ([2], 1)), 0)
    assert _sent_to(relayer, 0) == []  # nothing of seat 2's held yet: nothing to relay
    first = signed(2, MsgType.HAVE, (0, [hashlib.sha256(b"commit of 0").digest()]))
    give(first, 2)
    assert first in _sent_to(relayer, 0)
    second = signed(2, MsgType.HAVE, (1, [hashlib.sha256(b"commit of 1").digest()]))
    give(second, 2)
    assert second in _sent_to(relayer, 0)  # the vote was not repeated: still relayed
    assert _sent_to(relayer, 0) == []  # and once only
