"""Tag 'em's small values: constants, flags, declared attacks and their modifiers, names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lanTag.games.tagem.board import DIRS, GameMap, Tile
from lanTag.rules.base import Action, Die

MODES = ("elimination", "ctf", "ctcf")
LETTERS = "ABCDEFGH"
MAX_PAWNS = 9
DEFAULT_MAX_TURNS = 10
TWO_D6 = Die(faces=(1, 2, 3, 4, 5, 6), count=2)  # attacker's die, then defender's
END = Action("end")
MOVE_ACTIONS = tuple(tuple(Action("move", (p, d)) for d in DIRS) for p in range(MAX_PAWNS))
ATTACK_ACTIONS = tuple(tuple(Action("attack", (p, d)) for d in DIRS) for p in range(MAX_PAWNS))


@dataclass(frozen=True, slots=True)
class Flag:
    """A flag: loose on ``cell``, carried by a pawn, or (Capture-Their-Flag) captured."""

    owner: int  # the seat it belongs to in Capture-Their-Flag; -1 for the one CTF flag
    cell: int = -1  # where it lies loose; -1 while carried or once captured
    carrier: int = -1  # seat of the pawn carrying it, -1 if none
    carrier_pawn: int = -1


@dataclass(frozen=True, slots=True)
class Attack:
    """A declared attack awaiting its roll, with the modifiers read off the board."""

    attacker: int
    attacker_pawn: int
    defender: int
    defender_pawn: int
    attacker_horde: int  # other attacking pawns orthogonally next to the defender
    defender_horde: int  # other defending pawns orthogonally next to the attacker
    attacker_garrison: bool
    defender_garrison: bool
    defender_cover: bool

    def fields(self) -> tuple[int | bool, ...]:
        """The fields in declaration order: a state's canonical ``pending``."""
        return (
            self.attacker,
            self.attacker_pawn,
            self.defender,
            self.defender_pawn,
            self.attacker_horde,
            self.defender_horde,
            self.attacker_garrison,
            self.defender_garrison,
            self.defender_cover,
        )

    @property
    def attacker_bonus(self) -> int:
        return self.attacker_horde + self.attacker_garrison - self.defender_cover

    @property
    def defender_bonus(self) -> int:
        return self.defender_horde + self.defender_garrison


def pawn_name(seat: int, pawn: int) -> str:
    return f"{LETTERS[seat]}{pawn}"


def cell_name(board: GameMap, cell: int) -> str:
    return f"r{cell // board.width}c{cell % board.width}"


def size_up(
    board: GameMap, pawns: Sequence[Sequence[int]], seat: int, pawn: int, foe: int, foe_pawn: int
) -> Attack:
    """The modifiers of ``seat``'s pawn attacking ``foe``'s pawn, as the text lists them."""
    here, there = pawns[seat][pawn], pawns[foe][foe_pawn]
    # the attacker and defender are next to each other, so each horde count drops one
    attacker_horde = sum(1 for c in pawns[seat] if c >= 0 and there in board.steps[c]) - 1
    defender_horde = sum(1 for c in pawns[foe] if c >= 0 and here in board.steps[c]) - 1
    return Attack(
        seat,
        pawn,
        foe,
        foe_pawn,
        attacker_horde,
        defender_horde,
        board.tiles[here] == Tile.GARRISON,
        board.tiles[there] == Tile.GARRISON,
        board.tiles[there] == Tile.COVER,
    )


def flag_name(flag: Flag) -> str:
    return "the flag" if flag.owner < 0 else f"{LETTERS[flag.owner]}'s flag"
