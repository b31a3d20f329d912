# ruff: noqa: E501  (a mutant quotes its line of code whole)
"""One-line mutants of the session's protocol-5 checks, each run against its tests.

    nice .venv/bin/python -m scripts.mutants_session            # every mutant (~1-2 h)
    nice .venv/bin/python -m scripts.mutants_session 4 9        # some, by number
    .venv/bin/python -m scripts.mutants_session --check         # do they still apply?

The checks issue "[proofs]" item 1 names: the late-proof rule (lanTag/session/late_proof.py),
the hand-back's admissions (rejoin.py, and where lockstep.py applies them), the seals
(sealing.py) and the convictions (agreement.py, and the helpers of core.py they use).  Each
mutant below deletes a guard, flips a comparison, moves a step by one or swaps a seat, one
line of code at a time (a hand-made list: mutmut's run, scripts/mutation_run.py, covers
lanTag/fair and lanTag/log; scripts/mutants_round_acks.py protocol 6's round
acknowledgement).  scripts/mutants_runner.py runs them in a copy of the tree: a mutant is
killed when a test fails, and the first failing test is printed beside it.  The last lines
are the kill table and the count.  Not in CI: slow (a survivor runs every test in TESTS).
A survivor no input can tell from the code carries a comment "# equivalent:" saying why,
one no test reaches yet "# open:" (the runner counts both as survivors); docs/verify.md
gives the last result and the count without the equivalent ones.
"""

from __future__ import annotations

import sys

from scripts.mutants_runner import Mutant, main

LATE = "lanTag/session/late_proof.py"
AGREE = "lanTag/session/agreement.py"
CORE = "lanTag/session/core.py"
RECOVERY = "lanTag/session/recovery.py"
REJOIN = "lanTag/session/rejoin.py"
LOCKSTEP = "lanTag/session/lockstep.py"
SEALING = "lanTag/session/sealing.py"
HANDBACK_BOOK = "lanTag/session/handback.py"
CONVICTIONS = "lanTag/session/convictions.py"

PROOF_ORDER = "tests/session/test_proof_order.py"
LATE_TESTS = "tests/session/test_late_proof.py"
HANDBACK = "tests/session/test_handback.py"
SEAL_TESTS = "tests/session/test_sealing.py"
EVIDENCE = "tests/session/test_late_proof_evidence.py"
CHEATS = "tests/session/test_cheats.py"
MUST_FAIL = "tests/protocol/test_must_fail.py"

MUTANTS: list[Mutant] = [
    # -- the late-proof rule (late_proof.py) ------------------------------------------------
    Mutant(
        LATE,
        "        if not self.features.late_proof:\n            return False\n"
        "        key = ",
        "        if False:\n            return False\n        key = ",
        "the late-proof rule in a protocol-4 game",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "            return key in self.late.commits",
        "            return False",
        "a late-proof seat's second REVEAL convicts it at the round's step",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "        if second.type is not MsgType.COMMIT:\n            return False\n",
        "",
        "two MOVEs (or ENTROPYs) taken as a late proof of a secret round",
        (PROOF_ORDER,),
    ),
    Mutant(
        LATE,
        "        self.convictions.liars_at.setdefault(second.seat, second.step)  # never given back (§5.6)",
        "        pass",
        "a seat proven to have signed two COMMITs may be given back",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "        if second.step < self._history.step:\n            self._contradict(second.seat)",
        "        if False:\n            self._contradict(second.seat)",
        "a late proof of a round that stood convicts nobody",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "        if second.step < self._history.step:\n            self._contradict(second.seat)",
        "        if second.step <= self._history.step:\n            self._contradict(second.seat)",
        "a proof at the round's own step convicts before the round is judged",
        (LATE_TESTS,),
    ),
    # open: every reader of _contradicted asks for a live seat too, and every caller has put
    # the seat in _liars_at, so it is given back only at a step before that conviction's,
    # which the proof came after.  It differs only when a rollback goes back there and the
    # seat, dropped when the proof came, is live again in the new history (given back, or
    # a drop of seats that never played undone, unplayed.py): it is then refused and voted
    # out from there on, not from the conviction's step (a drop, a cheat while dropped and
    # a rollback across them in one game).
    Mutant(
        LATE,
        "        if seat in self._history.live:\n            self.convictions.contradicted.add(seat)",
        "        if True:\n            self.convictions.contradicted.add(seat)",
        "a dropped seat counted as contradicted",
    ),
    Mutant(
        LATE,
        "        for seat, at in self.late.commits:\n            if at == step:\n",
        "        for seat, at in self.late.commits:\n            if at != step:\n",
        "the round that stood is the wrong one",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "        for seat, at in self.late.commits:\n            if at == step:\n",
        "        for seat, at in self.late.commits:\n            if at == step + 1:\n",
        "the round that stood is the next step's (off by one)",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "            if at != step or seat in self.convictions.banned or seat not in snap.live:",
        "            if at != step or seat not in snap.live:",
        "a seat banned already is banned again at a split round (a later step overwrites)",
        (PROOF_ORDER,),
    ),
    Mutant(
        LATE,
        "            if at != step or seat in self.convictions.banned or seat not in snap.live:",
        "            if at != step or seat in self.convictions.banned:",
        "a dropped seat banned at a split round",
        (EVIDENCE,),
    ),
    Mutant(
        CONVICTIONS,
        "            self.banned[seat] = min(steps)",
        "            self.banned[seat] = max(steps)",
        "a ban at a later step spares a split round (protocol 6)",
        (PROOF_ORDER,),
    ),
    Mutant(
        LATE,
        "                and voter not in (seat, self.seat)\n",
        "                and voter != self.seat\n",
        "protocol 5: the equivocator's own HAVE splits its round",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "                and have.state_hash == ours\n",
        "",
        "protocol 5: a HAVE from another history splits the round",
        (EVIDENCE,),
    ),
    Mutant(
        LATE,
        "                and held not in have.payload[1]\n",
        "                and held in have.payload[1]\n",
        "protocol 5: a HAVE naming our COMMIT splits the round",
        (LATE_TESTS,),
    ),
    Mutant(
        AGREE,
        "            if self.core.features.collusion:\n"
        "                back = self.core.late_judge.judge",
        "            if not self.core.features.collusion:\n"
        "                back = self.core.late_judge.judge",
        "protocol 6 judges a split by protocol 5's per-seat HAVEs",
        (PROOF_ORDER,),
    ),
    Mutant(
        LATE,
        "                ours[seat], swapped[seat] = families(digests, live, seat, other)",
        "                ours[seat], swapped[seat] = families(digests, live, seat, took)",
        "protocol 6: our own vector counts as the other version",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        " and voter not in proven\n",
        "\n",
        "protocol 6: the equivocator's own round acknowledgement splits its round",
        (LATE_TESTS,),
    ),
    # equivalent: at an earlier step the box holds the seat's taken REVEAL (refused by the
    # next check) or no COMMIT of it (a dropped seat's is forgotten; a rollback rebuilds
    # the boxes from their first messages); a later step's box holds pending messages only.
    Mutant(
        LATE,
        "        if msg.type is not MsgType.REVEAL or msg.step != self._history.step:",
        "        if msg.type is not MsgType.REVEAL:",
        "a late REVEAL taken for another step than ours",
    ),
    Mutant(
        LATE,
        "        if late is None or commit is None or commit.digest != late[0]:",
        "        if late is None or commit is None:",
        "a late REVEAL taken when we hold the other COMMIT",
        (EVIDENCE,),
    ),
    Mutant(
        LATE,
        "        if msg.seat in box.of(MsgType.REVEAL):\n            return False\n",
        "",
        "a late REVEAL taken beside one we already took",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "        return chain_step_ok(snap.chain_last[msg.seat], link) and opens(",
        "        return True or opens(",
        "a late REVEAL taken without opening our COMMIT",
        (LATE_TESTS,),
    ),
    Mutant(
        LATE,
        "        return opens(late[1], self.game_id, self._history.step, msg.seat, kind, nonce, value)",
        "        return True",
        "a REVEAL that opens neither COMMIT is no bad reveal",
        (LATE_TESTS,),
    ),
    # -- convictions (agreement.py and the helpers in core.py) -------------------------------
    Mutant(
        AGREE,
        "        self.core.log.append(second.step, EntryKind.MSG, second.raw)\n        why = f",
        "        why = f",
        "the second message of a proof is not logged",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if not self.core.replay:\n            self.core._broadcast([first.raw, second.raw])\n"
        "        if second.type not in CONTRIBUTIONS:",
        "        if second.type not in CONTRIBUTIONS:",
        "a proof is not sent on",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if second.type not in CONTRIBUTIONS:\n            return\n",
        "",
        "two HAVEs of one slot ban their signer like two contributions",
    ),
    Mutant(
        LATE,
        "        if held is not None and held <= step:",
        "        if held is not None and held < step:",
        "a second proof at the ban's own step is taken again",
        (EVIDENCE,),
    ),
    Mutant(
        LATE,
        "        if self.late_proof(first, second):\n            return False  # the round's",
        "        if held is None and self.late_proof(first, second):\n            return False  # the round's",
        "a COMMIT proof after a later ban skips the late-proof rule (protocol 5's)",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if second.step < self.core.step and self._redecide(second.seat, second.step):",
        "        if second.step < self.core.step:",
        "a rollback for a proof at a step no decision since took the seat's input",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if second.step < self.core.step and self._redecide(second.seat, second.step):",
        "        if second.step < self.core.step - 1 and self._redecide(second.seat, second.step):",
        "no rollback for a proof of the step just decided (off by one)",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if not self.core.features.ordered_proofs:\n"
        "            return bool(self.core.inbox.boxes[step].accepted_of(seat))",
        "        if True:\n            return bool(self.core.inbox.boxes[step].accepted_of(seat))",
        "protocol 6 rolls back only for the seat's input at the proven step (protocol 5's)",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if msg.seat in self.core.convictions.contradicted or msg.seat not in self.core.live:\n            return\n"
        "        if any(",
        "        if msg.seat not in self.core.live:\n            return\n        if any(",
        "a liar blamed desync again for every later claim",
        (CHEATS,),
    ),
    Mutant(
        AGREE,
        "        if msg.seat in self.core.convictions.contradicted or msg.seat not in self.core.live:\n            return\n"
        "        if any(",
        "        if msg.seat in self.core.convictions.contradicted:\n            return\n        if any(",
        "a dropped seat's two state hashes convict it again",
        (HANDBACK,),
    ),
    Mutant(
        AGREE,
        "        if any(k < msg.step for k in self.core.convictions.banned.values()):\n            return",
        "        if False:\n            return",
        "honest seats convict each other of desync after an equivocation rollback",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if any(k < msg.step for k in self.core.convictions.banned.values()):\n            return",
        "        if any(k < msg.step - 1 for k in self.core.convictions.banned.values()):\n            return",
        "the rollback excuse misses the step after the ban (off by one)",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        self.core.convictions.liars_at.setdefault(msg.seat, msg.step)\n"
        "        self.core._blame(\n",
        "        self.core._blame(\n",
        "a seat convicted of desync may be given back",
        (HANDBACK,),
    ),
    Mutant(
        AGREE,
        "        self.core.convictions.contradicted.add(msg.seat)\n        self.core.convictions.liars_at.setdefault(msg.seat, msg.step)",
        "        self.core.convictions.liars_at.setdefault(msg.seat, msg.step)",
        "a seat convicted of desync is never voted out",
        (LATE_TESTS,),
    ),
    Mutant(
        CONVICTIONS,
        "        self.flooders.add(seat)\n        self.liars_at.setdefault(seat, step)",
        "        self.flooders.add(seat)",
        "a flooder may be given back",
        (MUST_FAIL,),
    ),
    Mutant(
        CONVICTIONS,
        "        if seat in live:\n            self.contradicted.add(seat)",
        "        if False:\n            self.contradicted.add(seat)",
        "a flooder is never voted out",
        (LATE_TESTS,),
    ),
    # equivalent: missing() holds live seats only (the round's humans, the live voters
    # whose acknowledgement lacks, protocol 6's unexplained REVEALs of live seats).
    Mutant(
        AGREE,
        "        liars = self.missing() & self.core.convictions.contradicted & self.core.live",
        "        liars = self.missing() & self.core.convictions.contradicted",
        "a dropped liar is voted again",
    ),
    Mutant(
        AGREE,
        "            if step < self.core.step and self.core.convictions.since(seat, step):",
        "            if False:",
        "a conviction learnt after an admission leaves it standing",
        (HANDBACK,),
    ),
    Mutant(
        AGREE,
        "            if step < self.core.step and self.core.convictions.since(seat, step):",
        "            if step < self.core.step and self.core.convictions.since(seat, self.core.step):",
        "a conviction for a step after the admission voids it too",
        (HANDBACK,),
    ),
    Mutant(
        AGREE,
        "            s for s, k in held.items() if k <= self.core.step and s in self.core.live",
        "            s for s, k in held.items() if k < self.core.step and s in self.core.live",
        "a ban at the current step waits a step",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        '            self.drop(banned, self.core._box(self.core.step), code="equivocation")',
        "            self.drop(banned, self.core._box(self.core.step))",
        "a banned seat's drop blamed `timeout`",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        if not self.core.features.late_proof:\n            return False\n"
        "        if self._asked_since(silent, step):",
        "        if False:\n            return False\n        if self._asked_since(silent, step):",
        "a late drop without a rollback in a protocol-4 game",
        (LATE_TESTS,),
    ),
    Mutant(
        AGREE,
        "            if seats & set(needs_for(snap.state.decision(), snap.live).humans):",
        "            if False:",
        "no decision since a drop or ban step ever asked the seats (no rollback)",
        (PROOF_ORDER,),
    ),
    Mutant(
        AGREE,
        "        for k in range(step, self.core.step):\n            snap = self.core.history[k]",
        "        for k in range(step + 1, self.core.step):\n            snap = self.core.history[k]",
        "the drop or ban step's own decision not looked at (off by one)",
        (PROOF_ORDER,),
    ),
    Mutant(
        CORE,
        "        if msg.seat == self.seat or any(k <= msg.step for k in self.convictions.banned.values()):",
        "        if msg.seat == self.seat:",
        "a message from before an equivocation rollback blamed desync",
        (PROOF_ORDER,),
    ),
    Mutant(
        CONVICTIONS,
        "            if at is not None and at <= step:\n                return True",
        "            if at is not None and at < step:\n                return True",
        "a seat convicted at a step is not convicted there (admission)",
        (HANDBACK,),
    ),
    Mutant(
        CONVICTIONS,
        "        for convictions in (self.banned, self.liars_at):",
        "        for convictions in (self.banned,):",
        "only a ban counts as a conviction (desync, flood, two COMMITs do not)",
        (HANDBACK,),
    ),
    Mutant(
        CONVICTIONS,
        "        return banned is not None and banned <= step\n",
        "        return banned is not None and banned < step\n",
        "a convicted seat's input taken at its ban step",
        (CHEATS,),
    ),
    # -- the hand-back's admissions (handback.py, rejoin.py, lockstep.py) ---------------------
    Mutant(
        HANDBACK_BOOK,
        "        if kept is None or kept.step <= msg.step:",
        "        if kept is None:",
        "the first REJOIN kept, not the latest",
        (HANDBACK,),
    ),
    Mutant(
        HANDBACK_BOOK,
        "        if kept is None or kept.step <= msg.step:",
        "        if True:",
        "an older REJOIN replaces the latest",
        (HANDBACK,),
    ),
    Mutant(
        CORE,
        "            if self._admissible(request, self.step, self.seat):\n                return request.raw",
        "            if True:\n                return request.raw",
        "an honest carrier carries any REJOIN",
        (HANDBACK,),
    ),
    # equivalent: _dropped_at answers None for a seat live at that step, and _admissible
    # then refuses it too (the check is the rule's first words, kept for the reader).
    Mutant(
        CORE,
        "        if seat == carrier or seat in self.history[step].live:",
        "        if seat == carrier:",
        "a live seat admitted again",
        (HANDBACK,),
    ),
    Mutant(
        CORE,
        "        if self.convictions.since(seat, step):\n            return False  # a cheat",
        "        if False:\n            return False  # a cheat",
        "a convicted seat given back",
        (HANDBACK,),
    ),
    Mutant(
        CORE,
        "        if dropped is None or dropped > request.step:",
        "        if dropped is None or dropped > request.step + 1:",
        "a REJOIN signed one step before the drop admits the seat",
        (MUST_FAIL,),
    ),
    Mutant(
        CORE,
        "        if dropped is None or dropped > request.step:",
        "        if dropped is None or dropped >= request.step:",
        "a REJOIN signed at the drop step admits nobody",
        (HANDBACK,),
    ),
    Mutant(
        CORE,
        "        if dropped is None or dropped > request.step:",
        "        if dropped is None:",
        "a REJOIN of any step admits the seat",
        (HANDBACK,),
    ),
    Mutant(
        CORE,
        "        return 0 if seat < len(self._human_keys) and self._human_keys[seat] else None",
        "        return None",
        "a seat dropped at step 0 can never come back",
        (HANDBACK,),
    ),
    Mutant(
        REJOIN,
        "            carriers = [got[s] for s in needs.humans]\n",
        "            carriers = [got[s] for s in needs.humans[:1]]\n",
        "only the first seat's ENTROPY carries an admission",
        (HANDBACK,),
    ),
    Mutant(
        REJOIN,
        "            carriers = [got[s] for s in needs.humans if s in got]",
        "            carriers = []",
        "a COMMIT carries no admission",
        (HANDBACK,),
    ),
    Mutant(
        REJOIN,
        "            if key is None or not verify_signature(request, key, self._verifier):",
        "            if key is None:",
        "an admission of a forged REJOIN counts",
        (HANDBACK,),
    ),
    Mutant(
        REJOIN,
        "            if self._admissible(request, self._history.step, carrier.seat):\n"
        "                admitted.add(request.seat)",
        "            if True:\n                admitted.add(request.seat)",
        "every signed REJOIN carried admits its seat",
        (HANDBACK,),
    ),
    Mutant(
        REJOIN,
        '        if self.convictions.since(self.seat, self._history.step):\n            return "convicted"',
        '        if False:\n            return "convicted"',
        "a convicted seat is told it may come back",
        (HANDBACK,),
    ),
    Mutant(
        REJOIN,
        "        if all(s in self._left for s in self._history.live - {self.seat}):",
        "        if any(s in self._left for s in self._history.live - {self.seat}):",
        "one leaving seat is taken for nobody left to admit",
        (HANDBACK,),
    ),
    Mutant(
        HANDBACK_BOOK,
        "        self.leaves.pop(seat, None)  # a seat that had left is back",
        "        pass  # a seat that had left is back",
        "a seat that left and was given back is dropped again for that LEAVE",
        (HANDBACK,),
    ),
    Mutant(
        HANDBACK_BOOK,
        "        if seat in self.leaves or step <= self.last_back(seat):",
        "        if seat in self.leaves:",
        "a LEAVE from before the hand-back counts again",
        (HANDBACK,),
    ),
    Mutant(
        HANDBACK_BOOK,
        "        self.admitted.setdefault(seat, []).append(decided)\n",
        "        self.admitted.setdefault(seat, []).append(decided + 1)\n",
        "an admission remembered one step late (off by one)",
        (HANDBACK,),
    ),
    # -- the seals (sealing.py: the SealBook; recovery.py: signing our own) ------------------
    Mutant(
        SEALING,
        "        if now >= self.over_at + SEAL_WAIT:",
        "        if now > self.over_at + SEAL_WAIT:",
        "the seal wait one instant longer",
        (SEAL_TESTS,),
    ),
    Mutant(
        CORE,
        "        return self.features.seals and self.seal_book.waiting(now, humans)",
        "        return self.seal_book.waiting(now, humans)",
        "a protocol-2 game waits for seals",
        (SEAL_TESTS,),
    ),
    # equivalent: live holds seats with a key only (a bot seat is never live, and an
    # admission needs the seat's signed REJOIN).
    Mutant(
        CORE,
        "        humans = (s for s in self.live if self._human_keys[s] is not None)",
        "        humans = (s for s in self.live)",
        "a bot seat's seal awaited",
    ),
    Mutant(
        RECOVERY,
        "        live = self.core.seat is not None and self.core.seat in self.core.live\n",
        "        live = self.core.seat is not None\n",
        "a dropped seat seals the final state",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "            self.seals[own.seat] = own\n",
        "",
        "our own seal not counted",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "            self._journal.log.append(own.step, EntryKind.MSG, own.raw)\n",
        "",
        "our own seal not logged",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "        for msg in early.values():\n            self._check(msg, step, final)",
        "        for msg in early.values():\n            pass",
        "a seal that came before our game over never checked",
        (SEAL_TESTS,),
    ),
    Mutant(
        RECOVERY,
        "        if self.core.features.seals:\n            self.core.seal_book.receive(",
        "        if True:\n            self.core.seal_book.receive(",
        "a SEAL taken in a protocol-2 game",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        '            if msg.raw in self.raws:\n                self._journal.count("duplicate")',
        '            if False:\n                self._journal.count("duplicate")',
        "a seal logged twice counted as two signatures by the replay",
        (
            "tests/log/test_plain_replay.py::test_a_seal_logged_twice_is_one_signature_in_both_lanes",
        ),
    ),
    Mutant(
        SEALING,
        "        if msg.seat in self.seals or msg.seat in self.early:",
        "        if msg.seat in self.seals:",
        "a second early seal of a seat replaces its first",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "        if msg.step == step and msg.state_hash == final:",
        "        if msg.state_hash == final:",
        "a seal of the final state at another step taken",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "        if msg.step == step and msg.state_hash == final:",
        "        if msg.step == step:",
        "a seal of another state taken",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "            self._journal.events.append(ev.Sealed(msg.step, msg.seat))",
        "            pass",
        "a seal taken without telling the screens",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "            self.seals[msg.seat] = msg\n            self._journal.log.append(",
        "            self._journal.log.append(",
        "another seat's seal logged but not counted",
        (SEAL_TESTS,),
    ),
    Mutant(
        SEALING,
        "            self.seals[msg.seat] = msg\n"
        "            self._journal.log.append(msg.step, EntryKind.MSG, msg.raw)\n",
        "            self.seals[msg.seat] = msg\n",
        "another seat's seal counted but not logged",
        (SEAL_TESTS,),
    ),
]

TESTS = [
    PROOF_ORDER,
    EVIDENCE,
    LATE_TESTS,
    HANDBACK,
    SEAL_TESTS,
    CHEATS,
    MUST_FAIL,
    "tests/log/test_seals.py",
    "tests/session",
    "tests/log/test_log_survivors.py",
    "tests/log/test_audit_drops.py",
    "tests/peer/test_resume.py",
    "tests/cli/test_corpus.py",
    "tests/log/test_plain_replay.py",
]


if __name__ == "__main__":
    raise SystemExit(main(MUTANTS, TESTS, sys.argv[1:], __doc__ or ""))
