"""One log entry through a replaying Session: what both replays of a whole log share.

The full replay (lanTag.log.verify, with the engine) and the check without the rules
(lanTag.log.without_rules, with the rules as the log records them) feed a log's entries,
in order, to a Session in replay mode and compare each STEP entry with the step its signed
messages decided (SPEC §9).  Pure: entries in, failures and report counts out.
"""

from __future__ import annotations

from typing import Any

from lanTag.errors import RemoteProtocolError
from lanTag.log.entries import EntryKind, LogChain
from lanTag.log.report import Failure, VerifyReport, step_row_failure
from lanTag.rules.base import Joint, Roll
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.messages import Signed, parse_unverified


def replay_entry(
    index: int,
    step: int,
    kind: EntryKind,
    data: Any,
    session: Session,
    pending: list[ev.StepApplied],
    report: VerifyReport,
    checked: tuple[Signed, bool] | None,
) -> Failure | None:
    """Feed entry ``index`` to ``session``; the failure it proves, if any.  ``checked``: the
    entry's message parsed, with its signature's verdict (None: not a parsed message)."""
    if kind == EntryKind.MSG:
        if not isinstance(data, bytes):
            return Failure(index, step, None, "message entry does not hold bytes")
        msg = checked[0] if checked is not None else _parsed(data)
        if msg is not None and msg.step != step:
            why = f"an entry of step {step} holds a message of step {msg.step}"
            return Failure(index, step, msg.seat, why)
        before = session.counters.get("duplicate", 0)
        if checked is None:
            session.receive_message(data, 0.0)  # it does not parse: rejected, with the reason
        else:
            session.receive_parsed(checked[0], 0.0, checked[1])
        if session.has_events():  # most messages raise none: skip building the list
            for event in drain(session, pending, report):
                if isinstance(event, ev.Rejected):
                    return Failure(index, step, None, f"stored message rejected: {event.reason}")
        if session.counters.get("duplicate", 0) == before:
            report.signatures_verified += 1
        return None
    if kind == EntryKind.STEP:
        drain(session, pending, report)
        if not pending:
            return Failure(
                index, step, None, f"step {step} is recorded but its messages do not decide it"
            )
        failure = step_row_failure(index, step, data, pending.pop(0))
        if failure is None:
            report.steps = max(report.steps, step + 1)
        return failure
    if kind == EntryKind.HEADER:
        return Failure(index, step, None, "a second header")
    return None  # NOTE entries are local annotations; the replay recomputes blames itself


def _parsed(data: bytes) -> Signed | None:
    """The message of an entry whose signatures were not checked before the replay (None
    when it does not parse: the session then rejects it, saying why)."""
    try:
        return parse_unverified(data)
    except RemoteProtocolError:
        return None


def drain(session: Session, pending: list[ev.StepApplied], report: VerifyReport) -> list[ev.Event]:
    """The session's events: decided steps queue in ``pending`` (and count), blames go to
    the report."""
    out: list[ev.Event] = []
    while (event := session.next_event()) is not None:
        out.append(event)
        if isinstance(event, ev.StepApplied):
            pending.append(event)
            report.applied.append(event)
            if isinstance(event.input, Roll):
                report.rolls_verified += 1
            elif isinstance(event.input, Joint):
                report.secrets_verified += 1
        elif isinstance(event, ev.Blame):
            report.blames.append((event.seat, event.step, event.code, event.reason))
    return out


class DiscardLog(LogChain):
    """A replay's own log: counted, never encoded (nothing reads it; packing and hashing
    a second copy of every entry cost ~5% of a verification)."""

    def append(self, step: int, kind: EntryKind, data: Any) -> bytes:
        self.index += 1
        return b""
