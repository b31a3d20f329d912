"""The command line: ``lantag`` and its subcommands (docs/ARCHITECTURE.md)."""
