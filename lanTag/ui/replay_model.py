"""The replay viewer's model (pure: no prompt-toolkit, no clock) and the headless replay.

Positions are rebuilt from the verifier's applied inputs (``VerifyReport.applied``),
so the viewer shows exactly what verification accepted and never re-runs it.  The
model only knows "one step on" (:meth:`ReplayModel.tick`); the UI layer owns the timer.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from lanTag.log.entries import parse_log
from lanTag.log.inspect import Detail, describe, inspect_steps
from lanTag.log.verify import VerifyReport
from lanTag.rules.base import IllegalAction, Joint, Move, Roll, State, input_text
from lanTag.rules.registry import get_game
from lanTag.session.events import StepApplied
from lanTag.session.lobby_record import LobbyRecord, seat_names, start_state
from lanTag.ui.boards import Painted, paint
from lanTag.ui.outcomes import step_words
from lanTag.views.registry import game_view

SPEEDS = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0)  # steps per second while playing
DEFAULT_SPEED = 2  # index into SPEEDS


class ReplayModel:
    """Every position of the game, the one on screen, and the play/jump state."""

    def __init__(self, data: bytes, report: VerifyReport) -> None:
        self.report = report
        parsed = parse_log(data)
        self.record = LobbyRecord.decode(parsed.entries[0].data[1])
        game = get_game(self.record.engine)
        self.game_view = game_view(self.record.engine)
        self.display_name = game.display_name
        state: State = start_state(self.record)
        # positions[k] is the position before step k (the start for k = 0).
        self.positions: list[tuple[int, str, State]] = [(0, "start", state)]
        self.stopped = ""
        self.rollbacks: list[int] = []  # steps the log decided again (SPEC §5.5, §5.7)
        # (the decision, state hash before, state before) of every step that could be applied.
        steps: list[tuple[StepApplied, bytes, State]] = []
        hashes = [state.state_hash()]  # hashes[k]: the state hash of positions[k]
        for applied in report.applied:
            if applied.step < len(steps):
                # A rollback: the session decided this step again.  Show the history that
                # stood, as every honest peer ended up with it; the side panel says so.
                self.rollbacks.append(applied.step)
                del self.positions[applied.step + 1 :], steps[applied.step :]
                del hashes[applied.step + 1 :]
                state = self.positions[-1][2]
            try:
                after = state.apply(applied.input)
            except IllegalAction as exc:  # only reachable for logs viewed with --force
                self.stopped = f"stopped at step {applied.step}: {exc}"
                break
            steps.append((applied, hashes[-1], state))
            hashes.append(applied.state_hash)
            state = after
            label = input_text(applied.input, game.action_text)  # orders in words
            self.positions.append((applied.step + 1, label, state))
        # details[i] is what made position i (None for the start and for moves).
        # inputs[k] made positions[k + 1] (kept for words: `headless_replay`).
        self.inputs: list[Roll | Joint | Move] = [a.input for a, _, _ in steps]
        self.action_text = game.action_text
        self.details: list[Detail | None] = [
            None,
            *inspect_steps(self.record, parsed.entries, steps),
        ]
        self.turn_starts = _turn_starts(self.inputs)
        self.index = 0
        self.playing = False
        self.speed = DEFAULT_SPEED
        self.message = ""  # the answer to the last jump, shown until the next key
        self._painted: tuple[int, Painted] | None = None

    @property
    def names(self) -> list[str]:
        """Each seat's name (two seats of one nickname told apart by their keys)."""
        return list(seat_names(self.record.seats))

    @property
    def last(self) -> int:
        return len(self.positions) - 1

    @property
    def detail(self) -> Detail | None:
        return self.details[self.index]

    def go(self, delta: int) -> None:
        self.go_to(self.index + delta)

    def go_to(self, index: int) -> None:
        self.index = max(0, min(self.last, index))

    # ---------------------------------------------------------------- jumps

    def turn(self) -> int:
        """The turn the current position belongs to (0 before the first one)."""
        return bisect.bisect_right(self.turn_starts, self.index)

    def jump(self, text: str) -> bool:
        """Go to step ``N`` or, with ``tN``, to where turn N begins; False (and a message)
        when ``text`` is neither."""
        text = text.strip().lower()
        turn = text.startswith("t")
        number = text[1:] if turn else text
        if not number.isdigit():
            self.message = f"jump: type a step number or t and a turn number, not {text!r}"
            return False
        n = int(number)
        if turn:
            if not self.turn_starts:
                self.message = "jump: this game has no turns, only steps"
                return False
            if not 1 <= n <= len(self.turn_starts):
                self.message = f"jump: turns run from 1 to {len(self.turn_starts)}"
                return False
            self.go_to(self.turn_starts[n - 1])
        else:
            # The first position at or after step n (steps are unique but for rollbacks).
            labels = [step for step, _, _ in self.positions]
            self.go_to(next((i for i, s in enumerate(labels) if s >= n), self.last))
        self.message = ""
        return True

    # ---------------------------------------------------------------- play

    @property
    def steps_per_second(self) -> float:
        return SPEEDS[self.speed]

    @property
    def interval(self) -> float:
        """Seconds between two steps while playing."""
        return 1.0 / SPEEDS[self.speed]

    def faster(self) -> None:
        self.speed = min(len(SPEEDS) - 1, self.speed + 1)

    def slower(self) -> None:
        self.speed = max(0, self.speed - 1)

    def toggle_play(self) -> None:
        if not self.playing and self.index == self.last:
            self.index = 0  # playing a finished replay starts it over
        self.playing = not self.playing

    def tick(self) -> bool:
        """One step on while playing; pauses at the last position.  True while playing."""
        if self.playing:
            self.go(1)
            if self.index == self.last:
                self.playing = False
        return self.playing

    def painted(self) -> Painted:
        if self._painted is None or self._painted[0] != self.index:
            state = self.positions[self.index][2]
            shown = self.game_view
            board = paint(
                self.record.engine, shown.view(state, None), self.names, lambda: shown.render(state)
            )
            self._painted = (self.index, board)
        return self._painted[1]


def _turn_starts(inputs: list[Roll | Joint | Move]) -> list[int]:
    """Position indices where turns begin.

    A turn is a run of moves by one seat, or one secret round, together with the rolls
    just before it (a turn's dice come first): it begins at the position before them.
    """
    starts: list[int] = []
    actor: object = None
    for i, inp in enumerate(inputs):
        if isinstance(inp, Roll):
            continue
        key: object = inp.seat if isinstance(inp, Move) else "secret"
        if key != actor or isinstance(inp, Joint):
            begin = i
            while begin > 0 and isinstance(inputs[begin - 1], Roll):
                begin -= 1
            starts.append(begin)
        actor = key
    return starts


def headless_replay(data: bytes, report: VerifyReport) -> Iterator[str]:
    """Every position as text: ``## step N: WORDS`` (the step before it as the console and
    ``lantag play --headless`` say it, with the results they keep in view), the board, then
    for a roll or a secret round what it was made of (each seat's link, commitment and
    opening)."""
    model = ReplayModel(data, report)
    names, engine = model.names, model.record.engine
    for index, ((step, text, state), detail) in enumerate(
        zip(model.positions, model.details, strict=True)
    ):
        results: list[str] = []
        if index:  # in the words `lantag play --headless` printed them (one wording table)
            before = model.positions[index - 1][2]
            inp = model.inputs[index - 1]
            text, results = step_words(engine, before, inp, names, model.action_text, after=state)
        lines = [f"## step {step}: {text}", *(f"  {line}" for line in results)]
        lines.append(model.game_view.render(state))
        if detail is not None:
            lines += describe(detail)
        yield "\n".join(lines) + "\n"
    if model.stopped:
        yield f"## {model.stopped}\n"


__all__ = ["DEFAULT_SPEED", "SPEEDS", "ReplayModel", "headless_replay"]
