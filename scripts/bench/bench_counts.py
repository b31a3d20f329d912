"""Protocol cost of one step, by kind of step: datagrams and message rounds (machine-free).

Whole peers play a bench engine (``benchgames``) on ``DirectTable``'s virtual clock with a
fixed one-way latency, so every count here is a pure function of the code and the seed:

* ``secret``: ``benchsecret``, every seat makes a secret choice (COMMIT, then REVEAL);
* ``pair``: ``benchpair``, 2 of the N seats choose (rotating), the others only acknowledge;
* ``roll``: ``benchdice``, one fair d6 (ENTROPY from every seat);
* ``move``: ``benchmove``, one seat's Turn (MOVE), rotating.

A step's boundary is the moment the *last* peer applies it (its StepApplied stamp on the
virtual clock).  :func:`step_cost` plays ``warmup`` steps, then ``measure`` more, event by
event, and counts every datagram any peer sent between the two boundaries (link DATA and
ACK frames, retransmissions included) and the virtual time between them.  Message rounds
are that time over the one-way latency.  Used by tests/bench/test_protocol_counts.py (which
pins the numbers).

:func:`wifi_times` plays the same steps over a Wi-Fi-like network instead (seeded
:class:`~bench_direct.LinkFaults` per directed link: NetSim's delay, jitter and loss, plus
bursts of loss) and gives the median and p90 of the time per step, in mean one-way delays
of virtual time: machine-independent too.  Used by bench_secret.py and bench_dice.py
(``--wifi``).
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from lanTag.net.faults import NetSimConfig
from scripts.bench.bench_direct import DirectTable, LinkFaults
from scripts.bench.bench_tables import Table
from scripts.bench.benchgames import ENGINES

__all__ = [
    "ENGINES",
    "KINDS",
    "LATENCY",
    "WIFI",
    "WIFI_GOALS",
    "StepCost",
    "WifiNet",
    "pin_text",
    "step_cost",
    "wifi_table",
    "wifi_times",
    "window",
]

LATENCY = 0.010
# kind -> (engine, its length option, other options)
KINDS: dict[str, tuple[str, str, tuple[tuple[str, int], ...]]] = {
    "secret": ("benchsecret", "rounds", ()),
    "pair": ("benchpair", "rounds", (("choosers", 2),)),
    "roll": ("benchdice", "rolls", ()),
    "move": ("benchmove", "moves", ()),
}


@dataclass(frozen=True)
class StepCost:
    kind: str
    n: int
    steps: int
    datagrams: int
    by_type: dict[str, int]
    hops: Fraction  # virtual time over the window / one-way latency

    @property
    def dgrams_per_step(self) -> Fraction:
        return Fraction(self.datagrams, self.steps)

    @property
    def rounds_per_step(self) -> Fraction:
        return self.hops / self.steps


class _LastApplied:
    """Virtual time at which the last peer applied each step (from DirectTable's stamps)."""

    def __init__(self, table: DirectTable) -> None:
        self.table = table

    def at(self, step: int) -> float:
        times: list[float] = [
            at for s in self.table.stamped for k, at, _, _ in s.steps if k == step
        ]
        if len(times) != len(self.table.peers):
            raise RuntimeError(f"step {step} applied by {len(times)} peers only")
        return max(times)


def table_for(
    kind: str, n: int, steps: int, *, latency: float = LATENCY, seed: int = 0
) -> DirectTable:
    engine, length, options = KINDS[kind]
    return DirectTable(engine, n, options=((length, steps), *options), latency=latency, seed=seed)


def run_to_step(table: DirectTable, step: int) -> None:
    """Run until every peer has applied ``step`` (its state is past it), event by event,
    so the window ends at the event that applied it and not some events later."""
    ok = table.net.run_until(lambda: table.min_step() > step, every=1)
    if not ok or table.min_step() <= step:
        raise RuntimeError(f"the table did not reach step {step + 1}")


def step_cost(
    kind: str, n: int, *, warmup: int, measure: int, latency: float = LATENCY, seed: int = 0
) -> StepCost:
    """Datagrams and message rounds of steps ``warmup`` .. ``warmup + measure - 1``."""
    if warmup < 1 or measure < 1:
        raise ValueError("need warmup >= 1 (the first boundary is a step) and measure >= 1")
    table = table_for(kind, n, warmup + measure + 2, latency=latency, seed=seed)
    table.start()
    last = _LastApplied(table)
    run_to_step(table, warmup - 1)
    w0, t0 = table.net.wire.snapshot(), last.at(warmup - 1)
    run_to_step(table, warmup + measure - 1)
    wire = table.net.wire.minus(w0)
    t1 = last.at(warmup + measure - 1)
    hops = Fraction(round((t1 - t0) / latency * 1000), 1000)  # float sums of the clock
    return StepCost(kind, n, measure, wire.datagrams, dict(Counter(wire.by_type)), hops)


def window(kind: str, n: int) -> tuple[int, int]:
    """(warm-up steps, measured steps) of the pinned counts.

    Two warm-up steps: the first steps of a game are not yet in the steady state (the
    game's start reaches the peers at different times).  A roll and an all-seat secret
    round cost the same every step from then on, so a short window is their mean; a move
    and a pair round rotate over the seats and their cost varies with the seat (which
    link frames carry the acknowledgements), so their window is one whole rotation, N
    steps.
    """
    if kind == "roll":
        return 2, 4
    if kind == "secret":
        return 2, 2
    return 2, n


@dataclass(frozen=True)
class WifiNet:
    """A Wi-Fi-like network: one-way delay ``delay`` ± ``spread`` (uniform), independent
    loss ``loss``, and bursts: a datagram starts a burst of ``burst_len`` lost datagrams
    on its link with probability ``burst``.  Defaults: 3 ms ± 2 ms, 1 % loss, 0.5 % bursts
    of 5 (so about 3.5 % of the datagrams are lost)."""

    delay: float = 0.003
    spread: float = 0.002
    loss: float = 0.01
    burst: float = 0.005
    burst_len: int = 5

    def faults(self, seed: int) -> LinkFaults:
        # NetSim's delay is fixed + uniform [0, jitter]: delay - spread .. delay + spread.
        config = NetSimConfig(
            loss=self.loss, delay=self.delay - self.spread, jitter=2 * self.spread, seed=seed
        )
        return LinkFaults(config, burst=self.burst, burst_len=self.burst_len)

    def __str__(self) -> str:
        return (
            f"one-way {self.delay * 1e3:g} ms ± {self.spread * 1e3:g} ms (uniform), "
            f"{self.loss:.1%} independent loss, {self.burst:.1%} bursts of {self.burst_len}"
        )


WIFI = WifiNet()
# Goals of issue "[scale]": median step time in mean one-way delays.
WIFI_GOALS = {"secret": 2.5, "roll": 1.5}


def wifi_times(
    kind: str, n: int, steps: int, *, net: WifiNet = WIFI, warmup: int = 2, seed: int = 1
) -> dict[str, Any]:
    """Median and p90 of the time per step over ``net``, in mean one-way delays.

    The lobby fills on a clean network; the faults start with the game.  A step's time is
    from the last peer applying the step before to the last peer applying it (virtual
    clock), for the ``steps`` steps after ``warmup``.  Also: datagrams sent per step, the
    links' retransmissions per step and the share of datagrams the network lost.
    """
    table = table_for(kind, n, warmup + steps + 2, latency=0.0, seed=seed)
    table.start()
    faults = net.faults(seed)
    table.net.faults = faults
    w0 = table.net.wire.snapshot()
    r0 = sum(p.link.stats.retransmitted for p in table.peers)
    last = _LastApplied(table)
    run_to_step(table, warmup + steps - 1)
    times = sorted((last.at(k) - last.at(k - 1)) / net.delay for k in range(warmup, warmup + steps))
    sent = table.net.wire.minus(w0).datagrams
    retrans = sum(p.link.stats.retransmitted for p in table.peers) - r0
    return {
        "median": statistics.median(times),
        "p90": times[min(len(times) - 1, int(0.9 * len(times)))],
        "max": times[-1],
        "steps": steps,
        "dgrams": sent / (warmup + steps),
        "retrans": retrans / (warmup + steps),
        "lost_pct": 100 * faults.lost() / max(1, sent),
    }


def wifi_table(
    runs: list[tuple[str, int, int]], *, net: WifiNet = WIFI, seed: int = 1, progress: bool = True
) -> Table:
    """A table of :func:`wifi_times`, one row per (kind, N, steps), with the goal and a
    verdict: median time per step <= WIFI_GOALS[kind] mean one-way delays."""
    table = Table(
        f"step time over a simulated Wi-Fi ({net}; in-process, virtual clock, seed {seed})",
        [
            ("kind", "step", ""),
            ("n", "peers", ""),
            ("steps", "steps", ""),
            ("median", "median (delays)", ".2f"),
            ("p90", "p90 (delays)", ".2f"),
            ("max", "max (delays)", ".1f"),
            ("goal", "goal: median <=", ".1f"),
            ("verdict", "verdict", ""),
            ("dgrams", "datagrams/step", ".1f"),
            ("retrans", "retransmits/step", ".2f"),
            ("lost_pct", "lost %", ".1f"),
        ],
        notes=[
            f"times in mean one-way delays ({net.delay * 1e3:g} ms) of virtual time: from "
            "the last peer applying the step before to the last peer applying this one, "
            "after 2 warm-up steps; the lobby fills on a clean network",
            "faults: NetSim (lanTag/net/faults.py) per directed link for the delay, its "
            "jitter (which also reorders) and the independent loss; the bursts are the "
            f"bench's (bench_direct.LinkFaults): a datagram starts one with probability "
            f"{net.burst:g}, and it and the next {net.burst_len - 1} datagrams on that link "
            "(retransmissions included, however late) are lost",
            "lost %: datagrams the network lost / datagrams sent (independent + bursts)",
        ],
    )
    for kind, n, steps in runs:
        row = wifi_times(kind, n, steps, net=net, seed=seed)
        goal = WIFI_GOALS.get(kind)
        verdict = None if goal is None else "MET" if row["median"] <= goal else "MISSED"
        table.add(kind=kind, n=n, goal=goal, verdict=verdict, **row)
        if progress:
            print(f"... wifi {kind} N={n}", file=sys.stderr, flush=True)
    return table.close()


def pin_text(value: tuple[Fraction | int, Fraction | int]) -> str:
    """``(datagrams, rounds)`` as the test's dicts write it: ints, or ``F(a, b)``."""

    def one(x: Fraction | int) -> str:
        x = Fraction(x)
        return str(x.numerator) if x.denominator == 1 else f"F({x.numerator}, {x.denominator})"

    return f"({one(value[0])}, {one(value[1])})"


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_counts",
        description="print the pins of tests/bench/test_protocol_counts",
    )
    ap.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    ap.add_argument("--peers", type=int, nargs="+", default=[2, 4, 8, 16])
    args = ap.parse_args()
    for kind in args.kinds:
        pins = []
        for n in args.peers:
            warmup, steps = window(kind, n)
            cost = step_cost(kind, n, warmup=warmup, measure=steps)
            pins.append(f"{n}: {pin_text((cost.dgrams_per_step, cost.rounds_per_step))}")
            print(
                f"# {kind} N={n}: {dict(sorted(cost.by_type.items()))} over {steps} steps",
                file=sys.stderr,
                flush=True,
            )
        print(f"{kind.upper()} = {{{', '.join(pins)}}}", flush=True)


if __name__ == "__main__":
    main()
