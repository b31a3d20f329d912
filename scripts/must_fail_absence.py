"""Must-fail logs for the hand-back's price (protocol 6, SPEC §5.6): a seat is given back
only after the turn it was dropped in ended, and at most HANDBACK_LIMIT times a game.

Part of scripts/gen_must_fail.py.  Each log is the
writer's (seat 0's) log of a real game of the must-fail table, played on the simulated
network with a table that gives the seat back as protocol 5 did: at the first contribution
after its request, within the turn it was dropped in, or once more than the limit.  The log
is cut right after the first STEP entry its seat's own person decided otherwise than the bot
would have after that admission: a verifier holding protocol 6's rule finds the admission
void, so the seat is still the bot's there, and the recorded input is not the replay's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import lanTag.session.handback as handback
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.peer.machine import BotDriver, PeerMachine
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import parse_unverified
from scripts.must_fail_game import ENGINE, Expect, Item, Vector, vector, write
from tests.support.table import Table

FIRST_SEED = 11
SEEDS_TRIED = 48
GONE = 2  # the peer killed and resumed


@dataclass(frozen=True)
class Admitted:
    """A game whose table gave the seat back against protocol 6's rule."""

    seed: int
    items: list[Item]
    seat: int
    dropped: int  # the step of the drop the admission undid
    carrier: int  # entry index of the contribution carrying the admission
    after: int  # entry index of the first STEP entry the seat's own person decided after it


@contextmanager
def _limit(value: int) -> Iterator[None]:
    """The table gives a seat back up to ``value`` times a game."""
    old = handback.HANDBACK_LIMIT
    handback.HANDBACK_LIMIT = value
    try:
        yield
    finally:
        handback.HANDBACK_LIMIT = old


@contextmanager
def _returns_at_once() -> Iterator[None]:
    """The table gives a seat back within the turn it was dropped in (protocol 5's rule), and
    its people wait for the dropped friend: while a seat is dropped and no REJOIN of it is
    in, their bots do not move (so the next MOVE carries it, before the turn ends)."""
    real, act = handback.Handback.may_return, BotDriver.act

    def may_return(
        self: handback.Handback, seat: int, dropped: int, step: int, turn_starts: object
    ) -> bool:
        return self.times(seat) < handback.HANDBACK_LIMIT

    def wait_for_friend(
        self: BotDriver, session: Session, random_bytes: Callable[[int], bytes], now: float
    ) -> None:
        humans = {i for i, s in enumerate(session.record.seats) if not s.is_bot}
        if humans - session.live and not session.handback.rejoins:
            return
        act(self, session, random_bytes, now)

    handback.Handback.may_return = may_return  # type: ignore[method-assign]
    BotDriver.act = wait_for_friend  # type: ignore[method-assign]
    try:
        yield
    finally:
        handback.Handback.may_return = real  # type: ignore[method-assign]
        BotDriver.act = act  # type: ignore[method-assign]


def _drops(peer: PeerMachine) -> int:
    return sum(1 for e in peer.events if isinstance(e, ev.SeatsDropped))


def _game(seed: int, kills: int) -> tuple[Table, Session]:
    """Seat GONE's peer is killed at step 4, dropped, resumed and given back; ``kills`` - 1
    more times once it played again.  The writer's session at the end."""
    table = Table(ENGINE, 3, bots=("random",), seed=seed)
    table.start()
    others = [p for p in range(3) if p != GONE]
    at = 4
    for kill in range(kills):
        victim = table.peers[GONE].session
        assert victim is not None

        def reached(v: Session = victim, k: int = at) -> bool:
            return v.step >= k

        def dropped(n: int = kill) -> bool:
            return all(_drops(table.peers[p]) > n for p in others)

        table.net.run_until(reached, table.net.now + 3600)
        table.kill(GONE)
        table.net.run_until(dropped, table.net.now + 3600)
        back = table.resume(GONE, epoch=999 + kill)

        def given_back(b: PeerMachine = back) -> bool:
            return bool(b.session and b.session.state.is_over) or any(
                isinstance(e, ev.SeatsBack) for e in b.events
            )

        table.net.run_until(given_back, table.net.now + 3600)
        session = back.session
        assert session is not None
        at = session.step + 6
    table.run_to_end()
    writer = table.sessions([table.peer_of_seat(0)])[0]
    return table, writer


def _admitted(table: Table, writer: Session, which: int) -> Admitted:
    """The ``which``-th admission (0: the first) of the writer's log."""
    seat = table.seat_of(GONE)
    assert seat is not None
    steps = writer.handback.admitted.get(seat, [])
    if len(steps) <= which:
        raise LookupError("the seat was not given back that often")
    step = steps[which]
    dropped = writer._dropped_at(seat, step)
    assert dropped is not None
    log = bytes(table.logs[table.peer_of_seat(0)])
    items: list[Item] = [(e.step, e.kind, e.data) for e in parse_log(log).entries]
    carriers = [
        k
        for k, (s, kind, data) in enumerate(items)
        if kind == EntryKind.MSG and s == step and parse_unverified(data).admission is not None
    ]
    if not carriers:
        raise LookupError("no carrier of that admission in the writer's log")
    # Where a verifier holding protocol 6's rule first decides otherwise than the writer (a
    # step the seat's person decided: its move, its link in a roll; the bot's may agree).
    failure = verify_log(write(items)).failure
    if failure is None or failure.entry <= carriers[0]:
        raise LookupError("the seat's own play never differs from the bot's")
    return Admitted(table.seed, items, seat, dropped, carriers[0], failure.entry)


def _first(find: Callable[[int], Admitted]) -> Admitted:
    for seed in range(FIRST_SEED, FIRST_SEED + SEEDS_TRIED):
        try:
            return find(seed)
        except LookupError:
            continue
    raise RuntimeError(f"no game of seeds {FIRST_SEED}+{SEEDS_TRIED} fits")


@functools.cache
def early_game() -> Admitted:
    """The first game whose table gave the seat back before its drop's turn ended."""

    def find(seed: int) -> Admitted:
        with _returns_at_once():
            table, writer = _game(seed, kills=1)
        got = _admitted(table, writer, 0)
        step = writer.handback.admitted[got.seat][0]
        states = [writer.history[k].state for k in range(got.dropped + 1, step + 1)]
        if any(state.awaited().turn_starts for state in states):
            raise LookupError("given back after the turn anyway")
        return got

    return _first(find)


@functools.cache
def second_game() -> Admitted:
    """The first game whose table gave the seat back once more than the limit (each time
    after the drop's turn)."""

    def find(seed: int) -> Admitted:
        with _limit(handback.HANDBACK_LIMIT + 1):
            table, writer = _game(seed, kills=handback.HANDBACK_LIMIT + 1)
        return _admitted(table, writer, handback.HANDBACK_LIMIT)

    return _first(find)


def _times() -> str:
    n = handback.HANDBACK_LIMIT
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _vector(name: str, rule: str, got: Admitted, what: str) -> Vector:
    step = got.items[got.after][0]
    carrier = parse_unverified(got.items[got.carrier][2])
    return Vector(
        name,
        rule,
        f"the writer's log of another game of the same table (seed {got.seed}), in which seat "
        f"{got.seat} was killed, dropped at step {got.dropped} and {what}: entry {got.carrier}, "
        f"seat {carrier.seat}'s {carrier.type.name} of step {carrier.step}, carries its "
        f"REJOIN; the log ends with STEP entry {got.after}, step {step}, the first that the "
        "seat's own person decided otherwise than the bot would have",
        write(got.items[: got.after + 1]),
        Expect(1, "step", got.after, step),
    )


@vector
def admission_within_the_drop_turn(_game: object) -> Vector:
    return _vector(
        "admission_within_the_drop_turn",
        "§5.6 hand-back (protocol 6): a seat is given back only after the turn it was "
        "dropped in ended",
        early_game(),
        "given back by its table before that turn ended",
    )


@vector
def admission_beyond_the_limit(_game: object) -> Vector:
    return _vector(
        "admission_beyond_the_limit",
        f"§5.6 hand-back (protocol 6): a seat is given back at most {_times()} a game",
        second_game(),
        f"given back once more by its table, though it had been given back {_times()}",
    )
