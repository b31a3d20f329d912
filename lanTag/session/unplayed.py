"""Seats that never played (protocol 6, protocol/SPEC.md §5.4): an open table's squat.

A drop needs half of the live seats to remain, so that a peer cut off alone cannot drop
everyone else and split the game.  Two identities that take both free seats of a three-seat
open table and say nothing once it starts would then hold the host for good (issue #38).
So at a roll, the seats of a drop that have not played yet (no input of theirs in a decided
step: being given back is not playing) count for nothing in that half, when the host's seat
and the deciding peer's own seat stay:

- at a roll every live seat owes its link at once, and a live peer sends it without its
  person: a seat silent there from the start is a dead process, cut off, or a squatter (a
  person thinking at a first move or secret round is not left out);
- a peer never takes such a drop of its own seat: it knows it is there;
- only a drop that leaves the host in takes it: the host seated those seats, and could have
  filled its own table with identities of its own anyway.

A host cut off from everyone at the first roll cannot tell that from a squat, and plays on
alone while the others drop it by the ordinary rule.  When it hears them again it finds the
seats it left out voting it out, at that step or a later one (:func:`outvoted`): it turns
the rule off at that roll and decides again from there, as if it had never left them out.

Pure: sets of seats in, sets out; ``lanTag.session.agreement`` holds the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lanTag.session.features import Features
from lanTag.session.steps import StepBox, leaves_half

HOST_SEAT = 0  # the seat of the peer that hosted the lobby and signed its record
_NONE: frozenset[int] = frozenset()


def left_out(
    protocol: int,
    at_roll: bool,
    live: frozenset[int],
    played: frozenset[int],
    seat: int | None,
) -> tuple[frozenset[int], frozenset[int]]:
    """(the live seats a drop may leave out of the half-the-table count, the seats that must
    stay in for that) at a step with ``live`` seats of which ``played`` have played, for the
    peer of ``seat`` (None: a spectator or a spectator's log)."""
    if not Features.of(protocol).unplayed or not at_roll:
        return _NONE, _NONE
    stay = frozenset({HOST_SEAT} if seat is None else {HOST_SEAT, seat})
    return live - played, stay


def outvoted(
    boxes: Mapping[int, StepBox],
    steps: Iterable[int],
    left: frozenset[int],
    stay: frozenset[int],
    live: frozenset[int],
) -> bool:
    """Whether the seats ``left`` out of a drop at some step (of the ``live`` seats there)
    have since voted, every one of them at one of ``steps`` (their latest votes there, in
    ``boxes``), one set that names a seat of ``stay`` and none of them, and leaves half of
    ``live``: they played on without us, and dropped us by the ordinary rule."""
    for step in steps:
        box = boxes.get(step)
        if box is None or not left <= box.votes.keys():
            continue
        named = {frozenset(box.votes[s].payload[0]) for s in left}
        if len(named) != 1:
            continue
        (them,) = named
        if them & stay and not them & left and them <= live and leaves_half(them, live):
            return True
    return False
