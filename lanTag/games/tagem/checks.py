"""Tag 'em's invariants: what every sound state holds (the engine, the codec and positions
check them)."""

from __future__ import annotations

from lanTag.games.tagem.board import Tile
from lanTag.games.tagem.pieces import pawn_name, size_up
from lanTag.games.tagem.state import TagemFields


def invariants(state: TagemFields) -> list[str]:
    board, seats = state.board, state.seats
    broken: list[str] = []
    if state.order and sorted(state.order) != list(range(seats)):
        broken.append(f"turn order {state.order} is not a permutation of the seats")
    if not board.min_players <= seats <= board.max_players:
        broken.append(f"{seats} seats on a map for {board.min_players}-{board.max_players}")
    seen: dict[int, str] = {}
    out_seats = {s for group in state.out for s in group}
    if len(out_seats) != sum(len(g) for g in state.out):
        broken.append("a seat is out twice")
    for seat, team in enumerate(state.pawns):
        for pawn, cell in enumerate(team):
            if cell < 0:
                continue
            name = pawn_name(seat, pawn)
            if not board.enterable(cell):
                broken.append(f"{name} stands on a {Tile(board.tiles[cell]).name} tile")
            if cell in seen:
                broken.append(f"{name} shares a tile with {seen[cell]}")
            seen[cell] = name
        on_board = sum(1 for c in team if c >= 0)
        if seat in out_seats and on_board:
            broken.append(f"seat {seat} is out but has pawns on the board")
        if seat not in out_seats and state.mode == "elimination" and not on_board:
            broken.append(f"seat {seat} has no pawns but is not out")
        if seat not in out_seats and state.mode != "elimination" and on_board < len(team):
            broken.append(f"seat {seat} lost a pawn in a respawning mode")
    broken += _turn_invariants(state, out_seats)
    broken += _flag_invariants(state, out_seats)
    return broken


def _turn_invariants(state: TagemFields, out_seats: set[int]) -> list[str]:
    broken: list[str] = []
    over = state._finished() if state.order else False
    if state.order and not over:
        acting = state.order[state.turn]
        if acting in out_seats:
            broken.append(f"seat {acting} acts but is out")
        if state.pending is None and not 1 <= state.pom_left <= state.pom:
            broken.append(f"{state.pom_left} PoM left in a turn")
        for pawn in state.stopped:
            cell = state.pawns[acting][pawn]
            if cell < 0 or state.board.tiles[cell] != Tile.GARRISON:
                broken.append(f"stopped pawn {pawn} is not in a Garrison")
    if state.winner >= 0 and state.mode != "ctf":
        broken.append("only Capture-The-Flag has a flag winner")
    attack = state.pending
    if attack is not None:
        try:
            fresh = size_up(
                state.board,
                state.pawns,
                attack.attacker,
                attack.attacker_pawn,
                attack.defender,
                attack.defender_pawn,
            )
        except IndexError:
            return [*broken, "pending attack names a missing pawn"]
        a = state.pawns[attack.attacker][attack.attacker_pawn]
        d = state.pawns[attack.defender][attack.defender_pawn]
        if a < 0 or d < 0 or d not in state.board.steps[a] or attack.attacker == attack.defender:
            broken.append("pending attack is not between adjacent opposing pawns")
        elif fresh != attack:
            broken.append("pending attack modifiers do not match the board")
    return broken


def _flag_invariants(state: TagemFields, out_seats: set[int]) -> list[str]:
    broken: list[str] = []
    expected = {"elimination": [], "ctf": [-1], "ctcf": list(range(state.seats))}[state.mode]
    if [f.owner for f in state.flags] != expected:
        broken.append(f"flags {state.flags} do not suit mode {state.mode}")
    for flag in state.flags:
        loose, carried = flag.cell >= 0, flag.carrier >= 0
        if loose and (carried or not state.board.enterable(flag.cell)):
            broken.append(f"flag {flag} lies on a bad tile or is also carried")
        if carried:
            if not 0 <= flag.carrier < state.seats or not 0 <= flag.carrier_pawn < state.pawn_count:
                broken.append(f"flag {flag} names no pawn")
            elif state.pawns[flag.carrier][flag.carrier_pawn] < 0 or flag.carrier == flag.owner:
                broken.append(f"flag {flag} is carried by a pawn that cannot carry it")
        if not loose and not carried and flag.owner not in out_seats:
            broken.append(f"flag {flag} is gone but its team is still in")
    return broken
