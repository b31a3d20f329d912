"""The games lanTag plays, one package each: its engine, view, painter, bots and rules text.

Each package's ``__init__.py`` defines ``ENTRY`` (a :class:`lanTag.rules.registry.GameEntry`)
naming its parts; docs/ARCHITECTURE.md ("A game's package") says which module does what
and which layer it belongs to.  A new game is a new package plus one line here.
"""

# The games this build ships, in the order shown to players: one package per line.
SHIPPED: tuple[str, ...] = (
    "lanTag.games.prototag",
    "lanTag.games.assassination",
    "lanTag.games.boardtag",
    "lanTag.games.stomptag",
    "lanTag.games.tagem",
)
