"""One-line mutants of protocol 6's round acknowledgement, each run against its tests.

    nice .venv/bin/python -m scripts.mutants_round_acks          # every mutant (~20 min)
    nice .venv/bin/python -m scripts.mutants_round_acks 4 9      # some, by number
    .venv/bin/python -m scripts.mutants_round_acks --check       # do they still apply?

Protocol 6 (issue "[scale]", SPEC §4.4) acknowledges a secret round by the digest of the whole
vector of commitments each seat holds.  Each mutant below deletes or weakens one check of that
code (a hand-made list: mutmut's run, scripts/mutation_run.py, covers lanTag/fair and
lanTag/log; scripts/mutants_session.py protocol 5's checks).  scripts/mutants_runner.py
copies the tree to a temporary folder (the working tree is never edited), applies each
mutant alone there and runs the targeted tests with ``-x``: a mutant is killed when one
fails, and the first failing test is printed beside it.  The last lines give the kill table
and count.  Not in CI: slow, and a survivor takes every test in TESTS.
"""

from __future__ import annotations

import sys

from scripts.mutants_runner import Mutant, main

MUTANTS: list[Mutant] = [
    Mutant(
        "lanTag/session/steps.py",
        "    if have is not None and have.state_hash == state_hash:\n        named.update",
        "    if have is not None:\n        named.update",
        "a round HAVE on another state counts",
    ),
    Mutant(
        "lanTag/session/steps.py",
        "    if vector is not None:\n        named.add(vector)",
        "    if False:\n        named.add(vector)",
        "a REVEAL's vector does not count",
    ),
    Mutant(
        "lanTag/session/steps.py",
        "        if voter != me and vectors.isdisjoint",
        "        if vectors.isdisjoint",
        "a seat waits for its own acknowledgement",
    ),
    Mutant(
        "lanTag/session/steps.py",
        '        h.update(seat.to_bytes(2, "big"))\n',
        "",
        "the vector does not hash the seats",
    ),
    Mutant(
        "lanTag/session/agreement.py",
        "                self.core._broadcast([held[s].raw for s in needs.humans if s in held])",
        "                pass",
        "no COMMITs shown to a seat naming another vector",
    ),
    Mutant(
        "lanTag/session/agreement.py",
        "            and (mine is None or reveal_vector(mine) != vector)\n",
        "",
        "a round HAVE even beside a REVEAL naming the vector",
    ),
    Mutant(
        "lanTag/session/agreement.py",
        "            and len(named) < MAX_ROUND_VECTORS\n",
        "",
        "no cap on the vectors of a round HAVE",
    ),
    Mutant(
        "lanTag/session/round_acks.py",
        "        if dropped:\n            held = box.of(MsgType.COMMIT)",
        "        if False:\n            held = box.of(MsgType.COMMIT)",
        "a round HAVE signed before a drop does not count",
    ),
    Mutant(
        "lanTag/session/agreement.py",
        "            if msg is not None and kind is MsgType.COMMIT:\n"
        "                box.dropped_commits[s] = msg",
        "            pass",
        "dropped seats' COMMITs forgotten",
    ),
    Mutant(
        "lanTag/session/agreement.py",
        "            if claim and vector not in claim and (voter, claim) not in box.round_shown:",
        "            if claim and vector not in claim:",
        "COMMITs shown again and again",
    ),
    Mutant(
        "lanTag/session/late_proof.py",
        "            if shown and key not in self.convictions.splits:",
        "            if False:",
        "protocol 6 never finds a round split",
    ),
    Mutant(
        "lanTag/session/late_proof.py",
        "        if not all(s in held for s in live):\n            return None",
        "",
        "a split judged on an incomplete vector",
    ),
    Mutant(
        "lanTag/session/intake.py",
        "            and (msg.type is MsgType.MOVE or not self.core.features.round_acks)\n",
        "",
        "COMMITs forwarded and acknowledged one by one again (protocol 5's cost)",
    ),
    Mutant(
        "lanTag/session/intake.py",
        "            box.round_dirty.add(msg.seat)  # it names",
        "            pass  # it names",
        "a REVEAL's vector never looked at",
    ),
    Mutant(
        "lanTag/session/core.py",
        "            if not self._commits_complete(box, needs):\n"
        "                return  # (a restart",
        "            if False:\n                return  # (a restart",
        "a REVEAL before every commitment is in",
    ),
    Mutant(
        "lanTag/session/core.py",
        "        if signed is not None:\n"
        "            self._broadcast([signed.raw])\n            return\n",
        "",
        "a second REVEAL signed after a rollback",
    ),
    Mutant(
        "lanTag/session/messages.py",
        "    return 4 if Features.of(version).round_acks else 3",
        "    return 3",
        "the fast parser takes 3 REVEAL fields in protocol 6",
    ),
    Mutant(
        "lanTag/session/messages.py",
        "        checks = (*checks, _is_hash)  # the vector",
        "        checks = (*checks,)  # the vector",
        "the strict parser takes 3 REVEAL fields",
    ),
    Mutant(
        "lanTag/log/plain_replay.py",
        "                    self.reveals,\n",
        "                    {},\n",
        "the verifier's fast lane ignores REVEAL vectors",
    ),
    Mutant(
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


if __name__ == "__main__":
    raise SystemExit(main(MUTANTS, TESTS, sys.argv[1:], __doc__ or ""))
