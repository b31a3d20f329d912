"""Smoke runs of the benchmark scripts' core functions (scripts/bench/).

Tiny, bounded runs that only check the scripts still run against the current code and
produce rows.  No timing is asserted: the numbers belong to docs/BENCHMARKS.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lanTag.rules.registry import unregister_engine
from scripts.bench import (
    bench_dice,
    bench_rules,
    bench_secret,
    bench_startup,
    bench_verify,
    bench_wire,
    benchgames,
)
from scripts.bench import benchlib as bl

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench"


@pytest.fixture(autouse=True)
def _forget_bench_engines() -> object:
    """The benchmarks register the bench-only engines; don't leak them into other tests."""
    yield
    for engine in benchgames.ENGINES:
        unregister_engine(engine)


def test_table_renders_and_serialises() -> None:
    t = bl.Table("t", [("a", "A", ".1f"), ("b", "B", "")])
    t.add(a=1.25, b="x")
    t.add(a=None, b=2)
    text = t.render()
    assert "A" in text and "1.2" in text and "-" in text
    assert json.dumps(t.to_json())


def test_dice_protocol_and_a_tiny_real_game() -> None:
    row = bench_dice.protocol_row(2, 4)
    assert row["entropy_per_seat"] > 0 and row["rounds"] > 0
    real = bench_dice.real_row(2, 8, "nofsync", 200, timeout=60)
    assert real["roll_ms"] is not None and real["floor_ms"] is not None


def test_secret_protocol_row() -> None:
    row = bench_secret.protocol_row(3, 3, 10_000.0, 10_000.0)
    assert row["commit"] > 0 and row["reveal"] > 0 and row["cpu_ms"] > 0


def test_floor_exchange() -> None:
    assert len(bl.run_floor(3, 2, 6, 100)) == 5
    assert len(bl.run_floor(3, 2, 4, 200, signed=True)) == 3


def test_verify_rows() -> None:
    data = bench_verify.play("prototag", 2, ())
    triples = bench_verify.signed_triples(data)
    assert triples
    t_verify, t_raw = bench_verify.best_pair(
        lambda: None, lambda: bench_verify.raw_loop(triples), 0.0
    )
    assert t_raw > 0 and t_verify >= 0


@pytest.mark.parametrize("engine", bench_rules.ENGINES)
def test_rules_engine(engine: str) -> None:
    row = bench_rules.run_engine(engine, 4, 0.05)
    assert row["games"] >= 1 and row["steps"] > 0


def test_wire_sizes() -> None:
    table, used, frames = bench_wire.play("prototag", 2, ())
    assert used.datagrams > 0 and frames > 0
    raw = next(
        e.data for e in bl.parse_log(bytes(table.logs[0])).entries if e.kind == bl.EntryKind.MSG
    )
    signed, alone = bench_wire.sized(raw)
    assert alone > signed > 64
    assert bench_wire.anatomy(raw)[-2]["bytes"] == signed


def test_wire_worst_case_table() -> None:
    table, largest = bench_wire.worst_case_table(["prototag", "stomptag"], 1)
    rows = table.rows
    assert {r["engine"] for r in rows} == {"prototag", "stomptag"}
    assert {r["type"] for r in rows} >= {"MOVE", "REVEAL", "COMMIT", "ENTROPY"}
    assert all(r["signed"] > 64 for r in rows)
    assert largest == max(r["signed"] for r in rows)
    orders = next(r for r in rows if r["engine"] == "stomptag" and r["type"] == "REVEAL")
    assert orders["action_b"] > 0 and orders["looked"] > 0 and orders["seat"] == 255
    assert bench_wire._target(None, largest)["met"] is (largest <= 250)


def test_startup_helpers() -> None:
    assert len(bench_startup.time_process([sys.executable, "-c", "pass"], 1)) == 1
    assert bench_startup.import_times(3)


def test_discovery_quick_on_loopback() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_discovery.py"),
            "--trials",
            "1",
            "--probing-trials",
            "0",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    doc = json.loads(proc.stdout)
    assert doc["tables"][0]["rows"]
