"""prototag: one game's package (docs/ARCHITECTURE.md, "A game's package")."""
