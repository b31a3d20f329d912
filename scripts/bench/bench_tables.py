"""Machine facts, the :class:`Table` printer and timing helpers of the lanTag benchmarks.

* machine facts and the load average, printed with every table (the machine is shared);
* :class:`Table`: the plain-text / JSON table every script prints, and :func:`output`;
* small statistics and timing loops, and the raw Ed25519 sign/verify rates (a floor).

Re-exported by ``benchlib`` (the benchmarks' facade); import that rather than this.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------- machine + tables


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_text() -> str:
    a, b, c = os.getloadavg()
    return f"{a:.2f} {b:.2f} {c:.2f}"


def machine_info() -> dict[str, Any]:
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "loadavg": load_text(),
    }


@dataclass
class Table:
    """Rows of dicts; ``columns`` is a list of (key, header, format) where format is a
    str.format spec applied to numbers (``""`` for str())."""

    title: str
    columns: list[tuple[str, str, str]]
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    load_before: str = field(default_factory=load_text)
    load_after: str = ""

    def add(self, **row: Any) -> None:
        self.rows.append(row)

    def close(self) -> Table:
        self.load_after = load_text()
        return self

    def _cell(self, row: dict[str, Any], key: str, fmt: str) -> str:
        v = row.get(key)
        if v is None:
            return "-"
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return "-"
        if fmt and isinstance(v, int | float) and not isinstance(v, bool):
            return format(v, fmt)
        return str(v)

    def render(self) -> str:
        if not self.load_after:
            self.close()
        cells = [[h for _, h, _ in self.columns]]
        for row in self.rows:
            cells.append([self._cell(row, k, f) for k, _, f in self.columns])
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = [f"{self.title}   [load {self.load_before} -> {self.load_after}]"]
        for j, r in enumerate(cells):
            parts = [r[0].ljust(widths[0])] + [
                c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
            ]
            lines.append("  ".join(parts).rstrip())
            if j == 0:
                lines.append("  ".join("-" * w for w in widths))
        lines += [f"  {n}" for n in self.notes]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        if not self.load_after:
            self.close()
        return {
            "title": self.title,
            "loadavg_before": self.load_before,
            "loadavg_after": self.load_after,
            "rows": self.rows,
            "notes": self.notes,
        }


def output(
    name: str,
    tables: Sequence[Table],
    targets: Sequence[dict[str, Any]],
    as_json: bool,
    extra: dict[str, Any] | None = None,
) -> None:
    """Print tables and target verdicts (``{"target", "measured", "met"}``), or JSON."""
    if as_json:
        doc = {
            "benchmark": name,
            "machine": machine_info(),
            "tables": [t.to_json() for t in tables],
            "targets": list(targets),
            **(extra or {}),
        }
        print(json.dumps(doc, indent=2, default=str))
        return
    info = machine_info()
    print(f"# {name}: {info['date']}, {info['nproc']} cpu ({info['cpu']}), Python {info['python']}")
    for t in tables:
        print()
        print(t.render())
    if targets:
        print()
        for target in targets:
            verdict = {True: "MET", False: "MISSED", None: "n/a"}[target.get("met")]
            print(f"target: {target['target']}: {target['measured']} -> {verdict}")
    sys.stdout.flush()


def stats_ms(samples: Iterable[float]) -> dict[str, float | int | None]:
    ms = sorted(s * 1e3 for s in samples)
    if not ms:
        return {"n": 0, "median_ms": None, "p90_ms": None, "mean_ms": None, "min_ms": None}
    return {
        "n": len(ms),
        "min_ms": ms[0],
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "p90_ms": ms[min(len(ms) - 1, int(0.9 * len(ms)))],
    }


def rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("nan")


def timed_loop(fn: Callable[[], Any], min_time: float) -> tuple[int, float]:
    """Call fn repeatedly for at least min_time seconds; (calls, seconds)."""
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return n, dt


def ed25519_rates(min_time: float = 0.5) -> tuple[float, float]:
    """Raw signs/s and verifies/s on a 150-byte message, by what lanTag uses: `cryptography`
    signs, libsodium (PyNaCl) verifies (SPEC §2's strict check)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from nacl.bindings import crypto_sign_open

    key = Ed25519PrivateKey.generate()
    pub = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    msg = os.urandom(150)
    sig = key.sign(msg)
    n, dt = timed_loop(lambda: key.sign(msg), min_time)
    signs = n / dt
    n, dt = timed_loop(lambda: crypto_sign_open(sig + msg, pub), min_time)
    return signs, n / dt
