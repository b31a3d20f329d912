"""Feed lines: what one resolved step did, in words, from the engine's public facts.

The engines keep facts (``state.events``); each game's view module words them, once, for
every screen (lanTag/games/<id>/view.py, a wording table per game with a seat namer passed
in).  The console passes its namer ("seat 2 bot-2", "seat 0 (you)"); the places are the
ones the board labels (Board Tag squares a1..h8 and IT's crossing points (x,y); Stomptag
and Tag 'em cells (column,row) counted from 1).  Each line says whether it is *notable*:
a roll's result, a collision, a battle or a tag, which the screen keeps in view until our
next decision; plain moves only go to the log (the board shows them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lanTag.rules.registry import find_entry
from lanTag.views.naming import Namer, plain_namer
from lanTag.views.registry import game_view

__all__ = ["FeedLine", "Namer", "plain_namer", "seat_namer", "step_lines"]


@dataclass(frozen=True, slots=True)
class FeedLine:
    text: str
    notable: bool
    mine: bool = False  # about our seat (caught, tagged, a pawn lost): never folded away


def seat_namer(names: Sequence[str], me: int | None) -> Namer:
    """``seat 2 bot-2``; our own seat ``seat 0 (you)`` (reads in any sentence)."""

    def name(seat: int) -> str:
        if seat == me:
            return f"seat {seat} (you)"
        return f"seat {seat} {names[seat]}" if 0 <= seat < len(names) else f"seat {seat}"

    return name


def step_lines(
    engine: str, state: Any, name: Namer, before: Any = None, me: int | None = None
) -> list[FeedLine]:
    """The lines for the facts of the input that led to ``state`` (the state after it);
    those about seat ``me`` are marked ``mine``.

    ``before``: the state before that input.  An engine may carry the previous input's
    facts over (Board Tag's returning IT die keeps the tag before it); those were told
    already, so the lines they start with are dropped.
    """
    if state is None:
        return []
    shown = game_view(engine)
    texts = shown.events_texts(state, name)
    if not texts:
        return []
    # The facts the board shows by itself (the game's entry says which) are logged, not
    # kept under the board.
    entry = find_entry(engine)
    routine = entry.routine if entry is not None else frozenset()
    about = shown.events_about(state, me)
    lines = [
        FeedLine(text, code not in routine, mine)
        for code, text, mine in zip(_codes(state), texts, about, strict=True)
    ]
    if before is not None:
        told = [line.text for line in step_lines(engine, before, name)]
        if told and [line.text for line in lines[: len(told)]] == told:
            lines = lines[len(told) :]
    return lines


def _codes(state: Any) -> list[str]:
    """Each fact's code (Stomptag keeps events with a ``what``; the others fact tuples)."""
    return [str(e.what) if hasattr(e, "what") else str(e[0]) for e in state.events]
