"""What a Prototag state is made of: the options (Rules), the turn phases, fixed dice and
actions, and the state's fields (PrototagFields).

No rule is applied here: the engine's ``PrototagState`` (engine.py) adds the rules to these
fields; ``position`` reads and writes them without importing the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from lanTag.games.prototag.board import STEP_DELTAS, Tile
from lanTag.rules.base import Action, Chance, Die, Fact, State

# Phases: who acts next is a pure function of the phase (see PrototagState.decision).
START = "start"  # contenders throw a D6 each; highest starts, ties re-roll
PICK = "pick"  # a Chance Pick of the first tagged seat (first_tagged=random)
ROLL = "roll"  # the mover's move roll: tagged_die if tagged, else other_die
MOVE = "move"  # the mover takes one step per action
RPS = "rps"  # tagged mover vs the player on the tile it reached
OVER = "over"
PHASES = (START, PICK, ROLL, MOVE, RPS, OVER)

START_DIE = Die(faces=(1, 2, 3, 4, 5, 6))
RPS_BEATS: dict[str, str] = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
RPS_ACTIONS: tuple[Action, ...] = tuple(Action("rps", (choice,)) for choice in RPS_BEATS)
FIRST_TAGGED_CHOICES = ("starter", "random")
# Shared (frozen) values, as building an Action runs its regex checks.
STEP_ACTIONS: dict[str, Action] = {d: Action("step", (d,)) for d in STEP_DELTAS}


@cache  # a pure function of two small ints: one shared frozen decision per seat and die
def roll_chance(mover: int, faces: int) -> Chance:
    """The decision of a ROLL phase: ``mover`` throws a die of ``faces`` faces."""
    return Chance((Die(tuple(range(1, faces + 1))),), f"roll/{mover}/d{faces}")


def start_chance(contenders: tuple[int, ...]) -> Chance:
    """The decision of the START phase: every contender throws a D6."""
    return Chance(
        tuple(START_DIE for _ in contenders), "start-roll/" + ".".join(map(str, contenders))
    )


@dataclass(frozen=True, slots=True)
class Rules:
    """The validated game options, kept in every state."""

    board_size: int = 7
    end_steps: int = 40
    immunity_steps: int = 5
    tagged_die: int = 6
    other_die: int = 4
    first_tagged: str = "starter"

    @classmethod
    def from_options(cls, values: Mapping[str, int | bool | str]) -> Rules:
        def number(name: str) -> int:
            value = values[name]
            assert isinstance(value, int)  # validate_options checked the type
            return value

        first = values["first_tagged"]
        assert isinstance(first, str)
        return cls(
            board_size=number("board_size"),
            end_steps=number("end_steps"),
            immunity_steps=number("immunity_steps"),
            tagged_die=number("tagged_die"),
            other_die=number("other_die"),
            first_tagged=first,
        )

    def to_obj(self) -> list[int | str]:
        return [
            self.board_size,
            self.end_steps,
            self.immunity_steps,
            self.tagged_die,
            self.other_die,
            self.first_tagged,
        ]


@dataclass(frozen=True, slots=True)
class PrototagFields(State):
    """A Prototag position's fields (the rules over them: engine.PrototagState).  ``-1``
    stands for "no seat" in the seat-valued fields."""

    rules: Rules
    seats: int
    phase: str
    positions: tuple[Tile, ...]  # by seat
    tagged: int = -1
    mover: int = -1  # whose turn it is (the start-roll winner from PICK on)
    contenders: tuple[int, ...] = ()  # seats still in the start roll
    start_rolls: tuple[tuple[int, int], ...] = ()  # (seat, value) of the latest start roll
    roll: int = 0  # this turn's move roll (MOVE and RPS only)
    path: tuple[Tile, ...] = ()  # tiles visited this turn, start first (MOVE and RPS only)
    tagged_steps: int = 0  # steps moved by tagged players so far
    immune: int = -1  # the seat the tagged player may not attack yet
    immunity_left: int = 0  # tagged steps during which the immune seat's tile stays blocked
    opponent: int = -1  # the tagged player's battle opponent (RPS only)
    rps_draws: int = 0  # drawn rounds of the current battle
    # What the last input did, as facts (code, then ints/codes); games/prototag/view.py words them.
    events: tuple[Fact, ...] = ()

    # ------------------------------------------------------------------ queries

    def die_faces(self, seat: int) -> int:
        return self.rules.tagged_die if seat == self.tagged else self.rules.other_die

    @property
    def steps_left(self) -> int:
        return self.roll - (len(self.path) - 1) if self.phase == MOVE else 0

    def occupants(self, tile: Tile, excluding: int = -1) -> tuple[int, ...]:
        return tuple(s for s, at in enumerate(self.positions) if at == tile and s != excluding)
