"""What verify checks in a protocol-1 log whose rules this lanTag does not hold (exit 3,
SPEC §9.2).

A protocol-1 log records no draw or commitment purposes, so the rules as the log records
them (lanTag.log.without_rules, for protocol 2 on) cannot be read from it: only what needs
no replay is checked, from the log alone: the entries and their hash chain (parse_rows),
every signature, that every message is of this game and protocol and is dated at its own
step, the STEP entries' form, every seat's chain links in step order from its anchor, and
the seals.  Its draws and openings need its rules (the report says so).  Pure: entries in,
a report out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lanTag.errors import LanTagError
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.log.entries import EntryKind, Row
from lanTag.log.report import Failure, VerifyReport
from lanTag.log.seals import check_seals
from lanTag.rules.base import (
    IllegalAction,
    Input,
    decode_input,
)
from lanTag.session.features import Features
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import SPECS, Signed

_LINK_AT = {t: s.link_at for t, s in SPECS.items() if s.link_at is not None}


class _Invalid(LanTagError):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.reason)
        self.failure = failure


def audit_log(
    rows: Sequence[Row],
    record: LobbyRecord,
    checked: Sequence[tuple[Signed, bool] | None],
    parse_error: str,
    report: VerifyReport,
) -> None:
    """Fill ``report`` (``replayed`` stays False) or set its ``failure``."""
    report.replayed = False
    try:
        messages = _messages(rows, record, checked, report)
        steps = _steps(rows, record.protocol)
        report.steps = max((step + 1 for _i, step, *_rest in steps), default=0)
        _chains(record, messages, report)
        report.unchecked = (
            "draws and commitment openings: a protocol-1 log does not record their "
            "purposes, so they need the rules"
        )
    except _Invalid as exc:
        report.failure = exc.failure
        return
    # Without the rules the end of the game is unknown: every seal must seal the last
    # recorded state (SPEC §9); whether the game ended there needs the rules.
    last = max(reversed(steps), key=lambda s: s[1], default=None)  # the latest, if re-decided
    final = (last[1] + 1, last[3]) if last is not None else None
    verdict = check_seals(rows, checked, record.protocol, final)
    if verdict.failure is not None:
        report.failure = verdict.failure
        return
    report.sealed_by = list(verdict.sealed_by)
    if parse_error:
        report.failure = Failure(len(rows), report.steps, None, parse_error)


def _messages(
    rows: Sequence[Row],
    record: LobbyRecord,
    checked: Sequence[tuple[Signed, bool] | None],
    report: VerifyReport,
) -> list[tuple[int, Signed]]:
    """Every MSG entry parsed, signed by its seat, of this game and protocol; else invalid."""
    game_id = record.game_id
    out: list[tuple[int, Signed]] = []
    seen: set[bytes] = set()
    for index, step, _prev, kind, _data, _raw in rows[1:]:
        if kind == EntryKind.HEADER:
            raise _Invalid(Failure(index, step, None, "a second header"))
        if kind != EntryKind.MSG:
            continue
        got = checked[index]
        if got is None:
            raise _Invalid(Failure(index, step, None, "stored message does not parse"))
        msg, signature_ok = got
        if msg.step != step:
            why = f"an entry of step {step} holds a message of step {msg.step}"
            raise _Invalid(Failure(index, step, msg.seat, why))
        if not signature_ok:
            why = f"signature of seat {msg.seat} does not verify (or not a person's seat)"
            raise _Invalid(Failure(index, step, msg.seat, f"stored message rejected: {why}"))
        if msg.game_id != game_id or msg.version != record.protocol:
            why = "a message of another game or protocol"
            raise _Invalid(Failure(index, step, msg.seat, f"stored message rejected: {why}"))
        if msg.raw not in seen:  # a relayed repeat is checked once, as in the replay
            seen.add(msg.raw)
            report.signatures_verified += 1
        out.append((index, msg))
    return out


def _steps(rows: Sequence[Row], protocol: int) -> list[tuple[int, int, Input, bytes, list[Any]]]:
    """Every STEP entry as (index, step, input, state hash after, purpose data)."""
    out: list[tuple[int, int, Input, bytes, list[Any]]] = []
    for index, step, _prev, kind, data, _raw in rows[1:]:
        if kind != EntryKind.STEP:
            continue
        try:
            if type(data) is not list or len(data) < 2:
                raise ValueError("not [input, state hash, ...]")
            inp = decode_input(data[0])
            digest = data[1]
            if type(digest) is not bytes or len(digest) != 32:
                raise ValueError("bad state hash")
            facts = data[2:]
            _check_facts(protocol, inp, facts)
        except (ValueError, IllegalAction) as exc:
            raise _Invalid(Failure(index, step, None, f"malformed step record: {exc}")) from None
        out.append((index, step, inp, digest, facts))
    return out


def _check_facts(protocol: int, inp: Input, facts: list[Any]) -> None:
    _ = inp
    if not Features.of(protocol).purposes and facts:
        raise ValueError("a protocol-1 step record is [input, state hash]")


def _chains(record: LobbyRecord, messages: list[tuple[int, Signed]], report: VerifyReport) -> None:
    """Every seat's chain links, in step order from its anchor: one that does not follow
    the seat's previous one is no fraud of the writer's (a live peer blames its seat,
    ``bad-chain``, and does not use it); the audit lists it the same way."""
    per_seat: dict[int, list[tuple[int, bytes]]] = {}
    for _index, msg in messages:
        at = _LINK_AT.get(msg.type)
        if at is not None:
            per_seat.setdefault(msg.seat, []).append((msg.step, msg.payload[at]))
    good: set[tuple[int, bytes]] = set()
    for seat, links in sorted(per_seat.items()):
        last = record.seats[seat].anchor
        for step, link in sorted(links, key=lambda sl: sl[0]):  # stable: log order in a step
            if (seat, link) in good:
                continue  # the same link again (a relay, or a re-decided step)
            # (the anchor itself is no link of the chain: blamed below, as the replay does)
            if chain_step_ok(last, link):
                good.add((seat, link))
                last = link
            else:
                report.blames.append((seat, step, "bad-chain", "a link that does not chain"))
