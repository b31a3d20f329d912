"""Datagrams and message rounds per step, by kind of step, pinned (issue "[scale]").

Protocol counts do not depend on the machine: whole peers play a bench engine on the
virtual clock of scripts/bench's ``DirectTable`` with a fixed one-way latency of 10 ms
(scripts/bench/bench_counts.py: what a step is, where its window starts and ends).  Each
dict maps N to (datagrams per step, message rounds per step), exact: a step count divides
a whole number of datagrams, and message rounds are virtual time over the latency (the
clock sums floats, so ``step_cost`` rounds it to 1/1000 of a hop first; every value here is
a whole number of hops).  Datagrams are every link frame any peer sent: DATA and ACK.

* ``SECRET``: every seat chooses (COMMIT, then REVEAL), engine ``benchsecret``;
* ``PAIR``: 2 of the N seats choose, rotating, the others acknowledge (``benchpair``);
* ``ROLL``: a fair d6 (ENTROPY from every seat), ``benchdice``;
* ``MOVE``: one seat's Turn, rotating (``benchmove``).

A protocol change that changes a count fails here: re-pin with
``python -m scripts.bench.bench_counts`` (it prints these dicts).  The budget of a secret
round (issue "[scale]") is ``datagrams <= 2.5 N (N-1)`` in exactly 2.00 message rounds;
protocol 6 meets it (an all-seat round is exactly 2 N (N-1) datagrams: one COMMIT and one
REVEAL from each seat to each other); protocol 5 missed it from N = 4 on (the relayed COMMITs
and a HAVE per COMMIT made it O(N^3): 15054 datagrams at N = 16).

About 60 s on the shared 2-core machine, most of it the N = 16 secret rounds.  Everything
in tests/bench/ is "slow" (tests/conftest.py), so the fast subset skips it.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest

from lanTag.rules.registry import unregister_engine
from scripts.bench import bench_counts as bc

NS = (2, 4, 8, 16)
F = Fraction

# N -> (datagrams per step, message rounds per step), protocol 6.  Protocol 5 (relayed
# COMMITs, a HAVE per COMMIT) was SECRET 4, 114, 1510, 15054 and PAIR 4, 66, 2669/4, 46431/8.
SECRET = {2: (4, 2), 4: (24, 2), 8: (112, 2), 16: (480, 2)}
PAIR = {2: (4, 2), 4: (20, 2), 8: (76, 2), 16: (284, 2)}
ROLL = {2: (2, 1), 4: (12, 1), 8: (56, 1), 16: (240, 1)}
MOVE = {2: (1, 1), 4: (F(39, 4), 1), 8: (F(427, 8), 1), 16: (F(3795, 16), 1)}

EXPECTED = {"secret": SECRET, "pair": PAIR, "roll": ROLL, "move": MOVE}

@pytest.fixture(autouse=True)
def _forget_bench_engines() -> object:
    """DirectTable registers the bench-only engines; don't leak them into other tests."""
    yield
    for engine in bc.ENGINES:
        unregister_engine(engine)


@functools.cache
def measured(kind: str, n: int) -> tuple[Fraction, Fraction]:
    """(datagrams, message rounds) per step, measured once per test session."""
    warmup, steps = bc.window(kind, n)
    cost = bc.step_cost(kind, n, warmup=warmup, measure=steps)
    return cost.dgrams_per_step, cost.rounds_per_step


def check_pin(kind: str, n: int) -> None:
    got = measured(kind, n)
    assert got == EXPECTED[kind][n], (
        f"{kind} N={n}: measured {bc.pin_text(got)}, pinned {bc.pin_text(EXPECTED[kind][n])}"
    )


def budget_misses(counts: dict[int, tuple[Fraction, Fraction]]) -> list[str]:
    """Where ``counts`` (N -> datagrams, message rounds) misses the redesign's budget:
    more than 2.5 N (N-1) datagrams, or other than 2.00 message rounds."""
    misses = []
    for n, (datagrams, rounds) in sorted(counts.items()):
        budget = F(5, 2) * n * (n - 1)
        if datagrams > budget or rounds != 2:
            misses.append(
                f"N={n}: {float(datagrams):.2f} datagrams (budget {float(budget):g}), "
                f"{float(rounds):.2f} message rounds (budget 2.00)"
            )
    return misses


def check_budget(kind: str) -> None:
    misses = budget_misses({n: measured(kind, n) for n in NS})
    assert not misses, f"{kind} round over budget: " + "; ".join(misses)


@pytest.mark.parametrize("n", NS)
def test_secret_round_counts_are_pinned(n: int) -> None:
    check_pin("secret", n)


@pytest.mark.parametrize("n", NS)
def test_pair_secret_round_counts_are_pinned(n: int) -> None:
    check_pin("pair", n)


@pytest.mark.parametrize("n", NS)
def test_roll_counts_are_pinned(n: int) -> None:
    check_pin("roll", n)


@pytest.mark.parametrize("n", NS)
def test_move_counts_are_pinned(n: int) -> None:
    check_pin("move", n)


def test_secret_round_within_budget() -> None:
    check_budget("secret")


def test_pair_secret_round_within_budget() -> None:
    check_budget("pair")


def test_the_budget_check_tells_within_from_over() -> None:
    """The budget check itself: a count over it, or a third message round, is a miss."""
    within = {n: (F(5, 2) * n * (n - 1), F(2)) for n in NS}
    assert budget_misses(within) == []
    assert budget_misses(within | {4: (F(61, 2), F(2))}) == [
        "N=4: 30.50 datagrams (budget 30), 2.00 message rounds (budget 2.00)"
    ]
    assert len(budget_misses(within | {8: (F(1), F(201, 100))})) == 1
