"""One-line mutants of protocol 6's rules for many cheaters, each run against its tests.

    nice .venv/bin/python -m scripts.mutants_colluders          # every mutant
    nice .venv/bin/python -m scripts.mutants_colluders 4 9      # some, by number

Issue #33 item 2 (SPEC §5.7, "Many cheaters"): conflicting acknowledgements convict their
signer, a proven seat's acknowledgements count for nothing at its round, a split is shown
to every peer and undone when the seat that showed it is proven a liar, and a split round is
applied only once the others split it too.  Each mutant deletes or weakens one of those
checks; scripts/mutants_runner.py copies the tree, applies each mutant alone and runs the
tests with ``-x``: a mutant is killed when one fails.  Not in CI.
"""

from __future__ import annotations

import sys

from scripts.mutants_runner import Mutant, main

LATE = "lanTag/session/late_proof.py"
# (file, the code, its mutant, what the mutant breaks)
MUTANTS: list[Mutant] = [
    Mutant(
        "lanTag/session/round_evidence.py",
        "    if not first or not second:\n        return None",
        "    if not second:\n        return None",
        "one acknowledgement of the other version convicts (an honest seat that took it)",
    ),
    Mutant(
        "lanTag/session/round_evidence.py",
        "        if must is None or must in seats:",
        "        if True:",
        "a vector without the equivocator counts for one of its versions",
    ),
    Mutant(
        LATE,
        "                pair = None if voter == seat else conflicting_acks(",
        "                pair = conflicting_acks(",
        "the equivocator's own two vectors are another proof",
    ),
    Mutant(
        LATE,
        "            if voter == self.seat or (voter, step) in self.late.acks_proven:",
        "            if voter == self.seat:",
        "one proof of conflicting acknowledgements convicts again and again",
    ),
    Mutant(
        LATE,
        " and voter not in proven\n",
        "\n",
        "a liar's acknowledgement splits the round",
    ),
    Mutant(
        LATE,
        "                if not self.replay:\n"
        "                    # What shows the split goes to every peer before anything",
        "                if False:\n"
        "                    # What shows the split goes to every peer before anything",
        "a split is not shown to the other peers",
    ),
    Mutant(
        LATE,
        "            elif not shown and key in self.convictions.splits:",
        "            elif False:",
        "a split is never undone",
    ),
    Mutant(
        LATE,
        "        for proof in self.convictions.proofs:\n            for msg in proof:\n"
        "                if msg.step == step and msg.state_hash == ours:",
        "        for proof in ():\n            for msg in proof:\n"
        "                if msg.step == step and msg.state_hash == ours:",
        "the second versions in proofs are not acknowledgements",
    ),
    Mutant(
        LATE,
        "        self.late.dirty.add(msg.step)\n        return True",
        "        return True",
        "an acknowledgement for a decided round is never judged",
    ),
    Mutant(
        LATE,
        "if at == current or at in dirty}",
        "if at in dirty}",
        "the current round is judged only when something came for it",
    ),
    Mutant(
        LATE,
        "        for seat, at in self.late.acks_proven:\n            if at == step:\n"
        "                self._contradict(seat)",
        "        for seat, at in ():\n            if at == step:\n"
        "                self._contradict(seat)",
        "a seat proven during its round is never voted out",
    ),
    Mutant(
        LATE,
        "        if second.type is MsgType.REVEAL and first.payload[:3] == second.payload[:3]:",
        "        if False:",
        "two REVEALs with one opening drop their seat at the round (a rollback)",
    ),
    Mutant(
        LATE,
        "        if step < self._history.step:\n            self._contradict(seat)",
        "        self._contradict(seat)",
        "a seat proven during its round is refused there at once",
    ),
    Mutant(
        "lanTag/session/lockstep.py",
        "                if self.handback.admitted or judge:",
        "                if self.handback.admitted:",
        "the verifier's replay never judges an acknowledgement of a decided round",
    ),
    Mutant(
        "lanTag/session/round_acks.py",
        "                live = live - self._late.cheated_at[step]",
        "                pass",
        "a proven seat's acknowledgement is waited for",
    ),
    Mutant(
        "lanTag/session/agreement.py",
        "            and any(at == step for _seat, at in self.core.late.commits)\n",
        "            and False\n",
        "a step decided again keeps its drops (a bot plays the dropped seat)",
    ),
    Mutant(
        "lanTag/session/round_acks.py",
        "            dropped = {s: c for s, c in dropped.items() if s not in split}",
        "            pass",
        "a split round is applied on acknowledgements signed before the split",
    ),
    Mutant(
        "lanTag/session/convictions.py",
        "        steps = [k for s, k in self.splits if s == seat]",
        "        steps = []",
        "a split drops nobody",
    ),
]
TESTS = [
    "tests/session/test_colluders.py",
    "tests/session/test_late_proof.py",
    "tests/session/test_round_acks.py",
    "tests/session/test_proof_order.py",
    "tests/session/test_cheats.py",
    "tests/session",
]

if __name__ == "__main__":
    raise SystemExit(main(MUTANTS, TESTS, sys.argv[1:], __doc__ or ""))
