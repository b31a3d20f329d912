"""Must-fail logs: for every check `lantag verify` makes, a log that breaks exactly that rule
(and, at the edges SPEC decides, valid logs every verifier must accept).

    .venv/bin/python -m scripts.gen_must_fail            # (re)write protocol/vectors/must_fail/
    .venv/bin/python -m scripts.gen_must_fail --check    # exit 1 if a file would change

A byte-level edit of a log (a flipped bit, a dropped entry) already breaks a signature or the
hash chain.  The logs written here are what a *cheating writer* produces instead: it holds the
keys of every seat it signs for, so every message in them is validly signed, and it writes its
log through the package's own LogChain, so every entry chains.  Each starts from a real game
(Prototag, three human seats and a replicated bot, played by the library's bots through the
whole peer stack on the simulated network: tests.support.table), keeps that game's log up to
the point of the cheat, and then breaks one rule.  The rules and the failure each must produce
(exit code, failing entry, reason, blame; and without the rules, SPEC §9.2) are in
must_fail.json; SPEC §9.1 lists them.

Everything is built with the package's own writer and signing APIs (Table, LogChain,
sign_message, encode_input, chance_roll, joint_choice, commitment), so when the log format
changes this one command writes the vectors for the new format.  Deterministic: the game is a
pure function of its seed, Ed25519 signatures are deterministic, and nothing reads a clock.
Every vector is checked against its expectation while it is generated: a rule the verifier no
longer enforces stops the run.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any

from lanTag.log.entries import LogFormatError
from lanTag.log.verify import verify_log
from scripts import must_fail_entries, must_fail_messages, must_fail_seals  # noqa: F401
from scripts.must_fail_game import ENGINE, FIRST_SEED, SEEDS_TRIED, VECTORS, Vector, play, write
from tests.support.no_engines import no_engines

ROOT = Path(__file__).resolve().parents[1]

# Importing a must_fail_* module registers its cheats: entries, messages and seals first
# (above), then the hand-back's cheats (protocol 5), then the edges SPEC decides (issue #36),
# then the two proofs' (protocol 6), then the hand-back's price (protocol 6), then seats that
# never played (protocol 6): their vectors come last.
must_fail_handback = importlib.import_module("scripts.must_fail_handback")
importlib.import_module("scripts.must_fail_edges")
must_fail_proofs = importlib.import_module("scripts.must_fail_proofs")
must_fail_absence = importlib.import_module("scripts.must_fail_absence")
must_fail_unplayed = importlib.import_module("scripts.must_fail_unplayed")

OUT = ROOT / "protocol" / "vectors" / "must_fail"
INDEX = "must_fail.json"
HONEST = "honest_game.lantag"  # not *.log: every *.log file here must fail
HANDBACK = "handback_game.lantag"  # the hand-back vectors' game: valid, a drop and a hand-back

# --------------------------------------------------------------------------- checking, writing


def check(vec: Vector) -> dict[str, Any]:
    """What ``verify_log`` says of ``vec`` (as the index records it); RuntimeError when it is
    not what the vector expects."""
    exp = vec.expect
    try:
        report = verify_log(vec.data)
    except LogFormatError as exc:
        if exp.exit != 2 or exp.reason not in str(exc):
            raise RuntimeError(f"{vec.name}: not a log ({exc}), expected {exp}") from None
        return {"exit": 2, "error": str(exc)}
    failure = report.failure
    blames = [[seat, code] for seat, _step, code, _reason in report.blames]
    if exp.blame is not None and list(exp.blame) not in blames:
        raise RuntimeError(f"{vec.name}: no blame {exp.blame} in {blames}")
    if exp.exit == 0:  # a valid log (blamed, or not complete, or an edge SPEC decides)
        if failure is not None:
            raise RuntimeError(f"{vec.name}: failed with {failure}, expected a valid log")
        if exp.complete is not None and report.complete != exp.complete:
            raise RuntimeError(f"{vec.name}: complete is {report.complete}, not {exp.complete}")
        if exp.reason not in report.unacknowledged:
            raise RuntimeError(f"{vec.name}: not complete for {report.unacknowledged!r}")
        said = {"exit": 0, "blames": blames, "complete": report.complete}
        if report.unacknowledged:
            said["unacknowledged"] = report.unacknowledged
        return said
    if failure is None:
        raise RuntimeError(f"{vec.name}: the verifier ACCEPTS it (expected {exp})")
    got = (failure.entry, failure.step)
    want = (exp.entry, failure.step if exp.step is None else exp.step)
    if exp.exit != 1 or exp.reason not in failure.reason or got != want:
        raise RuntimeError(f"{vec.name}: failed with {failure}, expected {exp}")
    return {
        "exit": 1,
        "entry": failure.entry,
        "step": failure.step,
        "seat": failure.seat,
        "reason": failure.reason,
        "blames": blames,
    }


def audit(data: bytes, vec: Vector | None = None) -> dict[str, Any]:
    """What ``verify_log`` says of a log with no engine registered at all (SPEC §9.2: the
    replay with the rules as the log records them): exit 1 or 3, and the report's checks.
    A refused vector is refused at the entry its index names (RuntimeError otherwise)."""
    with no_engines():
        report = verify_log(data)
    if report.replayed and report.valid:  # (a bad header's writer is refused before)
        raise RuntimeError("the log was replayed without its rules")
    failure = report.failure
    if vec is not None and failure is not None and vec.expect.entry not in (None, failure.entry):
        raise RuntimeError(
            f"{vec.name}: refused without the rules at {failure}, not at entry {vec.expect.entry}"
        )
    said = report.to_json()
    keys = ("failure", "blames", "steps", "signatures_verified", "rolls_verified")
    return {
        "exit": 3 if report.valid else 1,
        **{k: said[k] for k in (*keys, "secrets_verified", "unchecked")},
    }


def cheats() -> tuple[int, bytes, list[Vector]]:
    """Every cheat, made from the first game (by seed) that has what each one needs; the
    seed and that game's honest log."""
    for seed in range(FIRST_SEED, FIRST_SEED + SEEDS_TRIED):
        game = play(seed)
        try:
            return seed, write(game.items), [make(game) for make in VECTORS]
        except LookupError:  # e.g. no secret round in this game: try the next seed
            continue
    raise RuntimeError(f"no game of seeds {FIRST_SEED}+{SEEDS_TRIED} has every situation")


def render() -> dict[str, bytes]:
    seed, honest, vectors = cheats()
    report = verify_log(honest)
    if not (report.valid and report.complete):
        raise RuntimeError(f"the honest game's log does not verify: {report.failure}")
    handback = write(must_fail_handback.handback_game().items)
    report = verify_log(handback)
    if not (report.valid and report.complete):
        raise RuntimeError(f"the hand-back game's log does not verify: {report.failure}")
    files: dict[str, bytes] = {HONEST: honest, HANDBACK: handback}
    index = []
    for vec in vectors:
        got = check(vec)
        file_name = f"{vec.name}.log"
        files[file_name] = vec.data
        index.append(
            {
                "file": file_name,
                "rule": vec.rule,
                "how": vec.how,
                "sha256": hashlib.sha256(vec.data).hexdigest(),
                "expect": {
                    "exit": vec.expect.exit,
                    "reason_contains": vec.expect.reason,
                    "entry": vec.expect.entry,
                    "step": got.get("step") if vec.expect.exit == 1 else None,
                    "blame": None if vec.expect.blame is None else list(vec.expect.blame),
                    **({"complete": vec.expect.complete} if vec.expect.exit == 0 else {}),
                },
                "reference_verifier_says": got,
                "reference_audit_says": None if vec.expect.exit == 2 else audit(vec.data, vec),
            }
        )
    about = {
        "about": "Logs a verifier must answer as indexed (SPEC §9.1, §10): each validly "
        "signed and hash-chained by a cheating writer holding every seat's key, breaking "
        "exactly one rule (`rule`, `how`), or, at an edge SPEC decides, breaking none.  "
        "`lantag verify FILE` must exit with `expect.exit`; for exit 1 the first failure is "
        "at entry `expect.entry` (and step `expect.step`) with a reason containing "
        "`expect.reason_contains` (the reference's exact words: `reference_verifier_says`), "
        "and the replay blames `expect.blame` [seat, code] on the way, if given.  For exit 2 "
        "the file is not a lanTag log at all.  Exit 0: the log is valid, its report's "
        "`complete` is `expect.complete`, its `unacknowledged` contains "
        "`expect.reason_contains` and it carries `expect.blame`, if given (out_of_turn_commit: "
        "a breach the replay answers with a blame, not a verdict; last_move_resigned: valid "
        "but not complete; the other exit-0 logs are edges SPEC decides).  "
        "`reference_audit_says`: the reference's report with no engine registered at all "
        "(the replay with the rules as the log records them, SPEC §9.2): exit 1 when a check "
        "that needs no rules fails, always at `expect.entry`, else 3.  Every log starts as "
        f"the log of one real {ENGINE} game (3 human seats and a replicated bot, writer seat 0; "
        "lanTag.testing.table.Table with `table_seed`), but for the hand-back's (admission_*, "
        "link_reused_after_a_hand_back, protocol 5): they start from the writer's log of "
        "another game of that table, in which seat 2 was killed, dropped, resumed and given "
        "back (`handback_seed`), and link_reused_after_a_rollback, the writer's log of a game "
        "in which a seat sends two MOVEs for one turn (`how` names its seed), and "
        "two_equivocation_proofs (protocol 6): the writer's log of another game of that "
        "table, in which seat 1 signed two MOVEs at each of two steps and every peer kept "
        "protocol 5's first-proof rule (`proofs_seed`), and the hand-back's price "
        "(admission_within_the_drop_turn, admission_beyond_the_limit, protocol 6): each the "
        "writer's log of a game of that table whose table gave the seat back as protocol 5 "
        "did, within the turn it was dropped in or once more than the limit "
        "(`absence_seeds`), cut at the first step its person decided otherwise than the bot "
        "would have; `handback_game.lantag`, the hand-back game itself, must be accepted "
        "whole; and seats that never played (unplayed_*, protocol 6): games of that table "
        "whose other people are cut off from the writer at the start (`unplayed_seeds`), the "
        "host's log (must pass) and two joiners' logs, seat 1 writing (must fail).  Written by "
        "scripts/gen_must_fail.py (deterministic).",
        "engine": ENGINE,
        "table_seed": seed,
        "handback_seed": must_fail_handback.handback_game().seed,
        "proofs_seed": must_fail_proofs.two_proofs_game().seed,
        "unplayed_seeds": {
            "unplayed_left_out_at_the_first_roll": must_fail_unplayed.squat_game().seed,
            "unplayed_left_out_without_the_host": must_fail_unplayed.without_the_host().seed,
            "unplayed_left_out_with_the_writers_own_seat": must_fail_unplayed.own_seat().seed,
        },
        "absence_seeds": {
            "admission_within_the_drop_turn": must_fail_absence.early_game().seed,
            "admission_beyond_the_limit": must_fail_absence.second_game().seed,
        },
        "honest": {
            "file": HONEST,
            "about": "the game's own log, which every vector starts from: valid and complete",
            "sha256": hashlib.sha256(honest).hexdigest(),
            "reference_audit_says": audit(honest),
        },
        "handback": {
            "file": HANDBACK,
            "about": "the hand-back game's log (seat 2 killed, dropped, resumed and given "
            "back), which the admission_* vectors start from: valid and complete",
            "sha256": hashlib.sha256(handback).hexdigest(),
            "reference_audit_says": audit(handback),
        },
        "vectors": index,
    }
    files[INDEX] = (json.dumps(about, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return files


def spec_table(index: dict[str, Any]) -> str:
    """The table of SPEC §9.1, from the index."""
    rows = [
        "| file | rule broken | exit | reason contains | blame | exit without the rules |",
        "|---|---|---|---|---|---|",
    ]
    for v in index["vectors"]:
        e = v["expect"]
        said = f"`{e['reason_contains']}`" if e["reason_contains"] else ""
        blame = f"seat {e['blame'][0]} `{e['blame'][1]}`" if e["blame"] else ""
        audit = v["reference_audit_says"]
        bare = "" if audit is None else audit["exit"]
        rows.append(
            f"| `{v['file'][:-4]}` | {v['rule']} | {e['exit']} | {said} | {blame} | {bare} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.gen_must_fail", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--spec-table", action="store_true", help="print SPEC §9.1's table")
    args = parser.parse_args(argv)
    files = render()
    if args.spec_table:
        print(spec_table(json.loads(files[INDEX])), end="")
        return 0
    if args.check:
        on_disk = {p.name for p in OUT.glob("*")} if OUT.is_dir() else set()
        stale = sorted(
            n
            for n, data in files.items()
            if not (OUT / n).is_file() or (OUT / n).read_bytes() != data
        ) + sorted(on_disk - set(files))
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*"):
        if old.name not in files:
            old.unlink()
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    print(
        f"wrote {len(files) - 3} must-fail logs, {HONEST}, {HANDBACK} and {INDEX} to "
        f"{OUT.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
