"""`lantag verify` and `lantag replay`: signed game logs, offline."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from lanTag.cli.entry import UserError, print_json
from lanTag.log.entries import LogFormatError
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.session.features import Features


def _load_log(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read log {path}: {exc.strerror}") from None


async def cmd_verify(args: argparse.Namespace) -> int:
    if Path(args.log).is_dir():  # a series: one log per game (lantag host --games N)
        from lanTag.cli.series_verify import verify_series_dir

        return verify_series_dir(Path(args.log), args.json)
    data = _load_log(args.log)
    try:
        report = verify_log(data)
    except LogFormatError as exc:
        if args.json:
            print_json({"valid": False, "log": False, "error": str(exc)})
        else:
            print(f"lantag: {args.log}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print_json(report.to_json())
    else:
        print(format_report(args.log, report))
    return verify_exit_code(report)


def verify_exit_code(report: VerifyReport) -> int:
    """0 valid (fully replayed), 1 invalid, 3 authentic but not replayed: this lanTag lacks
    the log's rules version (2, not a lanTag log, is decided before any report)."""
    if not report.valid:
        return 1
    return 0 if report.replayed else 3


def format_report(path: str, report: VerifyReport) -> str:
    lines = [
        f"{path}: {report.engine} rules {report.rules_version}, protocol {report.protocol}, "
        f"game {report.game_id[:16]}"
    ]
    if report.start_position:  # set up from a position (lantag play/host --position)
        lines.append(f"  started from position {report.start_position[:16]}")
    for p in report.players:
        who = f"bot ({p.bot})" if p.bot else p.fingerprint
        lines.append(f"  seat {p.seat}: {p.nickname:<16} {who}")
    lines.append(
        f"  {report.entries} entries, {report.signatures_verified} signatures, "
        f"{report.steps} steps, {report.rolls_verified} rolls and "
        f"{report.secrets_verified} secret rounds re-derived"
    )
    for seat, step, code, reason in report.blames:
        lines.append(f"  blame: seat {seat} at step {step}: {code} ({reason})")
    # A log may end in a torn entry (a crash mid-write): said on the summary line, whatever
    # the verdict, not only in --json.
    torn = report.truncated_bytes
    torn_note = f"; the last {torn} bytes are a torn entry, ignored" if torn else ""
    if report.failure is not None:
        f = report.failure
        lines.append(f"INVALID at entry {f.entry} (step {f.step}): {f.reason}{torn_note}")
    elif not report.replayed:
        if report.unchecked:  # protocol 1: only what needs no replay (SPEC §9.2)
            done = "entries, hash chain, signatures and chain links checked without the rules"
        else:
            done = "replayed as the log records them: every check that needs no rules made"
        lines.append(f"  {report.steps} steps recorded; {done}")
        if report.unchecked:
            lines.append(f"  not checked: {report.unchecked}")
        lines.append(f"AUTHENTIC, NOT REPLAYED: {report.needs}{_sealed(report)}{torn_note}")
    elif report.complete:
        taken = [p.nickname for p in report.players]  # two "max" get their key's digits
        names = {
            p.seat: f"{p.nickname} ({p.fingerprint[:4]})"
            if taken.count(p.nickname) > 1
            else p.nickname
            for p in report.players
        }
        ranking = " > ".join(" = ".join(names.get(s, str(s)) for s in g) for g in report.ranking)
        lines.append(f"  ranking: {ranking}")
        lines.append(f"VALID, complete{_sealed(report)}: {report.outcome}{torn_note}")
    elif report.unacknowledged:
        lines.append(
            f"VALID but incomplete: valid up to step {report.steps}; not complete: "
            f"{report.unacknowledged}{torn_note}"
        )
    else:
        lines.append(f"VALID but incomplete: valid up to step {report.steps}{torn_note}")
    # One screen: every line but the path fits 80 columns (long ones wrap with an indent).
    return "\n".join(
        [lines[0]]
        + [
            wrapped
            for line in lines[1:]
            for wrapped in textwrap.wrap(line, 79, subsequent_indent="    ") or [""]
        ]
    )


def _sealed(report: VerifyReport) -> str:
    """", sealed by seats 0 1 2" (protocol 3 on: the seats that signed the final state)."""
    if not Features.of(report.protocol).seals:
        return ""  # older logs hold no seals
    seats = " ".join(map(str, report.sealed_by))
    return f", sealed by seats {seats}" if seats else ", sealed by no seat"


async def cmd_replay(args: argparse.Namespace) -> int:
    if Path(args.log).is_dir():  # a series: its games one after the other
        from lanTag.cli.series_verify import replay_series_dir

        return await replay_series_dir(Path(args.log), args.headless, args.force)
    data = _load_log(args.log)
    try:
        report = verify_log(data)
    except LogFormatError as exc:
        raise UserError(f"{args.log}: {exc}") from None
    if report.valid and not report.replayed:
        raise UserError(f"{args.log}: cannot replay it here: {report.needs}")
    if not report.valid and not args.force:
        f = report.failure
        assert f is not None
        raise UserError(
            f"{args.log} fails verification at entry {f.entry}: {f.reason} (--force to look anyway)"
        )
    if args.headless:
        from lanTag.ui.replay_model import headless_replay

        for block in headless_replay(data, report):
            print(block)
        return 0
    from lanTag.ui.replay import run_replay_app

    return await run_replay_app(data, report)
