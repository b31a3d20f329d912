"""Building Tag 'em positions directly for scenario tests."""

from __future__ import annotations

from dataclasses import replace

from lanTag.games.tagem.engine import LETTERS, Flag, Tagem, TagemState
from lanTag.rules.base import Action, Move, Roll, State

# 12 x 9 open field: starting points 1 (r1c1), 2 (r1c10) and 3 (r7c1); tests paint terrain on it.
FIELD = [
    "............",
    ".1........2.",
    "............",
    "............",
    "............",
    "............",
    "............",
    ".3..........",
    "............",
]
WIDTH = len(FIELD[0])


def map_text(grid: list[str], players: str = "2-3", pom: int = 10, name: str = "Testbed") -> str:
    return f"name: {name}\npom: {pom}\nplayers: {players}\ngrid:\n" + "\n".join(grid) + "\n"


def paint(terrain: dict[tuple[int, int], str], grid: list[str] | None = None) -> list[str]:
    """FIELD (or ``grid``) with some tiles replaced: {(row, col): glyph}."""
    rows = [list(row) for row in (grid or FIELD)]
    for (row, col), glyph in terrain.items():
        rows[row][col] = glyph
    return ["".join(row) for row in rows]


def cell(row: int, col: int) -> int:
    return row * WIDTH + col


def setup(
    pawns: dict[str, tuple[int, int]],
    *,
    terrain: dict[tuple[int, int], str] | None = None,
    seats: int = 2,
    mode: str = "elimination",
    pom: int = 10,
    pawn_count: int = 5,
    order: tuple[int, ...] | None = None,
    flags: tuple[Flag, ...] | None = None,
    max_turns: int = 0,
) -> TagemState:
    """A state on FIELD after the turn-order roll, with pawns where ``pawns`` says.

    ``pawns`` maps names like "A0" to (row, col); unnamed pawns are out of play
    (so give every pawn a place in the respawning modes).
    """
    grid = paint(terrain or {})
    options = {"mode": mode, "pom": pom, "pawns": pawn_count, "max_turns": max_turns}
    state = Tagem.new_state(seats, options, map_text=map_text(grid))
    rolled = state.apply(Roll((order or tuple(range(seats)),)))
    assert isinstance(rolled, TagemState)
    teams = [[-1] * pawn_count for _ in range(seats)]
    for name, (row, col) in pawns.items():
        teams[LETTERS.index(name[0])][int(name[1:])] = cell(row, col)
    placed = replace(rolled, pawns=tuple(tuple(team) for team in teams), events=())
    if flags is not None:
        placed = replace(placed, flags=flags)
    assert placed.invariants() == [], placed.invariants()
    return placed


def act(state: State, seat: int, text: str) -> TagemState:
    after = state.apply(Move(seat, Action.parse(text)))
    assert isinstance(after, TagemState)
    assert after.invariants() == [], after.invariants()
    return after


def roll(state: State, attacker_die: int, defender_die: int) -> TagemState:
    after = state.apply(Roll(((attacker_die, defender_die),)))
    assert isinstance(after, TagemState)
    assert after.invariants() == [], after.invariants()
    return after


def where(state: TagemState, name: str) -> tuple[int, int] | None:
    """(row, col) of a pawn such as "B2", or None when out of play."""
    c = state.pawns[LETTERS.index(name[0])][int(name[1:])]
    return None if c < 0 else divmod(c, WIDTH)


def legal(state: TagemState, seat: int) -> set[str]:
    return {str(a) for a in state.legal_actions(seat)}
