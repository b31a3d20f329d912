"""Board Tag by Greg Stolze: Runner dice score points by dodging a knight-moving IT.

Rules as implemented, and every decision where the text is silent: docs/rules/boardtag.md.
Seats are 0..N-1; "the next player to the left" is seat + 1 (mod N).  Dice are numbered
``3 * seat + k``; the die off the board (``it_die``) is the IT die.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from lanTag.rules import boardtag_board as bb
from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
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
from lanTag.rules.boardtag_board import (
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
from lanTag.rules.boardtag_codec import decode_fields, encode_state
from lanTag.rules.boardtag_view import broken_invariants, render_state, state_view

DEFAULT_MAX_ROUNDS = 15


class BoardTag(Game):
    id: ClassVar[str] = "boardtag"
    display_name: ClassVar[str] = "Board Tag"
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 6
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
    def state_from_obj(cls, obj: Any) -> BoardTagState:
        state = BoardTagState(*decode_fields(obj, fields(BoardTagState)))
        if broken := state.invariants():
            raise ValueError(f"inconsistent boardtag state: {'; '.join(broken)}")
        return state


@dataclass(frozen=True, slots=True)
class BoardTagState(State):
    game: ClassVar[type[Game]] = BoardTag

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
    events: tuple[str, ...] = ()  # what the last input did, for people
    ranking: tuple[tuple[int, ...], ...] = ()
    summary: str = ""

    # ------------------------------------------------------------------ queries

    def decision(self) -> Decision:
        if self.phase == OVER:
            return Over(Outcome(self.ranking, self.summary, self.totals()))
        if self.phase == CHOOSE_IT:
            return Chance((Pick(self.seats),), "who starts as IT")
        return Turn(self.mover)

    def totals(self) -> tuple[int, ...]:
        """Pips on each seat's three dice (the IT die included)."""
        sums = [0] * self.seats
        for die in self.dice:
            sums[die.owner] += die.score
        return tuple(sums)

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
        return tuple(
            i for i in _seat_dice(seat) if self.dice[i].square != OFF and i not in self.finished
        )

    # ------------------------------------------------------------------ legality

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if self.phase in (CHOOSE_IT, OVER) or seat != self.mover:
            return ()
        if self.phase in (PLACE, RETURN):
            return tuple(Action("place", (bb.square_name(sq),)) for sq in self.free_edge_squares())
        if self.phase == FACE:
            return tuple(Action("face", (f,)) for f in bb.FACINGS)
        if self.phase == RUN:
            return self._run_actions()
        return self._it_actions()

    def _run_actions(self) -> tuple[Action, ...]:
        if self.active_die == OFF:
            return tuple(
                Action("pick", (bb.square_name(self.dice[i].square),))
                for i in self.unmoved_dice(self.mover)
            )
        first = Action("stay") if self.steps == 0 else Action("done")
        if not self.can_pay(self.active_die, self.steps):
            return (first,)
        taken = self.occupied()
        here = self.dice[self.active_die].square
        steps = [
            Action("step", (d,))
            for d in bb.STEPS
            if (to := bb.step_target(here, d)) is not None and to not in taken
        ]
        return (first, *steps)

    def _it_actions(self) -> tuple[Action, ...]:
        actions = [Action("end")]
        actions += [Action("tag", (bb.square_name(sq),)) for sq in self.taggable()]
        if self.can_pay(self.it_die, self.jumps):
            actions += [
                Action("jump", (k,))
                for k in bb.JUMPS
                if bb.jump_target(self.it_point, self.it_facing, k) is not None
            ]
        if self.can_pay(self.it_die, self.turns):
            actions += [Action("face", (f,)) for f in bb.FACINGS if f != self.it_facing]
        return tuple(actions)

    def check_action(self, seat: int, action: Action) -> None:
        if action in self.legal_actions(seat):
            return
        raise IllegalAction(self._why_illegal(seat, action))

    def _why_illegal(self, seat: int, action: Action) -> str:
        if self.phase in (CHOOSE_IT, OVER):
            return "no player acts now" if self.phase == CHOOSE_IT else "the game is over"
        if seat != self.mover:
            return f"it is seat {self.mover}'s turn, not seat {seat}'s"
        allowed = {
            PLACE: ("place",),
            RETURN: ("place",),
            FACE: ("face",),
            RUN: ("pick",) if self.active_die == OFF else ("step", "stay", "done"),
            IT: ("jump", "face", "tag", "end"),
        }[self.phase]
        shapes = {
            "place": "place <square>",
            "face": "face n|e|s|w",
            "pick": "pick <square>",
            "step": "step <dir>",
            "stay": "stay",
            "done": "done",
            "jump": "jump ffl|ffr|llf|rrf",
            "tag": "tag <square>",
            "end": "end",
        }
        expected = ", ".join(shapes[v] for v in allowed)
        takes_word = action.verb in ("place", "face", "pick", "step", "jump", "tag")
        word = action.args[0] if len(action.args) == 1 else None
        if action.verb not in allowed or (
            (not isinstance(word, str)) if takes_word else bool(action.args)
        ):
            return f"{action} is not an action now; expected {expected}"
        if action.verb in ("place", "pick", "tag"):
            sq = bb.parse_square(str(word))
            if sq is None:
                return f"{word!r} is not a square (a1..h8)"
            if action.verb == "place":
                return f"{word} is taken" if bb.is_edge(sq) else f"{word} is not an edge square"
            if action.verb == "pick":
                return f"no die of yours waiting to move on {word}"
            if self.die_at(sq) is None:
                return f"there is no die on {word}"
            if sq not in bb.front_squares(self.it_point, self.it_facing):
                return f"{word} is not one of the two squares in front of IT"
            return "don't tag your own Runner: there is no gain in it"
        if action.verb == "step":
            if word not in bb.STEPS:
                return f"{word!r} is not a direction ({' '.join(bb.STEPS)})"
            if not self.can_pay(self.active_die, self.steps):
                return "the free step is used and a Runner never spends its last point"
            to = bb.step_target(self.dice[self.active_die].square, str(word))
            return "that step leaves the board" if to is None else "that square is occupied"
        if action.verb == "jump":
            if word not in bb.JUMPS:
                return f"{word!r} is not a jump ({' '.join(bb.JUMPS)})"
            if not self.can_pay(self.it_die, self.jumps):
                return "the free jump is used and the IT die never spends its last point"
            return "that jump leaves the board's lines"
        if action.verb == "face":
            if word not in bb.FACINGS:
                return f"{word!r} is not a facing ({' '.join(bb.FACINGS)})"
            if word == self.it_facing:
                return f"IT already faces {word}"
            return "the free turn is used and the IT die never spends its last point"
        if action.verb == "stay":
            return "this die has already moved; say done"
        return "take a step or stay first"  # "done" before any step

    # ------------------------------------------------------------------ transitions

    def _apply(self, inp: Input) -> BoardTagState:
        if isinstance(inp, Roll):
            it_seat = inp.values[0][0]
            return replace(
                self,
                phase=PLACE,
                it_seat=it_seat,
                it_die=DICE_PER_SEAT * it_seat + DICE_PER_SEAT - 1,
                mover=it_seat,
                active_die=DICE_PER_SEAT * it_seat,
                events=(f"seat {it_seat} is IT",),
            )
        assert isinstance(inp, Move)  # base.apply checked the input kind and its legality
        verb, args = inp.action.verb, inp.action.args
        word = str(args[0]) if args else ""
        if self.phase == PLACE:
            return self._place_setup(_square(word))
        if self.phase == RETURN:
            return self._place_returning(_square(word))
        if self.phase == FACE:
            return replace(self, it_facing=word)._start_run(f"IT faces {word}")
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
        return self._end_it_phase(self.it_seat, dice, ("IT ends its phase", *events))

    def _with_die(self, index: int, **changes: int) -> tuple[Runner, ...]:
        return _set_die(self.dice, index, replace(self.dice[index], **changes))

    def _place_setup(self, square: int) -> BoardTagState:
        dice = self._with_die(self.active_die, square=square)
        event = f"seat {self.mover} places a Runner on {bb.square_name(square)}"
        later = [i for i in _seat_dice(self.mover) if dice[i].square == OFF and i != self.it_die]
        if later:
            return replace(self, dice=dice, active_die=later[0], events=(event,))
        following = (self.mover + 1) % self.seats  # setup goes to the left: seat + 1
        if following == self.it_seat:
            return replace(
                self, dice=dice, phase=FACE, mover=self.it_seat, active_die=OFF, events=(event,)
            )
        return replace(
            self, dice=dice, mover=following, active_die=DICE_PER_SEAT * following, events=(event,)
        )

    def _place_returning(self, square: int) -> BoardTagState:
        dice = self._with_die(self.active_die, square=square)
        event = f"seat {self.mover}'s old IT die returns on {bb.square_name(square)}"
        return replace(self, dice=dice)._end_it_phase(self.mover, dice, (*self.events, event))

    def _start_run(self, *events: str) -> BoardTagState:
        """A new turn: IT's player moves both Runners first."""
        state = replace(
            self,
            phase=RUN,
            round=self.round + 1,
            finished=(),
            mover=self.it_seat,
            active_die=OFF,
            steps=0,
            gained_near_it=False,
            events=events,
        )
        return state._auto_pick()

    def _auto_pick(self) -> BoardTagState:
        """With only one die left to move there is nothing to pick."""
        waiting = self.unmoved_dice(self.mover)
        return replace(self, active_die=waiting[0]) if len(waiting) == 1 else self

    def _pick(self, square: int) -> BoardTagState:
        die = self.die_at(square)
        assert die is not None
        event = f"seat {self.mover} picks {_label(self, die)}"
        return replace(self, active_die=die, events=(event,))

    def _can_gain(self, die: int) -> bool:
        return self.dice[die].owner != self.it_seat  # "The IT player's Runners can't gain points!"

    def _step(self, direction: str) -> BoardTagState:
        die = self.dice[self.active_die]
        to = bb.step_target(die.square, direction)
        assert to is not None
        cost = 0 if self.steps == 0 else 1
        score = die.score - cost
        how = "free" if cost == 0 else "pays 1"
        events = [
            f"{_label(self, self.active_die)} steps {direction} to {bb.square_name(to)} ({how})"
        ]
        gained = self.gained_near_it
        # One point per Run Phase for entering next to IT, so a die cannot pay for endless
        # steps between the squares around IT with the points they give back.
        if to in bb.touching_squares(self.it_point) and not gained:
            gained = True
            if self._can_gain(self.active_die) and score < MAX_SCORE:
                score += 1
                events.append("it gains a point for entering a square next to IT")
        dice = self._with_die(self.active_die, square=to, score=score)
        return replace(
            self, dice=dice, steps=self.steps + 1, gained_near_it=gained, events=tuple(events)
        )

    def _finish_die(self, stayed: bool) -> BoardTagState:
        dice, events = self.dice, [f"{_label(self, self.active_die)} is done"]
        if stayed:
            events = [f"{_label(self, self.active_die)} stays"]
            if self._can_gain(self.active_die) and dice[self.active_die].score < MAX_SCORE:
                dice = self._with_die(self.active_die, score=dice[self.active_die].score + 1)
                events.append("it gains a point for not moving")
        state = replace(
            self,
            dice=dice,
            finished=(*self.finished, self.active_die),
            active_die=OFF,
            steps=0,
            gained_near_it=False,
            events=tuple(events),
        )
        following = state._next_runner_seat()
        if following is None:
            return replace(state, phase=IT, mover=self.it_seat, jumps=0, turns=0, passed_by_it=())
        return replace(state, mover=following)._auto_pick()

    def _next_runner_seat(self) -> int | None:
        """IT's player finishes both Runners first; then the others move one die each in turn."""
        if self.unmoved_dice(self.it_seat):
            return self.it_seat
        sign = 1 if self.run_order == "left" else -1
        order = [(self.it_seat + sign * k) % self.seats for k in range(1, self.seats)]
        start = order.index(self.mover) if self.mover in order else -1
        for k in range(1, len(order) + 1):
            seat = order[(start + k) % len(order)]
            if self.unmoved_dice(seat):
                return seat
        return None

    def _jump(self, kind: str) -> BoardTagState:
        to = bb.jump_target(self.it_point, self.it_facing, kind)
        assert to is not None
        cost = 0 if self.jumps == 0 else 1
        dice = self._with_die(self.it_die, score=self.dice[self.it_die].score - cost)
        near = [
            i
            for sq in bb.touching_squares(to)
            if (i := self.die_at(sq)) is not None and self._can_gain(i)
        ]
        passed = self.passed_by_it + tuple(i for i in near if i not in self.passed_by_it)
        how = "free" if cost == 0 else "pays 1"
        return replace(
            self,
            dice=dice,
            it_point=to,
            jumps=self.jumps + 1,
            passed_by_it=passed,
            events=(f"IT jumps {kind} to {bb.point_name(to)} ({how})",),
        )

    def _turn(self, facing: str) -> BoardTagState:
        cost = 0 if self.turns == 0 else 1
        dice = self._with_die(self.it_die, score=self.dice[self.it_die].score - cost)
        how = "free" if cost == 0 else "pays 1"
        return replace(
            self,
            dice=dice,
            it_facing=facing,
            turns=self.turns + 1,
            events=(f"IT turns to face {facing} ({how})",),
        )

    def _pay_passed(self, tagged: int) -> tuple[tuple[Runner, ...], tuple[str, ...]]:
        """Dice IT jumped next to and did not tag gain their point as the IT Phase ends."""
        dice, events = self.dice, []
        for i in self.passed_by_it:
            if i != tagged and dice[i].score < MAX_SCORE:
                dice = _set_die(dice, i, replace(dice[i], score=dice[i].score + 1))
                events.append(f"{_label(self, i)} gains a point: IT moved next to it")
        return dice, tuple(events)

    def _tag(self, square: int) -> BoardTagState:
        tagged = self.die_at(square)
        assert tagged is not None
        old_die, old_seat = self.it_die, self.it_seat
        dice, paid = self._pay_passed(tagged)
        dice = _set_die(
            dice,
            tagged,
            replace(dice[tagged], square=OFF, score=max(MIN_SCORE, dice[tagged].score - 1)),
        )
        dice = _set_die(
            dice, old_die, replace(dice[old_die], score=min(MAX_SCORE, dice[old_die].score + 1))
        )
        new_seat = dice[tagged].owner
        events = (f"seat {old_seat} tags {bb.square_name(square)}: seat {new_seat} is IT", *paid)
        return replace(
            self,
            dice=dice,
            it_seat=new_seat,
            it_die=tagged,
            phase=RETURN,
            mover=old_seat,
            active_die=old_die,
            events=events,
        )

    def _end_it_phase(
        self, phase_it_seat: int, dice: tuple[Runner, ...], events: tuple[str, ...]
    ) -> BoardTagState:
        """Three sixes win; otherwise the round limit, otherwise a new turn."""
        state = replace(self, dice=dice, passed_by_it=(), jumps=0, turns=0)
        sixes = tuple(
            s for s in range(self.seats) if all(dice[i].score == MAX_SCORE for i in _seat_dice(s))
        )
        if sixes:
            # "your choices are to tag one or lose the game": an IT player who lets
            # three sixes stand is ranked last.
            losers = () if phase_it_seat in sixes else (phase_it_seat,)
            rest = [s for s in range(self.seats) if s not in sixes and s not in losers]
            ranking = (sixes, *state._by_totals(rest), *((losers,) if losers else ()))
            winners = " and ".join(f"seat {s}" for s in sixes)
            summary = f"{winners} ended an IT Phase with three sixes"
            if losers:
                summary += f"; seat {phase_it_seat} was IT and did not tag them"
        elif self.max_rounds and self.round >= self.max_rounds:
            ranking = tuple(state._by_totals(range(self.seats)))
            best = state.totals()[ranking[0][0]]
            leaders = " and ".join(f"seat {s}" for s in ranking[0])
            verb = "leads" if len(ranking[0]) == 1 else "share the lead"
            summary = f"round limit {self.max_rounds} reached: {leaders} {verb} with {best} pips"
        else:
            return state._start_run(*events)
        return replace(
            state,
            phase=OVER,
            mover=-1,
            active_die=OFF,
            ranking=ranking,
            summary=summary,
            events=events,
        )

    def _by_totals(self, seats: Sequence[int]) -> list[tuple[int, ...]]:
        totals = self.totals()
        levels = sorted({totals[s] for s in seats}, reverse=True)
        return [tuple(s for s in seats if totals[s] == t) for t in levels]

    # ------------------------------------------------------------------ encodings & views

    def to_obj(self) -> Any:
        return encode_state(self)

    def view(self, seat: int | None) -> dict[str, Any]:
        return state_view(self, seat)

    def render(self) -> str:
        return render_state(self)

    def invariants(self) -> list[str]:
        return broken_invariants(self)


def _seat_dice(seat: int) -> range:
    return range(DICE_PER_SEAT * seat, DICE_PER_SEAT * seat + DICE_PER_SEAT)


def _set_die(dice: tuple[Runner, ...], index: int, die: Runner) -> tuple[Runner, ...]:
    return (*dice[:index], die, *dice[index + 1 :])


def _square(word: str) -> int:
    square = bb.parse_square(word)
    assert square is not None  # checked by check_action
    return square


def _label(state: BoardTagState, die: int) -> str:
    """The owner's letter, the score and the square: "B3 on c4"."""
    d = state.dice[die]
    where = bb.square_name(d.square) if d.square != OFF else "off the board"
    return f"{chr(ord('A') + d.owner)}{d.score} on {where}"
