"""cProfile helpers of the lanTag benchmarks: own time grouped by area of the code.

Re-exported by ``benchlib`` (the benchmarks' facade); import that rather than this.
"""

from __future__ import annotations

import cProfile
import os
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from scripts.bench.bench_procs import run_real
from scripts.bench.bench_tables import Table


def top_profile(path: str, limit: int = 15, sort: str = "tottime") -> str:
    import io
    import pstats

    buf = io.StringIO()
    st = pstats.Stats(path, stream=buf)
    st.strip_dirs().sort_stats(sort).print_stats(limit)
    return buf.getvalue()


_CATEGORIES = (
    ("/lanTag/net/", "links (lanTag.net)"),
    ("/lanTag/session/", "session (lanTag.session)"),
    ("/lanTag/rules/", "rules engine"),
    ("benchgames.py", "rules engine"),
    ("/lanTag/wire.py", "canonical msgpack (lanTag.wire)"),
    ("/msgpack/", "canonical msgpack (lanTag.wire)"),
    ("/lanTag/log/", "log hash chain + writer"),
    ("/lanTag/fair/", "fairness (chains, commitments, draws)"),
    ("/lanTag/identity.py", "Ed25519"),
    ("/cryptography/", "Ed25519"),
    ("/nacl/", "Ed25519"),
    ("/lanTag/peer.py", "peer + bot driver"),
    ("/lanTag/lobby.py", "peer + bot driver"),
    ("/lanTag/bots/", "peer + bot driver"),
    ("/lanTag/runtime.py", "peer + bot driver"),
    ("/asyncio/", "asyncio + sockets"),
    ("selectors.py", "asyncio + sockets"),
    ("/scripts/bench/", "bench harness"),
)
_BUILTIN_CATEGORIES = (
    ("Ed25519", "Ed25519"),
    ("_sodium", "Ed25519"),
    ("_socket.socket", "asyncio + sockets"),
    ("select.epoll", "idle: waiting in epoll"),
    ("posix.fsync", "fsync of the log (I/O wait)"),
    ("msgpack", "canonical msgpack (lanTag.wire)"),
)


def _category(func: tuple[str, int, str]) -> str | None:
    filename, _, name = func
    if filename == "~":
        for needle, cat in _BUILTIN_CATEGORIES:
            if needle in name:
                return cat
        return None  # a generic builtin: charged to its callers
    for needle, cat in _CATEGORIES:
        if needle in filename.replace("\\", "/"):
            return cat
    return "other (stdlib, ...)"


def profile_categories(stats: Any) -> list[tuple[str, float, float]]:
    """Own time (tottime) of a pstats.Stats by area of the code, generic builtins
    (min, len, sorted, ...) charged to the area that called them.  [(area, s, %)]"""
    totals: Counter[str] = Counter()
    for func, (_cc, _nc, tt, _ct, callers) in stats.stats.items():
        cat = _category(func)
        if cat is not None:
            totals[cat] += tt
            continue
        edge_tt = sum(v[2] for v in callers.values()) or 1.0
        for caller, v in callers.items():
            totals[_category(caller) or "other (stdlib, ...)"] += tt * v[2] / edge_tt
        if not callers:
            totals["other (stdlib, ...)"] += tt
    whole = sum(totals.values()) or 1.0
    return [(k, v, 100 * v / whole) for k, v in totals.most_common()]


def category_table(title: str, stats: Any) -> Table:
    t = Table(title, [("area", "area", ""), ("s", "own s", ".2f"), ("pct", "%", ".1f")])
    for area, sec, pct in profile_categories(stats):
        t.add(area=area, s=sec, pct=pct)
    return t.close()


def profile_call(fn: Callable[[], Any]) -> Any:
    """cProfile (CPU clock) of ``fn()``; returns a pstats.Stats."""
    import pstats

    prof = cProfile.Profile(time.process_time)
    prof.enable()
    try:
        fn()
    finally:
        prof.disable()
    return pstats.Stats(prof)


def stats_text(stats: Any, limit: int = 20) -> str:
    import io

    buf = io.StringIO()
    stats.stream = buf
    stats.strip_dirs().sort_stats("tottime").print_stats(limit)
    return "\n".join(ln for ln in buf.getvalue().splitlines() if ln.strip())


def profile_report(label: str, stats: Any, limit: int = 20) -> tuple[Table, str]:
    """(table of own time by area, top functions by own time) for a profile."""
    return category_table(f"profile: {label}, own time by area", stats), stats_text(stats, limit)


def profile_real_peer(
    engine: str, n: int, procs: int, options: Sequence[tuple[str, Any]], timeout: float = 300
) -> Any:
    """Play one real game and cProfile one joiner process (process 1) from start to end."""
    import pstats

    path = tempfile.mktemp(prefix="lantag-prof-", suffix=".prof")
    run_real(
        engine,
        n,
        procs,
        options=options,
        timeout=timeout,
        logs=True,
        fsync=True,
        profile_proc=1,
        profile_path=path,
    )
    st = pstats.Stats(path)
    os.unlink(path)
    return st
