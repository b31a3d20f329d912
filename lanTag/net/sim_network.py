"""An in-memory network of sans-IO machines on a virtual clock (after aioquic's test helpers).

Nothing sleeps: :meth:`SimNetwork.step` jumps the clock to the next event,
which is either a datagram arriving or a machine's timer.  Each directed link
has its own :class:`~lanTag.net.faults.NetSim` forked from the network's, so a
run is a pure function of the seed and the machines.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lanTag.errors import LanTagError
from lanTag.net.endpoint import Addr, DatagramMachine
from lanTag.net.faults import NetSim, NetSimConfig

__all__ = ["SimEvent", "SimNetwork", "SimulationStalled", "SimulationTimeout"]

_MAX_STILL_STEPS = 100_000


class SimulationTimeout(LanTagError, AssertionError):
    """``run_until`` reached ``max_time`` (virtual) before the predicate held."""


class SimulationStalled(LanTagError, RuntimeError):
    """A machine keeps asking for a timer at the current instant without making progress."""


@dataclass(frozen=True, slots=True)
class SimEvent:
    """One line of the trace: ``kind`` is sent, delivered, lost, cut or unroutable."""

    time: float
    kind: str
    src: Addr
    dst: Addr
    data: bytes


class SimNetwork:
    def __init__(
        self, faults: NetSimConfig | None = None, *, start: float = 0.0, trace: bool = False
    ) -> None:
        self.now = start
        self._faults = NetSim(faults)
        self._links: dict[tuple[Addr, Addr], NetSim | None] = {}
        self._overrides: dict[tuple[Addr, Addr], NetSimConfig | None] = {}
        self.machines: dict[Addr, DatagramMachine] = {}
        self._queue: list[tuple[float, int, Addr, Addr, bytes]] = []
        self._order = itertools.count()
        self._cuts: set[tuple[Addr, Addr]] = set()
        self.trace: list[SimEvent] | None = [] if trace else None
        self.drop_if: Callable[[Addr, Addr, bytes], bool] | None = None
        """Test hook: drop a datagram at send time when this returns True (before faults)."""
        self.delivered = 0
        self.dropped = 0

    # ---------------------------------------------------------------- topology

    def add(self, addr: Addr, machine: DatagramMachine) -> None:
        self.machines[addr] = machine

    def set_faults(
        self, src: Addr, dst: Addr, faults: NetSimConfig | None, both_ways: bool = True
    ) -> None:
        """Override the faults of one link (None: perfect, zero latency)."""
        for key in [(src, dst), (dst, src)] if both_ways else [(src, dst)]:
            self._overrides[key] = faults
            self._links.pop(key, None)

    def cut(self, side_a: Iterable[Addr], side_b: Iterable[Addr]) -> None:
        """Partition: drop everything between the two sets, including datagrams in flight."""
        b = list(side_b)
        for x in side_a:
            for y in b:
                self._cuts |= {(x, y), (y, x)}

    def heal(self) -> None:
        self._cuts.clear()

    def _netsim(self, src: Addr, dst: Addr) -> NetSim | None:
        key = (src, dst)
        if key not in self._links:
            if key in self._overrides:
                cfg = self._overrides[key]
                self._links[key] = None if cfg is None else NetSim(cfg).fork(f"{src}>{dst}")
            else:
                self._links[key] = self._faults.fork(f"{src}>{dst}")
        return self._links[key]

    # ---------------------------------------------------------------- running

    def _record(self, kind: str, src: Addr, dst: Addr, data: bytes) -> None:
        if self.trace is not None:
            self.trace.append(SimEvent(self.now, kind, src, dst, data))

    def flush(self) -> None:
        """Collect and schedule every machine's pending output (call after poking a machine)."""
        for src, machine in self.machines.items():
            for data, dst in machine.datagrams_to_send(self.now):
                self._record("sent", src, dst, data)
                if (src, dst) in self._cuts:
                    self._record("cut", src, dst, data)
                    self.dropped += 1
                    continue
                if self.drop_if is not None and self.drop_if(src, dst, data):
                    self._record("lost", src, dst, data)
                    self.dropped += 1
                    continue
                sim = self._netsim(src, dst)
                arrivals = [(self.now, data)] if sim is None else sim.schedule(data, self.now)
                if not arrivals:
                    self._record("lost", src, dst, data)
                    self.dropped += 1
                for at, payload in arrivals:
                    heapq.heappush(self._queue, (at, next(self._order), src, dst, payload))

    def _next_timer(self) -> tuple[float, Addr] | None:
        best: tuple[float, Addr] | None = None
        for addr, machine in self.machines.items():
            t = machine.next_timer()
            if t is not None and (best is None or t < best[0]):
                best = (t, addr)
        return best

    def next_event_time(self) -> float | None:
        timer = self._next_timer()
        times = [
            t
            for t in (
                self._queue[0][0] if self._queue else None,
                None if timer is None else timer[0],
            )
            if t is not None
        ]
        return max(min(times), self.now) if times else None

    def step(self) -> bool:
        """Advance to the next event and handle it; False when nothing is left to happen."""
        self.flush()
        timer = self._next_timer()
        if self._queue and (timer is None or self._queue[0][0] <= timer[0]):
            at, _, src, dst, data = heapq.heappop(self._queue)
            self.now = max(self.now, at)
            machine = self.machines.get(dst)
            if machine is None:
                self._record("unroutable", src, dst, data)
                self.dropped += 1
            elif (src, dst) in self._cuts:
                self._record("cut", src, dst, data)
                self.dropped += 1
            else:
                self._record("delivered", src, dst, data)
                self.delivered += 1
                machine.receive_datagram(data, src, self.now)
        elif timer is not None:
            self.now = max(self.now, timer[0])
            self.machines[timer[1]].handle_timer(self.now)
        else:
            return False
        self.flush()
        return True

    def run_until(self, predicate: Callable[[], bool], max_time: float) -> float:
        """Step until ``predicate()`` holds; return the virtual time it took from now.

        Raises :class:`SimulationTimeout` if the next event lies past ``max_time``
        (absolute virtual time) or nothing is left to happen.
        """
        begin, still, last = self.now, 0, self.now
        self.flush()
        while not predicate():
            upcoming = self.next_event_time()
            if upcoming is None or upcoming > max_time:
                self.now = max(self.now, min(max_time, upcoming or max_time))
                raise SimulationTimeout(f"condition not met by t={max_time:g}s (now {self.now:g})")
            self.step()
            still = still + 1 if self.now == last else 0
            last = self.now
            if still > _MAX_STILL_STEPS:
                raise SimulationStalled(f"{still} events at t={self.now:g}s without time moving")
        return self.now - begin

    def run_for(self, duration: float) -> None:
        """Handle every event up to ``now + duration``, then set the clock there."""
        end = self.now + duration
        with contextlib.suppress(SimulationTimeout):
            self.run_until(lambda: False, end)
        self.now = end
