"""Every benchmark, run from the repository root as ``python -m scripts.bench.NAME``.

Their helpers are ``benchlib`` (the facade); their bounded versions are tests/bench/.  What
each measures and the numbers: README.md here and docs/BENCHMARKS.md.
"""
