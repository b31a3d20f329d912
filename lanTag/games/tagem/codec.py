"""Tag 'em states on the wire: the msgpack-ready encoding and its checked decoding."""

from __future__ import annotations

from typing import Any, TypeVar

from lanTag.games.tagem.board import MAX_PLAYERS, canonical_map, parse_map
from lanTag.games.tagem.checks import invariants
from lanTag.games.tagem.pieces import MAX_PAWNS, MODES, Attack, Flag
from lanTag.games.tagem.state import TagemFields
from lanTag.rules.base import facts_from_obj

S = TypeVar("S", bound=TagemFields)


def _int(value: Any, what: str, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"{what} must be an integer in {low}..{high}, got {value!r}")
    return value


def _list(value: Any, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError(f"{what} must be a list" + (f" of {length}" if length is not None else ""))
    return value


def state_to_obj(state: TagemFields) -> list[Any]:
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


def state_from_obj(obj: Any, make: type[S]) -> S:
    """Inverse of TagemState.to_obj(), a state of class ``make`` (the engine's); ValueError on
    any malformed or unsound structure."""
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
    state = make(
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
