#!/usr/bin/env python3
"""One-line mutants of protocol 6's round acknowledgement, each run against its tests.

    nice .venv/bin/python scripts/mutants_round_acks.py          # every mutant (~20 min)
    nice .venv/bin/python scripts/mutants_round_acks.py 4 9      # some, by number

Protocol 6 (issue "[scale]", SPEC §4.4) acknowledges a secret round by the digest of the whole
vector of commitments each seat holds.  Each mutant below deletes or weakens one check of that
code (a hand-made list: mutmut's run, scripts/mutation_run.py, covers lanTag/fair and
lanTag/log).  The tree is copied to a temporary folder first, so the working tree is never
edited; there each mutant is applied alone and the targeted tests run with ``-x``: a mutant
is killed when they fail.  The last line gives the kill count; a survivor is printed with
what it changed.  Not in CI: slow, and a survivor takes every test in TESTS.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (file, the code, its mutant, what the mutant breaks)
MUTANTS: list[tuple[str, str, str, str]] = [
    (
        "lanTag/session/steps.py",
        "    if have is not None and have.state_hash == state_hash:\n        named.update",
        "    if have is not None:\n        named.update",
        "a round HAVE on another state counts",
    ),
    (
        "lanTag/session/steps.py",
        "    if vector is not None:\n        named.add(vector)",
        "    if False:\n        named.add(vector)",
        "a REVEAL's vector does not count",
    ),
    (
        "lanTag/session/steps.py",
        "        if voter != me and vectors.isdisjoint",
        "        if vectors.isdisjoint",
        "a seat waits for its own acknowledgement",
    ),
    (
        "lanTag/session/steps.py",
        '        h.update(seat.to_bytes(2, "big"))\n',
        "",
        "the vector does not hash the seats",
    ),
    (
        "lanTag/session/agreement.py",
        "                self._broadcast([held[s].raw for s in needs.humans if s in held])",
        "                pass",
        "no COMMITs shown to a seat naming another vector",
    ),
    (
        "lanTag/session/agreement.py",
        "            and (mine is None or reveal_vector(mine) != vector)\n",
        "",
        "a round HAVE even beside a REVEAL naming the vector",
    ),
    (
        "lanTag/session/agreement.py",
        "            and len(named) < MAX_ROUND_VECTORS\n",
        "",
        "no cap on the vectors of a round HAVE",
    ),
    (
        "lanTag/session/core.py",
        "        if dropped:\n            held = box.of(MsgType.COMMIT)",
        "        if False:\n            held = box.of(MsgType.COMMIT)",
        "a round HAVE signed before a drop does not count",
    ),
    (
        "lanTag/session/agreement.py",
        "            if msg is not None and kind is MsgType.COMMIT:\n"
        "                box.dropped_commits[s] = msg",
        "            pass",
        "dropped seats' COMMITs forgotten",
    ),
    (
        "lanTag/session/agreement.py",
        "            if claim and vector not in claim and (voter, claim) not in box.round_shown:",
        "            if claim and vector not in claim:",
        "COMMITs shown again and again",
    ),
    (
        "lanTag/session/late_proof.py",
        "            if shown and key not in self._splits:",
        "            if False:",
        "protocol 6 never finds a round split",
    ),
    (
        "lanTag/session/late_proof.py",
        "        if not all(s in held for s in live):\n            return None",
        "",
        "a split judged on an incomplete vector",
    ),
    (
        "lanTag/session/lockstep.py",
        "            and (msg.type is MsgType.MOVE or self.record.protocol"
        " < ROUND_ACKS_PROTOCOL)\n",
        "",
        "COMMITs forwarded and acknowledged one by one again (protocol 5's cost)",
    ),
    (
        "lanTag/session/lockstep.py",
        "            box.round_dirty.add(msg.seat)  # it names",
        "            pass  # it names",
        "a REVEAL's vector never looked at",
    ),
    (
        "lanTag/session/core.py",
        "            if not self._commits_complete(box, needs):\n"
        "                return  # (a restart",
        "            if False:\n                return  # (a restart",
        "a REVEAL before every commitment is in",
    ),
    (
        "lanTag/session/core.py",
        "        if signed is not None:\n"
        "            self._broadcast([signed.raw])\n            return\n",
        "",
        "a second REVEAL signed after a rollback",
    ),
    (
        "lanTag/session/messages.py",
        "    return 4 if version >= ROUND_ACKS_PROTOCOL else 3",
        "    return 3",
        "the fast parser takes 3 REVEAL fields in protocol 6",
    ),
    (
        "lanTag/session/messages.py",
        "        checks = (*checks, _is_hash)  # the vector",
        "        checks = (*checks,)  # the vector",
        "the strict parser takes 3 REVEAL fields",
    ),
    (
        "lanTag/log/plain_replay.py",
        "                    self.reveals,\n",
        "                    {},\n",
        "the verifier's fast lane ignores REVEAL vectors",
    ),
    (
        "lanTag/session/late_proof.py",
        "        if held is not None and held <= step:",
        "        if held is not None:",
        "the first proof decides the conviction's step (protocol 5's)",
    ),
]
TESTS = [
    "tests/session/test_round_acks.py",
    "tests/session/test_proof_order.py",
    "tests/session/test_late_proof.py",
    "tests/session/test_cheats.py",
    "tests/session/test_message_fast_parse.py",
    "tests/bench/test_protocol_counts.py",
    "tests/protocol/test_must_fail.py",
    "tests/log/test_log_survivors.py",
    "tests/session/test_relayed_acks.py",
    "tests/peer/test_resume.py",
    "tests/session",
]


def main(argv: list[str]) -> int:
    return run(MUTANTS, TESTS, argv)


def run(mutants: list[tuple[str, str, str, str]], tests: list[str], argv: list[str]) -> int:
    """Apply each mutant (or those numbered in ``argv``) alone to a copy of the tree and run
    ``tests`` with ``-x``; print each verdict and the kill count."""
    only = {int(a) for a in argv}
    killed = run = 0
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(
            ROOT, tree, ignore=shutil.ignore_patterns(".git", ".venv", ".ci-venvs", "__pycache__")
        )
        for i, (path, old, new, what) in enumerate(mutants):
            if only and i not in only:
                continue
            file = tree / path
            source = file.read_text(encoding="utf-8")
            if source.count(old) != 1:
                print(f"{i} NOT APPLIED (the code changed): {what}", flush=True)
                continue
            file.write_text(source.replace(old, new), encoding="utf-8")
            start = time.monotonic()
            try:
                result = subprocess.run(
                    [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                    cwd=tree,
                    capture_output=True,
                    text=True,
                    timeout=1800,
                    check=False,
                )
                dead = result.returncode != 0
            except subprocess.TimeoutExpired:
                dead = True
            finally:
                file.write_text(source, encoding="utf-8")
            run += 1
            killed += dead
            verdict = "killed" if dead else "SURVIVED"
            print(f"{i} {verdict} ({time.monotonic() - start:.0f} s): {what}", flush=True)
    print(f"{killed} of {run} mutants killed")
    return 0 if killed == run else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
