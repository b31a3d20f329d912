"""Offline verification of a signed game log.

The log is replayed through the very same Session code, as the seat that wrote
it but in replay mode: every signature is checked on the bytes as stored,
every chain link and commitment opening is checked, every roll is re-derived
from the seats' reveals, and every recorded step (input and state hash) must
equal what the replay computes.  Nothing is trusted from the writer.

Every signature is checked first, in one loop (``_check_signatures``).  A log in which
nothing unusual happened (no vote, drop, blame or tampering: lanTag.log.plain_replay)
is then replayed step by step without the machine's per-message bookkeeping; at the first
thing that is not plain, the replay through the Session decides, from the start.

A log whose engine (or rules version) this lanTag lacks is replayed all the same, with
the rules as the log records them (lanTag.log.without_rules, SPEC §9.2): valid, it is
"authentic, not replayed" (exit 3); a protocol-1 log, which records no purposes, gets
only the checks that need no replay (lanTag.log.audit).
"""

from __future__ import annotations

import contextlib
from typing import Any

from lanTag.errors import LanTagError, RemoteProtocolError, RulesVersionError
from lanTag.identity import Verifier
from lanTag.log.audit import audit_log
from lanTag.log.entries import MAGICS, EntryKind, LogFormatError, Row, parse_rows
from lanTag.log.plain_replay import PlainReplay
from lanTag.log.replay import DiscardLog, drain, replay_entry
from lanTag.log.report import Failure, Player, VerifyReport, position_digest
from lanTag.log.seals import check_seals
from lanTag.log.without_rules import replay_without_rules
from lanTag.rules.base import OptionError, PositionError
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.lockstep import Session
from lanTag.session.messages import Signed, parse_unverified, signed_by_seat


def verify_log(data: bytes) -> VerifyReport:
    """Verify a whole log.  Raises LogFormatError if ``data`` is not a lanTag log at all."""
    rows, truncated_tail, parse_error = parse_rows(data)  # parse_log without an Entry each
    report = VerifyReport(entries=len(rows), truncated_bytes=truncated_tail)
    try:
        header = rows[0][4]
        if type(header) is not list or len(header) not in (2, 3):
            raise ValueError("the header is not [magic, record, writer seat]")
        magic, record_bytes = header[0], header[1]
        if magic not in MAGICS.values() or not isinstance(record_bytes, bytes):
            raise ValueError(f"unknown log format {magic!r} (this lanTag reads {_FORMATS})")
        record = LobbyRecord.decode(record_bytes)
        if magic != MAGICS[record.protocol]:
            raise ValueError(f"a {magic} header holding a protocol-{record.protocol} record")
        # A lanTag log with a missing or malformed writer: invalid (exit 1), not unreadable.
        writer = header[2] if len(header) == 3 else None
        bad_writer = _bad_writer(header, len(record.seats))
        game_id = record.game_id
        bad_start = ""
        try:
            plain: PlainReplay | None = PlainReplay(record, game_id, writer)
        except RulesVersionError as exc:
            plain = None  # not this lanTag's rules: replayed as the log records them (exit 3)
            report.replayed = False
            report.needs = f"a full replay needs {exc}"
        except PositionError as exc:  # a signed game from no position of its rules: invalid
            plain, bad_start = None, str(exc)
    except _HEADER_ERRORS as exc:
        raise LogFormatError(f"not a lanTag log header: {exc}") from None
    report.protocol = record.protocol
    report.rules_version = record.rules_version
    report.lantag_version = record.lantag_version
    report.engine = record.engine
    report.game_id = game_id.hex()
    report.previous_game = record.previous_game.hex()
    report.writer_seat = writer
    report.players = [
        Player(i, s.nickname, s.fingerprint, s.bot) for i, s in enumerate(record.seats)
    ]
    if record.start_position:
        report.start_position = position_digest(record.start_position)
    if bad_writer or bad_start:
        report.failure = Failure(0, 0, None, bad_writer or bad_start)
        return report
    checked = _check_signatures(rows, record.human_keys())
    noted = _noted_blames(rows)
    if plain is None:
        if not record.features.purposes:  # what needs no replay (lanTag.log.audit)
            audit_log(rows, record, checked, parse_error, report)
            report.blames += noted
            return report
        report = replay_without_rules(rows, record, writer, checked, parse_error, report)
        report.blames += noted
        return report
    if plain.report(rows, checked, parse_error, report):
        # nothing unusual happened: the same report, without the machine
        _seal_report(rows, checked, record.protocol, plain.live, report)
        report.blames += noted
        return report
    try:
        session = Session(record, seat=writer, replay=True)
    except _HEADER_ERRORS as exc:  # (PlainReplay refused every header that fails here)
        raise LogFormatError(f"not a lanTag log header: {exc}") from None
    session.log = DiscardLog()  # the log being checked is the record; no second copy
    pending: list[ev.StepApplied] = []
    for index, step, _prev_hash, kind, entry_data, _raw in rows[1:]:
        failure = replay_entry(
            index, step, kind, entry_data, session, pending, report, checked[index]
        )
        if failure is not None:
            report.failure = failure
            report.blames += noted
            return report
    drain(session, pending, report)
    report.blames += noted
    if parse_error:
        report.failure = Failure(len(rows), session.step, None, parse_error)
        return report
    report.finish(session.state)
    _seal_report(rows, checked, record.protocol, session.live, report)
    return report


# Blames a session makes on a message it never logs, so that no replay can find them again:
# a SEAL of another state than the final one (SPEC §3) is blamed and kept out of the log.
# The report lists them from the writer's NOTE, as the writer's word.
NOTED_BLAMES = frozenset({"bad-seal"})


def _noted_blames(rows: list[Row]) -> list[tuple[int, int, str, str]]:
    """The writer's ``NOTED_BLAMES`` NOTEs (``[code, [seat], text]``), as report blames."""
    out: list[tuple[int, int, str, str]] = []
    for _index, step, _prev_hash, kind, data, _raw in rows:
        if kind != EntryKind.NOTE or type(data) is not list or len(data) != 3:
            continue
        code, seats, text = data
        if code in NOTED_BLAMES and type(seats) is list and len(seats) == 1:
            seat = seats[0]
            if type(seat) is int and type(text) is str:
                why = f"{text} (the writer's note; that SEAL is not logged)"
                out.append((seat, step, code, why))
    return out


def _bad_writer(header: list[Any], seats: int) -> str:
    """Why the header's writer field is missing or malformed ("" when it is a seat of the
    game, or nil for a spectator's log)."""
    if len(header) < 3:
        return "the header names no writer (a seat of the game, or nil for a spectator)"
    writer = header[2]
    if writer is not None and (type(writer) is not int or not 0 <= writer < seats):
        return f"the header's writer is {writer!r}, not a seat of the game (nor nil)"
    return ""


def _seal_report(
    rows: list[Row],
    checked: list[tuple[Signed, bool] | None],
    protocol: int,
    live: frozenset[int],
    report: VerifyReport,
) -> None:
    """The seals of a replayed log (both lanes): over its final state, or it is invalid; a
    finished game whose last move nobody else acknowledged is not complete (SPEC §9)."""
    last = report.applied[-1] if report.applied else None
    final = (last.step + 1, last.state_hash) if report.complete and last is not None else None
    verdict = check_seals(
        rows,
        checked,
        protocol,
        final,
        (last.step, last.input) if last is not None else None,
        live,
    )
    if verdict.failure is not None:  # invalid: no result at all (SPEC §9: "" and [])
        report.failure = verdict.failure
        report.complete = False
        report.outcome = ""
        report.ranking = []
        return
    report.sealed_by = list(verdict.sealed_by)
    report.unacknowledged = verdict.unacknowledged
    if verdict.unacknowledged:  # no result the table agreed on: none is reported
        report.complete = False
        report.outcome = ""
        report.ranking = []


_HEADER_ERRORS = (ValueError, TypeError, LanTagError, OptionError)
_FORMATS = " and ".join(MAGICS.values())


def _check_signatures(
    rows: list[Row], keys: tuple[bytes | None, ...]
) -> list[tuple[Signed, bool] | None]:
    """Each message entry parsed, with whether its signature verifies (None for the other
    entries and for a message that does not parse), by row index.

    Every signature of the log is checked here, in one loop, before the replay: the check
    the session would make for each message on receipt (``keys``: each seat's public key,
    None for a bot, as ``Session`` holds them), but with
    Ed25519 running back to back it keeps its code and tables in the CPU cache, which the
    replay's Python work between two messages evicts (measured: about 5 us a signature
    on a 2-core AMD EPYC VM, scripts/bench/bench_verify.py).  The replay then passes each
    result to ``Session.receive_parsed``.
    """
    checked: list[tuple[Signed, bool] | None] = [None] * len(rows)
    messages: list[tuple[int, Signed]] = []
    for index, _step, _prev_hash, kind, data, _raw in rows:
        if kind == EntryKind.MSG and type(data) is bytes:
            with contextlib.suppress(RemoteProtocolError):  # the replay rejects it, saying why
                messages.append((index, parse_unverified(data)))
    verifier = Verifier()
    for index, msg in messages:
        checked[index] = (msg, signed_by_seat(msg, keys, verifier))
    return checked


__all__ = [
    "Failure",
    "LogFormatError",
    "Player",
    "RemoteProtocolError",
    "VerifyReport",
    "verify_log",
]
