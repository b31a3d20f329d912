"""NetSim parsing and the statistics of its pure scheduling."""

from __future__ import annotations

import pytest

from lanTag.net.faults import NetSim, NetSimConfig, NetSimConfigError


def test_parse_full_spec() -> None:
    cfg = NetSimConfig.parse(
        "loss=0.2, dup=5%, reorder=0.1,delay=30ms,jitter=20ms,hold=1.5s,seed=7,partition=2s..3500ms"
    )
    assert cfg == NetSimConfig(
        loss=0.2,
        dup=0.05,
        reorder=0.1,
        delay=0.030,
        jitter=0.020,
        hold=1.5,
        seed=7,
        partition=(2.0, 3.5),
    )
    assert NetSimConfig.parse(str(cfg)) == cfg
    assert NetSimConfig.parse("") == NetSimConfig()
    assert NetSim.parse("delay=200us").config.delay == pytest.approx(200e-6)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("loss=0.2,bogus=1", "unknown key 'bogus'"),
        ("loss=abc", "loss: 'abc' is not a number"),
        ("loss=1.5", "outside"),
        ("dup=-0.1", "outside"),
        ("reorder=150%", "outside"),
        ("delay=30", "delay: '30' is not a duration"),
        ("jitter=fast", "not a duration"),
        ("seed=x7", "seed: 'x7' is not an integer"),
        ("loss", "expected key=value"),
        ("loss=0.1,loss=0.2", "given twice"),
        ("partition=2s", "START..END"),
        ("partition=3s..2s", "start <= end"),
    ],
)
def test_parse_errors_are_clear_value_errors(text: str, message: str) -> None:
    with pytest.raises(NetSimConfigError, match=message) as info:
        NetSimConfig.parse(text)
    assert isinstance(info.value, ValueError)


def run(sim: NetSim, n: int, gap: float = 0.001) -> list[list[tuple[float, bytes]]]:
    return [sim.schedule(i.to_bytes(4, "big"), i * gap) for i in range(n)]


def test_loss_and_dup_rates_match_the_configuration() -> None:
    out = run(NetSim.parse("loss=0.2,dup=0.1,seed=3"), 5000)
    lost = sum(1 for o in out if not o)
    doubled = sum(1 for o in out if len(o) == 2)
    assert 900 < lost < 1100  # 20% of 5000, well inside 4 sigma
    assert 350 < doubled < 450  # 10% of the 4000 that survive
    assert NetSim.parse("loss=1").schedule(b"x", 0.0) == []
    assert len(NetSim.parse("dup=1").schedule(b"x", 0.0)) == 2


def test_delay_and_jitter_bound_arrival() -> None:
    for i, arrivals in enumerate(run(NetSim.parse("delay=30ms,jitter=20ms,seed=1"), 500)):
        [(at, _)] = arrivals
        assert 0.030 <= at - i * 0.001 <= 0.050


def test_reorder_holds_a_datagram_past_later_ones() -> None:
    sim = NetSim.parse("reorder=0.3,hold=10ms,delay=1ms,seed=4")
    out = run(sim, 200)
    order = [data for _, data in sorted((at, data) for o in out for at, data in o)]
    sent = [i.to_bytes(4, "big") for i in range(200)]
    assert sorted(order) == sent and order != sent
    assert sim.stats.reordered > 30


def test_partition_window_is_relative_to_first_use() -> None:
    sim = NetSim.parse("partition=1s..2s")
    assert sim.schedule(b"a", 100.0)
    assert sim.schedule(b"b", 100.999)
    assert sim.schedule(b"c", 101.0) == [] and sim.schedule(b"d", 101.999) == []
    assert sim.schedule(b"e", 102.0)
    assert sim.stats.partitioned == 2


def test_same_seed_same_schedule_and_forks_are_stable_and_independent() -> None:
    spec = "loss=0.3,dup=0.2,reorder=0.2,delay=5ms,jitter=5ms,seed=9"
    assert run(NetSim.parse(spec), 300) == run(NetSim.parse(spec), 300)
    base = NetSim.parse(spec)
    assert run(base.fork("a>b"), 300) == run(NetSim.parse(spec).fork("a>b"), 300)
    assert run(base.fork("a>b"), 300) != run(base.fork("b>a"), 300)
    # blake2b, not hash(): the same in every process regardless of PYTHONHASHSEED
    assert NetSim.parse("seed=9").fork("a>b").config.seed == 15261284441951666304


def test_changing_one_probability_keeps_the_others_draws() -> None:
    with_dup = run(NetSim.parse("loss=0.3,dup=0.5,seed=2"), 300)
    without = run(NetSim.parse("loss=0.3,seed=2"), 300)
    assert [bool(o) for o in with_dup] == [bool(o) for o in without]
