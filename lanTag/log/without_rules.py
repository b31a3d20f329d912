"""The check of a protocol-2 (or later) log whose rules this lanTag lacks (exit 3, SPEC §9.2).

The log is replayed as with its rules (lanTag.log.verify): the same Session in replay mode,
every entry in order, every STEP entry compared with what the signed messages before it
decide.  Only the engine differs: the rules as the log records them
(lanTag.log.recorded).  So every check that needs no rules is made exactly as the full
replay makes it: signatures, game and protocol, entries' steps, state hashes, turns of the
recorded decisions, acknowledgements, chain links, commitment openings, rolls from their
links, drops, convictions, the hand-back, rollbacks, seals.  What stays the log's word:
the legality of a move or choice, a bot's or a dropped seat's choice, the state after
each step, and the game's end (a valid log is "authentic, not replayed": exit 3).

Step 0's state hash needs the engine, unless the record holds a start position: the
replay takes each state hash that a step-0 message of the log carries, in the order they
first appear, until one makes the log valid (a liar's false hash at step 0 then costs an
honest log nothing); when none does, the failure is the one found with the first.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence

from lanTag.log.entries import EntryKind, Row
from lanTag.log.recorded import RecordedRules, RecordedState, StepBook
from lanTag.log.replay import DiscardLog, drain, replay_entry
from lanTag.log.report import Failure, VerifyReport
from lanTag.log.seals import check_seals
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.lockstep import Session
from lanTag.session.messages import CLAIMS, Signed


def replay_without_rules(
    rows: Sequence[Row],
    record: LobbyRecord,
    writer: int | None,
    checked: Sequence[tuple[Signed, bool] | None],
    parse_error: str,
    report: VerifyReport,
) -> VerifyReport:
    """The report of the check without the rules (``replayed`` False): ``report`` holds
    what the header says (``writer``: its seat, None for a spectator's log); a new report
    is returned."""
    book = StepBook.of_rows(rows)
    chosen: VerifyReport | None = None
    for start in step_zero_hashes(rows, record, checked):
        attempt = dataclasses.replace(report, blames=[], applied=[], replayed=False)
        _replay(rows, record, writer, checked, parse_error, book, start, attempt)
        if attempt.valid:
            chosen = attempt
            break
        chosen = chosen or attempt
    assert chosen is not None  # step_zero_hashes is never empty
    _explained_forfeits(chosen)
    return chosen


def step_zero_hashes(
    rows: Sequence[Row], record: LobbyRecord, checked: Sequence[tuple[Signed, bool] | None]
) -> list[bytes]:
    """The state hashes step 0 may have, in the order the check tries them: the start
    position's; else every state hash a step-0 message of this game carries, in order of
    first appearance (32 zero bytes when none does: then no message depends on it)."""
    if record.start_position:
        return [hashlib.sha256(record.start_position).digest()]
    seen: list[bytes] = []
    for index, _step, _prev, kind, _data, _raw in rows:
        got = checked[index] if kind == EntryKind.MSG else None
        if got is None or not got[1]:
            continue
        msg = got[0]
        if (
            msg.step == 0
            and msg.type in CLAIMS
            and msg.game_id == record.game_id
            and msg.version == record.protocol
            and msg.state_hash not in seen
        ):
            seen.append(msg.state_hash)
    return seen or [bytes(32)]


def _replay(
    rows: Sequence[Row],
    record: LobbyRecord,
    writer: int | None,
    checked: Sequence[tuple[Signed, bool] | None],
    parse_error: str,
    book: StepBook,
    start: bytes,
    report: VerifyReport,
) -> None:
    initial = RecordedState(RecordedRules(book, writer), 0, start)
    session = Session(record, seat=writer, replay=True, start=initial)
    session.log = DiscardLog()
    pending: list[ev.StepApplied] = []
    final: tuple[int, bytes] | None = None  # the state after the last STEP entry replayed
    for index, step, _prev, kind, data, _raw in rows[1:]:
        blamed = len(report.blames)
        if kind == EntryKind.STEP and index in book.conflicts:
            drain(session, pending, report)
            failure: Failure | None = Failure(index, step, None, book.conflicts[index])
        else:
            failure = replay_entry(
                index, step, kind, data, session, pending, report, checked[index]
            )
        _forget_blames_of_unknown_states(session, report, blamed)
        if failure is not None:
            report.failure = failure
            return
        if kind == EntryKind.STEP:
            final = (step + 1, data[1])
    drain(session, pending, report)
    if parse_error:
        report.failure = Failure(len(rows), session.step, None, parse_error)
        return
    # Whether the game ended needs the rules: every seal must seal the last recorded state.
    verdict = check_seals(rows, checked, record.protocol, final)
    if verdict.failure is not None:
        report.failure = verdict.failure
        return
    report.sealed_by = list(verdict.sealed_by)


def _explained_forfeits(report: VerifyReport) -> None:
    """A REVEAL whose seat's only recorded choice is the forfeit is taken as illegal (the
    rules alone can tell): when the log also proves that seat's equivocation at that step,
    the forfeit is explained by it, and the guess is not reported."""
    proven = {(seat, step) for seat, step, code, _r in report.blames if code == "equivocation"}
    report.blames = [
        blame
        for blame in report.blames
        if not (blame[2] == "illegal-action" and (blame[0], blame[1]) in proven)
    ]


def _forget_blames_of_unknown_states(session: Session, report: VerifyReport, since: int) -> None:
    """An out-of-turn blame at a state the log records no decision of is the recorded
    engine's ignorance, not the seat's fault (with the rules the message may fit): left out."""
    kept = []
    for blame in report.blames[since:]:
        state = session.state_at(blame[1])
        unknown = isinstance(state, RecordedState) and not state.known
        if not (blame[2] == "out-of-turn" and unknown):
            kept.append(blame)
    report.blames[since:] = kept
