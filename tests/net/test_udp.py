"""Real UDP on 127.0.0.1 through the UDP pump, with and without NetSim faults.

The only time bound here is a hang guard (``within``), never an assertion on speed.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from lanTag.net.endpoint import Addr
from lanTag.net.faults import NetSim
from lanTag.net.link import LinkLayer
from lanTag.net.udp import LinkEndpoint, UdpPump, run_machine
from tests.aio import within

HANG_GUARD = 60.0


class Inbox:
    def __init__(self, expected: int) -> None:
        self.messages: list[bytes] = []
        self.expected = expected
        self.full = asyncio.Event()

    def __call__(self, addr: Addr, message: bytes) -> None:
        self.messages.append(message)
        if len(self.messages) >= self.expected:
            self.full.set()


def payloads(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    sizes = [0, 1, 1170, 1171, 5000, 80_000] + [rng.randrange(3000) for _ in range(30)]
    return [rng.randbytes(n) for n in sizes]


@pytest.mark.parametrize(
    "faults",
    [None, "loss=0.2,dup=0.05,reorder=0.1,delay=2ms,jitter=2ms,seed=3"],
    ids=["clean", "lossy"],
)
async def test_two_real_endpoints_exchange_large_and_small_messages(faults: str | None) -> None:
    to_b, to_a = payloads(1), payloads(2)
    inbox_a, inbox_b = Inbox(len(to_a)), Inbox(len(to_b))
    a = LinkEndpoint(LinkLayer(1), inbox_a)
    b = LinkEndpoint(LinkLayer(2), inbox_b)
    pa = await UdpPump.start(a, ("127.0.0.1", 0), NetSim.parse(faults) if faults else None)
    pb = await UdpPump.start(
        b, ("127.0.0.1", 0), NetSim.parse(faults).fork("b") if faults else None
    )
    try:
        for m in to_b:
            a.send(pb.address, m, pa.now())
        pa.poke()
        for m in to_a:
            b.send(pa.address, m, pb.now())
        pb.poke()
        await within(HANG_GUARD, inbox_a.full.wait())
        await within(HANG_GUARD, inbox_b.full.wait())
    finally:
        await pa.close()
        await pb.close()
    assert inbox_b.messages == to_b
    assert inbox_a.messages == to_a
    assert pa.address[0] == "127.0.0.1" and pa.address[1] > 0
    if faults:
        assert a.layer.stats.retransmitted > 0 and pa.netsim is not None
        assert pa.netsim.stats.lost > 0


async def _bound(bound: list[UdpPump]) -> None:
    while not bound:  # run_machine calls on_bound right after binding
        await asyncio.sleep(0.001)


class Exploding:
    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        raise RuntimeError("machine bug")

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        return []

    def next_timer(self) -> float | None:
        return None

    def handle_timer(self, now: float) -> None:
        pass


async def test_run_machine_binds_reports_and_surfaces_machine_errors() -> None:
    stop = asyncio.Event()
    bound: list[UdpPump] = []
    task = asyncio.create_task(
        run_machine(Exploding(), ("127.0.0.1", 0), None, stop, on_bound=bound.append)
    )
    await within(HANG_GUARD, _bound(bound))
    sender = LinkLayer(5)
    sender.send(bound[0].address, b"boom", 0.0)
    probe = await UdpPump.start(LinkEndpoint(sender, lambda *_: None), ("127.0.0.1", 0))
    with pytest.raises(RuntimeError, match="machine bug"):
        await within(HANG_GUARD, task)
    await probe.close()


async def test_run_machine_stops_cleanly_on_the_event() -> None:
    stop = asyncio.Event()
    bound: list[UdpPump] = []
    inbox = Inbox(1)
    task = asyncio.create_task(
        run_machine(
            LinkEndpoint(LinkLayer(1), inbox), ("127.0.0.1", 0), None, stop, on_bound=bound.append
        )
    )
    await within(HANG_GUARD, _bound(bound))
    sender = LinkEndpoint(LinkLayer(2), lambda *_: None)
    probe = await UdpPump.start(sender, ("127.0.0.1", 0))
    sender.send(bound[0].address, b"hi", probe.now())
    probe.poke()
    await within(HANG_GUARD, inbox.full.wait())
    stop.set()
    await within(HANG_GUARD, task)
    await probe.close()
    assert inbox.messages == [b"hi"]


class Recorder:
    """Records datagrams in arrival order and counts output flushes."""

    def __init__(self, expected: int) -> None:
        self.got: list[bytes] = []
        self.flushes = 0
        self.expected = expected
        self.full = asyncio.Event()

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        self.got.append(data)
        if len(self.got) >= self.expected:
            self.full.set()

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        self.flushes += 1
        return []

    def next_timer(self) -> float | None:
        return None

    def handle_timer(self, now: float) -> None:
        pass


async def test_a_burst_is_fed_in_order_and_flushed_once_per_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    from lanTag.net import udp

    monkeypatch.setattr(udp, "MAX_BATCH_SECONDS", 3600.0)  # bound the batch by count only
    burst = [f"datagram {i}".encode() for i in range(40)]
    machine = Recorder(len(burst))
    pump = await UdpPump.start(machine, ("127.0.0.1", 0))
    assert pump.stats.rcvbuf > 0  # what the kernel granted of udp.RCVBUF
    flushes = machine.flushes
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        for data in burst:  # all queued in the socket before the pump runs again
            raw.sendto(data, pump.address)
    await within(HANG_GUARD, machine.full.wait())
    await pump.close()
    assert machine.got == burst and pump.stats.received == len(burst)
    assert pump.stats.batches == machine.flushes - flushes < len(burst)
