"""Tag 'em's move and attack resolution on a scratch copy of one state (used by tagem.py)."""

from __future__ import annotations

from typing import Generic, TypeVar

from lanTag.games.tagem.board import DIRS, GameMap, Tile
from lanTag.games.tagem.pieces import Attack, Flag
from lanTag.games.tagem.state import TagemFields
from lanTag.rules.base import Fact

S = TypeVar("S", bound=TagemFields)


def describe_move(
    board: GameMap, seat: int, pawn: int, way: str, here: int, target: int
) -> tuple[int, Fact, bool]:
    """A pawn's step from ``here`` to ``target`` (direction ``way``): its PoM cost, the event
    fact, and whether it ends garrisoned (Play.move and TagemState's plain-move path)."""
    tiles = board.tiles
    cost = 2 if tiles[here] == Tile.WADE else 1
    garrisoned = tiles[target] == Tile.GARRISON
    return cost, ("moves", seat, pawn, way, target, cost, int(garrisoned)), garrisoned


class Play(Generic[S]):
    """Scratch copy of one state's changing parts, used within a single _apply only."""

    def __init__(self, state: S) -> None:
        self.state = state
        self.board = state.board
        self.pawns = list(state.pawns)  # teams stay tuples: place() swaps in a changed one
        self.flags = list(state.flags)
        self.out = list(state.out)
        self.tags = list(state.tags)
        self.stopped = list(state.stopped)
        self.turn, self.round, self.pom_left = state.turn, state.round, state.pom_left
        self.winner = state.winner
        self.events: list[Fact] = []

    def freeze(self) -> S:
        state = self.state
        return type(state)(
            board=state.board,
            mode=state.mode,
            pom=state.pom,
            pawn_count=state.pawn_count,
            max_turns=state.max_turns,
            order=state.order,
            pawns=tuple(self.pawns),
            flags=tuple(self.flags),
            out=tuple(self.out),
            tags=tuple(self.tags),
            stopped=tuple(sorted(self.stopped)),
            turn=self.turn,
            round=self.round,
            pom_left=self.pom_left,
            pending=None,
            winner=self.winner,
            events=tuple(self.events),
        )

    def is_out(self, seat: int) -> bool:
        return any(seat in group for group in self.out)

    def place(self, seat: int, pawn: int, cell: int) -> None:
        team = self.pawns[seat]
        self.pawns[seat] = (*team[:pawn], cell, *team[pawn + 1 :])

    def move(self, seat: int, pawn: int, here: int, target: int) -> Play[S]:
        way = DIRS[self.board.steps[here].index(target)]
        cost, event, garrisoned = describe_move(self.board, seat, pawn, way, here, target)
        self.pom_left -= cost
        self.place(seat, pawn, target)
        if garrisoned:
            self.stopped.append(pawn)
        self.events.append(event)
        self.pick_up(seat, pawn, target)
        if target == self.board.starts[seat]:
            self.bring_home(seat, pawn)
        if self.pom_left == 0 and self.winner < 0:
            self.end_turn()
        return self

    def pick_up(self, seat: int, pawn: int, cell: int) -> None:
        for i, flag in enumerate(self.flags):
            # a team never lifts its own flag in Capture-Their-Flag (docs: Decisions)
            if flag.cell == cell and flag.owner != seat:
                self.flags[i] = Flag(flag.owner, -1, seat, pawn)
                self.events.append(("picks-up", seat, pawn, flag.owner))

    def carried_by(self, seat: int, pawn: int) -> list[int]:
        return [i for i, f in enumerate(self.flags) if f.carrier == seat and f.carrier_pawn == pawn]

    def bring_home(self, seat: int, pawn: int) -> None:
        carried = self.carried_by(seat, pawn)
        if not carried:
            return
        if self.state.mode == "ctf":
            self.winner = seat
            self.events.append(("home", seat))
            return
        owners = tuple(sorted(self.flags[i].owner for i in carried))
        for i in carried:
            self.flags[i] = Flag(self.flags[i].owner)  # captured: out of the game
        for owner in owners:
            self.events.append(("captures", seat, owner))
            for lost, cell in enumerate(self.pawns[owner]):
                if cell >= 0:
                    self.drop(owner, lost, cell)
                    self.place(owner, lost, -1)
        self.out.append(owners)

    def drop(self, seat: int, pawn: int, cell: int) -> None:
        for i in self.carried_by(seat, pawn):
            self.flags[i] = Flag(self.flags[i].owner, cell)
            self.events.append(("drops", self.flags[i].owner, cell))

    def resolve(self, attack: Attack, dice: tuple[int, ...]) -> Play[S]:
        attack_total = dice[0] + attack.attacker_bonus
        defence_total = dice[1] + attack.defender_bonus
        self.events.append(
            (
                "rolls",
                attack.attacker,
                attack.attacker_pawn,
                dice[0],
                attack.attacker_bonus,
                attack.defender,
                attack.defender_pawn,
                dice[1],
                attack.defender_bonus,
            )
        )
        if attack_total > defence_total:
            self.defeat(attack.defender, attack.defender_pawn, attack.attacker)
        elif defence_total > attack_total:
            self.defeat(attack.attacker, attack.attacker_pawn, attack.defender)
        else:
            self.events.append(("tie",))
        if self.pom_left == 0 or self.is_out(self.state.order[self.turn]):
            self.end_turn()
        return self

    def defeat(self, seat: int, pawn: int, victor: int) -> None:
        cell = self.pawns[seat][pawn]
        self.tags[victor] += 1
        self.drop(seat, pawn, cell)
        self.place(seat, pawn, -1)
        if pawn in self.stopped and seat == self.state.order[self.turn]:
            self.stopped.remove(pawn)
        if self.state.mode == "elimination":
            self.events.append(("eliminated", seat, pawn))
            if all(c < 0 for c in self.pawns[seat]):
                self.out.append((seat,))
                self.events.append(("out", seat))
            return
        spot = self.respawn_cell(seat, cell)
        self.place(seat, pawn, spot)
        self.events.append(("respawns", seat, pawn, spot))

    def respawn_cell(self, seat: int, lost: int) -> int:
        """Where a defeated pawn comes back (docs/rules/tagem.md, Respawning).

        Never ``lost``, the tile it was defeated on: the seed text's respawn rule exists
        "to avoid respawning in the very same place the pawn was lost in" (decision 16).
        """
        board = self.board
        occupants = {c: s for s, team in enumerate(self.pawns) for c in team if c >= 0}
        liftable = {f.cell for f in self.flags if f.cell >= 0 and f.owner != seat}

        def threatened(cell: int) -> bool:
            return any(occupants.get(n, seat) != seat for n in board.steps[cell] if n >= 0)

        def free(cell: int) -> bool:
            return cell not in occupants and cell not in liftable and cell != lost

        start = board.starts[seat]
        if not threatened(start):
            for cell in self.state.formation(seat):
                if free(cell):
                    return cell
        far = board.reach[seat][board.near[seat] :]
        for cell in far:
            if free(cell) and not threatened(cell):
                return cell
        for cell in board.reach[seat]:
            if free(cell):
                return cell
        return -1

    def end_turn(self) -> None:
        order = self.state.order
        for step in range(1, len(order) + 1):
            index = (self.turn + step) % len(order)
            if not self.is_out(order[index]):
                if index <= self.turn:
                    self.round += 1
                self.turn = index
                break
        self.pom_left = self.state.pom
        self.stopped = []
