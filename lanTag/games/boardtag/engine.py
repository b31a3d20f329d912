"""Board Tag by Greg Stolze: Runner dice score points by dodging a knight-moving IT.

Rules as implemented, and every decision where the text is silent: docs/rules/boardtag.md.
Seats are 0..N-1; "the next player to the left" is seat + 1 (mod N).  Dice are numbered
``3 * seat + k``; the die off the board (``it_die``) is the IT die.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any, ClassVar

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import (
    CHOOSE_IT,
    DICE_PER_SEAT,
    FACE,
    IT,
    MAX_SCORE,
    MIN_SCORE,
    OFF,
    OVER,
    PLACE,
    RETURN,
    RUN,
    Runner,
)
from lanTag.games.boardtag.checks import (
    broken_invariants,
    outcome_summary,
    reads_action,
    refusal,
)
from lanTag.games.boardtag.codec import decode_fields, encode_state
from lanTag.games.boardtag.position import position_of, state_of
from lanTag.games.boardtag.state import BoardTagFields
from lanTag.rules import awaited
from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
    Fact,
    Game,
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

DEFAULT_MAX_ROUNDS = 15


class BoardTag(Game):
    id: ClassVar[str] = "boardtag"
    display_name: ClassVar[str] = "Board Tag"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 6
    rules_version: ClassVar[int] = 2  # docs/rules/VERSIONS.md: bump with the digest pin
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "max_rounds",
            DEFAULT_MAX_ROUNDS,
            "turns (Run Phase + IT Phase) before the game ends and the most pips on a seat's"
            " three dice wins; 0 = play until someone ends an IT Phase with three sixes",
            min=0,
            max=10_000,
        ),
        OptionSpec(
            "run_order",
            "left",
            "who moves after IT's player in the Run Phase: left = seat+1, seat+2, ... (the"
            " setup order); right = seat-1, seat-2, ... (the text's literal 'left to right')",
            choices=("left", "right"),
        ),
    )
    summary: ClassVar[str] = (
        "Runner dice on a chessboard score points by dodging IT, which jumps along the lines like"
        " a knight that never moves backward; first to end an IT Phase with three sixes wins."
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> BoardTagState:
        cls.check_seats(seats)
        opts = cls.validate_options(options)
        if map_text:
            raise OptionError("Board Tag is played on a plain chessboard and takes no map")
        max_rounds, run_order = opts["max_rounds"], opts["run_order"]
        assert isinstance(max_rounds, int) and isinstance(run_order, str)
        dice = tuple(
            Runner(i // DICE_PER_SEAT, MIN_SCORE, OFF) for i in range(DICE_PER_SEAT * seats)
        )
        return BoardTagState(seats, max_rounds, run_order, dice, CHOOSE_IT)

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        # A die's Run Phase: a pick, the free step, at most 6 paid steps (5 spare points plus
        # one point for entering a square next to IT), then done.  IT Phase: one free jump, one
        # free turn, at most 4 paid ones (the IT die never shows 6), a tag or end, a return.
        setup = 1 + DICE_PER_SEAT * seats + 1
        per_round = 9 * (DICE_PER_SEAT * seats - 1) + 8
        return setup + DEFAULT_MAX_ROUNDS * per_round + 1

    @classmethod
    def position(cls, state: State) -> dict[str, Any]:
        return position_of(state)

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> BoardTagState:
        return state_of(cls, position, BoardTagState)

    @classmethod
    def reads(cls, action: Action) -> bool:
        return reads_action(action)

    @classmethod
    def state_from_obj(cls, obj: Any) -> BoardTagState:
        state = BoardTagState(*decode_fields(obj, fields(BoardTagState)))
        if broken := state.invariants():
            raise ValueError(f"inconsistent boardtag state: {'; '.join(broken)}")
        return state


class BoardTagState(BoardTagFields):
    """A Board Tag position: its fields (state.py) and the rules over them."""

    __slots__ = ()
    game: ClassVar[type[Game]] = BoardTag

    # ------------------------------------------------------------------ queries

    def decision(self) -> Decision:
        if self.phase == OVER:
            return Over(Outcome(self.ranking, outcome_summary(self), self.totals()))
        if self.phase == CHOOSE_IT:
            return Chance((Pick(self.seats),), "first-it")
        mover = self.mover
        return _TURNS[mover] if 0 <= mover < len(_TURNS) else Turn(mover)

    def awaited(self) -> Awaited:
        """A turn (``round``) is a Run Phase, every seat moving dice, then IT's Phase; the
        choice names the phase.  The set-up (placing, IT's first facing) is nobody's turn."""
        if self.phase in (OVER, CHOOSE_IT):
            return awaited.awaited_from(self.decision())
        # A Run Phase starts with no die finished and no step taken; a die IT's player
        # picked ("picks") is still that start's, not a second one.
        starts = (
            self.phase == RUN
            and not self.finished
            and self.steps == 0
            and not any(fact[0] == "picks" for fact in self.events)
        )
        return Awaited(awaited.MOVE, (self.mover,), self.phase, turn_starts=starts)

    # ------------------------------------------------------------------ legality

    def legal_actions(self, seat: int) -> Sequence[Action]:
        """The actions of this phase's shapes that :func:`checks.refusal` lets through."""
        if self.phase in (CHOOSE_IT, OVER) or seat != self.mover:
            return ()
        return tuple(a for a in self._shapes() if refusal(self, seat, a) is None)

    def _shapes(self) -> tuple[Action, ...]:
        """Every action of the phase's shapes (legal or not), in the order they are listed."""
        phase = self.phase
        if phase in (PLACE, RETURN):
            return _PLACES
        if phase == FACE:
            return _FACES
        if phase == RUN:
            if self.active_die == OFF:
                return tuple(_PICKS[self.dice[i].square] for i in self.unmoved_dice(self.mover))
            return _RUN_ACTIONS
        front = bb.front_squares(self.it_point, self.it_facing)
        return (_END, *(_TAGS[sq] for sq in front), *_IT_MOVES)

    def check_action(self, seat: int, action: Action) -> None:
        reason = refusal(self, seat, action)
        if reason is not None:
            raise self.refused(action, reason)

    # ------------------------------------------------------------------ transitions

    def _but(self, **changes: Any) -> BoardTagState:
        """``dataclasses.replace(self, **changes)`` without its per-call field scan (each
        transition builds its new state with one call)."""
        values = list(_field_values(self))
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return self.__class__(*values)

    def _apply(self, inp: Input) -> BoardTagState:
        if isinstance(inp, Roll):
            it_seat = inp.values[0][0]
            return self._but(
                phase=PLACE,
                it_seat=it_seat,
                it_die=DICE_PER_SEAT * it_seat + DICE_PER_SEAT - 1,
                mover=it_seat,
                active_die=DICE_PER_SEAT * it_seat,
                events=(("it", it_seat),),
            )
        assert isinstance(inp, Move)  # base.apply checked the input kind and its legality
        verb, args = inp.action.verb, inp.action.args
        word = str(args[0]) if args else ""
        if self.phase == PLACE:
            return self._place_setup(_square(word))
        if self.phase == RETURN:
            return self._place_returning(_square(word))
        if self.phase == FACE:
            return self._start_run(self.dice, (("faces", word),), it_facing=word)
        if self.phase == RUN:
            if verb == "pick":
                return self._pick(_square(word))
            if verb == "step":
                return self._step(word)
            return self._finish_die(stayed=verb == "stay")
        if verb == "jump":
            return self._jump(word)
        if verb == "face":
            return self._turn(word)
        if verb == "tag":
            return self._tag(_square(word))
        dice, events = self._pay_passed(OFF)
        return self._end_it_phase(self.it_seat, dice, (("ends",), *events))

    def _place_setup(self, square: int) -> BoardTagState:
        dice = bb.with_die(self.dice, self.active_die, self.dice[self.active_die].score, square)
        event: Fact = ("places", self.mover, square)
        later = [i for i in bb.seat_dice(self.mover) if dice[i].square == OFF and i != self.it_die]
        if later:
            return self._but(dice=dice, active_die=later[0], events=(event,))
        following = (self.mover + 1) % self.seats  # setup goes to the left: seat + 1
        if following == self.it_seat:
            return self._but(
                dice=dice, phase=FACE, mover=self.it_seat, active_die=OFF, events=(event,)
            )
        return self._but(
            dice=dice, mover=following, active_die=DICE_PER_SEAT * following, events=(event,)
        )

    def _place_returning(self, square: int) -> BoardTagState:
        dice = bb.with_die(self.dice, self.active_die, self.dice[self.active_die].score, square)
        event: Fact = ("returns", self.mover, square)
        return self._end_it_phase(self.mover, dice, (*self.events, event))

    def _start_run(
        self, dice: tuple[Runner, ...], events: tuple[Fact, ...], **changes: Any
    ) -> BoardTagState:
        """A new turn: IT's player moves both Runners first."""
        return self._but(
            dice=dice,
            phase=RUN,
            round=self.round + 1,
            finished=(),
            mover=self.it_seat,
            active_die=_auto_pick(dice, (), self.it_seat),
            steps=0,
            gained_near_it=False,
            events=events,
            **changes,
        )

    def _pick(self, square: int) -> BoardTagState:
        die = self.die_at(square)
        assert die is not None
        return self._but(active_die=die, events=(("picks", self.mover, *_label(self, die)),))

    def _can_gain(self, die: int) -> bool:
        return self.dice[die].owner != self.it_seat  # "The IT player's Runners can't gain points!"

    def _step(self, direction: str) -> BoardTagState:
        die = self.dice[self.active_die]
        to = bb.step_target(die.square, direction)
        assert to is not None
        cost = 0 if self.steps == 0 else 1
        score = die.score - cost
        events: list[Fact] = [("step", *_label(self, self.active_die), direction, to, cost)]
        gained = self.gained_near_it
        # One point per Run Phase for entering next to IT, so a die cannot pay for endless
        # steps between the squares around IT with the points they give back.
        if to in bb.touching_squares(self.it_point) and not gained:
            gained = True
            if self._can_gain(self.active_die) and score < MAX_SCORE:
                score += 1
                events.append(("gains-near-it",))
        dice = bb.with_die(self.dice, self.active_die, score, to)
        return self._but(
            dice=dice, steps=self.steps + 1, gained_near_it=gained, events=tuple(events)
        )

    def _finish_die(self, stayed: bool) -> BoardTagState:
        active = self.active_die
        events: list[Fact] = [("done", *_label(self, active))]
        dice = self.dice
        if stayed:
            events = [("stays", *_label(self, active))]
            if self._can_gain(active) and dice[active].score < MAX_SCORE:
                dice = bb.with_die(dice, active, dice[active].score + 1, dice[active].square)
                events.append(("gains-staying",))
        finished = (*self.finished, active)
        done = {"dice": dice, "finished": finished, "steps": 0, "gained_near_it": False}
        following = self._next_runner_seat(dice, finished)
        if following is None:
            return self._but(
                **done,
                active_die=OFF,
                events=tuple(events),
                phase=IT,
                mover=self.it_seat,
                jumps=0,
                turns=0,
                passed_by_it=(),
            )
        return self._but(
            **done,
            active_die=_auto_pick(dice, finished, following),
            events=tuple(events),
            mover=following,
        )

    def _next_runner_seat(self, dice: tuple[Runner, ...], finished: tuple[int, ...]) -> int | None:
        """IT's player finishes both Runners first; then the others move one die each in turn."""
        if bb.unmoved(dice, finished, self.it_seat):
            return self.it_seat
        sign = 1 if self.run_order == "left" else -1
        order = [(self.it_seat + sign * k) % self.seats for k in range(1, self.seats)]
        start = order.index(self.mover) if self.mover in order else -1
        for k in range(1, len(order) + 1):
            seat = order[(start + k) % len(order)]
            if bb.unmoved(dice, finished, seat):
                return seat
        return None

    def _jump(self, kind: str) -> BoardTagState:
        to = bb.jump_target(self.it_point, self.it_facing, kind)
        assert to is not None
        cost = 0 if self.jumps == 0 else 1
        it_die = self.dice[self.it_die]
        dice = bb.with_die(self.dice, self.it_die, it_die.score - cost, it_die.square)
        near = [
            i
            for sq in bb.touching_squares(to)
            if (i := self.die_at(sq)) is not None and self._can_gain(i)
        ]
        passed = self.passed_by_it + tuple(i for i in near if i not in self.passed_by_it)
        return self._but(
            dice=dice,
            it_point=to,
            jumps=self.jumps + 1,
            passed_by_it=passed,
            events=(("jumps", kind, to, cost),),
        )

    def _turn(self, facing: str) -> BoardTagState:
        cost = 0 if self.turns == 0 else 1
        it_die = self.dice[self.it_die]
        dice = bb.with_die(self.dice, self.it_die, it_die.score - cost, it_die.square)
        return self._but(
            dice=dice,
            it_facing=facing,
            turns=self.turns + 1,
            events=(("turns", facing, cost),),
        )

    def _pay_passed(self, tagged: int) -> tuple[tuple[Runner, ...], tuple[Fact, ...]]:
        """Dice IT jumped next to and did not tag gain their point as the IT Phase ends."""
        dice, events = self.dice, list[Fact]()
        for i in self.passed_by_it:
            if i != tagged and dice[i].score < MAX_SCORE:
                dice = bb.with_die(dice, i, dice[i].score + 1, dice[i].square)
                events.append(("gains-passed", *_label(self, i)))
        return dice, tuple(events)

    def _tag(self, square: int) -> BoardTagState:
        tagged = self.die_at(square)
        assert tagged is not None
        old_die, old_seat = self.it_die, self.it_seat
        dice, paid = self._pay_passed(tagged)
        dice = bb.with_die(dice, tagged, max(MIN_SCORE, dice[tagged].score - 1), OFF)
        old = dice[old_die]
        dice = bb.with_die(dice, old_die, min(MAX_SCORE, old.score + 1), old.square)
        new_seat = dice[tagged].owner
        events = (("tags", old_seat, square, new_seat), *paid)
        return self._but(
            dice=dice,
            it_seat=new_seat,
            it_die=tagged,
            phase=RETURN,
            mover=old_seat,
            active_die=old_die,
            events=events,
        )

    def _end_it_phase(
        self, phase_it_seat: int, dice: tuple[Runner, ...], events: tuple[Fact, ...]
    ) -> BoardTagState:
        """Three sixes win; otherwise the round limit, otherwise a new turn."""
        sixes = tuple(
            s for s in range(self.seats) if all(dice[i].score == MAX_SCORE for i in bb.seat_dice(s))
        )
        if sixes:
            # "your choices are to tag one or lose the game": an IT player who lets
            # three sixes stand is ranked last.
            losers = () if phase_it_seat in sixes else (phase_it_seat,)
            rest = [s for s in range(self.seats) if s not in sixes and s not in losers]
            ranking = (sixes, *_by_totals(dice, self.seats, rest), *((losers,) if losers else ()))
            end: Fact = ("three-sixes", losers[0] if losers else -1)
        elif self.max_rounds and self.round >= self.max_rounds:
            ranking = tuple(_by_totals(dice, self.seats, range(self.seats)))
            end = ("round-limit",)
        else:
            return self._start_run(dice, events, passed_by_it=(), jumps=0, turns=0)
        return self._but(
            dice=dice,
            passed_by_it=(),
            jumps=0,
            turns=0,
            phase=OVER,
            mover=-1,
            active_die=OFF,
            ranking=ranking,
            end=end,
            events=events,
        )

    # ------------------------------------------------------------------ encodings & views

    def to_obj(self) -> Any:
        return encode_state(self)

    def invariants(self) -> list[str]:
        return broken_invariants(self)


_FIELD_INDEX = {f.name: i for i, f in enumerate(fields(BoardTagState))}
_field_values = attrgetter(*_FIELD_INDEX)  # every field's value, in field order
_TURNS = tuple(Turn(seat) for seat in range(BoardTag.max_seats))  # decision() values, shared
# The actions of each phase's shapes, built once (an Action checks its words when built).
_PLACES = tuple(Action("place", (bb.square_name(sq),)) for sq in bb.EDGE_SQUARES)
_FACES = tuple(Action("face", (f,)) for f in bb.FACINGS)
_PICKS = tuple(Action("pick", (bb.square_name(sq),)) for sq in range(bb.SIZE * bb.SIZE))
_TAGS = tuple(Action("tag", (bb.square_name(sq),)) for sq in range(bb.SIZE * bb.SIZE))
_RUN_ACTIONS = (Action("stay"), Action("done"), *(Action("step", (d,)) for d in bb.STEPS))
_END = Action("end")
_IT_MOVES = (*(Action("jump", (k,)) for k in bb.JUMPS), *_FACES)


def _by_totals(
    dice: tuple[Runner, ...], seats: int, ranked: Sequence[int]
) -> list[tuple[int, ...]]:
    """``ranked`` seats grouped by equal totals, most pips first."""
    totals = bb.totals(dice, seats)
    levels = sorted({totals[s] for s in ranked}, reverse=True)
    return [tuple(s for s in ranked if totals[s] == t) for t in levels]


def _auto_pick(dice: tuple[Runner, ...], finished: tuple[int, ...], seat: int) -> int:
    """The die ``seat`` moves when just one is left (nothing to pick), else OFF."""
    waiting = bb.unmoved(dice, finished, seat)
    return waiting[0] if len(waiting) == 1 else OFF


def _square(word: str) -> int:
    square = bb.parse_square(word)
    assert square is not None  # checked by check_action
    return square


def _label(state: BoardTagState, die: int) -> tuple[int, int, int]:
    """A die as the facts that name it: (die, its score, its square), as they are now."""
    d = state.dice[die]
    return die, d.score, d.square
