"""Every signed message a session took, filed twice: by step (what each step's decision
reads) and by slot (what a second, different message of the same slot proves).

Pure: the session files what it accepted and asks; a rollback reopens the steps it undoes.
"""

from __future__ import annotations

from lanTag.session.messages import Signed
from lanTag.session.steps import StepBox

# (seat, slot): the key of one message a seat may sign once (SPEC §4.4)
SlotKey = tuple[int, tuple[int, int, int, bytes]]
Slots = dict[SlotKey, Signed]


class Inbox:
    """``boxes``: step -> the StepBox of the messages filed for that step; ``slots``: the
    first message taken of each (seat, slot), every logged one (a rollback files them
    again); ``proven``: the slots a second message already proved equivocated (one proof
    each)."""

    __slots__ = ("boxes", "proven", "slots")

    def __init__(self) -> None:
        self.boxes: dict[int, StepBox] = {}
        self.slots: Slots = {}
        self.proven: set[SlotKey] = set()

    def box(self, step: int) -> StepBox:
        """The StepBox of ``step``, made when it has none yet."""
        box = self.boxes.get(step)
        if box is None:
            box = self.boxes[step] = StepBox()
        return box

    def first_proof(self, key: SlotKey) -> bool:
        """A second message of slot ``key`` proves equivocation: True the first time only."""
        if key in self.proven:
            return False
        self.proven.add(key)
        return True

    def reopen_from(self, step: int) -> None:
        """A rollback to ``step``: the boxes from ``step`` on are filed again, in arrival
        order, from every message of those steps we ever logged (the ones refused on the
        abandoned history may be what the new one needs)."""
        for k in [k for k in self.boxes if k >= step]:
            del self.boxes[k]
        for msg in self.slots.values():
            if msg.step >= step:
                self.box(msg.step).pending.append(msg)
