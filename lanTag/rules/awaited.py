"""What a game waits for next, as data: :class:`Awaited` (``State.awaited()``).

``State.decision()`` is what the session needs to move on (a Turn, a Simultaneous
choice, a Chance, Over).  ``Awaited`` is the same moment as a person or a test reads it:
which kind of input (a move, a secret choice, a roll), from or for which seats, which
dice, whether a roll throws again a die already thrown this turn, and where a turn
begins.  Engines refine the default that :func:`awaited_from` derives from the decision
alone (docs/ARCHITECTURE.md "Engine API: what a game waits for").  Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from lanTag.rules.base import Chance, Decision, Draw, Over, Simultaneous, Turn

MOVE = "move"  # one seat acts on its turn (a Move)
SECRET = "secret"  # seats choose in secret at once (a Joint): rps, bid, orders
ROLL = "roll"  # public randomness (a Roll)
OVER = "over"  # nothing: the game has ended
KINDS = (MOVE, SECRET, ROLL, OVER)


@dataclass(frozen=True, slots=True)
class Awaited:
    """The input a state waits for.

    ``kind``: one of KINDS.  ``seats``: who gives it (the mover; every secret chooser) or,
    for a roll, whose roll it is (empty: the table's, e.g. a turn order).  ``choice``: a
    fact code naming it: the move kind ("move", "reroll-or-keep"), the secret kind ("rps",
    "bid", "orders") or the roll's purpose.  ``draws``: a roll's dice or picks.
    ``reroll``: the roll throws again what was thrown before (a null die, a tied start).
    ``turn_of``: whose turn the input belongs to (-1: nobody's: set-up, a round everyone
    plays at once, the end).  ``turn_starts``: the input is the first of a turn (or round),
    so a turn ends exactly where the next one starts.
    """

    kind: str
    seats: tuple[int, ...] = ()
    choice: str = ""
    draws: tuple[Draw, ...] = ()
    reroll: bool = False
    turn_of: int = -1
    turn_starts: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"awaited kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.draws and self.kind != ROLL:
            raise ValueError("only a roll has draws")


def awaited_from(decision: Decision) -> Awaited:
    """What the decision alone says: each Turn a turn of its own, each secret choice a
    round, each roll nobody's.  Engines whose turns hold several inputs refine it."""
    if isinstance(decision, Turn):
        return Awaited(MOVE, (decision.seat,), MOVE, turn_of=decision.seat, turn_starts=True)
    if isinstance(decision, Simultaneous):
        return Awaited(SECRET, decision.seats, decision.kind, turn_starts=True)
    if isinstance(decision, Chance):
        return Awaited(ROLL, (), decision.purpose, decision.draws)
    assert isinstance(decision, Over)
    return Awaited(OVER)
