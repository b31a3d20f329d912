"""Tag 'em states from outside: the msgpack-ready encoding, its checked decoding, invariants."""

from __future__ import annotations

from typing import Any

from lanTag.games.tagem.board import MAX_PLAYERS, Tile, canonical_map, parse_map
from lanTag.games.tagem.engine import TagemState
from lanTag.games.tagem.pieces import MAX_PAWNS, MODES, Attack, Flag, pawn_name, size_up
from lanTag.rules.base import facts_from_obj


def _int(value: Any, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{what} must be an integer in {low}..{high}, got {value!r}")
    return value


def _list(value: Any, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError(f"{what} must be a list" + (f" of {length}" if length is not None else ""))
    return value


def state_to_obj(state: TagemState) -> list[Any]:
    """The canonical structure; the whole map text comes first, so peers agree on the map."""
    pending: list[Any] = [] if state.pending is None else list(state.pending.fields())
    return [
        state.board.text,
        state.mode,
        state.pom,
        state.pawn_count,
        state.max_turns,
        list(state.order),
        state.turn,
        state.round,
        state.pom_left,
        list(state.stopped),
        [list(team) for team in state.pawns],
        [[f.owner, f.cell, f.carrier, f.carrier_pawn] for f in state.flags],
        [list(group) for group in state.out],
        list(state.tags),
        pending,
        state.winner,
        [list(fact) for fact in state.events],
    ]


def state_from_obj(obj: Any) -> TagemState:
    """Inverse of TagemState.to_obj(); ValueError on any malformed or unsound structure."""
    fields = _list(obj, "a tagem state", 17)
    text, mode = fields[0], fields[1]
    if not isinstance(text, str) or not isinstance(mode, str) or mode not in MODES:
        raise ValueError("a tagem state starts with the map text and a mode")
    board = parse_map(text, "<state>")
    if canonical_map(board).text != text:
        raise ValueError("a tagem state keeps its map without comments (canonical_map)")
    big = 1 << 30
    pom = _int(fields[2], "pom", 1, 99)
    pawn_count = _int(fields[3], "pawns", 1, MAX_PAWNS)
    max_turns = _int(fields[4], "max_turns", 0, 999)
    pawns_obj = _list(fields[10], "pawns")
    seats = len(pawns_obj)
    _int(seats, "seat count", 2, MAX_PLAYERS)
    order = tuple(_int(s, "order", 0, seats - 1) for s in _list(fields[5], "order"))
    cells = len(board.tiles)
    pawns = tuple(
        tuple(_int(c, "pawn cell", -1, cells - 1) for c in _list(team, "team", pawn_count))
        for team in pawns_obj
    )
    flags = tuple(
        Flag(*(_int(v, "flag field", -1, cells) for v in _list(f, "flag", 4)))
        for f in _list(fields[11], "flags")
    )
    out = tuple(
        tuple(_int(s, "out seat", 0, seats - 1) for s in _list(g, "out group"))
        for g in _list(fields[12], "out")
    )
    pending_obj = _list(fields[14], "pending attack")
    pending = None
    if pending_obj:
        _list(pending_obj, "pending attack", 9)
        n = [_int(v, "attack field", -1, MAX_PAWNS) for v in pending_obj[:6]]
        tiles = pending_obj[6:]
        if not all(isinstance(v, bool) for v in tiles):
            raise ValueError("attack tile flags must be booleans")
        pending = Attack(n[0], n[1], n[2], n[3], n[4], n[5], tiles[0], tiles[1], tiles[2])
    events = facts_from_obj(fields[16])
    state = TagemState(
        board=board,
        mode=mode,
        pom=pom,
        pawn_count=pawn_count,
        max_turns=max_turns,
        order=order,
        turn=_int(fields[6], "turn", 0, max(len(order) - 1, 0)),
        round=_int(fields[7], "round", 1, big),
        pom_left=_int(fields[8], "pom_left", 0, pom),
        stopped=tuple(_int(p, "stopped", 0, pawn_count - 1) for p in _list(fields[9], "stopped")),
        pawns=pawns,
        flags=flags,
        out=out,
        tags=tuple(_int(t, "tags", 0, big) for t in _list(fields[13], "tags", seats)),
        pending=pending,
        winner=_int(fields[15], "winner", -1, seats - 1),
        events=events,
    )
    broken = invariants(state)
    if broken:
        raise ValueError("unsound tagem state: " + "; ".join(broken))
    return state


def invariants(state: TagemState) -> list[str]:
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


def _turn_invariants(state: TagemState, out_seats: set[int]) -> list[str]:
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


def _flag_invariants(state: TagemState, out_seats: set[int]) -> list[str]:
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
