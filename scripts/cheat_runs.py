"""Run one real-process cheat table many times; count rollbacks and wrong outcomes.

Each run is the table of ``tests/chaos/test_cheat_processes.py``: ``lantag host`` and an
honest ``lantag join`` (bots, headless) and ``python -m tests.support.adversary --cheat
NAME``, a 3-seat Prototag game on loopback.  For each run it reports the honest processes'
exit codes, whether both honest logs verify (valid, complete), the blames of honest seats,
the cheater's decision at the step it cheated (the forfeit expected, or for two-commits the
round standing with the cheater voted out later, SPEC §5.7), whether the honest histories
agree, and the rollbacks in
the honest logs (NOTE "rollback" entries: a step applied, then decided again).  Bounded:
``--runs`` tables, each given at most the test's 120 s, ``--parallel`` at a time.

    .venv/bin/python -m scripts.cheat_runs --cheat two-commits --runs 30 --parallel 2

``--cheat collude`` runs the 4-seat table of ``tests/chaos/test_colluder_processes.py``
instead (host, honest joiner, and two colluders: one lends its key, the other names a second
COMMIT of it to the joiner only; SPEC §5.7 "Many cheaters").
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from lanTag.log.entries import EntryKind, parse_log
from lanTag.rules.base import FORFEIT, Joint
from tests.chaos.test_cheat_processes import CHEATS, Run, _rollbacks, _table
from tests.chaos.test_colluder_processes import _collusion_table
from tests.support.table import final_history

COLLUDE = "collude"  # the 4-seat table of two colluders (tests/chaos/test_colluder_processes.py)

# The blame each cheat must earn the cheater in both honest logs; the cheats made at a
# secret round must also leave it its forfeit there (SPEC §4.4).
CODES = {
    "two-commits": "equivocation",
    "false-hash": "desync",
    "peek-reveal": "bad-reveal",
    "request-flood": "flood",
}
FORFEITS = {"two-commits", "peek-reveal"}
# ... unless the round stood (protocol 5, SPEC §5.7: a second COMMIT that turned up after the
# table acknowledged the first): the cheater is then voted out at a later step.
STANDS = {"two-commits"}


def _describe(cheat: str, n: int, run: Run | BaseException) -> tuple[str, int, bool]:
    """One line about a run, its rollbacks in the honest logs, and whether it was good."""
    if isinstance(run, BaseException):
        return f"run {n}: FAILED to finish: {str(run).splitlines()[0]}", 0, False
    rollbacks = [_rollbacks(log) for log in run.logs[:2]]
    reports = [run.report(i) for i in (0, 1)]
    valid = all(r.valid and r.complete for r in reports)
    honest_blamed = sorted({seat for r in reports for seat, *_ in r.blames if seat != run.cheater})
    codes = sorted({c for r in reports for seat, _s, c, _r in r.blames if seat == run.cheater})
    # How often each honest log blames the cheater with its cheat's code (a non-opening
    # reveal: at most once a game, the seat is out after it), and who sealed the end (a
    # dropped seat is not live at the end, so it does not seal).
    times = [
        sum(1 for b in r.blames if b[0] == run.cheater and b[2] == CODES[cheat]) for r in reports
    ]
    sealed = [r.sealed_by for r in reports]
    convicted = all(
        CODES[cheat] in {c for seat, _s, c, _r in r.blames if seat == run.cheater} for r in reports
    )
    forfeits, stood = [], []
    for r in reports:
        at = [a.input for a in r.applied if a.step == run.cheated_at]
        last = at[-1] if at else None  # the step's last decision (after any rollback)
        choices = dict(last.choices) if isinstance(last, Joint) else {}
        forfeits.append(run.cheater is not None and choices.get(run.cheater) == FORFEIT)
        dropped_later = any(
            b[0] == run.cheater and b[2] == "timeout" and b[1] > (run.cheated_at or 0)
            for b in r.blames
        )
        stood.append(run.cheater in choices and not forfeits[-1] and dropped_later)
    agree = final_history(reports[0]) == final_history(reports[1])
    outcome = all(forfeits) or (cheat in STANDS and all(stood))
    good = (
        run.codes[:2] == [0, 0]
        and valid
        and not honest_blamed
        and run.cheated_at is not None
        and convicted
        and agree
        and (outcome or cheat not in FORFEITS)
        and (cheat != "peek-reveal" or max(times) == 1)
        and not any(run.cheater in by for by in sealed)
    )
    line = (
        f"run {n}: exits {run.codes} cheated at {run.cheated_at} seat {run.cheater} "
        f"blamed {codes} ({CODES[cheat]} x{times}) honest blamed {honest_blamed} "
        f"valid {valid} agree {agree} forfeit {forfeits} stood {stood} sealed by {sealed} "
        f"rollbacks {rollbacks}"
    )
    return line, sum(rollbacks), good


def _describe_collusion(n: int, played: tuple[Run, str] | BaseException) -> tuple[str, int, bool]:
    """One line about a run of the colluders' table (seat A lends its key to seat B)."""
    if isinstance(played, BaseException):
        return f"run {n}: FAILED to finish: {str(played).splitlines()[0]}", 0, False
    run, lent = played
    rollbacks = [_rollbacks(log) for log in run.logs[:2]]
    again = [_decided_again(log) for log in run.logs[:2]]
    reports = [run.report(i) for i in (0, 1)]
    a = next(p.seat for p in reports[0].players if p.fingerprint == lent)
    colluders = {a, run.cheater}
    valid = all(r.valid and r.complete for r in reports)
    honest_blamed = sorted({s for r in reports for s, *_ in r.blames if s not in colluders})
    convicted = [sorted({s for s, _k, c, _r in r.blames if c == "equivocation"}) for r in reports]
    agree = final_history(reports[0]) == final_history(reports[1])
    at = [x.input for x in reports[0].applied if x.step == run.cheated_at]
    joint = at[-1] if at else None
    outcome = "split" if isinstance(joint, Joint) and joint.of(a) == FORFEIT else "stood"
    good = (
        run.codes[:2] == [0, 0]
        and valid
        and not honest_blamed
        and run.cheated_at is not None
        and all(a in c for c in convicted)
        and agree
    )
    line = (
        f"run {n}: exits {run.codes} cheated at {run.cheated_at} seats A {a} B {run.cheater} "
        f"round {outcome} convicted {convicted} honest blamed {honest_blamed} valid {valid} "
        f"agree {agree} rollbacks {rollbacks} steps decided again {again}"
    )
    return line, sum(rollbacks), good and not any(again)


def _decided_again(log: Path) -> list[int]:
    """Steps a log records twice (a decided step decided again: a rollback past it; a
    rollback of the step being decided records nothing twice)."""
    steps = [e.step for e in parse_log(log.read_bytes()).entries if e.kind == EntryKind.STEP]
    return sorted({k for k in steps if steps.count(k) > 1})


async def _batch(
    cheat: str, base: Path, first: int, count: int
) -> list[Run | tuple[Run, str] | BaseException]:
    dirs = []
    for n in range(first, first + count):
        d = base / f"run{n}"
        d.mkdir()
        dirs.append(d)
    if cheat == COLLUDE:
        tables = [_collusion_table(d) for d in dirs]
        return list(await asyncio.gather(*tables, return_exceptions=True))
    return list(await asyncio.gather(*(_table(d, cheat) for d in dirs), return_exceptions=True))


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.cheat_runs", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--cheat", default="two-commits", choices=(*CHEATS, COLLUDE))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--keep", metavar="DIR", help="write the runs' logs here and keep them")
    args = parser.parse_args()
    with_rollback = bad = 0
    with tempfile.TemporaryDirectory(prefix="cheat_runs.") as scratch:
        tmp = args.keep or scratch
        Path(tmp).mkdir(parents=True, exist_ok=True)
        done = 0
        while done < args.runs:
            count = min(args.parallel, args.runs - done)
            runs = asyncio.run(_batch(args.cheat, Path(tmp), done, count))
            for n, run in enumerate(runs, start=done + 1):
                if args.cheat == COLLUDE:
                    assert not isinstance(run, Run)
                    line, rollbacks, good = _describe_collusion(n, run)
                else:
                    assert not isinstance(run, tuple)
                    line, rollbacks, good = _describe(args.cheat, n, run)
                print(line, flush=True)
                with_rollback += rollbacks > 0
                bad += not good
            done += count
    print(f"{args.cheat}: {args.runs} runs, {with_rollback} with a rollback, {bad} not as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
