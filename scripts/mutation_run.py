"""Mutation run of the trust core (lanTag/fair, lanTag/log) with mutmut, bounded: slow, not CI.

    pip install mutmut==3.8.1                        # not a project dependency
    nice python -m scripts.mutation_run fair         # then: log
    nice python -m scripts.mutation_run log --keep /tmp/mut-log   # keep the work folder
    nice python -m scripts.mutation_run log --keep /tmp/mut-log   # again: resumes (below)
    nice python -m scripts.mutation_run log --keep /tmp/mut-log 'lanTag.log.entries.*'

With ``--keep`` the run can be stopped and started again: mutmut keeps each verdict in the
folder and runs only the mutants without one (a function whose code changed is run again).
Naming mutants (globs) runs exactly those, again: e.g. the survivors after a new test.

mutmut (docs/verify.md says why this tool) makes one exact code change at a time and runs
the tests that cover the changed function; a mutant that no test notices "survives".  The run
happens in a copy of the working tree (mutmut writes a mutants/ folder next to the code), with
the targeted tests below and a per-test timeout, so a mutant that loops forever fails its test
instead of stalling the run.  The last line says the kill rate; every survivor is listed with
its diff, to be killed by a test or argued equivalent in docs/verify.md.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The tests that check each module: what a mutant there must make fail.
TARGETS: dict[str, list[str]] = {
    "fair": ["tests/fair", "tests/protocol/test_vectors.py"],
    # The must-fail logs, the log tests and the corpora (audit.py's exit-3 lane): seconds in
    # all.  tests/log/test_plain_replay.py (the lane comparison, ~40 s) is left out: a mutant
    # that survives runs every test covering it, and that one would dominate the run.
    "log": [
        "tests/protocol/test_must_fail.py",
        "tests/session/test_log_writer.py",
        "tests/log/test_log_verify.py",
        "tests/log/test_verify_paths.py",
        "tests/log/test_verify_signature_pass.py",
        "tests/log/test_log_survivors.py",
        "tests/log/test_audit.py",
        "tests/log/test_seals.py",
        "tests/log/test_log_entries.py",
        "tests/cli/test_corpus.py",
    ],
}
# Not mutated: the replay viewer's fairness panel (lanTag/log/inspect.py) shows what a log's
# rolls were made of; verify_log never calls it, so it checks nothing a verifier relies on.
SKIP: dict[str, list[str]] = {"fair": [], "log": ["lanTag/log/inspect.py"]}
PER_TEST_TIMEOUT = 60  # seconds: far above any targeted test, far below the suite's 300
MUTMUT_TIMEOUT_MULTIPLIER = 1000.0


def _copy_tree(dest: Path) -> None:
    """The working tree as git sees it (tracked and new files, not ignored ones)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        src = ROOT / name.decode("utf-8")
        if src.is_file():
            (dest / name.decode("utf-8")).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name.decode("utf-8"))


def _configure(work: Path, module: str, targets: list[str]) -> None:
    config = work / "pyproject.toml"
    # A target is a path, or a pytest node id (path::test) to leave a slow test of a file out.
    tests = ", ".join(f'"{t}"' for t in targets if (work / t.split("::")[0]).exists())
    text = config.read_text(encoding="utf-8")
    text += (
        "\n[tool.mutmut]\n"
        f'source_paths = ["lanTag/{module}/"]\n'
        f"pytest_add_cli_args_test_selection = [{tests}]\n"
        f'pytest_add_cli_args = ["--timeout={PER_TEST_TIMEOUT}", "-p", "no:randomly"]\n'
        # mutmut's own limit is wall-clock (15x the tests' measured time): on a loaded shared
        # machine it fires on mutants that merely waited for a core, and calls them
        # "timeout".  The per-test timeout above catches a real loop (a failed test: killed).
        f"timeout_multiplier = {MUTMUT_TIMEOUT_MULTIPLIER}\n"
        'also_copy = ["protocol/", "scripts/", "tests/"]\n'
        f"do_not_mutate = [{', '.join(repr(p).replace(chr(39), chr(34)) for p in SKIP[module])}]\n"
    )
    config.write_text(text, encoding="utf-8")


def _mutmut(work: Path, *args: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "mutmut", *args],
        cwd=work,
        capture_output=True,
        text=True,
    )
    return run.stdout + run.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.mutation_run", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("module", choices=sorted(TARGETS))
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument(
        "names",
        nargs="*",
        help="mutant name globs to run (default all), e.g. 'lanTag.log.entries.*'",
    )
    parser.add_argument("--children", type=int, default=1, help="mutants run at once")
    parser.add_argument(
        "--tests",
        help="comma-separated test paths instead of the module's targets: e.g. only the "
        "fastest tests that cover the named mutants, to check survivors again quickly",
    )
    args = parser.parse_intermixed_args(argv)
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        print("mutation_run: mutmut is not installed: pip install mutmut==3.8.1", file=sys.stderr)
        return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix=f"lantag-mutation-{args.module}-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        _copy_tree(work)
        _configure(work, args.module, args.tests.split(",") if args.tests else TARGETS[args.module])
        run = _mutmut(work, "run", "--max-children", str(args.children), *args.names)
        (work / "mutmut-run.log").write_text(run, encoding="utf-8")
        results = _mutmut(work, "results", "--all", "true")
        status = re.findall(r"^\s+(\S+): (\w[\w ]*)$", results, re.MULTILINE)
        counts: dict[str, int] = {}
        for _name, verdict in status:
            counts[verdict] = counts.get(verdict, 0) + 1
        # Not counted killed: a survivor, and a "timeout" (mutmut's wall-clock limit, see
        # _configure; run it again: a real loop fails its test by the per-test timeout).
        survivors = [n for n, v in status if v not in ("killed", "not checked")]
        for name in survivors:
            print(_mutmut(work, "show", name).strip())
            print()
        status = [(n, v) for n, v in status if v != "not checked"]  # outside ``names``
        counts.pop("not checked", None)
        total = len(status)
        killed = counts.get("killed", 0)
        print(
            f"lanTag/{args.module}: {total} mutants: "
            + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        )
        by_file: dict[str, dict[str, int]] = {}
        for name, verdict in status:
            per = by_file.setdefault(name.split(".x")[0], {})
            per[verdict] = per.get(verdict, 0) + 1
        for source, per in sorted(by_file.items()):
            n = sum(per.values())
            print(f"  {source}: {per.get('killed', 0)} of {n} killed ({per})")
        rate = 100.0 * killed / total if total else 0.0
        print(f"lanTag/{args.module}: {killed} of {total} killed ({rate:.1f}%)")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
