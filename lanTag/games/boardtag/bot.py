"""Board Tag heuristic: Runners bank points out of IT's reach; IT tags the leader cheaply.

* **Threat.** Before the coming IT Phase the bot works out every square IT could tag:
  all positions and facings it can reach with its free jump, its free turn and the paid
  ones its die can afford (never the last point).
* **Runners** score each way to finish the die's move (``stay``, or steps then ``done``):
  10 per point on the die after the move, minus 30 (a lost point and having to play IT)
  if the die ends on a threatened square, plus a little for distance from IT.  ``stay``
  earns a point, so a safe die stays.  Dice are picked most-urgent first (the biggest
  gain from moving versus standing still), so a threatened die escapes before others
  fill its escape squares.
* **IT** searches its jump/turn sequences (cheapest first) for a tag, preferring the
  leader's die (a player on three sixes above all: letting them stand loses), and pays
  as few points as possible.  With no tag in reach it spends only free moves, to end
  near the dice without jumping next to any (which would give them a point), and ends.
* **Placing** a die (setup, or the old IT die): a free edge square out of reach, far
  from IT.

Scores are integers, so every peer ranks the candidates identically.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from lanTag.bots.common import Below, best_of
from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import FACE, IT, MAX_SCORE, MIN_SCORE, OFF, PLACE, RETURN, RUN
from lanTag.games.boardtag.engine import BoardTagState
from lanTag.rules.base import Action, State

_POINT = 10  # one pip on a die
_THREAT = 30  # a threatened die: it may lose a point and make its owner IT
_TAG = 200  # passing IT on is worth far more than the pips a few paid moves cost
_SIXES = 100_000  # tagging a player on three sixes, or losing the game
_MAX_EXTRA_STEPS = 2  # paid Runner steps worth considering: each costs a point

Config = tuple[int, str]  # (IT's intersection, facing)


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, BoardTagState)
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    if state.phase in (PLACE, RETURN):
        return _place(state, legal, below)
    if state.phase == FACE:
        return _face(state, legal, below)
    if state.phase == RUN:
        return _run(state, legal, below)
    assert state.phase == IT
    return _it_phase(state, legal, below)


# ------------------------------------------------------------------ IT's reach


def _move_table() -> dict[Config, tuple[tuple[Action, Config, bool], ...]]:
    """(action, new config, is a jump) for every jump and turn from every config."""
    table = {}
    for point in range(bb.LATTICE * bb.LATTICE):
        for facing in bb.FACINGS:
            moves = []
            for kind in bb.JUMPS:
                to = bb.jump_target(point, facing, kind)
                if to is not None:
                    moves.append((Action("jump", (kind,)), (to, facing), True))
            for face in bb.FACINGS:
                if face != facing:
                    moves.append((Action("face", (face,)), (point, face), False))
            table[(point, facing)] = tuple(moves)
    return table


# Built once at import (a constant, like the board itself): the search runs for every
# Runner decision, and building Actions on the fly dominated its cost.
_IT_MOVES = _move_table()
_FRONT = {
    (p, f): bb.front_squares(p, f) for p in range(bb.LATTICE * bb.LATTICE) for f in bb.FACINGS
}


def it_plans(
    start: Config, jumped: bool, turned: bool, die_score: int
) -> dict[Config, tuple[int, Action | None]]:
    """Every config IT can reach this phase: (points paid, first action of a cheapest way).

    The first jump and the first turn are free; every other costs the IT die a point and
    the die never spends its last one.  A 0-1 breadth-first search over (config, free
    jump used, free turn used) finds the cheapest way to each config.
    """
    budget = die_score - MIN_SCORE
    best: dict[tuple[Config, bool, bool], int] = {(start, jumped, turned): 0}
    first: dict[tuple[Config, bool, bool], Action | None] = {(start, jumped, turned): None}
    queue: deque[tuple[Config, bool, bool]] = deque([(start, jumped, turned)])
    while queue:
        node = queue.popleft()
        config, j, t = node
        paid = best[node]
        for action, nxt, is_jump in _IT_MOVES[config]:
            cost = int(j) if is_jump else int(t)
            if paid + cost > budget:
                continue
            key = (nxt, j or is_jump, t or not is_jump)
            if key in best and best[key] <= paid + cost:
                continue
            best[key] = paid + cost
            first[key] = first[node] or action
            if cost:
                queue.append(key)
            else:
                queue.appendleft(key)
    out: dict[Config, tuple[int, Action | None]] = {}
    for key in sorted(best, key=lambda k: (best[k], str(first[k]))):
        out.setdefault(key[0], (best[key], first[key]))
    return out


def threatened_squares(state: BoardTagState, facings: tuple[str, ...] = ()) -> frozenset[int]:
    """Squares IT can tag in its coming phase (from any of ``facings``, default its own)."""
    score = state.dice[state.it_die].score if state.it_die != OFF else MIN_SCORE
    squares: set[int] = set()
    for facing in facings or (state.it_facing,):
        fresh = state.phase != IT
        jumped = not fresh and state.jumps > 0
        turned = not fresh and state.turns > 0
        for point, face in it_plans((state.it_point, facing), jumped, turned, score):
            squares.update(_FRONT[point, face])
    return frozenset(squares)


def _distance(point: int, square: int) -> int:
    """Twice the Chebyshev distance from an intersection to a square's centre."""
    x, y = bb.point_xy(point)
    col, row = square % bb.SIZE, square // bb.SIZE
    return max(abs(2 * col + 1 - 2 * x), abs(2 * row + 1 - 2 * y))


# ------------------------------------------------------------------ setup


def _place(state: BoardTagState, legal: Sequence[Action], below: Below) -> Action:
    # In setup IT's facing is chosen later, so every facing counts.
    threat = threatened_squares(state, tuple(bb.FACINGS) if state.phase == PLACE else ())
    scored = []
    for action in legal:
        square = bb.parse_square(str(action.args[0]))
        assert square is not None
        value = _distance(state.it_point, square) - (100 if square in threat else 0)
        scored.append((value, action))
    return best_of(scored, below)


def _face(state: BoardTagState, legal: Sequence[Action], below: Below) -> Action:
    scored = []
    for action in legal:
        facing = str(action.args[0])
        # Jumps go forward-ish, so face the crowd of other players' dice.
        fx, fy = bb.FACINGS[facing]
        x, y = bb.point_xy(state.it_point)
        value = sum(
            (2 * (d.square % bb.SIZE) + 1 - 2 * x) * fx
            + (2 * (d.square // bb.SIZE) + 1 - 2 * y) * fy
            for d in state.dice
            if d.square != OFF and d.owner != state.it_seat
        )
        scored.append((value, action))
    return best_of(scored, below)


# ------------------------------------------------------------------ the Run Phase


class _Runner:
    """Scores every way to finish one die's move."""

    def __init__(self, state: BoardTagState, die: int, threat: frozenset[int]) -> None:
        self.state = state
        self.die = die
        runner = state.dice[die]
        self.can_gain = runner.owner != state.it_seat
        self.threat = threat if self.can_gain else frozenset()
        self.taken = state.occupied() - {runner.square}
        self.near_it = frozenset(bb.touching_squares(state.it_point))
        self.cache: dict[tuple[int, int, bool, int], int] = {}

    def end_value(self, square: int, score: int) -> int:
        value = _POINT * score + _distance(self.state.it_point, square) // 4
        return value - _THREAT if square in self.threat else value

    def stay_value(self, square: int, score: int) -> int:
        return self.end_value(square, min(MAX_SCORE, score + 1) if self.can_gain else score)

    def after_step(self, square: int, score: int, gained: bool, steps: int) -> tuple[int, bool]:
        """The score and gained flag after a step onto ``square`` (as the engine counts)."""
        score -= 0 if steps == 0 else 1
        if square in self.near_it and not gained:
            gained = True
            if self.can_gain and score < MAX_SCORE:
                score += 1
        return score, gained

    def best(self, square: int, score: int, gained: bool, steps: int) -> int:
        """Best value after standing on ``square`` having taken ``steps`` (>= 1) steps."""
        key = (square, score, gained, steps)
        if key not in self.cache:
            value = self.end_value(square, score)  # "done"
            if steps <= _MAX_EXTRA_STEPS and score > MIN_SCORE:
                for nxt in self.neighbours(square):
                    s, g = self.after_step(nxt, score, gained, steps)
                    value = max(value, self.best(nxt, s, g, steps + 1))
            self.cache[key] = value
        return self.cache[key]

    def neighbours(self, square: int) -> list[int]:
        out = []
        for direction in bb.STEPS:
            to = bb.step_target(square, direction)
            if to is not None and to not in self.taken:
                out.append(to)
        return out

    def scored(self, legal: Sequence[Action]) -> list[tuple[int, Action]]:
        st = self.state
        runner = st.dice[self.die]
        out = []
        for action in legal:
            if action.verb == "stay":
                out.append((self.stay_value(runner.square, runner.score), action))
            elif action.verb == "done":
                out.append((self.end_value(runner.square, runner.score), action))
            else:
                to = bb.step_target(runner.square, str(action.args[0]))
                assert to is not None
                s, g = self.after_step(to, runner.score, st.gained_near_it, st.steps)
                out.append((self.best(to, s, g, st.steps + 1), action))
        return out

    def urgency(self) -> int:
        """How much better the best move is than standing still."""
        runner = self.state.dice[self.die]
        stay = self.stay_value(runner.square, runner.score)
        moves = [
            self.best(to, *self.after_step(to, runner.score, False, 0), 1)
            for to in self.neighbours(runner.square)
        ]
        return max([stay, *moves]) - stay


def _run(state: BoardTagState, legal: Sequence[Action], below: Below) -> Action:
    threat = threatened_squares(state)
    if state.active_die != OFF:
        return best_of(_Runner(state, state.active_die, threat).scored(legal), below)
    scored = []
    for action in legal:  # "pick <square>"
        square = bb.parse_square(str(action.args[0]))
        assert square is not None
        die = state.die_at(square)
        assert die is not None
        scored.append((_Runner(state, die, threat).urgency(), action))
    return best_of(scored, below)


# ------------------------------------------------------------------ the IT Phase


def _it_phase(state: BoardTagState, legal: Sequence[Action], below: Below) -> Action:
    totals = state.totals()
    sixes = {
        s
        for s in range(state.seats)
        if all(state.dice[i].score == MAX_SCORE for i in range(3 * s, 3 * s + 3))
    }

    def target_value(square: int) -> int:
        die = state.die_at(square)
        assert die is not None
        owner = state.dice[die].owner
        return _TAG + (_SIXES if owner in sixes else 0) + 2 * totals[owner] + state.dice[die].score

    plans = it_plans(
        (state.it_point, state.it_facing),
        state.jumps > 0,
        state.turns > 0,
        state.dice[state.it_die].score,
    )
    scored: list[tuple[int, Action]] = []
    for (point, facing), (paid, first) in plans.items():
        for square in _FRONT[point, facing]:
            die = state.die_at(square)
            if die is None or state.dice[die].owner == state.it_seat:
                continue
            value = target_value(square) - _POINT * paid
            scored.append((value, first or Action("tag", (bb.square_name(square),))))
    if scored:
        return best_of(scored, below)
    return best_of(_reposition(state, legal), below)


def _reposition(state: BoardTagState, legal: Sequence[Action]) -> list[tuple[int, Action]]:
    """No tag in reach: end here or after the free jump, wherever IT's next phase would
    threaten the most dice (a threatened die must flee instead of standing still for a
    point), counting that dice IT lands next to gain a point when this phase ends."""
    others = [d.square for d in state.dice if d.square != OFF and d.owner != state.it_seat]
    score = state.dice[state.it_die].score

    def spot_value(point: int, jumped_to: bool) -> int:
        reach: set[int] = set()
        for config in it_plans((point, state.it_facing), False, False, score):
            reach.update(_FRONT[config])
        pressure = sum(1 for sq in others if sq in reach)
        near = sum(1 for sq in bb.touching_squares(point) if sq in others) if jumped_to else 0
        closest = min((_distance(point, sq) for sq in others), default=0)
        return 4 * (_POINT * (pressure - near) - closest)

    scored = [(spot_value(state.it_point, False) + 1, Action("end"))]  # +1: ending breaks ties
    if state.jumps == 0:
        for action in legal:
            if action.verb == "jump":
                to = bb.jump_target(state.it_point, state.it_facing, str(action.args[0]))
                assert to is not None
                scored.append((spot_value(to, True), action))
    return scored
