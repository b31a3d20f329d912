"""What a Board Tag state is made of: its fields, in wire order, and the questions they
answer (who owns which die, what is in front of IT, what a die can still pay).

No rule is applied here: the engine's ``BoardTagState`` (engine.py) adds the rules to these
fields.  The helpers that only read a state (``codec``, ``checks``, ``position``) import
this module, not the engine, so no helper imports its engine back.
"""

from __future__ import annotations

from dataclasses import dataclass

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import MIN_SCORE, OFF, Runner
from lanTag.rules.base import Fact, State


@dataclass(frozen=True, slots=True)
class BoardTagFields(State):
    """A Board Tag position's fields (the rules over them: engine.BoardTagState)."""

    seats: int
    max_rounds: int
    run_order: str
    dice: tuple[Runner, ...]
    phase: str
    round: int = 0  # the current turn, counted from 1 when the first Run Phase starts
    it_seat: int = -1
    it_die: int = -1
    it_point: int = bb.CENTRE
    it_facing: str = "n"
    mover: int = -1  # the seat asked to act (every phase but CHOOSE_IT and OVER)
    active_die: int = -1  # the die being placed or moved; -1 until a Run Phase die is picked
    steps: int = 0  # steps the active die has taken this Run Phase (the first is free)
    gained_near_it: bool = False  # the active die already scored for entering next to IT
    finished: tuple[int, ...] = ()  # dice done moving this Run Phase
    jumps: int = 0  # IT jumps this IT Phase (the first is free)
    turns: int = 0  # IT rotations this IT Phase (the first is free)
    passed_by_it: tuple[int, ...] = ()  # dice IT jumped next to this IT Phase, paid at its end
    # What the last input did, as facts (code, then ints/codes); games/boardtag/view.py words them.
    events: tuple[Fact, ...] = ()
    ranking: tuple[tuple[int, ...], ...] = ()
    # How the game ended: ("three-sixes", IT seat that let them stand or -1), ("round-limit",)
    end: Fact = ()

    # ------------------------------------------------------------------ queries

    def totals(self) -> tuple[int, ...]:
        """Pips on each seat's three dice (the IT die included)."""
        return bb.totals(self.dice, self.seats)

    def die_at(self, square: int) -> int | None:
        for i, die in enumerate(self.dice):
            if die.square == square:
                return i
        return None

    def occupied(self) -> frozenset[int]:
        return frozenset(d.square for d in self.dice if d.square != OFF)

    def free_edge_squares(self) -> tuple[int, ...]:
        taken = self.occupied()
        return tuple(sq for sq in bb.EDGE_SQUARES if sq not in taken)

    def can_pay(self, die: int, used: int) -> bool:
        """Whether an action whose free use is taken (``used`` > 0) can be paid from ``die``:
        a die never spends its last point."""
        return used == 0 or self.dice[die].score > MIN_SCORE

    def taggable(self) -> tuple[int, ...]:
        """Squares in front of IT holding another player's die (tagging your own is forbidden)."""
        return tuple(
            sq
            for sq in bb.front_squares(self.it_point, self.it_facing)
            if (i := self.die_at(sq)) is not None and self.dice[i].owner != self.it_seat
        )

    def unmoved_dice(self, seat: int) -> tuple[int, ...]:
        return bb.unmoved(self.dice, self.finished, seat)
