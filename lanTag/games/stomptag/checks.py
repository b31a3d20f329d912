"""Stomptag's invariants: what every sound state holds (the engine and positions check them)."""

from __future__ import annotations

from lanTag.games.stomptag.state import BIDS, BOARD_PHASES, MINIMUMS, TELEPORTS, StomptagFields


def broken_invariants(state: StomptagFields) -> list[str]:
    """Every broken invariant of ``state`` as a sentence (empty when sound)."""
    problems: list[str] = []
    t, n, cells = state.table, state.seats, state.settings.cells
    living = t.living()
    if cells < n or min(state.settings.start_points, state.settings.max_moves) < 1:
        problems.append(f"settings {state.settings} cannot hold a game of {n}")
    if any(not 0 <= s < n for s in (*t.queue, *(s for s, _ in state.orders))):
        problems.append("a seat number is out of range")
    if state.phase != MINIMUMS and sorted(state.minimums) != list(range(1, n + 1)):
        problems.append(f"minimum bids {state.minimums} are not a permutation of 1..{n}")
    if state.phase not in (MINIMUMS, BIDS):
        if any(b < m for b, m in zip(state.bids, state.minimums, strict=True)):
            problems.append("a bid is below its minimum")
        if sorted(t.queue) != list(living):
            problems.append(f"itness queue {t.queue} is not the living seats {living}")
        if living and t.it not in living:
            problems.append(f"the it ({t.it}) is not a living player")
    for seat in range(n):
        if t.out[seat] and (t.cells[seat] != -1 or t.points[seat] > 0):
            problems.append(f"eliminated seat {seat} is on the board or has points")
        if not 1 <= t.moves[seat] <= state.settings.max_moves:
            problems.append(f"seat {seat} has {t.moves[seat]} moves")
    if state.phase in BOARD_PHASES:
        placed = [t.cells[s] for s in living]
        if any(not 0 <= c < cells for c in placed):
            problems.append("a living player is off the board")
        if len(set(placed)) != len(placed):
            problems.append("two players share a cell")
        if any(t.points[s] <= 0 for s in living):
            problems.append("a living player has no points left")
        if len(living) < 2:
            problems.append("play goes on with fewer than two players")
    if state.phase == TELEPORTS:
        if not any(o.teleports for _, o in state.orders):
            problems.append("teleport landings are pending without a teleport order")
        if tuple(s for s, _ in state.orders) != living:
            problems.append("pending orders do not cover exactly the living seats")
        elif any(len(o.moves) != t.moves[s] for s, o in state.orders):
            problems.append("a pending order has the wrong number of moves")
    return problems
