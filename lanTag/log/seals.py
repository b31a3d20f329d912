"""The seals of a log's final state and the acknowledgement of its last move (SPEC §9).

Shared by the ways verify reads a log (the plain lane, the full replay, and the check
without the rules, lanTag.log.without_rules and lanTag.log.audit): each finds the state its
log ends in, then asks
``check_seals``.  Every SEAL must seal exactly that state (step and state hash): an honest
session logs only the seals it checked against its own final state, so a seal of another
state is evidence against its signer and the log is invalid.  A finished game's last move
must be acknowledged by another seat (a HAVE naming that very message, or a seal of the
final state): a writer that rewrites and re-signs its own last move holds neither, and its
log is not called complete.  Pure: rows in, a verdict out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from lanTag.errors import RemoteProtocolError
from lanTag.log.entries import EntryKind, Row
from lanTag.log.report import Failure
from lanTag.rules.base import Input, Move, canonical_pack
from lanTag.session.features import Features
from lanTag.session.messages import MsgType, Signed, parse_unverified


@dataclass(frozen=True, slots=True)
class SealVerdict:
    sealed_by: tuple[int, ...]  # seats whose seal of the final state the log holds
    unacknowledged: str  # why the last move counts for nobody but its author ("" if it does)
    failure: Failure | None  # a seal of another state (or of a game the log does not end)


def check_seals(
    rows: Sequence[Row],
    checked: Sequence[tuple[Signed, bool] | None],
    protocol: int,
    final: tuple[int, bytes] | None,
    last_input: tuple[int, Input] | None = None,
    live: frozenset[int] = frozenset(),
) -> SealVerdict:
    """``final``: (step, state hash) the log's game ended in, None when it did not end (or,
    without the rules, the last recorded state).  ``last_input``: (step, input) of the step
    that ended it; ``live``: the human seats still playing then (who could acknowledge).
    Call it only on a log the replay found valid: every message parses and is signed."""
    sealed: set[int] = set()
    for index, step, msg in _messages(rows, checked):
        if msg.type is not MsgType.SEAL:
            continue
        if not Features.of(protocol).seals:
            why = f"a SEAL of seat {msg.seat} in a protocol-{protocol} log"
            return SealVerdict((), "", Failure(index, step, msg.seat, why))
        if final is None:
            why = f"seat {msg.seat} sealed step {msg.step}, but the game does not end in this log"
            return SealVerdict((), "", Failure(index, step, msg.seat, why))
        if (msg.step, msg.state_hash) != final:
            why = (
                f"seat {msg.seat}'s seal signs state {msg.state_hash.hex()[:16]} at step "
                f"{msg.step}, not the final state {final[1].hex()[:16]} at step {final[0]}: "
                f"evidence against seat {msg.seat}"
            )
            return SealVerdict((), "", Failure(index, step, msg.seat, why))
        sealed.add(msg.seat)
    unacked = ""
    if final is not None and last_input is not None:
        unacked = _unacknowledged(rows, checked, last_input, live, sealed)
    return SealVerdict(tuple(sorted(sealed)), unacked, None)


def _messages(
    rows: Sequence[Row], checked: Sequence[tuple[Signed, bool] | None]
) -> Iterator[tuple[int, int, Signed]]:
    """(index, step, message) of every MSG entry; one ``checked`` lacks is parsed here (a
    replay that verified each message on receipt passes no pre-parsed ones)."""
    for index, step, _prev, kind, data, _raw in rows:
        if kind != EntryKind.MSG:
            continue
        got = checked[index]
        if got is not None:
            yield index, step, got[0]
        elif type(data) is bytes:
            with contextlib.suppress(RemoteProtocolError):  # the replay said why, before
                yield index, step, parse_unverified(data)


def _unacknowledged(
    rows: Sequence[Row],
    checked: Sequence[tuple[Signed, bool] | None],
    last_input: tuple[int, Input],
    live: frozenset[int],
    sealed: set[int],
) -> str:
    """Why the final move is nobody's word but its author's, or "".

    Only a person's MOVE can be rewritten by the one who signed it: a roll's links and a
    secret choice's commitment are bound by what the others acknowledged before, a bot's
    move is computed.  A MOVE is acknowledged by another seat's HAVE naming its digest, or
    by another seat's seal of the final state (which agrees with every step before it)."""
    step, inp = last_input
    if type(inp) is not Move or inp.seat not in live or not (live - {inp.seat}):
        return ""  # nobody else was at the table to acknowledge it: nothing to ask
    author = inp.seat
    if sealed - {author}:
        return ""
    value = canonical_pack(inp.action.to_msgpack())
    digests = set()
    haves: list[Signed] = []
    for _index, _step, msg in _messages(rows, checked):
        if msg.step != step:
            continue
        if msg.type is MsgType.MOVE and msg.seat == author:
            if canonical_pack(msg.payload[0]) == value:
                digests.add(msg.digest)
        elif msg.type is MsgType.HAVE and msg.seat != author and msg.payload[0] == author:
            haves.append(msg)
    if any(digests.intersection(h.payload[1]) for h in haves):
        return ""
    return (
        f"the last move (seat {author}, step {step}) is acknowledged or sealed by no other "
        "seat: it is its author's word only"
    )
