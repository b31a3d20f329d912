"""The games lanTag plays, one package each: its engine, view, painter, bot and rules text.

docs/ARCHITECTURE.md ("A game's package") says which module of a game's package does
what and which layer each belongs to.
"""
