"""Vectors for seats that never played (protocol 6, SPEC §5.4): at a roll, a drop may leave
them out of its half of the table only while the host's seat and the deciding peer's own
seat stay.

Part of scripts/gen_must_fail.py.  Each log is a real
game of the must-fail table (tests.support.table.Table, 3 people and a replicated bot) on
the simulated network, its two other people's peers cut off from the writer as soon as the
game starts (squatters, to the writer).  The host's log, dropping them at the first roll,
must pass.  The two others are a joiner's (the writer is seat 1), played by a table whose
rule was bent as a cheating writer's would be: one leaves the host and seat 2 out of the
count (the host does not stay; the host's link of the first roll, which came with the
start, is lost on its way to the joiners), the other takes such a drop of its own seat from
a vote the host signed naming both joiners.  A verifier holding the rule does not take those drops,
so the first step the writer decided without them is not the replay's.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import lanTag.session.agreement as agreement
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, sign_message
from scripts.must_fail_game import ENGINE, Expect, Item, Vector, vector, write
from tests.support.table import Table, addr, identity_for

FIRST_SEED = 40
SEEDS_TRIED = 16
WRITER = 1  # the joiner's peer whose log the must-fail vectors are


@dataclass(frozen=True)
class Unplayed:
    seed: int
    items: list[Item]
    seat: int  # the writer's seat
    failure: int  # the entry a verifier holding the rule fails at (-1: none)
    reason: str


@contextmanager
def _bent(host_need_not_stay: bool, own_seat_need_not_stay: bool) -> Iterator[None]:
    """The table reads the rule without one of its conditions."""
    # Bent where the session reads it: agreement's own name (mypy: not re-exported there).
    real = agreement.left_out  # type: ignore[attr-defined]

    def bent(
        protocol: int, at_roll: bool, live: frozenset[int], played: frozenset[int], seat: int | None
    ) -> tuple[frozenset[int], frozenset[int]]:
        unplayed, stay = real(protocol, at_roll, live, played, seat)
        if host_need_not_stay:
            stay = stay - {0}
        if own_seat_need_not_stay and seat is not None:
            stay = stay - {seat}
        return unplayed, stay

    agreement.left_out = bent  # type: ignore[attr-defined]
    try:
        yield
    finally:
        agreement.left_out = real  # type: ignore[attr-defined]


def _started(seed: int) -> Table:
    table = Table(ENGINE, 3, bots=("random",), seed=seed)
    table.net.run_until(table.seated, 60)
    table.peers[0].start_game(table.net.now)
    table.net.run_until(lambda: all(p.session is not None for p in table.peers), 60)
    return table


def _items(table: Table, peer: int) -> list[Item]:
    return [(e.step, e.kind, e.data) for e in parse_log(bytes(table.logs[peer])).entries]


def _found(table: Table, peer: int) -> Unplayed:
    items = _items(table, peer)
    failure = verify_log(write(items)).failure
    seat = table.seat_of(peer)
    assert seat is not None
    if failure is None:
        return Unplayed(table.seed, items, seat, -1, "")
    return Unplayed(table.seed, items, seat, failure.entry, failure.reason)


@functools.cache
def squat_game() -> Unplayed:
    """The host's log: its two joiners go silent at the start, never having played."""
    table = _started(FIRST_SEED)
    table.net.cut([addr(1), addr(2)], [addr(0)])
    table.run_to_end([0], max_time=3600)
    return _found(table, 0)


def _first_refused(play: object) -> Unplayed:
    for seed in range(FIRST_SEED, FIRST_SEED + SEEDS_TRIED):
        got = play(seed)  # type: ignore[operator]
        assert isinstance(got, Unplayed)
        if got.failure > 0:
            return got
    raise RuntimeError(f"no game of seeds {FIRST_SEED}+{SEEDS_TRIED} fits")


@contextmanager
def _first_link_of_the_host_lost() -> Iterator[None]:
    """The host's link of the first roll never reaches a joiner (it came with the start,
    before any cut could part them): as if lost on the way."""
    real = Session.receive_parsed

    def lose(self: Session, msg: Signed, now: float, signature_ok: bool | None = None) -> None:
        if self.seat != 0 and msg.type is MsgType.ENTROPY and msg.seat == 0 and msg.step == 0:
            return
        real(self, msg, now, signature_ok)

    Session.receive_parsed = lose  # type: ignore[method-assign]
    try:
        yield
    finally:
        Session.receive_parsed = real  # type: ignore[method-assign]


@functools.cache
def without_the_host() -> Unplayed:
    """A joiner cut off alone at the start leaves the host and the other joiner out."""

    def play(seed: int) -> Unplayed:
        with _bent(host_need_not_stay=True, own_seat_need_not_stay=False):
            with _first_link_of_the_host_lost():
                table = _started(seed)
            table.net.cut([addr(WRITER)], [addr(0), addr(3 - WRITER)])
            table.run_to_end([WRITER], max_time=3600)
        return _found(table, WRITER)

    return _first_refused(play)


@functools.cache
def own_seat() -> Unplayed:
    """A joiner takes a drop of its own seat from the host's vote naming both joiners."""

    def play(seed: int) -> Unplayed:
        with _bent(host_need_not_stay=False, own_seat_need_not_stay=True):
            table = _started(seed)
            host = table.sessions([0])[0]
            vote = sign_message(
                identity_for(seed, 0).signer(),
                MsgType.VOTE,
                host.game_id,
                0,
                0,
                host.state.state_hash(),
                ([1, 2], 1),
                version=host.record.protocol,
            )
            writer = table.sessions([WRITER])[0]
            writer.receive_message(vote.raw, table.net.now)
            table.run_to_end([0, 3 - WRITER], max_time=3600)
            table.net.run_for(60)
        return _found(table, WRITER)

    return _first_refused(play)


def _drop_entry(u: Unplayed) -> str:
    steps = [k for k, (_s, kind, _d) in enumerate(u.items) if kind == EntryKind.STEP]
    return f"entry {steps[0]}" if steps else "no STEP entry"


@vector
def unplayed_left_out_at_the_first_roll(_game: object) -> Vector:
    sq = squat_game()
    return Vector(
        "unplayed_left_out_at_the_first_roll",
        "§5.4 seats that never played (protocol 6): at a roll, the host drops the seats that "
        "never played though half the table does not remain (valid)",
        f"the host's log of a game (table seed {sq.seed}) whose two other people say nothing "
        "from the start: seat 0 alone votes them out at step 0 and plays on against bots",
        write(sq.items),
        Expect(0, "", blame=(1, "withheld"), complete=True),
    )


@vector
def unplayed_left_out_without_the_host(_game: object) -> Vector:
    u = without_the_host()
    return Vector(
        "unplayed_left_out_without_the_host",
        "§5.4 seats that never played (protocol 6): only a drop that keeps the host's seat "
        "leaves them out",
        f"seat {u.seat}'s log of a game (table seed {u.seed}) in which it hears nobody from "
        "the start: it votes out seat 0 and the other joiner, and takes that drop alone at "
        f"step 0 ({_drop_entry(u)} decides the roll with its link only)",
        write(u.items),
        Expect(1, u.reason, u.failure),
    )


@vector
def unplayed_left_out_with_the_writers_own_seat(_game: object) -> Vector:
    u = own_seat()
    return Vector(
        "unplayed_left_out_with_the_writers_own_seat",
        "§5.4 seats that never played (protocol 6): a peer never takes such a drop of its own "
        "seat",
        f"seat {u.seat}'s log of a game (table seed {u.seed}) in which the host signs a VOTE "
        "naming both joiners at step 0: the writer takes it, its own seat dropped, though the "
        "table played on with it",
        write(u.items),
        Expect(1, u.reason, u.failure),
    )

