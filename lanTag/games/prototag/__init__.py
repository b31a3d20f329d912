"""Prototag: one game's package (docs/ARCHITECTURE.md, "A game's package").

The engine and its helpers are rules; ``view`` reads states for people, ``bot``
plays them; ``rules.md`` is the text `lantag rules prototag` prints.
"""

from lanTag.rules.registry import GameEntry

ENTRY = GameEntry(
    id="prototag",
    engine=f"{__name__}.engine:Prototag",
    view=f"{__name__}.view",
    paint=f"{__name__}.paint",
    heuristic=f"{__name__}.bot",
    metrics=f"{__name__}.metrics:PrototagTracker",
    rules_text=__name__,
    routine=frozenset(
        {"step", "immune-over", "locked-in", "start", "rps-draw", "rps-tags", "rps-stays"}
    ),
)
