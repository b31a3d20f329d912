"""What a Tag 'em state is made of: its fields, in wire order, and the questions they answer
(who is out, whose pawn stands where, a team's formation, the scores).

No rule is applied here: the engine's ``TagemState`` (engine.py) adds the rules to these
fields; ``codec``, ``checks``, ``play`` and ``position`` read and write them without
importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lanTag.games.tagem.board import GameMap
from lanTag.games.tagem.pieces import Attack, Flag
from lanTag.rules.base import Decision, Fact, State


@dataclass(frozen=True, slots=True)
class TagemFields(State):
    """A Tag 'em position's fields (the rules over them: engine.TagemState)."""

    board: GameMap
    mode: str
    pom: int  # PoM at the start of every turn
    pawn_count: int
    max_turns: int  # turns per player; 0 = unlimited
    order: tuple[int, ...]  # turn order; empty until rolled
    turn: int  # index into order of the player acting
    round: int  # 1-based; every seat still in plays once per round
    pom_left: int
    stopped: tuple[int, ...]  # pawns of the acting seat that entered a Garrison this turn
    pawns: tuple[tuple[int, ...], ...]  # pawns[seat][pawn] = cell, -1 = out of play
    flags: tuple[Flag, ...]
    out: tuple[tuple[int, ...], ...]  # eliminated seats, in groups, first out first
    tags: tuple[int, ...]  # opposing pawns each seat has defeated
    pending: Attack | None
    winner: int  # Capture-The-Flag: the seat that brought the flag home, else -1
    # What the last input did, as facts (code, then ints/codes); games/tagem/view.py words them.
    events: tuple[Fact, ...]
    # decision() memo: a pure function of the fields above, asked ~5 times per step.
    # init=False, so replace() and every constructor start it empty.
    _decision: Decision | None = field(default=None, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ queries

    @property
    def seats(self) -> int:
        return len(self.pawns)

    def is_out(self, seat: int) -> bool:
        return any(seat in group for group in self.out)

    def alive(self) -> list[int]:
        return [s for s in range(self.seats) if not self.is_out(s)]

    def holder(self, cell: int) -> int:
        """The seat whose pawn stands on ``cell``, or -1."""
        for seat, team in enumerate(self.pawns):
            if cell in team:
                return seat
        return -1

    def formation(self, seat: int) -> tuple[int, ...]:
        """The seat's X formation: its starting point first, then the diagonals."""
        start = self.board.starts[seat]
        return tuple(self.board.x_cell(start, slot) for slot in range(self.pawn_count))

    def scores(self) -> tuple[int, ...]:
        """Elimination: pawns left; the flag modes: opposing pawns defeated."""
        if self.mode == "elimination":
            return tuple(sum(1 for c in team if c >= 0) for team in self.pawns)
        return self.tags

    def _finished(self) -> bool:
        if self.winner >= 0:
            return True
        if self.mode != "ctf" and self.seats - sum(map(len, self.out)) <= 1:
            return True
        return 0 < self.max_turns < self.round
