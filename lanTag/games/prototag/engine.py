"""Prototag: turn-based tag on a small square board (rule text v0.2).

The tagged player chases with a D6, everyone else flees with a D4.  A turn is
one move roll (a Chance) and then one ``step n|e|s|w`` action per tile; the
turn ends by itself after the last step, on lock-in (no legal continuation),
or when the tagged player lands on another player, which starts a
rock-paper-scissors battle (a Simultaneous decision, draws replay).  The game
ends when the tagged players' accumulated steps reach ``end_steps``; whoever
is tagged then loses.  docs/rules/prototag.md lists every decision the rule
text left open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any, ClassVar

from lanTag.games.prototag.board import (
    STEP_DELTAS,
    can_enter,
    can_step,
    is_adjacent,
    on_board,
    start_tiles,
)
from lanTag.games.prototag.codec import encode, state_from_obj, state_to_obj
from lanTag.games.prototag.position import position_of, state_of
from lanTag.games.prototag.state import (
    FIRST_TAGGED_CHOICES,
    MOVE,
    OVER,
    PHASES,
    PICK,
    ROLL,
    RPS,
    RPS_ACTIONS,
    RPS_BEATS,
    START,
    STEP_ACTIONS,
    PrototagFields,
    Rules,
    roll_chance,
    start_chance,
)
from lanTag.rules import awaited
from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    FORFEIT,
    Action,
    Chance,
    Decision,
    Fact,
    Game,
    IllegalAction,
    Input,
    Joint,
    Move,
    OptionError,
    OptionSpec,
    Outcome,
    Over,
    Pick,
    Roll,
    Simultaneous,
    State,
    Turn,
)

# Allowance for the unbounded but geometric parts of a game (start-roll ties, RPS draws):
# a streak of 40 RPS draws has probability 3**-40.
_DRAW_ALLOWANCE = 40
# Every action of the game (Game.reads): a step in a direction, a rock-paper-scissors choice.
_ACTIONS = frozenset((*STEP_ACTIONS.values(), *RPS_ACTIONS))


class Prototag(Game):
    id = "prototag"
    display_name = "Prototag"
    min_seats = 2
    max_seats = 8
    rules_version = 2  # docs/rules/VERSIONS.md: bump with the digest pin
    summary = (
        "Turn-based tag on a 7x7 board: the tagged player chases with a D6, the others flee "
        "with a D4, and a tag is settled by rock-paper-scissors."
    )
    option_specs = (
        OptionSpec("board_size", 7, "side of the square board, in tiles", min=3, max=15),
        OptionSpec(
            "end_steps",
            40,
            "the game ends when the steps moved by tagged players add up to this",
            min=1,
            max=1000,
        ),
        OptionSpec(
            "immunity_steps",
            5,
            "a tag's winner is immune until the newly tagged player's Nth step "
            "(0 or 1: no immunity)",
            min=0,
            max=100,
        ),
        OptionSpec("tagged_die", 6, "faces of the tagged player's die", min=1, max=20),
        OptionSpec("other_die", 4, "faces of the other players' die", min=1, max=20),
        OptionSpec(
            "first_tagged",
            "starter",
            "who is tagged at the start: the start-roll winner, or a random seat",
            choices=FIRST_TAGGED_CHOICES,
        ),
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> PrototagState:
        cls.check_seats(seats)
        rules = Rules.from_options(cls.validate_options(options))
        if map_text is not None:
            raise OptionError("prototag has no maps: the board is an empty square (board_size)")
        return PrototagState(
            rules=rules,
            seats=seats,
            phase=START,
            positions=start_tiles(rules.board_size, seats),
            contenders=tuple(range(seats)),
            events=(("start",),),
        )

    @classmethod
    def reads(cls, action: Action) -> bool:
        return action in _ACTIONS

    @classmethod
    def state_from_obj(cls, obj: Any) -> PrototagState:
        return state_from_obj(cls, obj, PrototagState)

    @classmethod
    def position(cls, state: State) -> dict[str, Any]:
        return position_of(state)

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> PrototagState:
        return state_of(cls, position, PrototagState)

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        # Every tagged turn moves at least one tagged step (the tagged player may enter any
        # occupied tile but the immune one's, and every tile has two or more neighbours), so
        # there are at most end_steps tagged turns, each preceded by at most seats-1 other
        # turns; a turn is one roll plus at most max-die steps; each battle ends a tagged turn.
        rules = Rules()
        turns = (rules.end_steps + 1) * seats
        per_turn = 1 + max(rules.tagged_die, rules.other_die)
        battles = rules.end_steps * (1 + _DRAW_ALLOWANCE)
        return turns * per_turn + battles + _DRAW_ALLOWANCE


class PrototagState(PrototagFields):
    """A Prototag position: its fields (state.py) and the rules over them."""

    __slots__ = ()
    game: ClassVar[type[Game]] = Prototag

    # ------------------------------------------------------------------ queries

    def decision(self) -> Decision:
        phase = self.phase  # the frequent phases first
        if phase == MOVE:
            return Turn(self.mover)
        if phase == ROLL:
            return roll_chance(self.mover, self.die_faces(self.mover))
        if phase == START:
            return start_chance(self.contenders)
        if phase == PICK:
            return Chance((Pick(self.seats),), "first-tagged")
        if phase == RPS:
            return Simultaneous((self.tagged, self.opponent), "rps")
        return Over(self.outcome())

    def awaited(self) -> Awaited:
        """A turn is the mover's roll, its steps and any battle they lead to; the start
        rolls are every contender's, thrown again on a tie."""
        phase, mover = self.phase, self.mover
        if phase == ROLL:
            chance = roll_chance(mover, self.die_faces(mover))
            return Awaited(awaited.ROLL, (mover,), chance.purpose, chance.draws, False, mover, True)
        if phase == MOVE:
            return Awaited(awaited.MOVE, (mover,), awaited.MOVE, turn_of=mover)
        if phase == RPS:
            return Awaited(awaited.SECRET, (self.tagged, self.opponent), "rps", turn_of=mover)
        if phase == START:
            chance = start_chance(self.contenders)
            return Awaited(
                awaited.ROLL, self.contenders, chance.purpose, chance.draws, bool(self.start_rolls)
            )
        return awaited.awaited_from(self.decision())  # the random first tagged player, the end

    # -- a withheld own roll (SPEC §5.5; docs/rules/prototag.md "Withheld rolls") ---------------

    def roll_owners(self) -> tuple[int, ...]:
        """The mover's move roll is its own; who starts tagged (the start throw with
        first_tagged=starter, the pick with random) is every contender's."""
        phase = self.phase
        if phase == ROLL:
            return (self.mover,)
        if phase == START and self.rules.first_tagged == "starter":
            return self.contenders
        if phase == PICK:
            return tuple(range(self.seats))
        return ()  # the start throw with first_tagged=random only picks who moves first

    def withheld_roll(self, seats: tuple[int, ...]) -> Roll:
        """A move roll of 1; at the start, the withholders start tagged: their start dice
        on 6 and everyone else's on 1 (several withholders tie and throw again), the pick
        on the lowest of them."""
        if self.phase == START:
            return Roll(tuple((6,) if s in seats else (1,) for s in self.contenders))
        if self.phase == PICK:
            return Roll(((min(seats),),))
        return State.withheld_roll(self, seats)  # (slots: no bare super())

    def outcome(self) -> Outcome:
        loser = self.tagged
        survivors = tuple(seat for seat in range(self.seats) if seat != loser)
        return Outcome(
            ranking=(survivors, (loser,)),
            summary=f"seat {loser} is tagged when the tagged steps reach "
            f"{self.rules.end_steps}: seat {loser} loses",
        )

    def blocked_reason(self, direction: str) -> str | None:
        """Why the mover may not step ``direction`` now, or None if it may."""
        row, col = self.positions[self.mover]
        d_row, d_col = STEP_DELTAS[direction]
        target = (row + d_row, col + d_col)
        if not on_board(target, self.rules.board_size):
            return "that is off the board"
        if target == self.path[0]:
            return "you cannot come back to the tile you started from"
        if target in self.path:
            return "that tile was already visited this turn"
        others = self.occupants(target, excluding=self.mover)
        if not others:
            return None
        if self.mover != self.tagged:
            return f"players cannot move through each other (seat {others[0]} is there)"
        if self.immune in others:
            return f"seat {self.immune} is immune from you for {self.immunity_left} more step(s)"
        return None

    def _may_step(self, direction: str) -> bool:
        """``blocked_reason(direction) is None``, without building the reason."""
        row, col = self.positions[self.mover]
        d_row, d_col = STEP_DELTAS[direction]
        target, chaser = (row + d_row, col + d_col), self.mover == self.tagged
        return can_enter(
            target, self.rules.board_size, self.path, self.positions, chaser, self.immune
        )

    def legal_steps(self) -> tuple[str, ...]:
        return tuple(d for d in STEP_DELTAS if self._may_step(d))

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if self.phase == MOVE and seat == self.mover:
            return tuple(STEP_ACTIONS[d] for d in self.legal_steps())
        if self.phase == RPS and seat in (self.tagged, self.opponent):
            return RPS_ACTIONS
        return ()

    def check_action(self, seat: int, action: Action) -> None:
        if self.phase == MOVE and seat == self.mover:
            if action.verb != "step" or len(action.args) != 1 or action.args[0] not in STEP_DELTAS:
                why = f"seat {seat} must move: 'step n', 'step e', 's' or 'w'"
                raise self.refused(action, why)
            direction = str(action.args[0])
            if self._may_step(direction):
                return
            reason = self.blocked_reason(direction)  # built only for a blocked step
            if reason is not None:
                raise IllegalAction(f"seat {seat} cannot step {direction}: {reason}")
            return
        if self.phase == RPS and seat in (self.tagged, self.opponent):
            if action not in RPS_ACTIONS:
                raise self.refused(
                    action, f"seat {seat} must choose 'rps rock', 'rps paper' or 'rps scissors'"
                )
            return
        raise self.refused(action, f"seat {seat} has nothing to do now")

    # ------------------------------------------------------------------ transitions

    def _apply(self, inp: Input) -> PrototagState:
        if isinstance(inp, Roll):
            if self.phase == START:
                return self._settle_start_roll(tuple(values[0] for values in inp.values))
            if self.phase == PICK:
                return self._pick_first_tagged(inp.values[0][0])
            return self._begin_move(inp.values[0][0])
        if isinstance(inp, Move):
            return self._step(str(inp.action.args[0]))
        return self._battle(inp)

    def _settle_start_roll(self, values: tuple[int, ...]) -> PrototagState:
        rolls = tuple(zip(self.contenders, values, strict=True))
        best = max(values)
        tied = tuple(seat for seat, value in rolls if value == best)
        if len(tied) > 1:
            return replace(self, contenders=tied, start_rolls=rolls, events=(("start-tie", *tied),))
        starter = tied[0]
        if self.rules.first_tagged == "random":
            return replace(
                self,
                phase=PICK,
                mover=starter,
                contenders=(),
                start_rolls=rolls,
                events=(("starts", starter),),
            )
        return replace(
            self,
            phase=ROLL,
            mover=starter,
            tagged=starter,
            contenders=(),
            start_rolls=rolls,
            events=(("starts-tagged", starter),),
        )

    def _pick_first_tagged(self, seat: int) -> PrototagState:
        return replace(self, phase=ROLL, tagged=seat, events=(("tagged", seat),))

    def _begin_move(self, value: int) -> PrototagState:
        start, size = self.positions[self.mover], self.rules.board_size
        chaser = self.mover == self.tagged
        if not can_step(start, size, (start,), self.positions, chaser, self.immune):
            return self._end_turn((("boxed", self.mover, value),))
        return replace(
            self,
            phase=MOVE,
            roll=value,
            path=(start,),
            events=(("rolls", self.mover, value),),
        )

    def _step(self, direction: str) -> PrototagState:
        # One construction for the step itself (a battle included); the rarer turn end and
        # game end then go through _end_turn / _game_over.
        mover, positions, rules = self.mover, self.positions, self.rules
        chaser = mover == self.tagged
        row, col = positions[mover]
        d_row, d_col = STEP_DELTAS[direction]
        target = (row + d_row, col + d_col)
        path = (*self.path, target)
        events: tuple[Fact, ...] = (("step", mover, direction),)
        tagged_steps, immune, immunity_left = self.tagged_steps, self.immune, self.immunity_left
        phase, opponent = MOVE, self.opponent
        if chaser:
            tagged_steps += 1
            if immune >= 0:
                immunity_left -= 1
                if immunity_left == 0:  # the next step is the one that may attack again
                    events += (("immune-over", immune),)
                    immune = -1
        # Players cannot move through each other: the tagged player stops on the first seat
        # there (never the mover itself: it stands next to the target).
        meets = chaser and target in positions
        if meets:
            phase, opponent = RPS, positions.index(target)
        moved = replace(
            self,
            phase=phase,
            positions=(*positions[:mover], target, *positions[mover + 1 :]),
            path=path,
            tagged_steps=tagged_steps,
            immune=immune,
            immunity_left=immunity_left,
            opponent=opponent,
            events=(*events, ("meets", mover, opponent)) if meets else events,
        )
        if meets:
            return moved
        if chaser and tagged_steps >= rules.end_steps:
            return moved._game_over(events)
        return moved._after_step()

    def _after_step(self) -> PrototagState:
        steps_left = self.steps_left
        if steps_left == 0:
            return self._end_turn(self.events)
        if not self.legal_steps():
            return self._end_turn((*self.events, ("locked-in", steps_left)))
        return self

    def _battle(self, joint: Joint) -> PrototagState:
        tagger, target = self.tagged, self.opponent
        # A forfeit (a convicted seat, SPEC §4.4) loses the battle; two forfeits draw.
        tagger_out, target_out = joint.of(tagger) == FORFEIT, joint.of(target) == FORFEIT
        tagger_choice = "forfeit" if tagger_out else str(joint.of(tagger).args[0])
        target_choice = "forfeit" if target_out else str(joint.of(target).args[0])
        shown = (tagger, tagger_choice, target, target_choice)
        if tagger_choice == target_choice:
            return replace(self, rps_draws=self.rps_draws + 1, events=(("rps-draw", *shown),))
        if target_out or (not tagger_out and RPS_BEATS[tagger_choice] == target_choice):
            # The immunity covers the newly tagged player's steps before the Nth one.
            covered = max(self.rules.immunity_steps - 1, 0)
            immunity: tuple[Fact, ...] = (("immune", tagger, covered),) if covered else ()
            after = replace(
                self,
                tagged=target,
                immune=tagger if covered else -1,
                immunity_left=covered,
                events=(("rps-tags", *shown), *immunity),
            )
        else:
            after = replace(self, events=(("rps-stays", *shown),))
        if after.tagged_steps >= self.rules.end_steps:
            return after._game_over(after.events)
        return after._end_turn(after.events)

    def _end_turn(self, events: tuple[Fact, ...]) -> PrototagState:
        # The next player is the one to the left: seat + 1, wrapping round.
        return replace(
            self,
            phase=ROLL,
            mover=(self.mover + 1) % self.seats,
            roll=0,
            path=(),
            opponent=-1,
            rps_draws=0,
            events=events,
        )

    def _game_over(self, events: tuple[Fact, ...]) -> PrototagState:
        return replace(
            self,
            phase=OVER,
            roll=0,
            path=(),
            opponent=-1,
            rps_draws=0,
            events=(*events, ("loses", self.tagged)),
        )

    # ------------------------------------------------------------------ presentation

    def to_obj(self) -> Any:
        return state_to_obj(self)

    def encode(self) -> bytes:
        return encode(self)

    def status(self) -> str:
        if self.phase == START:
            seats = ", ".join(map(str, self.contenders))
            return f"start roll: seats {seats} throw a D6"
        if self.phase == PICK:
            return f"seat {self.mover} starts; drawing the first tagged seat"
        if self.phase == ROLL:
            return f"seat {self.mover} to roll a D{self.die_faces(self.mover)}"
        if self.phase == MOVE:
            return f"seat {self.mover} rolled {self.roll}: {self.steps_left} step(s) left"
        if self.phase == RPS:
            draws = f" (draws: {self.rps_draws})" if self.rps_draws else ""
            return f"rock-paper-scissors: seat {self.tagged} vs seat {self.opponent}{draws}"
        return f"game over: seat {self.tagged} loses"

    # ------------------------------------------------------------------ soundness

    def invariants(self) -> list[str]:
        if self.phase not in PHASES:
            return [f"unknown phase {self.phase!r}"]
        seats, size = self.seats, self.rules.board_size
        if len(self.positions) != seats:
            return ["there must be one position per seat"]
        broken: list[str] = []
        off_board = [s for s, tile in enumerate(self.positions) if not on_board(tile, size)]
        if off_board:
            broken.append(f"seats {off_board} are off the board")
        seat_fields = {
            "tagged": self.tagged,
            "mover": self.mover,
            "immune": self.immune,
            "opponent": self.opponent,
        }
        for name, value in seat_fields.items():
            if not -1 <= value < seats:
                broken.append(f"{name} {value} is neither a seat nor -1")
        if broken:
            return broken
        if (self.tagged < 0) != (self.phase in (START, PICK)):
            broken.append("a seat is tagged exactly from the first move roll on")
        if (self.mover < 0) != (self.phase == START):
            broken.append("the mover is known exactly once the start roll is settled")
        if self.phase == START and not self.contenders:
            broken.append("a start roll needs contenders")
        if self.contenders != tuple(sorted(set(self.contenders))) or not all(
            0 <= s < seats for s in self.contenders
        ):
            broken.append(f"contenders {self.contenders} are not distinct sorted seats")
        if self.phase != START and self.contenders:
            broken.append("contenders only during the start roll")
        for tile in sorted(set(self.positions)):
            here = self.occupants(tile)
            if len(here) > 1 and (len(here) > 2 or self.tagged not in here):
                broken.append(f"seats {here} share a tile that is not the tagged seat's battle")
        if self.phase in (MOVE, RPS):
            broken += self._turn_problems()
        elif self.path or self.roll:
            broken.append("a path and a roll exist only during a move")
        if self.phase != RPS and (self.opponent >= 0 or self.rps_draws):
            broken.append("a battle opponent and draws exist only during a battle")
        if (self.immune >= 0) != (self.immunity_left > 0):
            broken.append("an immune seat goes with a positive immunity count")
        if self.immune >= 0 and self.immune == self.tagged:
            broken.append("the tagged seat cannot be immune")
        if self.immunity_left > max(self.rules.immunity_steps - 1, 0):
            broken.append(f"immunity count {self.immunity_left} exceeds the option")
        reached = self.tagged_steps >= self.rules.end_steps
        if self.tagged_steps > self.rules.end_steps or (
            self.phase != RPS and reached != (self.phase == OVER)
        ):
            broken.append("the game ends exactly when the tagged steps reach end_steps")
        return broken

    def _turn_problems(self) -> list[str]:
        path = self.path
        if not path or path[-1] != self.positions[self.mover]:
            return ["the turn's path must end where the mover stands"]
        broken: list[str] = []
        if len(set(path)) != len(path):
            broken.append("the path visits a tile twice")
        if not all(is_adjacent(a, b) for a, b in pairwise(path)):
            broken.append("the path makes a step that is not orthogonal")
        if not 1 <= self.roll <= self.die_faces(self.mover):
            broken.append(f"roll {self.roll} is not a face of the mover's die")
        if self.phase == MOVE and (self.steps_left < 1 or not self.legal_steps()):
            broken.append("a move in progress needs a step left and a legal step")
        if self.phase == RPS:
            if self.mover != self.tagged or self.opponent < 0 or self.opponent == self.tagged:
                broken.append("a battle is the tagged mover against another seat")
            elif self.positions[self.opponent] != self.positions[self.tagged]:
                broken.append("battling seats share a tile")
            if len(path) - 1 > self.roll:
                broken.append("the tagged mover stepped more than it rolled")
        return broken
