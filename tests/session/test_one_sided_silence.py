"""One-sided silence: a peer whose messages reach only some seats (protocol/SPEC.md §5.4-5.5).

The rule: nothing one peer sends (or withholds) may make an honest peer stall, diverge or
be blamed.  The mute peer's own seat may be dropped (for everybody at one step); the
others must finish the same game, blame nobody else, and keep logs that verify.
"""

from __future__ import annotations

import hashlib

from lanTag.identity import Identity
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, pack_bundle, sign_message
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
