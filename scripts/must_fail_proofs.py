"""Must-fail log of two equivocation proofs of one seat (protocol 6, SPEC §5.7).

Part of scripts/gen_must_fail.py.  A conviction is a
function of the set of proofs: a seat proven to have signed two different MOVEs at each of two
steps is dropped at the earlier one, whatever order the proofs came in.  This log's writer
learnt the later proof first and kept its conviction there, as protocol 5 did.  Such a log
cannot be made by editing the honest game: the writer must go on from the later step with
the others' messages of that history.  So it is the real log of another game of the same
table, played here on the simulated network with every peer deciding by protocol 5's
first-proof rule (the rule patched for that run only), deterministically.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lanTag.identity import Signer
from lanTag.log.entries import EntryKind, parse_log
from lanTag.session.features import FIRST_PROTOCOL
from lanTag.session.lockstep import Session
from lanTag.session.messages import MsgType, Signed, parse_unverified, sign_message
from scripts.must_fail_game import ENGINE, Expect, Item, Vector, vector, write
from tests.support.table import Table, identity_for

FIRST_SEED = 7  # the first table seed from here whose game has what the vector needs
SEEDS_TRIED = 32
CHEAT = 1  # the seat that signs two MOVEs at each of two of its steps


@dataclass(frozen=True)
class TwoProofs:
    seed: int  # the table's
    items: list[Item]  # the writer's (seat 0's) log
    early: int  # the steps of the two turns
    late: int
    second: int  # entry index of the earlier step's second MOVE (the proof the writer let be)


@contextmanager
def first_proof_rule(sessions: list[Session]) -> Iterator[None]:
    """``sessions`` decide as protocol 5 did: the first proof each learnt fixes a
    conviction's step (their ``Features.ordered_proofs`` off, for this run only)."""
    saved = [s.features for s in sessions]
    for s in sessions:
        s.features = dataclasses.replace(s.features, ordered_proofs=False)
    try:
        yield
    finally:
        for s, features in zip(sessions, saved, strict=True):
            s.features = features


@functools.cache
def two_proofs_game() -> TwoProofs:
    for seed in range(FIRST_SEED, FIRST_SEED + SEEDS_TRIED):
        try:
            return _two_proofs_game(seed)
        except LookupError:
            continue
    raise RuntimeError(f"no two-proofs game of seeds {FIRST_SEED}+{SEEDS_TRIED} fits")


def _items(table: Table, peer: int) -> list[Item]:
    return [(e.step, e.kind, e.data) for e in parse_log(bytes(table.logs[peer])).entries]


def _turns(items: list[Item], seat: int) -> list[Signed]:
    """The first MOVE of ``seat`` at each of its first two MOVE steps in the log ``items``."""
    firsts: dict[int, Signed] = {}
    for _s, kind, data in items:
        if kind == EntryKind.MSG:
            m = parse_unverified(data)
            if m.type is MsgType.MOVE and m.seat == seat:
                firsts.setdefault(m.step, m)
    return [firsts[k] for k in sorted(firsts)[:2]]


def _two_proofs_game(seed: int) -> TwoProofs:
    table = Table(ENGINE, 3, bots=("random",), seed=seed)
    table.start()
    writer, cheat = table.peer_of_seat(0), table.peer_of_seat(CHEAT)
    honest = [writer, table.peer_of_seat(2)]
    sessions = table.sessions()

    def past_two_turns() -> bool:  # at both honest peers: each holds both MOVEs played
        turns = _turns(_items(table, writer), CHEAT)
        return len(turns) == 2 and all(sessions[p].step > turns[1].step for p in honest)

    table.net.run_until(past_two_turns, table.net.now + 3600)
    if sessions[writer].state.is_over:
        raise LookupError("the game ended at seat 1's second turn")
    played = _turns(_items(table, writer), CHEAT)
    early, late = played[0].step, played[1].step
    table.kill(cheat)  # its process is gone: only the proofs speak for it now
    signer = identity_for(seed, cheat).signer()
    proofs = {m.step: _second_move(sessions[writer], signer, m) for m in played}
    with first_proof_rule([sessions[p] for p in honest]):
        for p in honest:  # each learns the later proof first, as the writer does
            for step in (late, early):
                sessions[p].receive_message(proofs[step].raw, table.net.now)
            table.peers[p].poke(table.net.now)
        table.run_to_end(honest)
    items = _items(table, writer)
    second = next(
        k
        for k, (_s, kind, data) in enumerate(items)
        if kind == EntryKind.MSG and data == proofs[early].raw
    )
    return TwoProofs(seed, items, early, late, second)


def _second_move(session: Session, signer: Signer, played: Signed) -> Signed:
    """Another legal MOVE of seat CHEAT for the step of ``played``, validly signed."""
    state = session.state_at(played.step)
    if state is None:
        raise LookupError("no state at that step")
    other = next((a for a in state.legal_actions(CHEAT) if a != played.action), None)
    if other is None:
        raise LookupError("seat 1 had one legal move at that turn")
    return sign_message(
        signer,
        MsgType.MOVE,
        played.game_id,
        played.step,
        CHEAT,
        played.state_hash,
        (other.to_msgpack(),),
        version=played.version,
    )


@vector
def two_equivocation_proofs(_game: object) -> Vector:
    tp = two_proofs_game()
    after = next(k for k in range(tp.second + 1, len(tp.items)) if tp.items[k][1] == EntryKind.STEP)
    step = tp.items[after][0]
    return Vector(
        "two_equivocation_proofs",
        f"§5.7 several proofs (protocol {FIRST_PROTOCOL['ordered_proofs']}): a seat proven to have "
        "equivocated at two steps is dropped at the earlier one, whatever order the proofs "
        "came in",
        f"from another game of the same table, in which seat {CHEAT} signed two different "
        f"MOVEs at step {tp.early} and two at step {tp.late}: the writer learnt "
        f"the later proof first, dropped the seat at step {tp.late} and kept that when the "
        f"earlier proof came (entry {tp.second}), as protocol 5 did; its STEP entry {after} "
        f"(step {step}) goes on from there",
        write(tp.items),
        Expect(1, f"step record for step {step}", after, step, (CHEAT, "equivocation")),
    )
