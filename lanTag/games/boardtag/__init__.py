"""Board Tag: one game's package (docs/ARCHITECTURE.md, "A game's package").

The engine and its helpers are rules; ``view`` reads states for people, ``bot``
plays them; ``rules.md`` is the text `lantag rules boardtag` prints.
"""

from lanTag.rules.registry import GameEntry

ENTRY = GameEntry(
    id="boardtag",
    engine=f"{__name__}.engine:BoardTag",
    view=f"{__name__}.view",
    paint=f"{__name__}.paint",
    heuristic=f"{__name__}.bot",
    metrics=f"{__name__}.metrics:BoardTagTracker",
    rules_text=__name__,
    routine=frozenset(
        {"places", "picks", "step", "stays", "done", "turns", "faces", "ends", "jumps"}
    ),
    seat_letters="ABCDEF",
)
