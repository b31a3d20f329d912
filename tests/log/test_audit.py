"""The check without a replay (lanTag.log.audit, exit 3): what it refuses and reports in
logs that the must-fail vectors do not reach (SPEC §9).  Every log here is the must-fail
vectors' honest game (or a corpus game) with entries changed and re-chained, checked as a
lanTag that lacks the game's rules version checks it.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from lanTag.cli.log_commands import verify_exit_code
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.recorded import draw_of
from lanTag.log.report import VerifyReport
from lanTag.log.verify import verify_log
from lanTag.rules.base import Die, Joint, Move, Pick, Roll, Shuffle, decode_input
from lanTag.rules.registry import get_game
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, Signed, parse_unverified, sign_message
from tests.log.honest_log import (
    HONEST,
    ROOT,
    Item,
    chained,
    first_msg,
    items_of,
    messages_of,
    signer_of,
)


def audit(data: bytes, monkeypatch: pytest.MonkeyPatch) -> VerifyReport:
    """verify_log as a lanTag without the log's rules version runs it."""
    engine = LobbyRecord.decode(parse_log(data).entries[0].data[1]).engine
    monkeypatch.setattr(get_game(engine), "rules_version", 1000, raising=False)
    report = verify_log(data)
    assert report.replayed is False
    return report


def first(items: list[Item], pred: Callable[[int, EntryKind, Any], bool]) -> int:
    return next(k for k, (step, kind, data) in enumerate(items) if pred(step, kind, data))


def step_of_input(items: list[Item], form: type) -> int:
    """The first STEP entry whose input is a ``form`` (Move, Roll, Joint), past step 0."""
    return first(
        items,
        lambda step, kind, data: (
            kind == EntryKind.STEP and step > 0 and type(decode_input(data[0])) is form
        ),
    )


# -- draw kinds, as a roll's STEP entry records them (SPEC §9) ---------------------------


def test_each_draw_kind_is_read_with_its_counts() -> None:
    assert draw_of([0, [1, 2, 3], 2]) == Die((1, 2, 3), 2)
    assert draw_of([1, 52, 5]) == Pick(52, 5)
    assert draw_of([2, 2**16]) == Shuffle(2**16)  # the largest count


@pytest.mark.parametrize(
    "obj",
    [
        5,  # not a list
        [],
        [0, 5, 1],  # faces not a list
        [0, [], 1],  # no faces
        [0, ["a"], 1],  # a face that is not an int
        [0, [6], 0],  # count 0
        [1, [6], 1],  # a pick of a list
        [1, 0, 2],  # a pick from nothing
        [1, 5, 0],
        [2, 3, 4],  # a shuffle with a count
        [2, 5, 1],
        [2, True],  # a count that is a bool
        [2, 2**16 + 1],  # past the largest count
        [3, 1],  # no such kind
    ],
    ids=repr,
)
def test_anything_else_is_not_a_draw_kind(obj: object) -> None:
    with pytest.raises(ValueError, match=r"^not a draw kind: "):
        draw_of(obj)


# -- STEP entries ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("form", "facts", "why"),
    [
        (Move, ["a purpose"], "a move's record is [input, state hash]"),
        (Roll, ["a purpose"], "a roll's record is [input, hash, purpose, draws]"),
        (Roll, [7, None], "a roll's record is [input, hash, purpose, draws]"),
        (Joint, [], "a secret round's record is [input, hash, purpose]"),
        (Joint, [7], "a secret round's record is [input, hash, purpose]"),
    ],
    ids=["move+purpose", "roll-draws", "roll-purpose-not-text", "joint-bare", "joint-purpose-7"],
)
def test_a_step_record_of_the_wrong_shape_is_malformed(
    form: type, facts: list[Any], why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = items_of(HONEST)
    k = step_of_input(items, form)
    step, kind, data = items[k]
    if form is Roll and facts[1:] == [None]:
        facts = [facts[0], data[3]]  # the right draws, a purpose that is not a text
    items[k] = (step, kind, [data[0], data[1], *facts])
    report = audit(chained(items[: k + 1]), monkeypatch)
    assert report.failure is not None
    assert (report.failure.entry, report.failure.step) == (k, step)
    assert report.failure.reason == f"malformed step record: {why}"


def test_a_step_record_with_a_short_state_hash_is_malformed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    items = items_of(HONEST)
    k = step_of_input(items, Move)
    step, kind, data = items[k]
    items[k] = (step, kind, [data[0], data[1][:31], *data[2:]])
    report = audit(chained(items[: k + 1]), monkeypatch)
    assert report.failure is not None and report.failure.entry == k
    assert report.failure.reason == "malformed step record: bad state hash"


def test_the_first_entry_after_the_header_is_checked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    items = items_of(HONEST)
    k = step_of_input(items, Move)
    step, kind, data = items[k]
    report = audit(chained([items[0], (step, kind, [data[0]])]), monkeypatch)
    assert report.failure is not None and report.failure.entry == 1


def test_a_log_of_its_header_alone_is_authentic_with_no_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = audit(chained(items_of(HONEST)[:1]), monkeypatch)
    assert verify_exit_code(report) == 3
    assert (report.steps, report.signatures_verified, report.rolls_verified) == (0, 0, 0)


def test_a_protocol_1_log_says_what_it_leaves_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (ROOT / "tests" / "corpus" / "protocol1" / "prototag.log").read_bytes()
    report = audit(data, monkeypatch)
    assert verify_exit_code(report) == 3
    assert report.unchecked == (
        "draws and commitment openings: a protocol-1 log does not record their "
        "purposes, so they need the rules"
    )
    # and its STEP entries are [input, state hash], nothing more
    items = items_of(data)
    k = first(items, lambda _s, kind, _d: kind == EntryKind.STEP)
    step, kind, entry = items[k]
    items[k] = (step, kind, [*entry, "a purpose"])
    report = audit(chained(items[: k + 1]), monkeypatch)
    assert report.failure is not None and report.failure.entry == k
    assert report.failure.reason == (
        "malformed step record: a protocol-1 step record is [input, state hash]"
    )


# -- messages and chain links ---------------------------------------------------------------


@pytest.mark.parametrize(
    "kind", [MsgType.ENTROPY, MsgType.HAVE, MsgType.COMMIT], ids=lambda k: k.name
)
def test_a_message_stored_twice_is_one_signature_and_one_link(
    kind: MsgType, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = items_of(HONEST)
    k = first_msg(items, lambda m: m.type == kind)
    repeated = [*items[: k + 1], items[k], *items[k + 1 :]]
    honest = audit(HONEST, monkeypatch)
    report = audit(chained(repeated), monkeypatch)
    assert verify_exit_code(report) == 3 and report.blames == honest.blames == []
    assert report.signatures_verified == honest.signatures_verified
    assert report.rolls_verified == honest.rolls_verified > 0


def with_and_without_rules(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[VerifyReport, VerifyReport]:
    """The full replay's report, then the check without the rules (SPEC §9.2)."""
    full = verify_log(data)
    return full, audit(data, monkeypatch)


def blames_of(report: VerifyReport) -> list[tuple[int, int, str]]:
    return [(seat, step, code) for seat, step, code, _r in report.blames]


def test_a_reveal_without_its_commitment_decides_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A REVEAL is taken only once every COMMIT of the round is in: without its COMMIT the
    # round is never decided, with or without the rules, and its STEP entry is refuted.
    items = items_of(HONEST)
    c = first_msg(items, lambda m: m.type == MsgType.COMMIT)
    commit = parse_unverified(items[c][2])
    s = first(items, lambda step, kind, _d: kind == EntryKind.STEP and step == commit.step)
    full, report = with_and_without_rules(chained([*items[:c], *items[c + 1 :]]), monkeypatch)
    assert report.failure is not None and report.failure == full.failure
    assert report.failure.entry == s - 1  # (one entry fewer before it)
    assert "do not decide" in report.failure.reason


@pytest.mark.parametrize("seat", [0, 1], ids=["the-writer", "another-seat"])
def test_a_link_from_another_history_is_judged_alike_in_both_lanes(
    seat: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before a seat's ENTROPY of a roll (past step 0), another ENTROPY of that seat for the
    # same step, validly signed but from another history (another state hash) and with a
    # link off its chain: it draws nothing.  The writer's own is a message of a history it
    # left (a rollback it knows of): no blame, the log valid.  Another seat's, with its
    # true one, is a proof of two state hashes for one step (SPEC §5.2): its input is then
    # taken only with another seat's HAVE, which no ENTROPY has, so the roll is not
    # decided.  Both lanes say the same, at the same entry.
    items = items_of(HONEST)
    s = step_of_input(items, Roll)
    roll_step = items[s][0]
    k = first_msg(
        items, lambda m: m.type == MsgType.ENTROPY and m.step == roll_step and m.seat == seat
    )
    m = parse_unverified(items[k][2])
    other = sign_message(
        signer_of(m.seat),
        m.type,
        m.game_id,
        m.step,
        m.seat,
        hashlib.sha256(b"another history").digest(),
        (hashlib.sha256(b"a link off the chain").digest(),),
        version=m.version,
    ).raw
    forged = chained([*items[:k], (m.step, EntryKind.MSG, other), *items[k:]])
    full, report = with_and_without_rules(forged, monkeypatch)
    assert report.failure == full.failure
    assert blames_of(report) == blames_of(full)
    if seat == 0:
        assert report.failure is None and report.blames == []
        assert report.rolls_verified == full.rolls_verified > 0
        return
    assert report.failure is not None and report.failure.entry == s + 1  # the roll's STEP
    assert blames_of(report) == [(m.seat, m.step, "desync")] * 2


def test_a_link_that_is_the_seats_anchor_is_a_bad_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    # A seat's first ENTROPY carrying its anchor (the chain's start, not a link of it): the
    # replay blames it (bad-chain); so does the check without the rules, and the roll it
    # was meant for is then not what its links draw.
    items = items_of(HONEST)
    k = first_msg(items, lambda m: m.type == MsgType.ENTROPY and m.seat == 1)
    m = parse_unverified(items[k][2])
    record = LobbyRecord.decode(items[0][2][1])
    anchored = sign_message(
        signer_of(m.seat),
        m.type,
        m.game_id,
        m.step,
        m.seat,
        m.state_hash,
        (record.seats[m.seat].anchor,),
        version=m.version,
    ).raw
    s = first(items, lambda step, kind, _d: kind == EntryKind.STEP and step == m.step)
    report = audit(
        chained([*items[:k], (m.step, EntryKind.MSG, anchored), *items[k + 1 : s + 1]]), monkeypatch
    )
    assert [(seat, step, code) for seat, step, code, _r in report.blames] == [
        (m.seat, m.step, "bad-chain")
    ]


def test_two_links_of_one_seat_at_one_step_are_an_equivocation_in_both_lanes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A seat's ENTROPY for a roll followed, at the same step, by a second one carrying its
    # NEXT link (one that follows the first on its chain): two messages in one slot, an
    # equivocation (SPEC §5.7).  The seat is dropped at that step, its link draws nothing,
    # and the roll recorded with it is refuted with the rules and without them alike.
    items = items_of(HONEST)
    links: dict[int, list[tuple[int, Signed, bytes]]] = {}  # seat -> (entry, message, link)
    for k, m in messages_of(items):
        at = {MsgType.ENTROPY: 0, MsgType.REVEAL: 2}.get(m.type)
        if at is not None and m.payload[at] not in [x[2] for x in links.get(m.seat, [])]:
            links.setdefault(m.seat, []).append((k, m, m.payload[at]))
    k, m, nxt = next(
        (k, m, b)
        for chain in links.values()
        for (k, m, _a), (_k, _m, b) in itertools.pairwise(chain)
        if m.type == MsgType.ENTROPY and m.step > 0
    )
    early = sign_message(
        signer_of(m.seat),
        m.type,
        m.game_id,
        m.step,
        m.seat,
        m.state_hash,
        (nxt,),
        version=m.version,
    ).raw
    forged = chained([*items[: k + 1], (m.step, EntryKind.MSG, early), *items[k + 1 :]])
    full, report = with_and_without_rules(forged, monkeypatch)
    assert report.failure is not None and report.failure == full.failure
    assert (m.seat, m.step, "equivocation") in blames_of(report)
    assert blames_of(report) == blames_of(full)


def test_a_step_recorded_again_with_nothing_deciding_it_is_refuted_in_both_lanes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An earlier step's record logged again at the end, with no rollback to decide it
    # again: nothing decides it, with the rules or without them (the check without the
    # rules once took the highest step's latest record as the final state and let it pass).
    items = items_of(HONEST)
    last_step = max(k for k, (_s, kind, _d) in enumerate(items) if kind == EntryKind.STEP)
    earlier = items[step_of_input(items, Move)]
    assert earlier[0] < items[last_step][0]
    items.insert(last_step + 1, earlier)
    full, report = with_and_without_rules(chained(items), monkeypatch)
    assert report.failure is not None and report.failure == full.failure
    assert report.failure.entry == last_step + 1
    assert report.failure.reason == (
        f"step {earlier[0]} is recorded but its messages do not decide it"
    )


def test_a_broken_entry_after_the_last_good_one_fails_the_log_without_the_rules_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An entry out of order after the last good one makes the log invalid in the exit-3
    # lane as in the replay: the failure is at that entry, and says why.
    from lanTag.log.entries import LogChain

    entries = len(items_of(HONEST))
    stray = LogChain().append(0, EntryKind.NOTE, ["chat", [], "hi"])  # index 0 again
    report = audit(HONEST + stray, monkeypatch)
    assert report.failure is not None and report.failure.entry == entries, report.failure
    assert report.failure.reason == f"entry {entries}: index 0 out of order"


def test_a_protocol_1_message_dated_at_another_step_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # SPEC §9: a MSG entry's step is its message's, in every protocol and lane.
    data = (ROOT / "tests" / "corpus" / "protocol1" / "prototag.log").read_bytes()
    items = items_of(data)
    k = first(items, lambda _s, kind, _d: kind == EntryKind.MSG)
    step, kind, raw = items[k]
    items[k] = (step + 1, kind, raw)
    report = audit(chained(items), monkeypatch)
    assert report.failure is not None and report.failure.entry == k
    assert report.failure.reason == f"an entry of step {step + 1} holds a message of step {step}"
