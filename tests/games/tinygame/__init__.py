"""Countdown, a sixth game added the way a new game is added: this one folder and one
registry line.  Shipped games are listed in ``lanTag.games.SHIPPED``; this test-only game is
registered by its test alone (``register_game("tests.games.tinygame")``), never shipped.
"""

from lanTag.rules.registry import GameEntry

ENTRY = GameEntry(
    id="tinygame",
    engine=f"{__name__}.engine:Countdown",
    view=f"{__name__}.view",
    paint=f"{__name__}.paint",
    heuristic=f"{__name__}.bot",
    metrics=f"{__name__}.metrics:CountdownTracker",
    rules_text=__name__,
    routine=frozenset({"first"}),
)
