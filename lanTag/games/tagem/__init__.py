"""Tag 'em: one game's package (docs/ARCHITECTURE.md, "A game's package").

The engine and its helpers are rules; ``view`` reads states for people, ``bot``
plays them; ``rules.md`` is the text `lantag rules tagem` prints.
"""

from lanTag.rules.registry import GameEntry

ENTRY = GameEntry(
    id="tagem",
    engine=f"{__name__}.engine:Tagem",
    view=f"{__name__}.view",
    paint=f"{__name__}.paint",
    heuristic=f"{__name__}.bot",
    metrics=f"{__name__}.metrics:TagemTracker",
    heuristic2=f"{__name__}.bot_hunt",
    rules_text=__name__,
    routine=frozenset({"moves", "ends"}),
    seat_letters="ABCDEFGH",
    takes_map=True,
)
