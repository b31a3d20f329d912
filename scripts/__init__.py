"""The project's tools (not part of the product: the wheel ships lanTag only).

A package: run each from the repository root as ``python -m scripts.NAME`` (a benchmark:
``python -m scripts.bench.NAME``), and import its modules as ``scripts.NAME``; nothing edits
``sys.path``.  A tool that starts a tool as a child process passes
``tests.support.processes.root_env``, so that the child finds the package from anywhere.
"""
