"""Run hand-made one-line mutants against their tests (shared by scripts/mutants_*.py).

The tree is copied to a temporary folder first, so the working tree is never edited; there
each mutant is applied alone and tests run with ``-x``: first the tests named for that
mutant (the ones written for it), then the whole list.  A mutant is killed when a test
fails; the first one that failed is printed beside it (``killed by``).  A mutant whose
code is no longer in the tree exactly once is reported ``NOT APPLIED`` and not counted.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PER_MUTANT_TIMEOUT = 1800  # seconds for one mutant's whole run: a hang counts as killed
# pytest-timeout per test: a mutant that loops forever fails its test; far above any test's
# time even on a loaded machine (a test that only waited for a core must not count as a kill)
PER_TEST_TIMEOUT = 600


@dataclass(frozen=True)
class Mutant:
    path: str  # file, from the repository root
    old: str  # the code, exactly once in the file
    new: str  # what the mutant puts there
    what: str  # what it breaks, in words
    first: tuple[str, ...] = ()  # tests to run before the whole list (node ids or paths)


@dataclass(frozen=True)
class Verdict:
    number: int
    mutant: Mutant
    killed: bool
    killed_by: str  # the first failing test ("" for a survivor), or "timeout"
    reason: str  # pytest's one-line reason for that failure
    seconds: float


_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)(?: - (.*))?$", re.MULTILINE)


def _first_failure(output: str) -> tuple[str, str]:
    """(node id, pytest's one-line reason) of the first failure in ``output``."""
    found = _FAILED.search(output)
    if found is None:
        return "(the run failed: see pytest's output)", ""
    return found.group(1), found.group(2) or ""


def _pytest(tree: Path, tests: list[str]) -> tuple[bool, str, str]:
    """(failed, first failing test, its reason) of one pytest run in ``tree``."""
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-x",
                "-q",
                "-p",
                "no:cacheprovider",
                "-o",
                f"timeout={PER_TEST_TIMEOUT}",
                *tests,
            ],
            cwd=tree,
            # The copy's lanTag whatever is set; wide lines keep pytest's reason in its summary.
            env={**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "400"},
            capture_output=True,
            text=True,
            timeout=PER_MUTANT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return True, "timeout", f"the run took over {PER_MUTANT_TIMEOUT} s"
    if result.returncode == 0:
        return False, "", ""
    return True, *_first_failure(result.stdout + result.stderr)


def run_one(tree: Path, number: int, mutant: Mutant, tests: list[str]) -> Verdict | None:
    """Apply ``mutant`` in ``tree``, run its tests, restore the file.  None: not applied."""
    file = tree / mutant.path
    source = file.read_text(encoding="utf-8")
    if source.count(mutant.old) != 1:
        return None
    file.write_text(source.replace(mutant.old, mutant.new), encoding="utf-8")
    start = time.monotonic()
    try:
        killed, by, why = (False, "", "")
        if mutant.first:
            killed, by, why = _pytest(tree, list(mutant.first))
        if not killed:
            killed, by, why = _pytest(tree, tests)
        if killed and "::" in by:
            # The kill must be the mutant's, not a test that failed once by chance (a
            # per-test timeout on a loaded machine, say): that test alone fails again.
            again, _by, _why = _pytest(tree, [by])
            if not again:
                killed, why = False, f"{by} failed once, then passed alone: {why}"
                by = ""
    finally:
        file.write_text(source, encoding="utf-8")
    return Verdict(number, mutant, killed, by, why, time.monotonic() - start)


def copy_tree(dest: Path) -> None:
    shutil.copytree(
        ROOT, dest, ignore=shutil.ignore_patterns(".git", ".venv", ".ci-venvs", "__pycache__")
    )


def times_found(m: Mutant) -> int:
    """How many times the mutant's code is in its file of the tree (it applies at 1)."""
    return (ROOT / m.path).read_text(encoding="utf-8").count(m.old)


def main(mutants: list[Mutant], tests: list[str], argv: list[str], doc: str) -> int:
    prog = f"python -m scripts.{Path(sys.argv[0]).stem}"  # the mutants_* entry that runs
    parser = argparse.ArgumentParser(prog=prog, description=doc.split("\n")[0])
    parser.add_argument("numbers", nargs="*", type=int, help="run only these mutants")
    parser.add_argument(
        "--check", action="store_true", help="only say which mutants still apply (no tests)"
    )
    args = parser.parse_args(argv)
    only = set(args.numbers)
    chosen = [(i, m) for i, m in enumerate(mutants) if not only or i in only]
    if args.check:
        stale = 0
        for i, m in chosen:
            count = times_found(m)
            if count != 1:
                stale += 1
                print(f"{i} NOT APPLIED (found {count} times in {m.path}): {m.what}")
        print(f"{len(chosen) - stale} of {len(chosen)} mutants apply")
        return 1 if stale else 0
    verdicts: list[Verdict] = []
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        tree = Path(tmp) / "tree"
        copy_tree(tree)
        for i, m in chosen:
            verdict = run_one(tree, i, m, tests)
            if verdict is None:
                print(f"{i} NOT APPLIED (the code changed): {m.what}", flush=True)
                continue
            verdicts.append(verdict)
            said = f"killed by {verdict.killed_by}" if verdict.killed else "SURVIVED"
            print(f"{i} {said} ({verdict.seconds:.0f} s): {m.what}", flush=True)
            if verdict.reason:
                print(f"    {verdict.reason[:300]}", flush=True)
    killed = sum(v.killed for v in verdicts)
    print()
    print("| # | file | mutant | killed by |")
    print("|---|---|---|---|")
    for v in verdicts:
        by = f"`{v.killed_by}`" if v.killed else "**survived**"
        print(f"| {v.number} | `{v.mutant.path.rsplit('/', 1)[-1]}` | {v.mutant.what} | {by} |")
    print()
    rate = 100 * killed / len(verdicts) if verdicts else 0.0
    print(f"{killed} of {len(verdicts)} mutants killed ({rate:.1f}%)")
    return 0 if killed == len(verdicts) else 1
