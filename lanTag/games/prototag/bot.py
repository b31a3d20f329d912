"""Prototag heuristic: the tagged player hunts, the others keep out of reach.

A move is one ``step`` per tile, so at every step the bot looks at every way to finish
this turn (at most 3**5 paths for a D6) and scores where each path ends:

* The tagged player takes any path that lands on a player it may attack (a battle is won
  half the time); a path that ends the game without a battle is the worst there is;
  otherwise it ends as close as possible to the nearest player it may attack.
* Everyone else ends where the tagged player's next roll is least likely to reach them
  (the tagged player needs a roll of at least the walking distance, counting players in
  the way and immunity), then as far away as possible, then with room to move.
* Rock-paper-scissors is uniformly random: the only unexploitable choice.

Scores are integers so every peer ranks the candidates identically.
"""

from __future__ import annotations

from collections import deque

from lanTag.bots.common import Below, best_of, uniform
from lanTag.games.prototag.board import STEP_DELTAS, Tile, on_board
from lanTag.games.prototag.engine import PrototagState
from lanTag.games.prototag.state import MOVE, RPS
from lanTag.rules.base import Action, State

_FAR = 99  # distance of a tile the chaser cannot reach at all
_BATTLE = 1_000_000  # landing on a player: half the time the tag passes on
_LOST = -1_000_000  # ending the game while tagged without a battle


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, PrototagState)
    if state.phase == RPS:
        return uniform(state, seat, below)
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    assert state.phase == MOVE and seat == state.mover
    scorer: _Scorer = _Chaser(state) if seat == state.tagged else _Runner(state)
    here = state.positions[seat]
    scored = []
    for action in legal:
        d_row, d_col = STEP_DELTAS[str(action.args[0])]
        target = (here[0] + d_row, here[1] + d_col)
        scored.append((scorer(target, frozenset(state.path) | {target}, 1), action))
    return best_of(scored, below)


def _neighbours(tile: Tile, size: int) -> list[Tile]:
    out = []
    for d_row, d_col in STEP_DELTAS.values():
        nxt = (tile[0] + d_row, tile[1] + d_col)
        if on_board(nxt, size):
            out.append(nxt)
    return out


def _distances(start: Tile, size: int, walls: frozenset[Tile]) -> dict[Tile, int]:
    """Walking distances from ``start``; ``walls`` may be entered but not walked through
    (a tagged player stops on the first player it reaches)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        tile = queue.popleft()
        if tile in walls and tile != start:
            continue
        for nxt in _neighbours(tile, size):
            if nxt not in dist:
                dist[nxt] = dist[tile] + 1
                queue.append(nxt)
    return dist


def _reach_needed(distance: int, immunity_left: int) -> int:
    """Path length the chaser needs to land on a player ``distance`` away whose tile is
    blocked for its next ``immunity_left`` steps (paths on a grid keep their parity)."""
    if distance > immunity_left:
        return distance
    need = immunity_left + 1
    return need if (need - distance) % 2 == 0 else need + 1


class _Scorer:
    """Scores this turn's remaining paths for the mover; called as ``scorer(tile, visited,
    steps_taken)`` after the first step to ``tile``."""

    def __init__(self, state: PrototagState) -> None:
        self.state = state
        self.size = state.rules.board_size
        self.mover = state.mover
        self.others = {tile for s, tile in enumerate(state.positions) if s != state.mover}

    def __call__(self, tile: Tile, visited: frozenset[Tile], taken: int) -> int:
        return self.best(tile, visited, taken)

    def best(self, tile: Tile, visited: frozenset[Tile], taken: int) -> int:
        raise NotImplementedError


class _Runner(_Scorer):
    def __init__(self, state: PrototagState) -> None:
        super().__init__(state)
        chaser = state.positions[state.tagged]
        walls = frozenset(t for s, t in enumerate(state.positions) if s != state.mover)
        self.from_chaser = _distances(chaser, self.size, walls)
        rules = state.rules
        self.reach = min(rules.tagged_die, rules.end_steps - state.tagged_steps)
        self.faces = rules.tagged_die
        self.immunity = state.immunity_left if state.immune == state.mover else 0
        self.cache: dict[Tile, int] = {}

    def best(self, tile: Tile, visited: frozenset[Tile], taken: int) -> int:
        left = self.state.steps_left - taken
        if left > 0:
            options = [
                self.best(nxt, visited | {nxt}, taken + 1)
                for nxt in _neighbours(tile, self.size)
                if nxt not in visited and nxt not in self.others
            ]
            if options:
                return max(options)
        return self.end_value(tile)  # all steps taken, or locked in

    def end_value(self, tile: Tile) -> int:
        if tile not in self.cache:
            need = _reach_needed(self.from_chaser.get(tile, _FAR), self.immunity)
            # Faces of the chaser's die that reach this tile, out of ``faces``.
            danger = max(0, self.faces - need + 1) if need <= self.reach else 0
            room = sum(1 for n in _neighbours(tile, self.size) if n not in self.others)
            self.cache[tile] = -10_000 * danger + 10 * min(need, 2 * self.size) + room
        return self.cache[tile]


class _Chaser(_Scorer):
    def __init__(self, state: PrototagState) -> None:
        super().__init__(state)
        self.left_in_game = state.rules.end_steps - state.tagged_steps
        self.to_target: list[dict[Tile, int]] = []
        for s, tile in enumerate(state.positions):
            if s == state.mover:
                continue
            walls = frozenset(t for o, t in enumerate(state.positions) if o not in (s, state.mover))
            self.to_target.append(_distances(tile, self.size, walls))
        self.cache: dict[Tile, int] = {}

    def blocked_at(self, taken: int) -> Tile | None:
        """The immune player's tile while it is still blocked for step number ``taken``."""
        st = self.state
        if st.immune >= 0 and taken <= st.immunity_left:
            return st.positions[st.immune]
        return None

    def best(self, tile: Tile, visited: frozenset[Tile], taken: int) -> int:
        if tile in self.others:
            return _BATTLE - taken  # a battle: the sooner the better
        if taken >= self.left_in_game:
            return _LOST  # the count reaches the end while this player is still tagged
        left = self.state.steps_left - taken
        if left > 0:
            blocked = self.blocked_at(taken + 1)
            options = [
                self.best(nxt, visited | {nxt}, taken + 1)
                for nxt in _neighbours(tile, self.size)
                if nxt not in visited and nxt != blocked
            ]
            if options:
                return max(options)
        return self.end_value(tile)

    def end_value(self, tile: Tile) -> int:
        if tile not in self.cache:
            dists = sorted(d.get(tile, _FAR) for d in self.to_target)
            # Nearest target first; the sum of the rest breaks ties towards the crowd.
            self.cache[tile] = -100 * dists[0] - sum(dists[1:])
        return self.cache[tile]
