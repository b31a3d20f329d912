"""Tag 'em "hunt" heuristic (the ``heuristic2`` bot): gang up, strike, advance.

The first Tag 'em heuristic (``lanTag/games/tagem/bot.py``, bot ``heuristic``) weighs every
step against the risk of standing next to an enemy, and in Elimination with several
rivals it holds on purpose; its games end at the turn limit with no pawn lost.  It is
kept unchanged because logs replay their bot seats by name.  This one plays to end the
game, one action per call:

1. **Strike.**  For every enemy pawn, the best attack our Points of Movement can set up
   this turn: the attacker and helpers walk (around other pawns, stopping in a Garrison)
   to its free sides, one PoM is kept for the attack, and the modifiers are those the
   engine will read (Horde, Garrison, Cover).  The best strike with favourable odds (our
   total ahead by at least 1: 21 wins to 10 losses in 36, or better) is played: a helper's
   next step while it still raises the odds, else the attack.
2. **Advance.**  With no such strike, a pawn steps towards its goal (the nearest enemy in
   Elimination; loose flags, enemy carriers and home in the flag modes), stragglers first,
   never onto a tile next to an enemy pawn (that hands the enemy the first strike), and
   never out of a Garrison next to an enemy.
3. ``end`` when no step helps.

All scores are integers, so every peer ranks the actions alike; ``below`` only breaks
exact ties.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lanTag.bots.common import Below, best_of
from lanTag.games.tagem.board import DIRS, GameMap, Tile
from lanTag.games.tagem.bot import choose as first_heuristic
from lanTag.games.tagem.bot import fight, walking_costs
from lanTag.games.tagem.engine import TagemState
from lanTag.rules.base import Action, State

_FAR = 999
# A strike is played only when our total beats theirs by at least this much: at +1 the
# attacker wins 21 and loses 10 rolls in 36; at 0 it is a coin flip that, with three or
# more teams, only helps the teams that stay out of it.
MIN_EDGE = 1
# Helpers walk in while they raise the odds; from +3 (30 wins, 3 losses) on, the attack
# is made at once: another helper buys little and its PoM are better spent advancing.
MAX_EDGE = 3


@dataclass(frozen=True, slots=True)
class Strike:
    """A planned attack on the enemy pawn on ``target``."""

    target: int
    edge: int  # our total minus theirs, as the engine will read it
    cost: int  # PoM the helpers' walks take
    value: int  # what the plan is worth (higher is better)
    attack: Action | None  # the attack to make now, if it is ready
    step: Action | None  # otherwise the next helper step


def choose(state: State, seat: int, below: Below) -> Action:
    assert isinstance(state, TagemState)
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    hunt = _Hunt(state, seat, legal)
    strike = hunt.best_strike()
    if strike is not None:
        chosen = strike.attack if strike.attack is not None else strike.step
        assert chosen is not None
        return chosen
    if state.mode != "elimination":
        # The flag modes are won by flags, which the first heuristic already runs well
        # (lift, carry home, chase carriers); this one adds the strikes above.
        return first_heuristic(state, seat, below)
    return best_of(hunt.advance_scores(), below)


def free_costs(board: GameMap, goal: int, occupied: frozenset[int], limit: int = _FAR) -> list[int]:
    """PoM for a pawn on each cell to walk to ``goal`` around every pawn: leaving Wade costs
    2, and a pawn that enters a Garrison must stop there, so a path never passes through
    one.  Occupied cells get a cost (a pawn standing there could set out) but are not
    walked through.  Walks dearer than ``limit`` stay at _FAR (they are not searched)."""
    dist = [_FAR] * len(board.tiles)
    dist[goal] = 0
    heap = [(0, goal)]
    tiles, steps = board.tiles, board.steps
    while heap:
        d, cell = heapq.heappop(heap)
        if d > dist[cell]:
            continue
        if cell != goal and (cell in occupied or tiles[cell] == Tile.GARRISON):
            continue  # a pawn can only end its walk here
        for prev in steps[cell]:
            if prev < 0:
                continue
            nd = d + (2 if tiles[prev] == Tile.WADE else 1)
            if nd <= limit and nd < dist[prev]:
                dist[prev] = nd
                heapq.heappush(heap, (nd, prev))
    return dist


def step_counts(board: GameMap, sources: Sequence[int]) -> list[int]:
    """Steps from the nearest of ``sources`` to every cell, every tile counted as 1 and pawns
    ignored: never more than the PoM a walk takes, so a safe bound for pruning."""
    dist = [_FAR] * len(board.tiles)
    frontier = list(sources)
    for c in frontier:
        dist[c] = 0
    while frontier:
        nxt = []
        for cell in frontier:
            for n in board.steps[cell]:
                if n >= 0 and dist[n] == _FAR:
                    dist[n] = dist[cell] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


class _Hunt:
    def __init__(self, state: TagemState, seat: int, legal: Sequence[Action]) -> None:
        self.state = state
        self.seat = seat
        self.board = state.board
        self.legal = legal
        self.owner = {c: s for s, team in enumerate(state.pawns) for c in team if c >= 0}
        self.occupied = frozenset(self.owner)
        self.enemy_cells = sorted(c for c, s in self.owner.items() if s != seat)
        self.enemies = frozenset(self.enemy_cells)
        self.mine = state.pawns[seat]
        self.stopped = frozenset(state.stopped)
        self.side_costs: dict[int, list[int]] = {}
        self.carriers = {
            state.pawns[f.carrier][f.carrier_pawn] for f in state.flags if f.carrier >= 0
        }
        # Our carriers run home; they help a strike only by standing where they are.
        self.busy = frozenset(p for p, c in enumerate(self.mine) if c in self.carriers)
        self.min_edge = MIN_EDGE
        alive = state.alive()
        if state.mode == "elimination" and len(alive) == 2:
            # Two teams left and we are not ahead on pawns: the turn limit would rank us
            # level or below, so a fair fight costs nothing and may end the game.  (With a
            # third team an even trade lifts the bystander; ahead, the limit favours us.)
            (rival,) = (s for s in alive if s != seat)
            left = [sum(1 for c in state.pawns[s] if c >= 0) for s in (seat, rival)]
            if left[0] <= left[1]:
                self.min_edge = 0

    # ------------------------------------------------------------------ strikes

    def best_strike(self) -> Strike | None:
        best: Strike | None = None
        # A pawn beaten in the flag modes respawns at home, so only a carrier is worth a
        # strike there (it drops the flags); in Elimination every pawn is.
        flags = self.state.mode != "elimination"
        # Steps (each at least 1 PoM, pawns ignored) from our movable pawns: an enemy none
        # of them can reach this turn, and none touches, needs no plan.
        movers = tuple(c for p, c in enumerate(self.mine) if c >= 0 and p not in self.stopped)
        near = step_counts(self.board, movers) if movers else None
        budget = self.state.pom_left - 1
        for target in self.enemy_cells:
            if flags and target not in self.carriers:
                continue
            sides = [c for c in self.board.steps[target] if c >= 0]
            touching = any(self.owner.get(c) == self.seat for c in sides)
            if not touching and (near is None or min(near[c] for c in sides) > budget):
                continue
            strike = self.plan_strike(target)
            if strike is not None and (best is None or strike.value > best.value):
                best = strike
        return best

    def plan_strike(self, target: int) -> Strike | None:
        """The best attack on ``target`` this turn's PoM can set up, or None below the
        edge we accept (MIN_EDGE, or 0 when a fair fight cannot hurt our ranking)."""
        state, board = self.state, self.board
        budget = state.pom_left - 1  # the attack itself costs 1
        sides = [c for c in board.steps[target] if c >= 0]
        adjacent = [c for c in sides if self.owner.get(c) == self.seat]
        free = [c for c in sides if c not in self.occupied]
        # Greedy: the cheapest (walk, pawn, side) first, each pawn and side used once.
        maps = {c: self.costs_to(c) for c in free}
        walks: list[tuple[int, int, int]] = []
        for pawn, cell in enumerate(self.mine):
            if cell < 0 or cell in adjacent or pawn in self.stopped or pawn in self.busy:
                continue
            for c in free:
                cost = maps[c][cell]
                if cost <= budget:
                    walks.append((cost, pawn, c))
        walks.sort()
        helpers: list[tuple[int, int, int]] = []
        used_pawns: set[int] = set()
        used_sides: set[int] = set()
        spent = 0
        for cost, pawn, c in walks:
            if pawn in used_pawns or c in used_sides or spent + cost > budget:
                continue
            helpers.append((cost, pawn, c))
            used_pawns.add(pawn)
            used_sides.add(c)
            spent += cost
        final = adjacent + [c for _, _, c in helpers]
        if not final:
            return None
        # The attacker is the pawn whose tile gives the defender the least back.
        horde = len(final) - 1
        cover = board.tiles[target] == Tile.COVER
        guard = board.tiles[target] == Tile.GARRISON
        after = dict(self.owner)
        for _, pawn, c in helpers:
            del after[self.mine[pawn]]
            after[c] = self.seat
        foe = self.owner[target]

        def edge_from(cell: int) -> int:
            back = sum(1 for n in board.steps[cell] if n >= 0 and after.get(n) == foe) - 1
            return horde + (board.tiles[cell] == Tile.GARRISON) - cover - guard - back

        edge = max(edge_from(c) for c in final)
        if edge < self.min_edge:
            return None
        wins, losses = fight(min(edge, MAX_EDGE))
        value = 36 * (wins - losses) - spent
        now = self.edge_now(target)
        if helpers and now < min(edge, MAX_EDGE):
            # Walk the cheapest helper one step (its side is free, so its walk is not 0).
            _, pawn, c = helpers[0]
            step = self.step_towards(pawn, maps[c])
            if step is not None:
                return Strike(target, edge, spent, value, None, step)
        if now < self.min_edge:
            return None
        return Strike(target, now, 0, value, self.attack_on(target), None)

    def costs_to(self, side: int) -> list[int]:
        """free_costs to ``side``, once per call (two targets can share a side)."""
        if side not in self.side_costs:
            limit = self.state.pom_left - 1  # a walk must leave 1 PoM for the attack
            self.side_costs[side] = free_costs(self.board, side, self.occupied, limit)
        return self.side_costs[side]

    def edge_now(self, target: int) -> int:
        """The best edge of an attack on ``target`` from where our pawns stand now."""
        return max((edge for edge, _ in self.rated_attacks(target)), default=-_FAR)

    def rated_attacks(self, target: int) -> list[tuple[int, Action]]:
        """Each legal attack on ``target`` with its edge, read by the engine's own rule."""
        rated = []
        for action in self.attacks_on(target):
            a = self.state.attack_modifiers(self.seat, action)
            ours = a.attacker_horde + a.attacker_garrison - a.defender_cover
            rated.append((ours - a.defender_horde - a.defender_garrison, action))
        return rated

    def attacks_on(self, target: int) -> Iterable[Action]:
        for action in self.legal:
            if action.verb == "attack":
                pawn, d = int(action.args[0]), DIRS.index(str(action.args[1]))
                if self.board.steps[self.mine[pawn]][d] == target:
                    yield action

    def attack_on(self, target: int) -> Action:
        """The legal attack on ``target`` with the best edge (the first of equals)."""
        rated = [
            (edge - (int(action.args[0]) in self.busy), action)  # a carrier risks its flags
            for edge, action in self.rated_attacks(target)
        ]
        top = max(edge for edge, _ in rated)
        return next(action for edge, action in rated if edge == top)

    def step_towards(self, pawn: int, costs: Sequence[int]) -> Action | None:
        here = self.mine[pawn]
        best: tuple[int, Action] | None = None
        for action in self.legal:
            if action.verb == "move" and int(action.args[0]) == pawn:
                d = DIRS.index(str(action.args[1]))
                cell = self.board.steps[here][d]
                if costs[cell] < costs[here] and (best is None or costs[cell] < best[0]):
                    best = (costs[cell], action)
        return None if best is None else best[1]

    # ------------------------------------------------------------------ advancing

    def advance_scores(self) -> list[tuple[int, Action]]:
        goal = walking_costs(self.board, tuple(self.enemy_cells)) if self.enemy_cells else None
        scored: list[tuple[int, Action]] = []
        for action in self.legal:
            if action.verb != "move":
                scored.append((0, action))  # end (attacks here are below MIN_EDGE)
                if action.verb == "attack":
                    scored[-1] = (-1, action)
                continue
            pawn, d = int(action.args[0]), DIRS.index(str(action.args[1]))
            here = self.mine[pawn]
            cell = self.board.steps[here][d]
            if goal is None or self.exposed(cell):
                scored.append((-1, action))
                continue
            gained = min(goal[here], 60) - min(goal[cell], 60)
            # Stragglers first: the pawn farthest from the enemy breaks ties.
            scored.append((1000 * gained + min(goal[here], 60) if gained > 0 else -1, action))
        return scored

    def exposed(self, cell: int) -> bool:
        """Would a pawn on ``cell`` stand next to an enemy pawn?"""
        return any(n in self.enemies for n in self.board.steps[cell])
