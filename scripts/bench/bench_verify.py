"""Log verification rate: ``lanTag.log.verify.verify_log`` against a raw Ed25519 loop.

For each engine, one real multi-peer game is played to the end by whole peers (links +
lobby + session + random bots, in-process ``DirectTable`` of scripts/bench/benchlib.py)
and the host's signed log is kept.  Then, on the same log:

* ``verify_log(data)``: signatures verified per second and log entries per second (the
  full check: parse, hash chain, replay of every message through a Session, every step);
* floor: libsodium's check (``nacl.bindings.crypto_sign_open``, what
  lanTag.identity.Verifier calls) over exactly the same (key, signature, signed bytes)
  triples, nothing else.

The two are timed alternately (verify_log, floor, verify_log, floor...) in CPU time of this
process (``time.process_time``: both are single-threaded and CPU-bound, and time spent
descheduled by other jobs on a shared machine then does not count).  Each pair gives one
ratio; the table shows the median pair, the spread of the ratios (p10-p90) and the ratio
of the best times.

Target: verify_log's signature rate >= 0.8x the raw loop (median ratio).  Below it, the script runs
cProfile on one verify_log call and prints where the time goes (``--profile`` forces it).

Usage::

    python -m scripts.bench.bench_verify            # five engines, >= 4 s of timing each
    python -m scripts.bench.bench_verify --quick    # two engines, short games
    python -m scripts.bench.bench_verify --json --profile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from nacl.bindings import crypto_sign_open

from lanTag.log.entries import MAGICS, EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import SIGN_DOMAIN, parse_unverified
from scripts.bench import benchlib as bl

# engine -> (peers, options for the full / quick game)
GAMES: dict[str, tuple[int, tuple[tuple[str, int | bool | str], ...]]] = {
    "prototag": (4, ()),
    "assassination": (4, ()),
    "boardtag": (4, ()),
    "stomptag": (8, (("max_rounds", 12),)),
    "tagem": (4, (("max_turns", 8),)),
}
QUICK = {"prototag": (3, ()), "stomptag": (4, (("max_rounds", 4),))}


def play(engine: str, peers: int, options: tuple[tuple[str, int | bool | str], ...]) -> bytes:
    t = bl.DirectTable(engine, peers, options=options, seed=11)
    t.start()
    if not t.net.run_until(t.over, max_time=36_000):
        raise RuntimeError(f"{engine}: the game did not finish")
    return bytes(t.logs[0])


def signed_triples(data: bytes) -> list[tuple[bytes, bytes, bytes]]:
    """(key, signature, signed bytes) of every distinct MSG entry, keys loaded once."""
    parsed = parse_log(data)
    magic, record_bytes, _writer = parsed.entries[0].data
    assert magic in MAGICS.values()
    record = LobbyRecord.decode(record_bytes)
    keys = {i: s.public_key for i, s in enumerate(record.seats) if s.public_key}
    seen: set[bytes] = set()
    out = []
    for e in parsed.entries:
        if e.kind == EntryKind.MSG and e.data not in seen:
            seen.add(e.data)
            m = parse_unverified(e.data)
            out.append((keys[m.seat], m.signature, SIGN_DOMAIN + m.body))
    return out


def raw_loop(triples: list[tuple[bytes, bytes, bytes]]) -> None:
    for key, sig, data in triples:
        crypto_sign_open(sig + data, key)  # libsodium, as lanTag.identity.Verifier


def timed_pairs(a: Any, b: Any, min_time: float, rounds: int = 5) -> list[tuple[float, float]]:
    """CPU seconds of ``a()`` and of ``b()``, timed alternately (the machine is shared, so
    both see the same background load), for at least ``min_time`` and ``rounds`` rounds."""
    pairs: list[tuple[float, float]] = []
    clock = time.process_time
    t_end = time.perf_counter() + min_time
    while len(pairs) < rounds or time.perf_counter() < t_end:
        t0 = clock()
        a()
        t1 = clock()
        b()
        t2 = clock()
        pairs.append((t1 - t0, t2 - t1))
    return pairs


def best_pair(a: Any, b: Any, min_time: float) -> tuple[float, float]:
    """Best CPU seconds per call of ``a`` and of ``b`` (see timed_pairs)."""
    pairs = timed_pairs(a, b, min_time, rounds=3)
    return min(p[0] for p in pairs), min(p[1] for p in pairs)


def _quantile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def profile_text(data: bytes, limit: int) -> tuple[bl.Table, str]:
    prof = cProfile.Profile()
    prof.enable()
    verify_log(data)
    prof.disable()
    cats = bl.category_table("profile: one verify_log call, own time by area", pstats.Stats(prof))
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf).strip_dirs()
    st.sort_stats("tottime").print_stats(limit)
    st.sort_stats("cumulative").print_stats(limit + 10)
    return cats, buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_verify", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--min-time", type=float, help="seconds of timing per row (default 4, quick 0.5)"
    )
    ap.add_argument("--profile", action="store_true", help="always print the cProfile")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    games = QUICK if args.quick else GAMES
    min_time = args.min_time or (0.5 if args.quick else 4.0)

    table = bl.Table(
        "log verification vs raw Ed25519 verify over the same signatures (CPU time, paired runs)",
        [
            ("engine", "engine", ""),
            ("peers", "peers", ""),
            ("entries", "entries", ""),
            ("steps", "steps", ""),
            ("sigs", "signatures", ""),
            ("kib", "log KiB", ".1f"),
            ("pairs", "pairs", ""),
            ("ms", "verify_log ms", ".1f"),
            ("sig_s", "sigs/s", ".0f"),
            ("entry_s", "entries/s", ".0f"),
            ("raw_ms", "raw loop ms", ".1f"),
            ("raw_s", "raw sigs/s", ".0f"),
            ("ratio", "ratio", ".2f"),
            ("spread", "p10-p90", ""),
            ("best", "best/best", ".2f"),
        ],
        notes=[
            "CPU time (time.process_time), verify_log and the raw loop timed alternately;",
            "ms and rates: medians over the pairs; ratio = median over the pairs of",
            "(verify_log signatures/s) / (raw signatures/s), target >= 0.8; p10-p90: spread",
            "of those ratios; best/best: the same ratio from the best time of each",
            f"lanTag from {Path(verify_log.__code__.co_filename).parents[2]}",
        ],
    )
    logs = {}
    for engine, (peers, options) in games.items():
        data = play(engine, peers, options)
        logs[engine] = data
        report = verify_log(data)
        if not (report.valid and report.complete):
            raise SystemExit(f"{engine}: the log does not verify: {report.failure}")
        triples = signed_triples(data)
        pairs = timed_pairs(lambda d=data: verify_log(d), lambda tr=triples: raw_loop(tr), min_time)
        sigs = report.signatures_verified
        ratios = sorted((sigs / tv) / (len(triples) / tr) for tv, tr in pairs)
        t_verify = statistics.median(p[0] for p in pairs)
        t_raw = statistics.median(p[1] for p in pairs)
        best_v, best_r = min(p[0] for p in pairs), min(p[1] for p in pairs)
        table.add(
            engine=engine,
            peers=peers,
            entries=report.entries,
            steps=report.steps,
            sigs=sigs,
            kib=len(data) / 1024,
            pairs=len(pairs),
            ms=t_verify * 1e3,
            sig_s=sigs / t_verify,
            entry_s=report.entries / t_verify,
            raw_ms=t_raw * 1e3,
            raw_s=len(triples) / t_raw,
            ratio=statistics.median(ratios),
            spread=f"{_quantile(ratios, 0.1):.2f}-{_quantile(ratios, 0.9):.2f}",
            best=(sigs / best_v) / (len(triples) / best_r),
        )
        if sigs != len(triples):
            table.notes.append(
                f"{engine}: verify_log counted {sigs} signatures, "
                f"log holds {len(triples)} distinct messages"
            )
        print(f"... {engine}", file=sys.stderr, flush=True)
    table.close()
    ratios = [r["ratio"] for r in table.rows]
    # profile the biggest log among those below target (enough calls to mean something)
    below = [r for r in table.rows if r["ratio"] < 0.8] or table.rows
    worst = max(below, key=lambda r: r["sigs"])
    targets = [
        {
            "target": "verify_log signatures/s >= 0.8x raw Ed25519 verify",
            "measured": ", ".join(f"{r['engine']} {r['ratio']:.2f}x" for r in table.rows),
            "met": min(ratios) >= 0.8,
        }
    ]
    extra: dict[str, Any] = {}
    prof = None
    tables = [table]
    if min(ratios) < 0.8 or args.profile:
        cats, prof = profile_text(logs[worst["engine"]], 22)
        cats.title += f" ({worst['engine']} log)"
        tables.append(cats)
        extra["profile_engine"] = worst["engine"]
        extra["profile"] = prof
    bl.output("bench_verify", tables, targets, args.json, extra)
    if prof is not None and not args.json:
        print(f"\ncProfile of one verify_log call on the {worst['engine']} log:")
        print(prof)


if __name__ == "__main__":
    main()
