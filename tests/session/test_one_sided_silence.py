"""One-sided silence: a peer whose messages reach only some seats (protocol/SPEC.md §5.4-5.5).

The rule: nothing one peer sends (or withholds) may make an honest peer stall, diverge or
be blamed.  The mute peer's own seat may be dropped (for everybody at one step); the
others must finish the same game, blame nobody else, and keep logs that verify.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from lanTag.identity import Identity
from lanTag.peer.machine import BotDriver
from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.session.lockstep import MAX_LINK_PAYLOAD, Session
from lanTag.session.messages import MsgType, pack_bundle, sign_message, unpack_bundle
from lanTag.session.referee import NeedKind
from tests.session.harness import SimNet, addr_of, make_record, make_sessions
from tests.support.table import Table, addr, final_history


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


# --------------------------------------------------------------------------- the sweep


@dataclass(frozen=True)
class Silence:
    """A peer's datagrams stop reaching the peers ``deaf`` (the others still hear it, and it
    hears everyone) from the moment its own session is in ``phase`` at step ``after`` or
    later: "commit" / "reveal" (its seat is in a secret round, before / after it sealed its
    choice), "aside" (a secret round of other seats, which wait for its HAVEs), "entropy"
    (a roll it contributes to: its link just went out), "turn" (its own turn) or "over"
    (the game ended there: the seals).

    The mute peer is the first one found in that phase, looking from peer ``mute`` on;
    ``deaf`` counts from it (1: the next peer).  Which phases a game reaches moves with
    its dice (the game id, hence the protocol version): a seed where no peer reaches the
    phase is passed over for the next one (at most ``tries``)."""

    engine: str
    peers: int
    seed: int
    mute: int
    deaf: tuple[int, ...]
    phase: str
    after: int = 3
    options: tuple[tuple[str, int | bool | str], ...] = ()
    tries: int = 4


@dataclass(frozen=True)
class Silenced:
    """What ``play_with_silence`` played: the table, the mute peer and the deaf ones."""

    table: Table
    mute: int
    deaf: tuple[int, ...]
    cut_at: int  # the mute peer's step when its datagrams stopped reaching the deaf ones


def _phase(s: Session) -> str | None:
    if s.state.is_over:
        return "over"
    needs = s.needs()
    if s.seat not in needs.humans:
        return "aside" if needs.kind is NeedKind.SECRET else None
    if needs.kind is NeedKind.SECRET:
        return "reveal" if s.sealed.holds(s.step) else "commit"
    return {NeedKind.ENTROPY: "entropy", NeedKind.TURN: "turn"}.get(needs.kind)


def _in_phase(case: Silence, table: Table) -> int | None:
    for k in range(case.peers):
        i = (case.mute + k) % case.peers
        s = table.peers[i].session
        if s is not None and s.step >= case.after and _phase(s) == case.phase:
            return i
    return None


@dataclass(frozen=True)
class _Thinking(BotDriver):
    """A bot that leaves its secret choices from step ``after`` on to a thinking person,
    so that a seat can be caught before its COMMIT (bots commit at once)."""

    after: int = 3

    def act(self, session: Session, random_bytes: Callable[[int], bytes], now: float) -> None:
        if session.step >= self.after and session.needs().kind is NeedKind.SECRET:
            return
        BotDriver.act(self, session, random_bytes, now)


def _table_in_phase(case: Silence, seed: int) -> tuple[Table, int] | None:
    """A table of ``seed`` played until a peer is in ``case.phase``, and that peer."""
    table = Table(
        case.engine,
        case.peers,
        seed=seed,
        faults="delay=5ms",
        timeouts=Timeouts(),
        options=case.options,
    )
    table.net.run_for(30.0)  # see test_dead_peer._table: real clocks start far from 0
    table.start()
    if case.phase == "commit":
        for peer in table.peers:
            peer.driver = _Thinking(table.bot, case.after)
    table.net.run_until(
        lambda: _in_phase(case, table) is not None or table.over(), table.net.now + 3_000
    )
    mute = _in_phase(case, table)
    if case.phase == "commit":
        for peer in table.peers:  # they all choose now, the mute one's COMMIT cut
            peer.driver = BotDriver(table.bot)
    return None if mute is None else (table, mute)


def _cut(table: Table, mute: int, deaf: tuple[int, ...]) -> None:
    cut = {addr(i) for i in deaf}
    table.net.drop_if = lambda src, dst, data: src == addr(mute) and dst in cut


def play_with_silence(case: Silence, max_time: float = 3_000.0) -> Silenced:
    """Play ``case`` to its end (the product's default timeouts, 5 ms links)."""
    for seed in range(case.seed, case.seed + case.tries):
        found = _table_in_phase(case, seed)
        if found is None:
            continue  # no peer of this game was ever there: the next seed
        table, mute = found
        deaf = tuple((mute + k) % case.peers for k in case.deaf)
        _cut(table, mute, deaf)
        cut_at = table.sessions([mute])[0].step
        for peer in table.peers:
            peer.poke(table.net.now)
        table.run_to_end(max_time=max_time)
        return Silenced(table, mute, deaf, cut_at)
    raise AssertionError(f"no peer reached {case.phase} in {case.tries} seeds: {case}")


def check_silence(case: Silence, played: Silenced) -> list[tuple[int, tuple[int, ...]]]:
    """The rule, for the honest peers (all but the mute one): they all finish the same
    game, agree on every drop (the mute seat's only, at one step), blame nobody but the
    mute seat, and their logs verify.  The mute peer finishes too (it hears everyone).
    Returns the drops (step, seats)."""
    table, where = played.table, (case, played.mute, played.deaf, played.cut_at)
    honest = [i for i in range(case.peers) if i != played.mute]
    mute_seat = table.seat_of(played.mute)
    assert len({s.step for s in table.sessions()}) == 1, where  # nobody stalls
    assert table.over(), where
    drops = {
        i: [(e.step, e.seats) for e in table.events(i, ev.SeatsDropped)]  # type: ignore[attr-defined]
        for i in honest
    }
    first = drops[honest[0]]
    assert all(d == first for d in drops.values()), (where, drops)
    assert all(seats == (mute_seat,) for _step, seats in first), (where, first)
    histories = set()
    for i in honest:
        blamed = {seat for seat, _code in table.blames(i)}
        assert blamed <= {mute_seat}, (where, i, table.blames(i))
        report = table.report(i)
        assert report.valid and report.complete, (where, i, report.failure)
        histories.add(final_history(report))
    assert len(histories) == 1, where
    assert len({s.state.state_hash() for s in table.sessions(honest)}) == 1, where
    assert table.report(played.mute).valid, where
    return first


_SMALL_PROTOTAG = (("board_size", 4), ("end_steps", 8))
SWEEP = [
    # Stomptag, 3 seats: every round secret (commit, reveal), chance rolls, the seals.
    *(Silence("stomptag", 3, seed, seed % 3, (1,), "reveal") for seed in range(3)),
    Silence("stomptag", 3, 5, 2, (2,), "reveal"),
    Silence("stomptag", 3, 2, 2, (1,), "entropy", after=2),
    *(Silence("stomptag", 3, seed, seed % 3, (1 + seed % 2,), "commit") for seed in range(3)),
    *(Silence("stomptag", 3, seed, seed % 3, (2,), "over") for seed in range(3)),
    # Prototag, 4 seats: turns, rolls, and battles (secret rounds the others sit out);
    # mute towards one peer, and towards two (its messages reach one peer only).
    *(
        Silence("prototag", 4, seed, mute, deaf, phase, options=_SMALL_PROTOTAG)
        for seed, mute, deaf, phase in (
            (1, 1, (3,), "reveal"),
            (2, 3, (1,), "commit"),
            (3, 2, (1, 2), "commit"),
            (4, 0, (1, 2), "reveal"),
            (3, 0, (1,), "aside"),
            (7, 3, (3,), "aside"),
            (5, 1, (2, 3), "aside"),
            (6, 2, (3,), "entropy"),
            (7, 3, (2, 3), "entropy"),
            (8, 0, (3,), "turn"),
            (9, 1, (1, 2), "turn"),
            (2, 2, (2,), "over"),
        )
    ),
]


@pytest.mark.parametrize("case", SWEEP, ids=lambda c: f"{c.engine}-{c.seed}-{c.phase}")
def test_one_sided_silence_sweep(case: Silence) -> None:
    check_silence(case, play_with_silence(case))
