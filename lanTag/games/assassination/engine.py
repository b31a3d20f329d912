"""TAG: The Assassination Game (Ken Leyhe, piecepack) as a pure lanTag rule engine.

One victim runs out of the Safe House to touch the four bases; every other
player is an assassin who catches the victim by landing on them and so becomes
the next victim.  Rules as implemented, vocabulary and decisions:
docs/rules/assassination.md.

Flow: a Chance picks the first victim; then every turn is a die-roll Chance
followed by the mover's atomic actions ("step n", "leave c4", "reroll", "keep").
The victim moves first and then after each assassin; assassins take turns
round the table to the left (seat + 1), skipping the victim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import groupby
from typing import Any, ClassVar

from lanTag.games.assassination.board import (
    DIRECTIONS,
    MOVE,
    NO_SQUARE,
    NULL,
    OVER,
    PICK,
    ROLL,
    SAFE_HOUSE,
    board_for,
    can_finish,
    move_table,
)
from lanTag.games.assassination.codec import (
    FIELD_NAMES,
    encode,
    field_values,
    state_from_obj,
    state_to_obj,
)
from lanTag.games.assassination.position import position_of, state_of
from lanTag.games.assassination.state import REROLL_MODES, AssassinationFields
from lanTag.rules import awaited
from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
    Die,
    Fact,
    Game,
    IllegalAction,
    Input,
    Move,
    OptionError,
    OptionSpec,
    Outcome,
    Over,
    Pick,
    Roll,
    State,
    Turn,
)

PIECEPACK_DIE = Die(faces=(0, 1, 2, 3, 4, 5))  # null, ace, 2..5
ALL_BASES = 0b1111  # coin bits, one per side in SIDES order
REROLL, KEEP = Action("reroll"), Action("keep")
_SQUARE_NAME = re.compile(r"[a-z][1-9][0-9]*")  # a file letter and a rank: "c4" (Game.reads)


class Assassination(Game):
    id = "assassination"
    display_name = "TAG: The Assassination Game"
    min_seats = 3
    max_seats = 8
    rules_version = 2  # docs/rules/VERSIONS.md: bump with the digest pin
    option_specs = (
        OptionSpec(
            "variation_a",
            False,
            "Variation A: a caught victim keeps their base coins (shorter, easier game)",
        ),
        OptionSpec(
            "null_reroll",
            "every",
            "the victim may re-roll every null it rolls, or only once per turn",
            choices=REROLL_MODES,
        ),
        OptionSpec(
            "max_rounds",
            10,
            "end after this many rounds (a round: each assassin moves once, each answered by "
            "the victim), ranked by catches then bases touched; 0 = no limit, as in the text",
            min=0,
            max=10_000,
        ),
    )
    summary = (
        "3-8 players on a piecepack board: the victim runs from the Safe House to touch all "
        "four bases; assassins who land on the victim score a catch and become the victim."
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> AssassinationState:
        cls.check_seats(seats)
        opts = cls.validate_options(options)
        if map_text is not None:
            raise OptionError(f"{cls.display_name} has a fixed board and takes no map")
        return AssassinationState(
            seats=seats,
            variation_a=bool(opts["variation_a"]),
            null_reroll=str(opts["null_reroll"]),
            max_rounds=int(opts["max_rounds"]),
            phase=PICK,
            victim=-1,
            mover=-1,
            positions=(),
            coins=(0,) * seats,
            catches=(0,) * seats,
        )

    @classmethod
    def reads(cls, action: Action) -> bool:
        """``reroll``, ``keep``, ``step`` a direction, ``leave`` for a square's name."""
        if action in (REROLL, KEEP):
            return True
        if len(action.args) != 1 or not isinstance(word := action.args[0], str):
            return False
        if action.verb == "step":
            return word in DIRECTIONS
        return action.verb == "leave" and _SQUARE_NAME.fullmatch(word) is not None

    @classmethod
    def state_from_obj(cls, obj: Any) -> AssassinationState:
        return state_from_obj(obj, AssassinationState)

    @classmethod
    def position(cls, state: State) -> dict[str, Any]:
        return position_of(state)

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> AssassinationState:
        return state_of(cls, position, AssassinationState)

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        # Default options: at most max_rounds * (seats - 1) assassin turns (a roll and up to 5
        # steps) and one victim turn more (a roll, up to 5 steps, plus 2 inputs per re-rolled
        # null).  Re-rolls are unbounded in principle under "every"; allowing one per victim
        # turn is twelve times what uniform random play averages (1/6 null * 1/2 re-roll).
        rounds = next(int(spec.default) for spec in cls.option_specs if spec.name == "max_rounds")
        assassin_turns = rounds * (seats - 1)
        return 1 + 6 * assassin_turns + 8 * (assassin_turns + 1)


class AssassinationState(AssassinationFields):
    """An Assassination position: its fields (state.py) and the rules over them."""

    __slots__ = ()
    game: ClassVar[type[Game]] = Assassination

    # ------------------------------------------------------------------ rules

    def decision(self) -> Decision:
        phase = self.phase
        if phase in (MOVE, NULL):  # the frequent phases first
            return Turn(self.mover)
        if phase == ROLL:
            return _roll_chance(self.mover, self.role(self.mover))
        if phase == PICK:
            return Chance((Pick(self.seats),), purpose="first-victim")
        if phase == OVER:
            return Over(self.outcome())
        return Turn(self.mover)

    def awaited(self) -> Awaited:
        """A turn starts with the mover's roll; a null die's re-roll stays in that turn."""
        phase, mover = self.phase, self.mover
        if phase == ROLL:
            chance = _roll_chance(mover, self.role(mover))
            return Awaited(
                awaited.ROLL,
                (mover,),
                chance.purpose,
                chance.draws,
                reroll=self.rerolls > 0,
                turn_of=mover,
                turn_starts=self.rerolls == 0,
            )
        if phase in (MOVE, NULL):
            choice = "reroll-or-keep" if phase == NULL else awaited.MOVE
            return Awaited(awaited.MOVE, (mover,), choice, turn_of=mover)
        return awaited.awaited_from(self.decision())  # the first victim's pick, the end

    # -- a withheld own roll (SPEC §5.5; docs/rules/assassination.md "Withheld rolls") ---------

    def roll_owners(self) -> tuple[int, ...]:
        """The mover's die is its own; the first victim's pick is nobody's."""
        return (self.mover,) if self.phase == ROLL else ()

    def withheld_roll(self, seats: tuple[int, ...]) -> Roll:
        """An assassin's null (it does not move); the victim's ace: a null would give it
        the choice to re-roll (a roll drawn without it, the withheld option again)."""
        if self.phase == ROLL and self.mover == self.victim:
            return Roll(((1,),))
        return State.withheld_roll(self, seats)  # (slots: no bare super())

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if seat != self.mover or self.phase not in (NULL, MOVE):
            return ()
        if self.phase == NULL:
            return (REROLL, KEEP)
        return tuple(self._legal_moves())

    def _limits(self) -> tuple[frozenset[int], frozenset[int]]:
        """(squares the mover may not enter, squares the mover may not end on)."""
        if self.mover == self.victim:  # "You may not pass over an assassin."
            positions, victim = self.positions, self.victim
            return frozenset(positions[:victim] + positions[victim + 1 :]), frozenset()
        return frozenset(), _base_set(self.seats)  # "You may not land on a base"

    def _steps(self) -> tuple[tuple[Action, int], ...]:
        """Legal next steps with their target squares: only steps that can still finish the move."""
        return tuple(self._legal_moves().items())

    def _legal_moves(self) -> dict[Action, int]:
        """_steps() as a dict in the same order, computed once per state (do not mutate)."""
        moves = self._moves
        if moves is None:
            board, here = self.board, self.positions[self.mover]
            blocked, no_landing = self._limits()
            came_from, remaining = self.came_from, self.steps_left - 1
            moves = {
                action: target
                for target, action in move_table(board)[here]
                if target != came_from
                and target not in blocked
                and can_finish(board, target, here, remaining, blocked, no_landing)
            }
            object.__setattr__(self, "_moves", moves)  # frozen: the memo is set once, here
        return moves

    def check_action(self, seat: int, action: Action) -> None:
        # action in legal_actions(seat), without building that tuple
        if seat == self.mover and (
            (self.phase == MOVE and action in self._legal_moves())
            or (self.phase == NULL and action in (REROLL, KEEP))
        ):
            return
        raise self.refused(action, self._why_illegal(seat, action))

    def _why_illegal(self, seat: int, action: Action) -> str:
        if seat != self.mover or self.phase not in (NULL, MOVE):
            return f"it is not seat {seat}'s turn to act"
        if self.phase == NULL:
            return "you rolled a null: answer 'reroll' or 'keep'"
        board, here = self.board, self.positions[seat]
        legal = ", ".join(str(a) for a in self.legal_actions(seat))
        if here == SAFE_HOUSE and action.verb != "leave":
            return f"you are in the Safe House: step out with 'leave <square>' ({legal})"
        if here != SAFE_HOUSE and action.verb != "step":
            return f"move with 'step n|e|s|w' ({legal})"
        if len(action.args) != 1 or not isinstance(action.args[0], str):
            return f"{action.verb} takes one word ({legal})"
        word = action.args[0]
        if action.verb == "step":
            if word not in DIRECTIONS:
                return "step takes one of n, e, s, w"
            target = board.toward(here, word)
        else:
            target = board.cell_of(word)
            if target is None or target not in board.neighbours(SAFE_HOUSE):
                return f"{word} is not a square next to the Safe House ({legal})"
        if target is None:
            if self.mover == self.victim:
                return "that is off the board or the Safe House, which the victim may not re-enter"
            return "that is off the board or the Safe House, which assassins may not enter"
        blocked, no_landing = self._limits()
        if target == self.came_from:
            return f"you may not backtrack onto {board.name(target)}, the square you just left"
        if target in blocked:
            return f"the victim may not pass over the assassin on {board.name(target)}"
        if self.steps_left == 1 and target in no_landing:
            return f"assassins may not land on a base ({board.name(target)})"
        return (
            f"from {board.name(target)} there is no way to take the remaining "
            f"{self.steps_left - 1} step(s) ({legal})"
        )

    # ------------------------------------------------------------------ transitions

    def _apply(self, inp: Input) -> AssassinationState:
        if self.phase == PICK and isinstance(inp, Roll):
            return self._setup(inp.values[0][0])
        if self.phase == ROLL and isinstance(inp, Roll):
            return self._rolled(inp.values[0][0])
        if isinstance(inp, Move) and self.phase in (NULL, MOVE):
            if inp.action == REROLL:
                return self._but(
                    phase=ROLL,
                    rerolls=self.rerolls + 1,
                    events=(("reroll", self.mover),),
                )
            if inp.action == KEEP:
                return self._end_turn((("keep", self.mover),))
            return self._step(self._legal_moves()[inp.action])
        raise IllegalAction(f"{inp} does not answer {self.decision()}")

    def _setup(self, victim: int) -> AssassinationState:
        """The roll-off's victim starts in the Safe House; assassins take the start squares
        in seat order to the victim's left."""
        starts = self.board.starts
        positions = tuple(
            SAFE_HOUSE if seat == victim else starts[(seat - victim) % self.seats - 1]
            for seat in range(self.seats)
        )
        return self._but(
            phase=ROLL,
            victim=victim,
            mover=victim,
            last_assassin=victim,
            positions=positions,
            events=(("first-victim", victim),),
        )

    def _rolled(self, roll: int) -> AssassinationState:
        seat = self.mover
        if roll == 0 and seat != self.victim:
            return self._end_turn((("null-lost", seat),))
        if roll == 0:
            if self.null_reroll == "every" or self.rerolls == 0:
                return self._but(phase=NULL, roll=0, events=(("null", seat),))
            return self._end_turn((("null-again", seat),))
        events: tuple[Fact, ...] = (("rolled", seat, roll),)
        moving = self._but(
            phase=MOVE, roll=roll, steps_left=roll, came_from=NO_SQUARE, events=events
        )
        if not moving._legal_moves():  # (the memo stays with the state returned)
            return self._end_turn((("stuck", seat, roll),))
        return moving

    def _step(self, target: int) -> AssassinationState:
        positions = list(self.positions)
        here, positions[self.mover] = positions[self.mover], target
        events: tuple[Fact, ...] = (("step", self.mover, target),)
        moved = self._but(
            positions=tuple(positions),
            steps_left=self.steps_left - 1,
            came_from=here,
            events=events,
        )
        return moved._land() if moved.steps_left == 0 else moved

    def _but(self, **changes: Any) -> AssassinationState:
        """dataclasses.replace(self, **changes) at a fraction of the cost."""
        values = list(field_values(self))
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return AssassinationState(*values)

    def _land(self) -> AssassinationState:
        seat, square = self.mover, self.positions[self.mover]
        events = self.events
        if seat == self.victim:
            if square not in self.board.bases:
                return self._end_turn(events)
            side = self.board.bases.index(square)
            coins = list(self.coins)
            coins[seat] |= 1 << side
            touched = coins[seat].bit_count()
            events += (("base", seat, side, touched),)
            marked = self._but(coins=tuple(coins), events=events)
            if coins[seat] == ALL_BASES:
                won = (*events, ("wins", seat))
                return marked._but(**_RESET, phase=OVER, mover=-1, winner=seat, events=won)
            return marked._end_turn(events)
        if square != self.positions[self.victim]:
            return self._end_turn(events)
        # "You become the victim and move your pawn to the Safe House"; the old victim's
        # pawn stays on the square where it was caught.
        old = self.victim
        positions, coins, catches = list(self.positions), list(self.coins), list(self.catches)
        positions[seat] = SAFE_HOUSE
        if not self.variation_a:
            coins[old] = 0
        catches[seat] += 1
        events += (("catch", seat, old, square),)
        caught = self._but(
            victim=seat,
            positions=tuple(positions),
            coins=tuple(coins),
            catches=tuple(catches),
        )
        return caught._after_assassin_turn(events)

    def _end_turn(self, events: tuple[Fact, ...]) -> AssassinationState:
        if self.mover != self.victim:
            return self._after_assassin_turn(events)
        limit = self.max_rounds * self.round_turns
        if self.max_rounds and self.assassin_turns >= limit:
            over = ("round-limit", self.max_rounds)
            return self._but(**_RESET, phase=OVER, mover=-1, events=(*events, over))
        after = (self.last_assassin + 1) % self.seats
        if after == self.victim:
            after = (after + 1) % self.seats
        return self._but(**_RESET, phase=ROLL, mover=after, events=events)

    def _after_assassin_turn(self, events: tuple[Fact, ...]) -> AssassinationState:
        """The victim (new, after a catch) moves next."""
        return self._but(
            **_RESET,
            phase=ROLL,
            mover=self.victim,
            last_assassin=self.mover,
            assassin_turns=self.assassin_turns + 1,
            events=events,
        )

    # ------------------------------------------------------------------ results

    def outcome(self) -> Outcome:
        """Winner (all four bases) first; everyone else by catches, then bases touched."""

        def merit(seat: int) -> tuple[int, int]:
            return (self.catches[seat], self.coins[seat].bit_count())

        rest = sorted((s for s in range(self.seats) if s != self.winner), key=merit, reverse=True)
        groups: list[tuple[int, ...]] = [(self.winner,)] if self.winner >= 0 else []
        groups += [tuple(tied) for _, tied in groupby(rest, key=merit)]
        tally = " ".join(f"{s}:{c}" for s, c in enumerate(self.catches))
        if self.winner >= 0:
            head = f"seat {self.winner} touched all four bases and wins"
        else:
            head = f"round limit ({self.max_rounds}) reached with no true winner"
        return Outcome(tuple(groups), f"{head}; catches {tally}", scores=self.catches)

    # ------------------------------------------------------------------ encodings & views

    def encode(self) -> bytes:
        return encode(self)

    def to_obj(self) -> Any:
        return state_to_obj(self)

    def invariants(self) -> list[str]:
        n = self.seats
        if not len(self.coins) == len(self.catches) == n:
            return ["there must be one coin set and one catch count per seat"]
        if self.phase == PICK:
            fresh = (self.victim, self.mover, self.assassin_turns, self.winner) == (-1, -1, 0, -1)
            if self.positions or not fresh or any(self.coins) or any(self.catches):
                return ["nothing happens before the first-victim roll"]
            return []
        if len(self.positions) != n:
            return ["there must be one position per seat"]
        if not 0 <= self.victim < n or not 0 <= self.last_assassin < n:
            return [f"bad victim {self.victim} or last assassin {self.last_assassin}"]
        broken = self._piece_problems()
        if self.mover != -1 if self.phase == OVER else not 0 <= self.mover < n:
            broken.append(f"bad mover {self.mover} in phase {self.phase}")
        if self.phase == NULL and (self.mover != self.victim or self.roll != 0):
            broken.append("only the victim answers a null")
        moving = self.phase == MOVE and 0 <= self.mover < n
        if moving and not (1 <= self.steps_left <= self.roll <= 5 and self._steps()):
            broken.append("a move in progress must be finishable within the roll")
        if self.phase != MOVE and (self.steps_left or self.came_from != NO_SQUARE):
            broken.append("steps are only pending during a move")
        if self.phase in (ROLL, OVER) and self.roll != 0:
            broken.append("no die is showing between turns")
        if any(not 0 <= c <= ALL_BASES for c in self.coins):
            broken.append("coins are a set of the four bases")
        if not self.variation_a and any(c for s, c in enumerate(self.coins) if s != self.victim):
            broken.append("a caught victim kept coins without variation A")
        won = self.winner >= 0
        if won != (self.coins[self.victim] == ALL_BASES) or (won and self.phase != OVER):
            broken.append("the game ends exactly when the victim holds all four coins")
        if won and self.winner != self.victim:
            broken.append("only the victim can win")
        if min(self.catches) < 0 or sum(self.catches) > self.assassin_turns:
            broken.append("each catch takes an assassin turn")
        if self.rerolls < 0 or (self.null_reroll == "once" and self.rerolls > 1):
            broken.append("too many re-rolls this turn")
        limit = self.max_rounds * self.round_turns
        if self.max_rounds < 0 or (self.max_rounds > 0 and self.assassin_turns > limit):
            broken.append("the round limit was overrun")
        return broken

    def _piece_problems(self) -> list[str]:
        board, broken = self.board, []
        victim_square = self.positions[self.victim]
        if victim_square != SAFE_HOUSE and not board.is_square(victim_square):
            broken.append(f"the victim is on no square ({victim_square})")
        for seat, square in enumerate(self.positions):
            if seat == self.victim:
                continue
            # The assassin moving may be passing over a base or the victim right now.
            passing = self.phase == MOVE and seat == self.mover
            if not board.is_square(square):
                broken.append(f"assassin {seat} is off the board or in the Safe House")
            elif square in board.bases and not passing:
                broken.append(f"assassin {seat} rests on a base")
            elif square == victim_square and not passing:
                broken.append(f"assassin {seat} shares the victim's square")
        if self.came_from not in (NO_SQUARE, SAFE_HOUSE) and not board.is_square(self.came_from):
            broken.append(f"bad came_from {self.came_from}")
        return broken


# A new turn starts with no roll, no steps and no re-rolls.
_RESET: dict[str, Any] = {"roll": 0, "steps_left": 0, "came_from": NO_SQUARE, "rerolls": 0}

# Every field in declaration order, which is also to_obj's order.
_FIELD_INDEX = {name: i for i, name in enumerate(FIELD_NAMES)}


@cache  # a pure function of a seat and a role word: one shared (frozen) decision each
def _roll_chance(mover: int, role: str) -> Chance:
    return Chance((PIECEPACK_DIE,), purpose=f"die/{mover}/{role}")


@cache  # a pure function of the seat count (which picks the board)
def _base_set(seats: int) -> frozenset[int]:
    return frozenset(board_for(seats).bases)
