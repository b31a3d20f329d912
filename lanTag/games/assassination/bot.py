"""TAG: The Assassination Game heuristic: the victim runs for bases, assassins close in.

Moves are exact-count walks (no step straight back), taken one ``step`` at a time, so at
every step the bot scores every way to finish the roll:

* The victim: touching the last base wins; touching a new base is worth a lot (and a
  base is a safe square: assassins may not land on one).  Otherwise it ends where the
  next assassin (only one moves before the victim's next turn) has the fewest die faces
  that land on it, then where most of its own next rolls reach an untouched base.  A
  null is re-rolled when the average best outcome of a fresh roll beats staying put.
* An assassin lands on the victim whenever a path does (a catch: a small victory);
  otherwise it ends where most faces of its next roll would land on the victim's square,
  then as close to it as possible.

Scores are integers (die faces out of six, walking distances), so every peer ranks the
candidates identically.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from lanTag.bots.common import Below, best_of
from lanTag.games.assassination.board import MOVE, NULL, SAFE_HOUSE, Board
from lanTag.games.assassination.engine import ALL_BASES, KEEP, REROLL, AssassinationState
from lanTag.rules.base import Action, State

_WIN = 10_000_000
_CATCH = 1_000_000
_FACES = range(1, 6)  # the piecepack die's moving faces: ace (1) to 5; null moves nobody


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, AssassinationState)
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    plan = _Plan(state)
    if state.phase == NULL:
        return plan.null_answer()
    assert state.phase == MOVE and seat == state.mover
    board, here = state.board, state.positions[seat]
    scored = []
    for action in legal:
        if action.verb == "leave":
            target = board.cell_of(str(action.args[0]))
        else:
            target = board.toward(here, str(action.args[0]))
        assert target is not None  # the engine only offers steps onto real squares
        scored.append((plan.best(target, here, state.steps_left - 1), action))
    return best_of(scored, below)


def walk_ends(
    board: Board, start: int, came_from: int, steps: int, blocked: frozenset[int]
) -> set[int]:
    """Squares where an exact ``steps``-step walk from ``start`` can end (never straight
    back, never through ``blocked``)."""
    frontier = {(start, came_from)}
    for _ in range(steps):
        frontier = {
            (nxt, cell)
            for cell, prev in frontier
            for nxt in board.neighbours(cell)
            if nxt != prev and nxt not in blocked
        }
    return {cell for cell, _ in frontier}


class _Plan:
    """Everything one decision needs, computed once: who moves next, the bases left."""

    def __init__(self, state: AssassinationState) -> None:
        self.state = state
        self.board = state.board
        self.mover = state.mover
        self.is_victim = state.mover == state.victim
        assassins = [p for s, p in enumerate(state.positions) if s != state.victim]
        self.assassin_squares = frozenset(assassins)
        self.coins = state.coins[state.victim]
        self.value_cache: dict[int, int] = {}
        if self.is_victim:
            following = (state.last_assassin + 1) % state.seats
            if following == state.victim:
                following = (following + 1) % state.seats
            self.next_assassin = state.positions[following]
        self.victim_square = state.positions[state.victim]

    # -------------------------------------------------------------- path search

    def best(self, cell: int, came_from: int, left: int) -> int:
        """Best end value over every way to walk ``left`` more steps from ``cell``."""
        if left == 0:
            return self.end_value(cell)
        blocked = self.assassin_squares if self.is_victim else frozenset()
        last = left == 1
        values = [
            self.best(nxt, cell, left - 1)
            for nxt in self.board.neighbours(cell)
            if nxt != came_from
            and nxt not in blocked
            and not (last and not self.is_victim and nxt in self.board.bases)
        ]
        # A dead end cannot happen on a legal first step: the engine only offers steps that
        # can finish the roll; a dead branch deeper down simply offers nothing.
        return max(values, default=-_WIN * 10)

    def end_value(self, cell: int) -> int:
        if cell not in self.value_cache:
            if self.is_victim:
                self.value_cache[cell] = self._victim_value(cell)
            else:
                self.value_cache[cell] = self._assassin_value(cell)
        return self.value_cache[cell]

    # -------------------------------------------------------------- the victim

    def _victim_value(self, cell: int) -> int:
        board = self.board
        coins = self.coins
        if cell in board.bases:
            coins |= 1 << board.bases.index(cell)
            if coins == ALL_BASES:
                return _WIN
            danger = 0  # "You may not land on a base": a victim on a base cannot be caught
        else:
            danger = self._catch_faces(self.next_assassin, cell)
        touched = coins.bit_count()
        # The coins are lost when caught (unless variation A), so danger costs more the
        # more is at stake.
        at_stake = 30 + (0 if self.state.variation_a else 25 * touched)
        next_faces = self._base_faces(cell, coins)
        return (
            100 * touched * 60
            - 100 * danger * at_stake
            + 100 * next_faces
            - self._to_base(cell, coins)
        )

    def _catch_faces(self, assassin: int, cell: int) -> int:
        """Die faces that would let the assassin on ``assassin`` land on ``cell``."""
        return sum(1 for r in _FACES if cell in walk_ends(self.board, assassin, -2, r, frozenset()))

    def _base_faces(self, cell: int, coins: int) -> int:
        """Faces of the victim's next roll that can end on a base it has not touched."""
        wanted = {b for i, b in enumerate(self.board.bases) if not coins >> i & 1}
        return sum(
            1 for r in _FACES if wanted & walk_ends(self.board, cell, -2, r, self.assassin_squares)
        )

    def _to_base(self, cell: int, coins: int) -> int:
        wanted = [b for i, b in enumerate(self.board.bases) if not coins >> i & 1]
        dist = _distances(self.board, [cell], self.assassin_squares)
        return min((dist.get(b, 20) for b in wanted), default=0)

    def null_answer(self) -> Action:
        """Re-roll when a fresh roll's average best end beats staying where the victim is."""
        here = self.state.positions[self.mover]
        stay = self.end_value(here) if here != SAFE_HOUSE else self._safe_house_value()
        total = stay  # a null again: treated as staying put
        for roll in _FACES:
            ends = [self.best(n, here, roll - 1) for n in self._first_steps(here)]
            total += max([v for v in ends if v > -_WIN * 10], default=stay)
        return REROLL if total > 6 * stay else KEEP

    def _first_steps(self, here: int) -> Iterable[int]:
        return (n for n in self.board.neighbours(here) if n not in self.assassin_squares)

    def _safe_house_value(self) -> int:
        touched = self.coins.bit_count()
        return 100 * touched * 60 - 2000

    # -------------------------------------------------------------- assassins

    def _assassin_value(self, cell: int) -> int:
        victim = self.victim_square
        if cell == victim:
            return _CATCH
        # A victim in the Safe House must come out onto a square bordering it.
        targets = list(self.board.neighbours(SAFE_HOUSE)) if victim == SAFE_HOUSE else [victim]
        faces = max(self._catch_faces(cell, t) for t in targets)
        dist = _distances(self.board, [cell], frozenset())
        return 100 * faces - min(dist.get(t, 20) for t in targets)


def _distances(board: Board, starts: list[int], blocked: frozenset[int]) -> dict[int, int]:
    dist = dict.fromkeys(starts, 0)
    queue = deque(starts)
    while queue:
        cell = queue.popleft()
        for nxt in board.neighbours(cell):
            if nxt not in dist and nxt not in blocked:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return dist
