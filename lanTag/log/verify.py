"""Offline verification of a signed game log.

The log is replayed through the very same Session code, as the seat that wrote
it but in replay mode: every signature is checked on the bytes as stored,
every chain link and commitment opening is checked, every roll is re-derived
from the seats' reveals, and every recorded step (input and state hash) must
equal what the replay computes.  Nothing is trusted from the writer.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

import msgpack

from lanTag.errors import LanTagError, RemoteProtocolError
from lanTag.log.chain import MAGIC, EntryKind, LogChain, LogFormatError, Row, parse_rows
from lanTag.rules.base import Joint, OptionError, Over, Roll, decode_input, encode_input
from lanTag.session import events as ev
from lanTag.session.lobby import LobbyRecord
from lanTag.session.machine import Session
from lanTag.session.messages import Signed, parse_unverified


@dataclass(frozen=True, slots=True)
class Failure:
    entry: int
    step: int
    seat: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    nickname: str
    fingerprint: str
    bot: str


@dataclass
class VerifyReport:
    engine: str = ""
    game_id: str = ""
    writer_seat: int | None = None
    players: list[Player] = field(default_factory=list)
    entries: int = 0
    steps: int = 0
    rolls_verified: int = 0
    secrets_verified: int = 0
    signatures_verified: int = 0
    blames: list[tuple[int, int, str, str]] = field(default_factory=list)  # seat, step, code, why
    complete: bool = False
    outcome: str = ""
    ranking: list[list[int]] = field(default_factory=list)
    truncated_bytes: int = 0
    failure: Failure | None = None
    applied: list[ev.StepApplied] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.failure is None

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "complete": self.complete,
            "engine": self.engine,
            "game_id": self.game_id,
            "writer_seat": self.writer_seat,
            "players": [_player(p) for p in self.players],
            "entries": self.entries,
            "steps": self.steps,
            "rolls_verified": self.rolls_verified,
            "secrets_verified": self.secrets_verified,
            "signatures_verified": self.signatures_verified,
            "blames": [
                {"seat": s, "step": k, "code": c, "reason": r} for s, k, c, r in self.blames
            ],
            "outcome": self.outcome,
            "ranking": self.ranking,
            "truncated_bytes": self.truncated_bytes,
            "failure": None if self.failure is None else _failure(self.failure),
        }


def _player(p: Player) -> dict[str, Any]:
    return {"seat": p.seat, "nickname": p.nickname, "fingerprint": p.fingerprint, "bot": p.bot}


def _failure(f: Failure) -> dict[str, Any]:
    return {"entry": f.entry, "step": f.step, "seat": f.seat, "reason": f.reason}


def verify_log(data: bytes) -> VerifyReport:
    """Verify a whole log.  Raises LogFormatError if ``data`` is not a lanTag log at all."""
    rows, truncated_tail, parse_error = parse_rows(data)  # parse_log without an Entry each
    report = VerifyReport(entries=len(rows), truncated_bytes=truncated_tail)
    try:
        magic, record_bytes, writer = rows[0][4]
        if magic != MAGIC or not isinstance(record_bytes, bytes):
            raise ValueError("bad magic")
        record = LobbyRecord.decode(record_bytes)
        session = Session(record, seat=writer, replay=True)
        session.log = _Discard()  # the log being checked is the record; no second copy
    except (ValueError, TypeError, LanTagError, OptionError) as exc:
        raise LogFormatError(f"not a lanTag log header: {exc}") from None
    report.engine = record.engine
    report.game_id = record.game_id.hex()
    report.writer_seat = writer
    report.players = [
        Player(i, s.nickname, s.fingerprint, s.bot) for i, s in enumerate(record.seats)
    ]
    pending: list[ev.StepApplied] = []
    checked = _check_signatures(rows, session)
    for index, step, _prev_hash, kind, entry_data, _raw in rows[1:]:
        failure = _replay_entry(
            index, step, kind, entry_data, session, pending, report, checked[index]
        )
        if failure is not None:
            report.failure = failure
            return report
    _drain(session, pending, report)
    if parse_error:
        report.failure = Failure(len(rows), session.step, None, parse_error)
        return report
    decision = session.state.decision()
    if isinstance(decision, Over):
        report.complete = True
        report.outcome = decision.outcome.summary
        report.ranking = [list(g) for g in decision.outcome.ranking]
    return report


def _replay_entry(
    index: int,
    step: int,
    kind: EntryKind,
    data: Any,
    session: Session,
    pending: list[ev.StepApplied],
    report: VerifyReport,
    checked: tuple[Signed, bool] | None,
) -> Failure | None:
    if kind == EntryKind.MSG:
        if not isinstance(data, bytes):
            return Failure(index, step, None, "message entry does not hold bytes")
        before = session.counters.get("duplicate", 0)
        if checked is None:
            session.receive_message(data, 0.0)  # it does not parse: rejected, with the reason
        else:
            session.receive_parsed(checked[0], 0.0, checked[1])
        if session.has_events():  # most messages raise none: skip building the list
            for event in _drain(session, pending, report):
                if isinstance(event, ev.Rejected):
                    return Failure(index, step, None, f"stored message rejected: {event.reason}")
        if session.counters.get("duplicate", 0) == before:
            report.signatures_verified += 1
        return None
    if kind == EntryKind.STEP:
        _drain(session, pending, report)
        if not pending:
            return Failure(
                index, step, None, f"step {step} is recorded but its messages do not decide it"
            )
        applied = pending.pop(0)
        if (
            type(data) is list
            and len(data) == 2
            and applied.step == step
            and type(data[0]) is list
            and _packb(data[0]) == _packb(encode_input(applied.input))
        ):
            # Same canonical bytes as the decided input: what the check below would decode
            # and compare equal (no bool for an int, no list for an int...), without decoding.
            if applied.state_hash != data[1]:
                return Failure(index, step, None, f"state hash after step {step} differs")
            report.steps = max(report.steps, step + 1)
            return None
        try:
            recorded_input = decode_input(data[0])
            recorded_hash = data[1]
        except (ValueError, TypeError, IndexError) as exc:
            return Failure(index, step, None, f"malformed step record: {exc}")
        if applied.step != step or encode_input(applied.input) != encode_input(recorded_input):
            return Failure(
                index,
                step,
                None,
                f"recorded input for step {step} differs from the one its signed messages decide",
            )
        if applied.state_hash != recorded_hash:
            return Failure(index, step, None, f"state hash after step {step} differs")
        report.steps = max(report.steps, step + 1)
        return None
    if kind == EntryKind.HEADER:
        return Failure(index, step, None, "a second header")
    return None  # NOTE entries are local annotations; the replay recomputes blames itself


def _check_signatures(rows: list[Row], session: Session) -> list[tuple[Signed, bool] | None]:
    """Each message entry parsed, with whether its signature verifies (None for the other
    entries and for a message that does not parse), by row index.

    Every signature of the log is checked here, in one loop, before the replay: the same
    ``check_signature`` the session would make for each message on receipt, but with
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
    check = session.check_signature
    for index, msg in messages:
        checked[index] = (msg, check(msg))
    return checked


_packb = msgpack.Packer(use_bin_type=True).pack  # wire.pack's encoding, one Packer


class _Discard(LogChain):
    """The replay's own log: counted, never encoded (nothing reads it; packing and hashing
    a second copy of every entry cost ~5% of a verification)."""

    def append(self, step: int, kind: EntryKind, data: Any) -> bytes:
        self.index += 1
        return b""


def _drain(session: Session, pending: list[ev.StepApplied], report: VerifyReport) -> list[ev.Event]:
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


__all__ = ["Failure", "LogFormatError", "RemoteProtocolError", "VerifyReport", "verify_log"]
