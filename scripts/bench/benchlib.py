"""Shared pieces of the lanTag benchmarks (scripts/bench/bench_*.py): the facade.

The scripts and tests ``import benchlib as bl``; the code lives in:

* ``bench_tables``: machine facts and the load average, the :class:`Table` printer and
  :func:`output`, statistics and timing loops, raw Ed25519 rates;
* ``bench_direct``: :class:`DirectNet` / :class:`DirectTable` (whole peers in one process
  on a virtual clock), :class:`StampedEvents` and log message counting (:func:`count_log`);
* ``bench_procs``: the real-socket runner :func:`run_real` (peers over several OS
  processes on loopback UDP) and the raw all-to-all UDP floor :func:`run_floor`;
* ``bench_profile``: cProfile helpers, own time grouped by area of the code.

Child processes run this module: ``python -m scripts.bench.benchlib peers|floor`` with a
JSON config on the command line.  Timestamps across processes are ``time.monotonic()``
(CLOCK_MONOTONIC, system-wide).
"""

from __future__ import annotations

from lanTag.log.entries import EntryKind, parse_log
from scripts.bench.bench_direct import (
    BENCH_TIMEOUTS,
    FRAME_TYPES,
    HERE,
    REPO,
    Addr,
    DirectNet,
    DirectTable,
    LogCounts,
    StampedEvents,
    WireCounts,
    count_log,
    input_kind,
)
from scripts.bench.bench_procs import RealRun, main, run_floor, run_real, split, udp_counters
from scripts.bench.bench_profile import (
    category_table,
    profile_call,
    profile_categories,
    profile_real_peer,
    profile_report,
    stats_text,
    top_profile,
)
from scripts.bench.bench_tables import (
    Table,
    cpu_model,
    ed25519_rates,
    load_text,
    machine_info,
    output,
    rate,
    stats_ms,
    timed_loop,
)

__all__ = [
    "BENCH_TIMEOUTS",
    "FRAME_TYPES",
    "HERE",
    "REPO",
    "Addr",
    "DirectNet",
    "DirectTable",
    "EntryKind",
    "LogCounts",
    "RealRun",
    "StampedEvents",
    "Table",
    "WireCounts",
    "category_table",
    "count_log",
    "cpu_model",
    "ed25519_rates",
    "input_kind",
    "load_text",
    "machine_info",
    "main",
    "output",
    "parse_log",
    "profile_call",
    "profile_categories",
    "profile_real_peer",
    "profile_report",
    "rate",
    "run_floor",
    "run_real",
    "split",
    "stats_ms",
    "stats_text",
    "timed_loop",
    "top_profile",
    "udp_counters",
]

if __name__ == "__main__":
    main()
