"""The simulated Wi-Fi of the benchmarks (scripts/bench: bench_direct.LinkFaults,
bench_counts.WifiNet / wifi_times / wifi_table): the delays and bursts it promises, seeded."""

from __future__ import annotations

import statistics

import pytest

from lanTag.net.faults import NetSimConfig
from lanTag.rules.registry import unregister_engine
from scripts.bench import bench_counts as bc
from scripts.bench.bench_direct import LinkFaults

A, B, C = ("10.0.0.1", 5000), ("10.0.1.1", 5000), ("10.0.2.1", 5000)


@pytest.fixture(autouse=True)
def _forget_bench_engines() -> object:
    yield
    for engine in bc.ENGINES:
        unregister_engine(engine)


def lost_runs(faults: LinkFaults, src: tuple[str, int], count: int) -> list[int]:
    """Lengths of the runs of consecutive lost datagrams among ``count`` sent on one link."""
    runs, run = [], 0
    for i in range(count):
        if faults.schedule(src, B, b"x", i * 0.001):
            if run:
                runs.append(run)
            run = 0
        else:
            run += 1
    return runs + ([run] if run else [])


def test_the_wifi_delay_is_3_ms_plus_or_minus_2() -> None:
    faults = bc.WIFI.faults(seed=7)
    delays = [
        at - 1.0
        for _ in range(5000)
        for at, _ in faults.schedule(A, B, b"x", 1.0)  # lost ones give nothing
    ]
    assert min(delays) > 0.001 - 1e-9 and max(delays) < 0.005 + 1e-9  # float clock sums
    assert statistics.fmean(delays) == pytest.approx(0.003, abs=0.0001)


def test_bursts_lose_five_datagrams_in_a_row_per_link() -> None:
    faults = LinkFaults(NetSimConfig(seed=3), burst=0.01, burst_len=5)
    runs = lost_runs(faults, A, 20_000)
    assert runs and all(r % 5 == 0 for r in runs)  # back-to-back bursts make runs of 10
    assert sum(runs) == faults.lost() == faults.lost_in_bursts
    assert 0.03 < sum(runs) / 20_000 < 0.07  # 1 % of the datagrams start 5 lost: ~4.8 %
    assert lost_runs(faults, C, 20_000) != runs  # each link has its own stream


def test_the_same_seed_gives_the_same_losses_and_delays() -> None:
    def trace(seed: int) -> list[list[tuple[float, bytes]]]:
        faults = bc.WIFI.faults(seed)
        return [faults.schedule(A, B, b"%d" % i, i * 0.001) for i in range(2000)]

    assert trace(1) == trace(1)
    assert trace(1) != trace(2)
    assert sum(not t for t in trace(1)) > 0  # some were lost


def test_wifi_times_are_virtual_and_repeat_exactly() -> None:
    first = bc.wifi_times("roll", 3, 20)
    assert first == bc.wifi_times("roll", 3, 20)
    assert first["steps"] == 20 and first["median"] >= 1 / 3  # at least the 1 ms floor
    assert first["median"] <= first["p90"] <= first["max"]


def test_wifi_table_has_a_goal_and_a_verdict_per_row() -> None:
    table = bc.wifi_table([("secret", 2, 4), ("roll", 2, 4)], progress=False)
    assert [(r["kind"], r["goal"]) for r in table.rows] == [("secret", 2.5), ("roll", 1.5)]
    assert all(r["verdict"] in ("MET", "MISSED") for r in table.rows)
    assert "verdict" in table.render()
