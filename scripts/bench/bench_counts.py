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
pins the numbers) and bench_secret.py.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_direct import DirectTable
from benchgames import ENGINES

__all__ = ["ENGINES", "KINDS", "LATENCY", "StepCost", "pin_text", "step_cost", "window"]

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
        times = [at for s in self.table.stamped for k, at, _, _ in s.steps if k == step]
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


def pin_text(value: tuple[Fraction | int, Fraction | int]) -> str:
    """``(datagrams, rounds)`` as the test's dicts write it: ints, or ``F(a, b)``."""

    def one(x: Fraction | int) -> str:
        x = Fraction(x)
        return str(x.numerator) if x.denominator == 1 else f"F({x.numerator}, {x.denominator})"

    return f"({one(value[0])}, {one(value[1])})"


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="print the pins of tests/bench/test_protocol_counts")
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
