"""What verify checks in a log whose rules this lanTag does not hold (exit 3, SPEC §9).

Without the engine nothing can be replayed, but everything that does not need the rules
is still checked, from the log alone: the entries and their hash chain (parse_rows), every
signature, that every message is of this game and protocol, every seat's chain links in
step order from its anchor, and, for a protocol-2 log, whose STEP entries carry each
roll's draw purpose and kinds and each secret round's commitment purpose (SPEC §9): every
draw recomputed from its links, and every commitment opened, its action being the seat's
recorded choice.  A protocol-1 log records no purposes: its draws and openings need its
rules (the report says so).  Pure: entries in, a report out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lanTag.fair.chain import chain_step_ok
from lanTag.fair.commit import opens
from lanTag.fair.draw import DrawStream, draw_seed
from lanTag.log.chain import EntryKind, Row
from lanTag.log.report import Failure, VerifyReport
from lanTag.log.seals import check_seals
from lanTag.rules.base import (
    Die,
    Draw,
    IllegalAction,
    Input,
    Joint,
    Pick,
    Roll,
    Shuffle,
    decode_input,
)
from lanTag.rules.playout import draw_values
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, Signed, parse_unverified, reveal_value
from lanTag.session.steps import StepBox

_LINK_AT = {MsgType.ENTROPY: 0, MsgType.REVEAL: 2}


class _Invalid(Exception):
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
        good_links = _chains(record, messages, report)
        if record.protocol >= 2:
            live = _live_seats(record, messages)
            _fairness(record, messages, steps, good_links, live, report)
        else:
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
    if protocol < 2:
        if facts:
            raise ValueError("a protocol-1 step record is [input, state hash]")
        return
    if isinstance(inp, Roll):
        ok = len(facts) == 2 and type(facts[0]) is str and type(facts[1]) is list
        if ok:
            draws = [draw_of(d) for d in facts[1]]
            ok = len(draws) == len(inp.values)
        if not ok:
            raise ValueError("a roll's record is [input, hash, purpose, draws]")
    elif isinstance(inp, Joint):
        if not (len(facts) == 1 and type(facts[0]) is str):
            raise ValueError("a secret round's record is [input, hash, purpose]")
    elif facts:
        raise ValueError("a move's record is [input, state hash]")


def draw_of(obj: object) -> Draw:
    """The draw kind of SPEC §9's [0, faces, count] / [1, n, count] / [2, n]; ValueError."""
    if type(obj) is list and obj:
        tag = obj[0]
        if tag == 0 and len(obj) == 3 and type(obj[1]) is list and obj[1]:
            faces = tuple(obj[1])
            if all(type(f) is int for f in faces) and _count(obj[2]):
                return Die(faces, obj[2])
        if tag == 1 and len(obj) == 3 and _count(obj[1]) and _count(obj[2]):
            return Pick(obj[1], obj[2])
        if tag == 2 and len(obj) == 2 and _count(obj[1]):
            return Shuffle(obj[1])
    raise ValueError(f"not a draw kind: {obj!r}")


def _count(value: object) -> bool:
    return type(value) is int and 1 <= value <= 2**16


def _chains(
    record: LobbyRecord, messages: list[tuple[int, Signed]], report: VerifyReport
) -> set[tuple[int, bytes]]:
    """(seat, link) of every chain link that follows the seat's previous one, in step
    order from its anchor.  A link that does not is no fraud of the writer's: a live peer
    blames its seat (``bad-chain``) and does not use it; the audit lists it the same way."""
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
    return good


def _fairness(
    record: LobbyRecord,
    messages: list[tuple[int, Signed]],
    steps: list[tuple[int, int, Input, bytes, list[Any]]],
    good: set[tuple[int, bytes]],
    live: list[tuple[int, frozenset[int]]],
    report: VerifyReport,
) -> None:
    """Every roll recomputed from the links of the seats live at its step and its recorded
    purpose and kinds; every commitment of a secret round opened with its recorded purpose."""
    game_id = record.game_id
    by_step: dict[tuple[int, MsgType], list[Signed]] = {}
    for _index, msg in messages:
        by_step.setdefault((msg.step, msg.type), []).append(msg)
    hash_after: dict[int, bytes] = {}
    for index, step, inp, digest, facts in steps:
        before = hash_after.get(step - 1)  # None at step 0: any state hash of step 0

        def of(kind: MsgType, step: int = step, before: bytes | None = before) -> dict[int, Signed]:
            first: dict[int, Signed] = {}
            for m in by_step.get((step, kind), ()):
                if before is None or m.state_hash == before:
                    first.setdefault(m.seat, m)
            return first

        if isinstance(inp, Roll):
            at = _live_at(live, step)  # a dropped seat's link, even logged later, draws nothing
            links = {
                s: m.payload[0]
                for s, m in of(MsgType.ENTROPY).items()
                if (s, m.payload[0]) in good and s in at
            }
            stream = DrawStream(draw_seed(game_id, step, facts[0], links.items()))
            derived = tuple(draw_values(draw_of(d), stream.below) for d in facts[1])
            if derived != inp.values:
                why = f"the roll of step {step} is not what its links draw"
                raise _Invalid(Failure(index, step, None, why))
            report.rolls_verified += 1
        elif isinstance(inp, Joint):
            commits = of(MsgType.COMMIT)
            for seat, reveal in sorted(of(MsgType.REVEAL).items()):
                commit = commits.get(seat)
                value = reveal_value(reveal)
                sealed = commit.payload[0] if commit is not None else b""
                if not opens(sealed, game_id, step, seat, facts[0], reveal.payload[1], value):
                    report.blames.append((seat, step, "bad-reveal", "does not open its commitment"))
                elif inp.of(seat) != reveal.action:
                    why = f"seat {seat}'s recorded choice at step {step} is not the one it revealed"
                    raise _Invalid(Failure(index, step, seat, why))
            report.secrets_verified += 1
        hash_after[step] = digest


def _live_seats(
    record: LobbyRecord, messages: list[tuple[int, Signed]]
) -> list[tuple[int, frozenset[int]]]:
    """(step, live human seats from that step on), in step order, from logged facts alone,
    as the replay's snapshots have them: a drop at step k is a set X that every live seat
    outside X voted at k (each seat's latest VOTE there, at least half of them staying:
    the session's own ``StepBox.unanimous_silent``); a seat a contribution of step k admits
    is live again from k + 1.  An admission is taken on its carrier's word (whether it was
    admissible, its REJOIN's signature, and a carrier on an abandoned history are the
    replay's to judge): a void one asks one more seat to vote the next drop, and lets its
    seat's later links draw, which an honest log, whose peers carry only admissible
    requests, never has.  Drops for a proven equivocation (SPEC §5.7), which need no vote,
    are not followed (as before: a convicted seat's later link, if logged, is still
    counted)."""
    votes: dict[int, StepBox] = {}  # step -> its VOTEs (each seat's latest)
    admits: dict[int, set[int]] = {}  # step -> seats a contribution of that step admits
    for _index, msg in messages:
        if msg.type is MsgType.VOTE:
            votes.setdefault(msg.step, StepBox()).register_request(msg)
        elif msg.admission is not None:  # a MOVE, ENTROPY or COMMIT carrying one
            admits.setdefault(msg.step, set()).add(parse_unverified(msg.admission).seat)
    live = frozenset(i for i, s in enumerate(record.seats) if not s.is_bot)
    out = [(0, live)]
    for step in sorted(votes.keys() | admits.keys()):
        box = votes.get(step)
        silent = box.unanimous_silent(live) if box is not None else None
        if silent is not None:
            live = live - silent
            out.append((step, live))
        back = admits.get(step, set()) - live
        if back:
            live = live | back
            out.append((step + 1, live))
    return out


def _live_at(live: list[tuple[int, frozenset[int]]], step: int) -> frozenset[int]:
    """The live seats at ``step`` (after its drops): the last change at or before it."""
    return [seats for since, seats in live if since <= step][-1]
