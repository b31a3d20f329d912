"""Must-fail logs that break the hand-back of a dropped seat (protocol 5, SPEC §5.6).

Part of scripts/gen_must_fail.py.  These cheats need a
game in which a seat was dropped and given back, which the honest game every other vector
starts from is not: they start from the log of another real game (the same table, its seat 2
killed at step 4, dropped by the others, resumed from its log and admitted by a live seat's
contribution), played here on the simulated network, deterministically.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from lanTag.identity import Signer
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import Joint, Move, Roll, decode_input
from lanTag.session.messages import MsgType, Signed, parse_unverified, sign_message
from lanTag.session.steps import REQUEST_LIMITS
from scripts.must_fail_game import ENGINE, Expect, Item, Vector, vector, write
from tests.support.no_engines import no_engines
from tests.support.table import Table, identity_for

FIRST_SEED = 11  # the hand-back game: the first table seed from here whose game has what
SEEDS_TRIED = 32  # the cheats need (see ``handback_game``)
GONE = 2  # the peer killed and resumed


@dataclass(frozen=True)
class HandBack:
    """The writer's (seat 0's) log of a game with a hand-back, and what the cheats need."""

    seed: int  # the table's
    items: list[Item]
    signers: dict[int, Signer]
    seat: int  # the seat given back
    carrier: int  # entry index of the contribution that carried its admission
    after: int  # entry index of the first STEP entry the seat's own person decided


@functools.cache
def handback_game() -> HandBack:
    """The first game from FIRST_SEED in which a MOVE carries the admission.  Its log must
    be valid without the rules too (``_handback_game`` raises if not): the seed 11 game's
    seat is dropped at a roll and its link of that roll, sent again after its restart, is
    logged later; the check without a replay follows the drop (lanTag.log.audit).  (Until
    it did, the seeds whose seat was dropped at a roll were skipped here.)"""
    for seed in range(FIRST_SEED, FIRST_SEED + SEEDS_TRIED):
        try:
            return _handback_game(seed)
        except LookupError:
            continue
    raise RuntimeError(f"no hand-back game of seeds {FIRST_SEED}+{SEEDS_TRIED} fits")


def _audit_valid(data: bytes) -> bool:
    with no_engines():  # as a lanTag without the log's rules (gen_must_fail)
        return verify_log(data).failure is None


def _handback_game(seed: int) -> HandBack:
    table = Table(ENGINE, 3, bots=("random",), seed=seed)
    table.start()
    victim = table.peers[GONE].session
    assert victim is not None and victim.seat is not None
    seat = victim.seat
    table.net.run_until(lambda: victim.step >= 4, table.net.now + 3600)
    table.kill(GONE)
    table.dropped_everywhere_but(GONE)
    table.resume(GONE)  # `lantag join --resume`, simulated
    table.run_to_end()
    writer = table.peer_of_seat(0)
    items: list[Item] = [
        (e.step, e.kind, e.data) for e in parse_log(bytes(table.logs[writer])).entries
    ]
    signers = {table.seat_of(p) or 0: identity_for(seed, p).signer() for p in range(3)}
    carrier = next(
        k
        for k, (_s, kind, data) in enumerate(items)
        if kind == EntryKind.MSG and parse_unverified(data).admission is not None
    )
    if parse_unverified(items[carrier][2]).type is not MsgType.MOVE:
        raise LookupError("the admission rode in another contribution than a MOVE")
    if not _audit_valid(bytes(table.logs[writer])):  # a verifier's bug, not a seed's
        raise RuntimeError(f"seed {seed}: the check without the rules refuses an honest log")
    after = _first_step_of(items, carrier, seat)
    return HandBack(seed, items, signers, seat, carrier, after)


def _first_step_of(items: list[Item], carrier: int, seat: int) -> int:
    """The first STEP entry after the carrier's whose input holds the seat's own person's
    share (its move, its link in a roll, its revealed choice): without the admission the
    bot or nobody gives it, so the recorded input is not the replay's."""
    for k in range(carrier + 1, len(items)):
        _step, kind, data = items[k]
        if kind != EntryKind.STEP:
            continue
        inp = decode_input(data[0])
        if isinstance(inp, Move) and inp.seat == seat:
            return k
        if isinstance(inp, Roll | Joint) and _contributed(items, carrier, k, seat):
            return k
    raise LookupError("the seat given back never played again")


def _contributed(items: list[Item], start: int, stop: int, seat: int) -> bool:
    """The seat signed an ENTROPY or REVEAL for the step the STEP entry ``stop`` records."""
    step = items[stop][0]
    return any(
        kind == EntryKind.MSG
        and (m := parse_unverified(data)).seat == seat
        and m.step == step
        and m.type in (MsgType.ENTROPY, MsgType.REVEAL)
        for _s, kind, data in items[start:stop]
    )


def _resign(hb: HandBack, msg: Signed, payload: tuple[object, ...], signer: int) -> bytes:
    return sign_message(
        hb.signers[signer],
        msg.type,
        msg.game_id,
        msg.step,
        msg.seat,
        msg.state_hash,
        payload,
        version=msg.version,
    ).raw


@vector
def admission_not_signed_by_its_seat(_game: object) -> Vector:
    hb = handback_game()
    carrier = parse_unverified(hb.items[hb.carrier][2])
    request = parse_unverified(carrier.admission or b"")
    # The carrier's seat signs a REJOIN in the dropped seat's name, and carries it.
    forged = _resign(hb, request, (), signer=carrier.seat)
    resigned = _resign(hb, carrier, (*carrier.payload[:-1], forged), signer=carrier.seat)
    items = [*hb.items[: hb.carrier], (carrier.step, EntryKind.MSG, resigned)]
    items += hb.items[hb.carrier + 1 : hb.after + 1]
    step = hb.items[hb.after][0]
    return Vector(
        "admission_not_signed_by_its_seat",
        "§5.6 hand-back (protocol 5): an admission counts only with a REJOIN its seat signed",
        f"from another game of the same table, in which seat {hb.seat} was dropped and given "
        f"back: entry {hb.carrier}, seat {carrier.seat}'s MOVE carries a REJOIN for seat "
        f"{hb.seat} that seat {carrier.seat} signed itself; the log goes on as if seat "
        f"{hb.seat} had been given back (its STEP entry {hb.after}, step {step}, is its own)",
        write(items),
        Expect(1, "step", hb.after, step),
    )


@vector
def admission_of_a_convicted_seat(_game: object) -> Vector:
    hb = handback_game()
    carrier = parse_unverified(hb.items[hb.carrier][2])
    # Before the carrier: the dropped seat's NUDGEs for that step, one more than the cap (a
    # flood: a conviction, SPEC §5.3); then the admission is given as in the honest game.
    nudges = []
    for seq in range(1, REQUEST_LIMITS[MsgType.NUDGE] + 2):
        nudge = sign_message(
            hb.signers[hb.seat],
            MsgType.NUDGE,
            carrier.game_id,
            carrier.step,
            hb.seat,
            carrier.state_hash,
            ([0], seq),
            version=carrier.version,
        )
        nudges.append((carrier.step, EntryKind.MSG, nudge.raw))
    items = [*hb.items[: hb.carrier], *nudges, *hb.items[hb.carrier : hb.after + 1]]
    after = hb.after + len(nudges)
    step = hb.items[hb.after][0]
    return Vector(
        "admission_of_a_convicted_seat",
        "§5.6 hand-back (protocol 5): a seat convicted of cheating is never given back",
        f"from another game of the same table, in which seat {hb.seat} was dropped and given "
        f"back: before entry {hb.carrier} (seat {carrier.seat}'s MOVE carrying seat "
        f"{hb.seat}'s REJOIN) seat {hb.seat} floods ({len(nudges)} NUDGEs for one step); "
        f"the log goes on as if seat {hb.seat} had been given back (its STEP entry {after}, "
        f"step {step}, is its own)",
        write(items),
        Expect(1, "step", after, step, (hb.seat, "flood")),
    )


def _drop_step(hb: HandBack) -> int:
    """The step at which the writer's log drops the seat given back (its replay says)."""
    from lanTag.session import events as ev
    from lanTag.session.lobby_record import LobbyRecord
    from lanTag.session.lockstep import Session

    record = LobbyRecord.decode(hb.items[0][2][1])
    session = Session(record, seat=hb.items[0][2][2], replay=True)
    for _step, kind, data in hb.items[1 : hb.carrier]:
        if kind != EntryKind.MSG:
            continue
        session.receive_message(data, 0.0)
        for event in iter(session.next_event, None):
            if isinstance(event, ev.SeatsDropped) and hb.seat in event.seats:
                return event.step
    raise LookupError("the seat given back is never dropped before its admission")


def _state_before(items: list[Item], step: int) -> bytes:
    """The state hash the log records before ``step`` (after the STEP entry of step - 1)."""
    state: bytes = next(
        data[1] for s, kind, data in reversed(items) if kind == EntryKind.STEP and s == step - 1
    )
    return state


@vector
def admission_of_a_stale_rejoin(_game: object) -> Vector:
    hb = handback_game()
    carrier = parse_unverified(hb.items[hb.carrier][2])
    request = parse_unverified(carrier.admission or b"")
    dropped = _drop_step(hb)
    # The seat's own REJOIN, validly signed, but at the step before its drop: it asks to
    # undo a drop that had not happened yet (a copy replayed by the carrier, say).
    stale = sign_message(
        hb.signers[hb.seat],
        MsgType.REJOIN,
        request.game_id,
        dropped - 1,
        hb.seat,
        _state_before(hb.items, dropped - 1),
        (),
        version=request.version,
    ).raw
    resigned = _resign(hb, carrier, (*carrier.payload[:-1], stale), signer=carrier.seat)
    items = [*hb.items[: hb.carrier], (carrier.step, EntryKind.MSG, resigned)]
    items += hb.items[hb.carrier + 1 : hb.after + 1]
    step = hb.items[hb.after][0]
    return Vector(
        "admission_of_a_stale_rejoin",
        "§5.6 hand-back (protocol 5): an admission counts only with a REJOIN signed at or "
        "after the seat's drop",
        f"from another game of the same table, in which seat {hb.seat} was dropped at step "
        f"{dropped} and given back: entry {hb.carrier}, seat {carrier.seat}'s MOVE carries "
        f"seat {hb.seat}'s validly signed REJOIN of step {dropped - 1}, the step before the "
        f"drop; the log goes on as if seat {hb.seat} had been given back (its STEP entry "
        f"{hb.after}, step {step}, is its own)",
        write(items),
        Expect(1, "step", hb.after, step),
    )


@vector
def withheld_roll_drawn_from_the_links(_game: object) -> Vector:
    from lanTag.rules.base import Chance, encode_input
    from lanTag.session import referee
    from lanTag.session.lobby_record import LobbyRecord
    from lanTag.session.lockstep import Session

    hb = handback_game()
    dropped = _drop_step(hb)
    k = next(
        i for i, (s, kind, _d) in enumerate(hb.items) if kind == EntryKind.STEP and s == dropped
    )
    if len(hb.items[k][2]) != 5:
        raise RuntimeError("the hand-back game's seat was not dropped at its own roll")
    record = LobbyRecord.decode(hb.items[0][2][1])
    session = Session(record, seat=hb.items[0][2][2], replay=True)
    for _step, kind, data in hb.items[1:k]:
        if kind == EntryKind.MSG:
            session.receive_message(data, 0.0)
    state = session.state_at(dropped)
    assert state is not None
    decision = state.decision()
    assert isinstance(decision, Chance)
    links: dict[int, bytes] = {}
    for _step, kind, data in hb.items[1:k]:
        msg = parse_unverified(data) if kind == EntryKind.MSG else None
        if (
            msg is not None
            and msg.type is MsgType.ENTROPY
            and (msg.step, msg.state_hash) == (dropped, state.state_hash())
            and msg.seat != hb.seat
        ):
            links.setdefault(msg.seat, msg.payload[0])
    # The writer records the roll drawn from the live seats' links, as protocol 5 did, with
    # the state after it and no withheld seat: not the seat's withheld roll (SPEC §5.5).
    drawn = referee.chance_roll(decision, record.game_id, dropped, links)[0]
    data = [encode_input(drawn), state.apply(drawn).state_hash(), *hb.items[k][2][2:4]]
    items = [*hb.items[:k], (dropped, EntryKind.STEP, data)]
    return Vector(
        "withheld_roll_drawn_from_the_links",
        "§5.5 absence never pays (protocol 6): a roll whose seat is dropped at it is that "
        "seat's withheld roll, recorded with the seat",
        f"from another game of the same table, in which seat {hb.seat} was dropped at its own "
        f"roll, step {dropped}: its STEP entry {k} records the roll drawn from the other "
        f"seats' links ({drawn.values}) and the state after it, as protocol 5 did, without "
        "the withheld seat",
        write(items),
        Expect(1, "recorded seats withholding their own roll", k, dropped),
    )
