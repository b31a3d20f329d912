"""The check of a log without its rules (lanTag.log.without_rules, SPEC §9.2): the replay
with the rules as the log records them (lanTag.log.recorded).  Each piece of that engine is
what some log needs: without it an honest log is refused, or a forged one passes.  And on the
honest logs of real games with a cheater (every honest peer's log), it answers what the full
replay answers: valid, the same blames, the same counts."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import pytest

from lanTag.log import recorded, without_rules
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.recorded import RecordedRules, StepBook
from lanTag.log.report import VerifyReport
from lanTag.log.verify import verify_log
from lanTag.peer.machine import PeerMachine
from lanTag.rules.base import Action, Roll, canonical_pack, decode_input
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, parse_unverified
from tests.log.honest_log import INDEX, MUST_FAIL, chained, items_of
from tests.support.adversary import Adversary, Cheat
from tests.support.no_engines import no_engines
from tests.support.table import Table

FAULTS = "loss=0.1,dup=0.05,reorder=0.1,delay=5ms,jitter=5ms"


def vector(name: str) -> bytes:
    return (MUST_FAIL / f"{name}.log").read_bytes()


def without(data: bytes) -> VerifyReport:
    with no_engines():
        report = verify_log(data)
    assert report.replayed is False
    return report


def blames_of(report: VerifyReport) -> list[tuple[int, int, str]]:
    return sorted((seat, step, code) for seat, step, code, _r in report.blames)


# -- step 0's state hash -------------------------------------------------------------------


def test_step_zero_tries_each_state_hash_its_messages_carry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The writer's own step-0 ENTROPY of another history is the log's first message of
    # step 0: taking its state hash for step 0 refuses every other seat's contribution.
    data = vector("step_zero_first_hash_not_the_state")
    assert without(data).valid
    real = without_rules.step_zero_hashes

    def first_only(*args: Any) -> list[bytes]:
        return real(*args)[:1]

    monkeypatch.setattr(without_rules, "step_zero_hashes", first_only)
    refused = without(data)
    assert refused.failure is not None and "do not decide" in refused.failure.reason


def test_step_zero_hashes_are_the_step_zero_claims_in_log_order() -> None:
    data = vector("step_zero_first_hash_not_the_state")
    rows = [(e.index, e.step, e.prev_hash, e.kind, e.data, e.raw) for e in parse_log(data).entries]
    record = LobbyRecord.decode(rows[0][4][1])
    checked = [
        (parse_unverified(e.data), True) if e.kind == EntryKind.MSG else None
        for e in parse_log(data).entries
    ]
    hashes = without_rules.step_zero_hashes(rows, record, checked)
    step0 = [m.state_hash for got in checked if got is not None and (m := got[0]).step == 0]
    assert hashes == list(dict.fromkeys(step0)) and len(hashes) == 2
    # with a start position: its hash only (SPEC §2: the state hash of its bytes)
    positioned = dataclasses.replace(record, start_position=b"some state bytes")
    assert without_rules.step_zero_hashes(rows, positioned, checked) == [
        hashlib.sha256(b"some state bytes").digest()
    ]


# -- a state decided again after a rollback ----------------------------------------------------


def test_the_nth_decision_of_a_state_takes_its_nth_record(monkeypatch: pytest.MonkeyPatch) -> None:
    # After the rollback the cheater's seat is played by the bot: its recorded move there is
    # the second record of that state, the person's move the first.
    data = vector("link_reused_after_a_rollback")
    assert without(data).valid
    monkeypatch.setattr(RecordedRules, "decided", lambda self, step, digest: None)
    refused = without(data)  # every decision of a state as its first record says
    assert refused.failure is not None
    assert refused.failure.reason.startswith("recorded input for step")


def _redecided(items: list[tuple[int, EntryKind, Any]]) -> tuple[int, int]:
    """A STEP entry recording, after the rollback, another input of a state an earlier
    entry recorded, and that earlier entry's index."""
    seen: dict[tuple[int, bytes | None], int] = {}
    after: dict[int, bytes] = {}
    for k, (step, kind, data) in enumerate(items):
        if kind != EntryKind.STEP:
            continue
        key = (step, after.get(step - 1))
        if key in seen and canonical_pack(items[seen[key]][2][0]) != canonical_pack(data[0]):
            return k, seen[key]
        seen.setdefault(key, k)
        after[step] = data[1]
    raise LookupError("no state is decided twice")


def test_one_input_of_one_state_has_one_state_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The writer claims the bot played, after the rollback, the very move the cheater's
    # person played before it, with the state the bot's move gave: the rules are
    # deterministic, so one of the two records lies (the engine knows which).
    items = items_of(vector("link_reused_after_a_rollback"))
    k, earlier = _redecided(items)
    step, kind, data = items[k]
    items[k] = (step, kind, [items[earlier][2][0], *data[1:]])
    forged = chained(items)
    refused = without(forged)
    assert refused.failure is not None and refused.failure.entry == k
    assert refused.failure.reason == (
        f"one input at step {step} is recorded with two states after it "
        f"(entries {earlier} and {k})"
    )
    full = verify_log(forged)
    assert full.failure is not None and full.failure.entry == k
    monkeypatch.setattr(StepBook, "_add", _add_without_conflicts)
    assert without(forged).valid  # nothing else refutes it without the rules


def _add_without_conflicts(self: StepBook, key: Any, entry: recorded.Recorded) -> None:
    self.at.setdefault(key, []).append(entry)


# -- what the recorded engine cannot know -----------------------------------------------------


def test_a_message_at_a_state_the_log_records_nothing_of_is_not_blamed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The log cut after a MOVE whose step it does not record: the full replay waits for the
    # writer's acknowledgement; without the rules that state's decision is unknown, and the
    # MOVE is no more out of turn there than with the rules.
    items = items_of((MUST_FAIL / INDEX["honest"]["file"]).read_bytes())
    k = next(
        k
        for k, (_s, kind, data) in enumerate(items)
        if kind == EntryKind.MSG and parse_unverified(data).type == MsgType.MOVE and k > 20
    )
    cut = chained(items[: k + 1])
    full, report = verify_log(cut), without(cut)
    assert full.valid and report.valid
    assert blames_of(report) == blames_of(full) == []
    monkeypatch.setattr(without_rules, "_forget_blames_of_unknown_states", lambda *a: None)
    assert [code for _s, _k, code in blames_of(without(cut))] == ["out-of-turn"]


def test_a_reveal_whose_seat_forfeits_is_taken_as_illegal(monkeypatch: pytest.MonkeyPatch) -> None:
    data = vector("reveal_opens_to_an_illegal_action")
    report = without(data)
    assert report.valid
    assert [code for _s, _k, code in blames_of(report)] == ["illegal-action"]
    monkeypatch.setattr(recorded, "FORFEIT", Action("no-forfeit"))
    refused = without(data)  # the REVEAL taken as legal: its action, not the forfeit
    assert refused.failure is not None
    assert refused.failure.reason.startswith("recorded input for step")


def test_a_move_the_log_does_not_record_is_taken_as_illegal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ILLEGAL_MOVE: the cheater's MOVE is refused, the turn times out and a bot plays it.
    logs = cheating_game(Cheat.ILLEGAL_MOVE)
    for data in logs:
        full, report = verify_log(data), without(data)
        assert report.valid, report.failure
        assert blames_of(report) == blames_of(full)
        assert "illegal-action" in [code for _s, _k, code in blames_of(report)]
    monkeypatch.setattr(recorded.RecordedState, "check_action", lambda self, seat, action: None)
    assert all(not without(data).valid for data in logs)  # the MOVE taken: not what is recorded


# -- honest logs of games with a cheater: both lanes agree -------------------------------------


def cheating_game(
    cheat: Cheat, engine: str = "toy", humans: int = 4, at_step: int = 2, seed: int = 5
) -> list[bytes]:
    """Every honest peer's log of a game whose peer 1 cheats (tests.support.adversary)."""
    made: list[Adversary] = []

    def wrap(i: int, peer: PeerMachine) -> PeerMachine | Adversary:
        if i != 1:
            return peer
        made.append(Adversary(peer, cheat, at_step=at_step, seed=seed))
        return made[0]

    table = Table(engine, humans, faults=FAULTS, seed=seed, wrap=wrap)
    table.start()
    honest = [i for i in range(humans) if i != 1]
    table.run_to_end(honest, max_time=4 * 3600)
    assert made[0].done, f"the {cheat.value} cheat never found its moment"
    return [bytes(table.logs[i]) for i in honest]


GAMES: list[tuple[Cheat, dict[str, Any]]] = [
    (Cheat.BAD_REVEAL, {"engine": "stomptag"}),
    (Cheat.PEEK_REVEAL, {}),
    (Cheat.WITHHOLD_REVEAL, {}),
    (Cheat.EQUIVOCATE, {"engine": "prototag", "at_step": 3, "seed": 5}),
    (Cheat.EQUIVOCATE, {"at_step": 3, "seed": 10}),
    (Cheat.OUT_OF_TURN, {}),
    (Cheat.TWO_COMMITS, {"engine": "stomptag"}),
    (Cheat.TWO_COMMITS, {}),
    (Cheat.FALSE_HASH, {}),
    (Cheat.REQUEST_FLOOD, {}),
]


@pytest.mark.parametrize(
    ("cheat", "kw"), GAMES, ids=[f"{c.value}-{kw.get('engine', 'toy')}" for c, kw in GAMES]
)
def test_every_honest_log_of_a_cheating_game_is_answered_as_the_full_replay_answers(
    cheat: Cheat, kw: dict[str, Any]
) -> None:
    for data in cheating_game(cheat, **kw):
        full, report = verify_log(data), without(data)
        assert full.valid and full.complete, full.failure
        assert report.valid, report.failure
        assert blames_of(report) == blames_of(full)
        assert (report.steps, report.signatures_verified) == (full.steps, full.signatures_verified)
        assert (report.rolls_verified, report.secrets_verified) == (
            full.rolls_verified,
            full.secrets_verified,
        )
        assert report.sealed_by == full.sealed_by
        assert not report.complete and report.outcome == ""  # the end needs the rules


def test_two_commitments_explain_the_forfeit_without_a_guess(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # TWO_COMMITS: the round is split, the cheater forfeits (equivocation).  Its REVEAL,
    # taken as illegal without the rules, is not reported as such: the proof explains it.
    logs = cheating_game(Cheat.TWO_COMMITS, engine="stomptag")
    monkeypatch.setattr(without_rules, "_explained_forfeits", lambda report: None)
    guessed = [without(data) for data in logs]
    assert any("illegal-action" in [c for _s, _k, c in blames_of(r)] for r in guessed)


def test_a_roll_of_a_dropped_seat_and_its_hand_back_are_followed() -> None:
    data = vector("link_reused_after_a_hand_back")
    full, report = verify_log(data), without(data)
    assert report.valid and full.valid
    assert blames_of(report) == blames_of(full)
    rolls = [
        e
        for e in parse_log(data).entries
        if e.kind == EntryKind.STEP and isinstance(decode_input(e.data[0]), Roll)
    ]
    assert report.rolls_verified == full.rolls_verified == len(rolls)


def test_a_log_cut_before_a_state_decided_again_is_recorded_verifies_as_far_as_it_goes() -> None:
    # The rollback vector cut right after the proof of the equivocation: the replay
    # decides the cheater's turn again (a bot's move now) with no STEP entry recording
    # it; whatever choice it takes there, nothing compares it, and the log is valid so far.
    data = vector("link_reused_after_a_rollback")
    items = items_of(data)
    k = next(
        k for k, (_s, kind, d) in enumerate(items) if kind == EntryKind.NOTE and d[0] == "rollback"
    )
    cut = chained(items[:k])
    full, report = verify_log(cut), without(cut)
    assert full.valid and report.valid, (full.failure, report.failure)
    assert blames_of(report) == blames_of(full)
    assert report.steps == full.steps
    # the cheater's turn decided again, unrecorded: what follows it needs the rules
    recorded = sum(kind == EntryKind.STEP for _s, kind, _d in items[:k])
    assert len(full.applied) > len(report.applied) > recorded


@pytest.mark.parametrize(("engine", "seats", "steps"), [("prototag", 3, 25), ("tagem", 2, 15)])
def test_a_game_from_a_position_starts_from_the_hash_of_its_bytes(
    engine: str, seats: int, steps: int
) -> None:
    # SPEC §5.1, §9.2: step 0's state hash is H(start_position); without the rules no
    # other candidate is tried.
    from tests.session.test_start_position import _mid_game

    start = _mid_game(engine, seats, 1, steps)
    options = tuple(sorted(start.game.position(start)["options"].items()))
    table = Table(
        engine, seats, seed=5, options=options, bot="heuristic", start_position=start.encode()
    )
    table.start()
    table.run_to_end()
    for i in range(seats):
        data = bytes(table.logs[i])
        rows = [
            (e.index, e.step, e.prev_hash, e.kind, e.data, e.raw) for e in parse_log(data).entries
        ]
        record = LobbyRecord.decode(rows[0][4][1])
        assert without_rules.step_zero_hashes(rows, record, [None] * len(rows)) == [
            hashlib.sha256(start.encode()).digest()
        ]
        full, report = verify_log(data), without(data)
        assert full.valid and full.complete and report.valid, report.failure
        assert blames_of(report) == blames_of(full)
        assert (report.steps, report.rolls_verified) == (full.steps, full.rolls_verified)
        assert report.start_position == full.start_position != ""


def handback_logs(seed: int) -> list[bytes]:
    """Every peer's log of a Prototag game whose peer 2 is killed at step 4, dropped by the
    others, resumed from its log and given back (scripts/must_fail_handback.py's game)."""
    table = Table("prototag", 3, bots=("random",), seed=seed)
    table.start()
    victim = table.peers[2].session
    assert victim is not None
    table.net.run_until(lambda: victim.step >= 4, table.net.now + 3600)
    table.kill(2)
    table.dropped_everywhere_but(2)
    table.resume(2)
    table.run_to_end()
    return [bytes(table.logs[i]) for i in range(3)]


def test_the_writers_own_move_never_decided_is_no_illegal_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Seed 20: the killed seat had signed its MOVE of step 5, which nobody acknowledged
    # before they dropped it; a bot played that turn.  Its own log, resumed, holds both: the
    # MOVE is no move the log records there, yet no illegal one (its session checked it).
    logs = handback_logs(20)
    own = logs[2]
    full, report = verify_log(own), without(own)
    assert full.valid and report.valid, report.failure
    assert blames_of(report) == blames_of(full)
    assert "illegal-action" not in [code for _s, _k, code in blames_of(report)]
    monkeypatch.setattr(RecordedRules, "__init__", _rules_without_a_writer)
    assert "illegal-action" in [code for _s, _k, code in blames_of(without(own))]


def _rules_without_a_writer(self: RecordedRules, book: StepBook, writer: int | None) -> None:
    self.book, self.writer, self._decided = book, None, {}


def test_the_summary_says_the_log_was_replayed_as_it_records_its_rules(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lanTag.cli.entry import main as lantag_main

    with no_engines():
        assert lantag_main(["verify", str(MUST_FAIL / INDEX["honest"]["file"])]) == 3
    said = " ".join(capsys.readouterr().out.split())
    assert "184 steps recorded; replayed as the log records them: every check that needs no" in said
    assert "AUTHENTIC, NOT REPLAYED: a full replay needs prototag rules" in said
