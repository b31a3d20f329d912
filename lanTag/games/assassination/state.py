"""What an Assassination state is made of: its fields, in wire order, and the questions they
answer (the board for the seat count, whose role, which bases a coin stands for).

No rule is applied here: the engine's ``AssassinationState`` (engine.py) adds the rules to
these fields; ``position`` reads and writes them without importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lanTag.games.assassination.board import NO_SQUARE, SIDES, Board, board_for
from lanTag.rules.base import Action, Fact, State

REROLL_MODES = ("every", "once")  # the null_reroll option's values


@dataclass(frozen=True, slots=True)
class AssassinationFields(State):
    """An Assassination position's fields (the rules over them: engine.AssassinationState)."""

    seats: int
    variation_a: bool
    null_reroll: str  # one of REROLL_MODES
    max_rounds: int  # 0: no limit
    phase: str  # PICK: first-victim roll; ROLL: die for mover; NULL: re-roll?; MOVE: stepping
    victim: int  # -1 until the first-victim roll
    mover: int  # whose turn it is; -1 before the first roll and once over
    positions: tuple[int, ...]  # per seat: a square or SAFE_HOUSE; () before the first roll
    coins: tuple[int, ...]  # per seat: bit i set = base SIDES[i] touched as victim
    catches: tuple[int, ...]  # per seat: small victories
    last_assassin: int = -1  # the next assassin is the next non-victim seat after this one
    assassin_turns: int = 0  # finished assassin turns, for max_rounds
    roll: int = 0  # the die this turn (MOVE, NULL)
    steps_left: int = 0  # MOVE: steps still to take
    came_from: int = NO_SQUARE  # MOVE: the square just left (no backtracking onto it)
    rerolls: int = 0  # nulls the victim re-rolled this turn
    winner: int = -1  # the victim who touched all four bases
    # What the last input did, as facts (code, then ints); games/assassination/view.py words them.
    events: tuple[Fact, ...] = ()
    # Memo of _legal_moves(), a pure function of the fields above: not part of the value.
    _moves: dict[Action, int] | None = field(default=None, init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ queries

    @property
    def board(self) -> Board:
        return board_for(self.seats)

    @property
    def round_turns(self) -> int:
        """Assassin turns per round: every assassin once."""
        return self.seats - 1

    def role(self, seat: int) -> str:
        return "victim" if seat == self.victim else "assassin"

    def coin_sides(self, seat: int) -> list[str]:
        """The sides whose base ``seat`` has a coin for."""
        return [side for i, side in enumerate(SIDES) if self.coins[seat] >> i & 1]

    def round_number(self) -> int:
        """The current round, 1-based (capped at max_rounds once the limit ends the game)."""
        return min(self.assassin_turns // self.round_turns + 1, self.max_rounds or 10**9)
