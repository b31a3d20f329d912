"""Tag 'em heuristic: attack with the odds, close in as a group, run flags home.

Each call picks one action (a step, an attack or ``end``) by how much it improves the
acting team's position:

* **Attacks** are worth the exact odds of the two d6 with the modifiers the engine will
  read off the board (Horde, Garrison, Cover): (wins - losses) out of 36, times what a
  pawn is worth (a pawn lost for good in Elimination, a respawn and a tag in the flag
  modes), plus a flag knocked loose.  Attacks at even or worse odds are not made.
* **Steps** are scored by the change in walking distance (leaving Wade costs 2) to the
  pawn's goal: the nearest enemy pawn in Elimination; in the flag modes the nearest
  flag it may lift or enemy carrier, and home for a carrier.  Lifting a flag and bringing
  it home are worth far more.  A step that ends next to enemy pawns counts the attack it
  makes possible and the best attack the enemy could make back.
* ``end`` is taken when no step or attack is an improvement.

All values are integers (dice odds in 36ths), so every peer ranks the actions alike.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from functools import lru_cache

from lanTag.bots.common import Below, best_of
from lanTag.games.tagem.board import DIRS, GameMap, Tile
from lanTag.games.tagem.engine import TagemState
from lanTag.rules.base import Action, State

_FAR = 999
_STEP = 36  # one step of walking distance gained
_FLAG = 200  # a flag knocked loose, per flag, before the odds
# (wins, losses) out of 36 for an attacker whose modifiers exceed the defender's by d.
_FIGHT = {
    d: (
        sum(1 for a in range(1, 7) for b in range(1, 7) if a + d > b),
        sum(1 for a in range(1, 7) for b in range(1, 7) if a + d < b),
    )
    for d in range(-12, 13)
}


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, TagemState)
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    plan = _Plan(state, seat)
    return best_of([(plan.score(action), action) for action in legal], below)


# A memo of a pure function of its arguments (the map and the target cells): it can
# never change an answer, only save recomputing the same map within a turn.
@lru_cache(maxsize=512)
def walking_costs(board: GameMap, targets: tuple[int, ...]) -> tuple[int, ...]:
    """Walking cost from every cell to the nearest target (leaving Wade costs 2)."""
    dist = [_FAR] * len(board.tiles)
    heap = [(0, t) for t in targets]
    for t in targets:
        dist[t] = 0
    heapq.heapify(heap)
    while heap:
        d, cell = heapq.heappop(heap)
        if d > dist[cell]:
            continue
        for prev in board.steps[cell]:
            if prev < 0:
                continue
            nd = d + (2 if board.tiles[prev] == Tile.WADE else 1)
            if nd < dist[prev]:
                dist[prev] = nd
                heapq.heappush(heap, (nd, prev))
    return tuple(dist)


def fight(edge: int) -> tuple[int, int]:
    """(attacker wins, attacker loses) out of 36 at modifier difference ``edge``."""
    return _FIGHT[max(-12, min(12, edge))]


class _Plan:
    def __init__(self, state: TagemState, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.board = state.board
        self.elimination = state.mode == "elimination"
        # What a fight won or lost is worth to us.  Elimination ranks by pawns left: a pawn
        # lost counts against us and every rival, a pawn taken only against one rival.  The
        # flag modes rank by tags: ours count against everyone, a lost pawn respawns.
        rivals = max(1, len(state.alive()) - 1)
        self.approach = 1  # +1: close in on the enemy; 0: hold; -1: keep away
        if self.elimination:
            self.gain, self.loss = 40 // rivals, 40
            # The ranking counts pawns left, not pawns taken: ahead, keep them out of reach;
            # level with several rivals, let them thin each other out; behind, go and fight.
            left = [sum(1 for c in team if c >= 0) for team in state.pawns]
            lead = left[seat] - max(left[s] for s in state.alive() if s != seat)
            if lead > 0:
                self.approach, self.gain = -1, self.gain // 2
            elif lead == 0 and rivals > 1:
                self.approach = 0  # hunting here measured worse: see docs/bots.md
        else:
            self.gain, self.loss = 20, 10 // rivals + 10
        self.bias = 80  # offering the enemy an even fight: their choice, so a small loss
        self.around: dict[int, tuple[int, ...]] = {}  # enemy cell -> distances to its free sides
        self.owner = {
            c: s for s, team in enumerate(state.pawns) for c in team if c >= 0
        }  # cell -> seat
        self.enemy_cells = [c for c, s in self.owner.items() if s != seat]
        self.home = self.board.starts[seat]
        self.carried_at: dict[int, int] = {}  # cell -> flags carried by the pawn there
        for f in state.flags:
            if f.carrier >= 0:
                cell = state.pawns[f.carrier][f.carrier_pawn]
                self.carried_at[cell] = self.carried_at.get(cell, 0) + 1
        lift = [f.cell for f in state.flags if f.cell >= 0 and f.owner != seat]
        enemy_carriers = [
            state.pawns[f.carrier][f.carrier_pawn]
            for f in state.flags
            if f.carrier >= 0 and f.carrier != seat
        ]
        self.flag_cells = frozenset(lift)
        self.to_enemy = self.distances(self.enemy_cells)
        self.to_home = self.distances([self.home])
        # In the flag modes, loose flags and enemy carriers draw every free pawn.
        self.to_goal = self.distances(lift + enemy_carriers) if lift or enemy_carriers else None

    def distances(self, targets: Sequence[int]) -> tuple[int, ...]:
        return walking_costs(self.board, tuple(sorted(set(targets))))

    # -------------------------------------------------------------- scoring

    def score(self, action: Action) -> int:
        if action.verb == "end":
            return 0
        pawn, d = int(action.args[0]), DIRS.index(str(action.args[1]))
        here = self.state.pawns[self.seat][pawn]
        target = self.board.steps[here][d]
        if action.verb == "attack":
            return self.attack_value(here, target, self.owner, self.carried_at) - 1
        # Moves must be a strict improvement: a sideways shuffle is no reason to go on.
        return 2 * (self.cell_value(pawn, target, here) - self.cell_value(pawn, here, here)) - 1

    def attack_value(
        self,
        attacker: int,
        defender: int,
        owner: dict[int, int],
        carried: dict[int, int],
        helpers: int = 0,
    ) -> int:
        """Expected value to us (in 36ths) of the pawn on ``attacker`` attacking the pawn on
        ``defender``, one of them ours: the pawn, and any flags the loser drops."""
        a_seat, d_seat = owner[attacker], owner[defender]
        steps, tiles = self.board.steps, self.board.tiles
        horde = sum(1 for c in steps[defender] if c >= 0 and owner.get(c) == a_seat) - 1
        back = sum(1 for c in steps[attacker] if c >= 0 and owner.get(c) == d_seat) - 1
        edge = (
            horde
            + helpers
            + (tiles[attacker] == Tile.GARRISON)
            - (tiles[defender] == Tile.COVER)
            - back
            - (tiles[defender] == Tile.GARRISON)
        )
        wins, losses = fight(edge)
        if a_seat != self.seat:  # being attacked: their wins are our losses
            wins, losses = losses, wins
            attacker, defender = defender, attacker
        taken = self.gain + _FLAG * carried.get(defender, 0)
        lost = self.loss + _FLAG * carried.get(attacker, 0)
        return wins * taken - losses * lost

    def cell_value(self, pawn: int, cell: int, origin: int) -> int:
        """How good it is for our ``pawn`` (now on ``origin``) to stand on ``cell``."""
        if self.carried_at.get(origin, 0) or cell in self.flag_cells:
            if cell == self.home:
                return 100_000  # Capture-The-Flag won, or every carried flag captured
            # A carrier is worth more than any free pawn, the nearer home the better.
            value = 6000 - 4 * _STEP * min(self.to_home[cell], 40)
        elif self.to_goal is not None:
            value = -2 * _STEP * min(self.to_goal[cell], 30) - _STEP * min(self.to_enemy[cell], 30)
        elif self.approach >= 0:
            value = -self.approach * _STEP * min(self.to_enemy[cell], 30)
        else:
            value = _STEP * min(self.to_enemy[cell], 8)
        return value + self.contact_value(cell, origin)

    def contact_value(self, cell: int, origin: int) -> int:
        """Standing on ``cell`` next to enemy pawns: half the best attack we could make
        from it (PoM may run out first; pawns that can still come and help this turn count
        as Horde) minus the best attack the enemy could make on it, where an even fight
        already counts against us (it is the enemy's choice to take it)."""
        owner = dict(self.owner)
        carried = dict(self.carried_at)
        del owner[origin]
        owner[cell] = self.seat
        flags = carried.pop(origin, 0)
        if flags or cell in self.flag_cells:
            carried[cell] = flags + (cell in self.flag_cells)
        cost = 2 if self.board.tiles[origin] == Tile.WADE else 1
        pom = self.state.pom_left - (cost if cell != origin else 0)
        ours, theirs = 0, 0
        for n in self.board.steps[cell]:
            if n >= 0 and n in owner and owner[n] != self.seat:
                if pom > 0:
                    helpers = self.helpers(n, owner, origin, pom - 1)
                    ours = max(ours, self.attack_value(cell, n, owner, carried, helpers))
                theirs = max(theirs, self.bias - self.attack_value(n, cell, owner, carried))
        return max(0, ours) // 2 - max(0, theirs)

    def helpers(self, enemy: int, owner: dict[int, int], mover: int, budget: int) -> int:
        """Our other pawns that could still step next to ``enemy`` this turn (at most 2)."""
        if budget <= 0:
            return 0
        if enemy not in self.around:
            free = [c for c in self.board.steps[enemy] if c >= 0 and c not in self.owner]
            self.around[enemy] = self.distances(free) if free else (_FAR,) * len(self.board.tiles)
        dist = self.around[enemy]
        stopped = {self.state.pawns[self.seat][p] for p in self.state.stopped}
        near = set(self.board.steps[enemy])
        count = sum(
            1
            for c in self.state.pawns[self.seat]
            if c >= 0 and c != mover and c not in stopped and c not in near and dist[c] <= budget
        )
        return min(count, 2)
