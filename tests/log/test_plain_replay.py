"""The plain replay (lanTag.log.plain_replay) reports exactly what the full replay does.

verify_log takes the plain lane when a log holds nothing unusual and the Session machine
otherwise.  Each test runs both on the same bytes, the full one by turning the plain lane
off, and compares the whole report (every field of ``to_json`` and every applied step):
on real games of the five engines with bot seats, repeats and reordering; on games with
a dropped seat (votes: the plain lane must step aside); and on hundreds of re-chained
tamperings of those logs, where only the replay can notice.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import Any

import pytest

from lanTag.log.entries import EntryKind
from lanTag.log.plain_replay import PlainReplay
from lanTag.log.report import VerifyReport
from lanTag.log.verify import verify_log
from tests.log.honest_log import chained, items_of, messages_of
from tests.session.harness import SimNet, make_record, make_sessions

GAMES: dict[str, tuple[int, int, tuple[tuple[str, int | bool | str], ...]]] = {
    "prototag": (3, 1, ()),
    "assassination": (3, 1, ()),
    "boardtag": (2, 1, ()),
    "stomptag": (3, 1, (("max_rounds", 3),)),
    "tagem": (2, 1, (("max_turns", 2),)),
}


def play(engine: str, *, silent: int | None = None, seed: int = 3) -> list[bytes]:
    humans, bots, options = GAMES[engine]
    seed_text = f"plain/{engine}"
    record, ids, secrets = make_record(engine, humans, bots, options=options, seed=seed_text)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=seed, jitter=0.02, dup=0.05)
    if silent is not None:
        net.silent.add(silent)
    net.run()
    return [s.take_log() for i, s in enumerate(sessions) if i != silent]


@pytest.fixture(scope="module")
def logs() -> dict[str, list[bytes]]:
    return {engine: play(engine) for engine in GAMES}


def both(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[VerifyReport, VerifyReport, bool]:
    """(verify_log's report, the full replay's report, whether the plain lane answered)."""
    answered: list[bool] = []
    plain = PlainReplay.report

    def spy(self: PlainReplay, *args: Any) -> bool:
        answered.append(plain(self, *args))
        return answered[-1]

    with monkeypatch.context() as m:
        m.setattr(PlainReplay, "report", spy)
        fast = verify_log(data)
    with monkeypatch.context() as m:
        m.setattr(PlainReplay, "report", lambda *args: False)
        full = verify_log(data)
    return fast, full, answered == [True]


def assert_same(fast: VerifyReport, full: VerifyReport, what: str) -> None:
    assert fast.to_json() == full.to_json(), what
    assert fast.applied == full.applied, what


@pytest.mark.parametrize("engine", sorted(GAMES))
def test_every_peer_log_of_a_game_takes_the_plain_lane_with_the_same_report(
    engine: str, logs: dict[str, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    for data in logs[engine]:
        fast, full, plain = both(data, monkeypatch)
        assert plain, f"{engine}: a clean game is plain"
        assert fast.valid and fast.complete and fast.steps > 0, fast.failure
        assert fast.signatures_verified > 0
        assert_same(fast, full, engine)


def test_a_dropped_seat_is_left_to_the_full_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    for data in play("prototag", silent=2, seed=4):
        fast, full, plain = both(data, monkeypatch)
        assert not plain, "votes and a drop are not plain"
        # The silent seat's drop: `withheld` when it fell at a roll (protocol 6, SPEC §5.5).
        codes = {code for _seat, _step, code, _why in full.blames}
        assert codes & {"timeout", "withheld"}, codes
        assert_same(fast, full, "drop")


def flip_in(raw: bytes, rng: random.Random) -> bytes:
    out = bytearray(raw)
    out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


Items = list[tuple[int, EntryKind, Any]]


def _drop(items: Items, rng: random.Random) -> Items:
    del items[rng.randrange(1, len(items))]
    return items


def _repeat(items: Items, rng: random.Random) -> Items:
    items.insert(rng.randrange(1, len(items)), items[rng.randrange(1, len(items))])
    return items


def _swap(items: Items, rng: random.Random) -> Items:
    i = rng.randrange(1, len(items) - 1)
    items[i], items[i + 1] = items[i + 1], items[i]
    return items


def _flip_message(items: Items, rng: random.Random) -> Items:
    msgs = [i for i, (_s, kind, _d) in enumerate(items) if kind == EntryKind.MSG]
    i = rng.choice(msgs)
    step, kind, raw = items[i]
    items[i] = (step, kind, flip_in(raw, rng))
    return items


def _other_step_hash(items: Items, rng: random.Random) -> Items:
    steps = [i for i, (_s, kind, _d) in enumerate(items) if kind == EntryKind.STEP]
    i = rng.choice(steps)
    step, kind, (inp, digest, *facts) = items[i]
    items[i] = (step, kind, [inp, flip_in(digest, rng), *facts])
    return items


def _truncate(items: Items, rng: random.Random) -> Items:
    return items[: rng.randrange(2, len(items))]


def _note(items: Items, rng: random.Random) -> Items:
    items.insert(rng.randrange(1, len(items)), (0, EntryKind.NOTE, ["chat", [], "hi"]))
    return items


TAMPERS: dict[str, Callable[[Items, random.Random], Items]] = {
    "drop an entry": _drop,
    "repeat an entry": _repeat,
    "swap two entries": _swap,
    "flip a message bit": _flip_message,
    "another state hash": _other_step_hash,
    "truncate": _truncate,
    "insert a note": _note,
}


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
def test_tampered_logs_get_the_same_report(
    tamper: str, logs: dict[str, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"plain/{tamper}")
    outcomes: set[bool] = set()
    for engine in sorted(GAMES):
        base = items_of(logs[engine][0])
        for _ in range(8):
            forged = chained(TAMPERS[tamper](list(base), rng))
            fast, full, _plain = both(forged, monkeypatch)
            assert_same(fast, full, f"{engine}: {tamper}")
            outcomes.add(full.valid)
    if tamper in ("flip a message bit", "another state hash"):
        assert outcomes == {False}, "every such tampering is caught"


def test_an_earlier_smaller_have_logged_after_its_grown_version_is_plain_and_no_proof(
    logs: dict[str, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A HAVE only grows, but its versions travel by different relays: from protocol 4 a
    smaller one arriving after the one that holds it is a repeat in both lanes, never an
    equivocation (SPEC §3)."""
    from lanTag.session.messages import MsgType, parse_unverified, sign_message

    _record, ids, _secrets = make_record("prototag", 3, 1, seed="plain/prototag")
    items = items_of(logs["prototag"][1])
    k = next(
        i
        for i, (_s, kind, data) in enumerate(items)
        if kind == EntryKind.MSG and parse_unverified(data).type is MsgType.HAVE
    )
    have = parse_unverified(items[k][2])
    grown = sign_message(
        ids[have.seat].signer(),
        MsgType.HAVE,
        have.game_id,
        have.step,
        have.seat,
        have.state_hash,
        (have.payload[0], [*have.payload[1], bytes(32)]),
    )
    items.insert(k, (items[k][0], EntryKind.MSG, grown.raw))  # the grown one logged first
    fast, full, plain = both(chained(items), monkeypatch)
    assert plain, "the smaller HAVE after its grown version is a repeat, not a proof"
    assert fast.valid and fast.complete, fast.failure
    assert not [b for b in full.blames if b[2] == "equivocation"], full.blames
    assert_same(fast, full, "stale HAVE")


def _bystander_haves_dropped(data: bytes) -> list[bytes]:
    """The log re-chained without, in turn, every HAVE (each version, each copy) a seat
    outside a secret round signed for one seat of the round at its step."""
    from lanTag.session.messages import MsgType

    items = items_of(data)
    messages = messages_of(items)
    rounds: dict[int, set[int]] = {}  # step -> the seats that committed at it
    for _k, m in messages:
        if m.type is MsgType.COMMIT:
            rounds.setdefault(m.step, set()).add(m.seat)
    drops: dict[tuple[int, int, int], set[int]] = {}  # (step, voter, subject) -> entries
    for k, m in messages:
        seats = rounds.get(m.step, set())
        if m.type is MsgType.HAVE and m.payload[0] in seats and m.seat not in seats:
            drops.setdefault((m.step, m.seat, m.payload[0]), set()).add(k)
    return [
        chained([it for i, it in enumerate(items) if i not in entries])
        for entries in drops.values()
    ]


def old_protocol_game(protocol: int) -> bytes:
    """Seat 0's log of the prototag game of ``play`` (3 humans, a bot), played at an older
    protocol: its secret rounds ask some of the humans, the others are bystanders."""
    humans, bots, options = GAMES["prototag"]
    seed = "plain/prototag"
    record, ids, secrets = make_record("prototag", humans, bots, options=options, seed=seed)
    sessions = make_sessions(dataclasses.replace(record, protocol=protocol), ids, secrets)
    SimNet(sessions, seed=3, jitter=0.02, dup=0.05).run()
    return sessions[0].take_log()


def test_before_protocol_3_a_secret_round_needs_no_bystander_acknowledgement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Protocol 2 applied a secret round once its seats had revealed, whatever the seats
    # outside it had acknowledged: a bystander's HAVE dropped changes nothing, in either
    # lane, and the plain lane still answers (the rule of SPEC §4.4 begins at protocol 3).
    forged = _bystander_haves_dropped(old_protocol_game(2))[:4]
    assert forged, "the game has a secret round with a bystander"
    for data in forged:
        fast, full, plain = both(data, monkeypatch)
        assert plain, "a protocol-2 round needs no bystander's HAVE"
        assert fast.valid and fast.complete, fast.failure
        assert_same(fast, full, "protocol 2, a bystander's HAVE dropped")


def test_from_protocol_3_a_secret_round_a_bystander_did_not_acknowledge_is_not_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Protocol 3: a live seat outside a secret round acknowledges each of its commitments
    # before the round is applied (SPEC §4.4).  Without a bystander's HAVE neither lane
    # applies it: the plain lane steps aside and the full replay refuses the log.
    forged = _bystander_haves_dropped(old_protocol_game(3))[:4]
    assert forged, "the game has a secret round with a bystander"
    refused = 0
    for data in forged:
        fast, full, plain = both(data, monkeypatch)
        assert_same(fast, full, "protocol 3, a bystander's HAVE dropped")
        if full.failure is not None:  # else that seat was not needed (the writer, or gone)
            assert "do not decide it" in full.failure.reason, full.failure
            assert not plain, "the plain lane steps aside"
            refused += 1
    assert refused, "some bystander's acknowledgement is needed"


@pytest.mark.parametrize("protocol", [2, 3])
def test_an_older_protocol_game_takes_the_plain_lane_with_the_same_report(
    protocol: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Protocol 3 has seals (the plain lane keeps them for lanTag.log.seals), 2 has none.
    data = old_protocol_game(protocol)
    fast, full, plain = both(data, monkeypatch)
    assert plain, f"a clean protocol-{protocol} game is plain"
    assert fast.valid and fast.complete, fast.failure
    assert bool(fast.sealed_by) is (protocol == 3), fast.sealed_by
    assert_same(fast, full, f"protocol {protocol}")


def test_a_seal_logged_twice_is_one_signature_in_both_lanes(
    logs: dict[str, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lanTag.session.messages import MsgType

    items = items_of(logs["prototag"][0])
    seals = [items[k] for k, m in messages_of(items) if m.type is MsgType.SEAL]
    assert seals, "the game is sealed"
    fast, full, plain = both(chained(items + seals), monkeypatch)
    honest = verify_log(logs["prototag"][0])
    assert plain and fast.valid, fast.failure
    assert fast.signatures_verified == honest.signatures_verified
    assert_same(fast, full, "every SEAL repeated")


def test_a_log_of_its_header_alone_has_no_step_in_either_lane(
    logs: dict[str, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, full, plain = both(chained(items_of(logs["prototag"][0])[:1]), monkeypatch)
    assert plain and fast.steps == 0, fast.steps
    assert_same(fast, full, "the header alone")
