"""SimNetwork itself: determinism, partitions, timeouts, stall detection."""

from __future__ import annotations

import pytest

from lanTag.net.endpoint import Addr
from lanTag.net.sim_network import SimNetwork, SimulationStalled, SimulationTimeout

from .pair import A, B, make_pair


def trace_of(seed: int) -> list[tuple[float, str, Addr, bytes]]:
    p = make_pair(f"loss=0.2,dup=0.1,reorder=0.2,delay=3ms,jitter=4ms,seed={seed}", trace=True)
    for i in range(40):
        p.a.send(B, bytes([i]) * (i * 97), p.net.now)
        p.b.send(A, bytes([i]), p.net.now)
    p.net.run_until(lambda: len(p.got[A]) == 40 and len(p.got[B]) == 40, max_time=60)
    assert p.net.trace is not None
    return [(e.time, e.kind, e.src, e.data) for e in p.net.trace]


def test_a_run_is_a_function_of_the_seed() -> None:
    assert trace_of(1) == trace_of(1)
    assert trace_of(1) != trace_of(2)


def test_cut_drops_datagrams_already_in_flight() -> None:
    p = make_pair("delay=50ms")
    p.a.send(B, b"x", p.net.now)
    p.net.flush()  # on the wire, arriving at t=0.05
    p.net.cut([A], [B])
    p.net.run_for(0.1)
    assert p.got[B] == [] and p.net.dropped == 1
    p.net.heal()
    p.net.run_until(lambda: p.got[B] == [b"x"], max_time=5)


def test_run_until_raises_at_max_time_and_leaves_the_clock_there() -> None:
    p = make_pair()
    with pytest.raises(SimulationTimeout):
        p.net.run_until(lambda: False, max_time=3.0)
    assert p.net.now == 3.0
    net = SimNetwork()
    with pytest.raises(SimulationTimeout):  # nothing at all can happen
        net.run_until(lambda: False, max_time=1.0)


class Stuck:
    """A broken machine whose timer is always due and never moves."""

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        pass

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        return []

    def next_timer(self) -> float | None:
        return 0.0

    def handle_timer(self, now: float) -> None:
        pass


def test_a_machine_that_never_advances_is_reported() -> None:
    net = SimNetwork()
    net.add(A, Stuck())
    with pytest.raises(SimulationStalled):
        net.run_until(lambda: False, max_time=1.0)


def test_datagrams_to_unknown_addresses_are_unroutable() -> None:
    p = make_pair(trace=True)
    p.a.send(("10.9.9.9", 1), b"void", p.net.now)
    p.net.run_for(0.01)
    assert p.net.trace is not None
    assert [e.kind for e in p.net.trace] == ["sent", "unroutable"]
