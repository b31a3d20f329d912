"""The replay's fairness details (lanTag.log.inspect) and its pure model (jumps, turns,
play ticks), on real logs of in-process games and on logs bent after the fact.

The details are compared with what the log holds, read independently here
(parse_unverified on every MSG entry), and with the fair/ primitives.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lanTag import wire
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.inspect import RollDetail, SecretDetail, describe, inspect_steps
from lanTag.log.verify import VerifyReport, verify_log
from lanTag.rules.base import Joint, Move, Roll
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, Signed, parse_unverified
from lanTag.ui.replay_model import SPEEDS, ReplayModel, headless_replay
from tests.cli.helpers import entries_of, rechain
from tests.peer.harness import Table, addr
from tests.support.adversary import Adversary, Cheat
from tests.support.table import Table as CheatTable


@dataclass(frozen=True)
class Game:
    data: bytes
    report: VerifyReport

    @property
    def record(self) -> LobbyRecord:
        return LobbyRecord.decode(parse_log(self.data).entries[0].data[1])

    def model(self, data: bytes | None = None) -> ReplayModel:
        """The model over ``data`` (default: this log) with this log's verified steps."""
        return ReplayModel(self.data if data is None else data, self.report)


def _play(table: Table, cut_at: int | None = None) -> Game:
    peers = table.peers
    table.net.run_until(table.seated, 60)
    peers[0].start_game(table.net.now)
    if cut_at is not None:
        # Seat 2 goes silent mid-game: the others drop it and a bot takes its seat.
        table.net.run_until(
            lambda: all(p.session is not None and p.session.step >= cut_at for p in peers), 600
        )
        table.net.cut([addr(2)], [addr(0), addr(1)])
    table.net.run_until(
        lambda: all(p.session is not None and p.session.state.is_over for p in peers[:2]), 36_000
    )
    data = bytes(table.logs[1])  # not the host's log: any seat's log works
    report = verify_log(data)
    assert report.valid and report.complete
    return Game(data, report)


def _with_battles(make: Callable[[int], Table], bots: bool = False) -> Game:
    """The first seeded game with two or more secret rounds (with a bot in one, if asked):
    whether the dice bring the tagged player onto another moves with every dice change."""
    for seed in range(1, 16):
        game = _play(make(seed))
        rounds = _secrets(game.model())
        if len(rounds) >= 2 and (not bots or any(d.bots for d in rounds)):
            return game
    raise AssertionError("no seed in 1-15 gave the secret rounds these tests need")


@pytest.fixture(scope="module")
def three() -> Game:
    """Three people: rolls with three links, secret rounds between two of them."""
    return _with_battles(lambda seed: Table("prototag", 3, seed=seed))


@pytest.fixture(scope="module")
def with_bot() -> Game:
    """Two people and a replicated bot that takes part in secret rounds."""
    return _with_battles(lambda seed: Table("prototag", 2, bots=("random",), seed=seed), True)


@pytest.fixture(scope="module")
def dropped() -> Game:
    """Three people, seat 2 silent from step 12 on (dropped, then played by a bot)."""
    return _play(Table("prototag", 3, seed=2), cut_at=12)


@pytest.fixture(scope="module")
def equivocated() -> tuple[Game, int]:
    """Four people; seat of peer 1 sends two different MOVEs for one step, so the others
    roll back, drop it at that step and decide the step again.  (game, cheater's seat)"""
    made: list[Adversary] = []

    def wrap(i: int, peer: Any) -> Any:
        if i != 1:
            return peer
        made.append(Adversary(peer, Cheat.EQUIVOCATE, at_step=3, seed=5))
        return made[0]

    table = CheatTable("prototag", 4, seed=5, wrap=wrap)
    table.start()
    table.run_to_end([0, 2, 3], max_time=4 * 3600)
    seat = table.seat_of(1)
    assert seat is not None
    data = bytes(table.logs[0])
    report = verify_log(data)
    assert report.valid and report.complete
    return Game(data, report), seat


def _messages(data: bytes, kind: MsgType) -> dict[tuple[int, int], list[Signed]]:
    """(step, seat) -> that seat's ``kind`` messages for that step, in log order."""
    out: dict[tuple[int, int], list[Signed]] = {}
    for entry in parse_log(data).entries:
        if entry.kind == EntryKind.MSG:
            msg = parse_unverified(entry.data)
            if msg.type == kind:
                out.setdefault((msg.step, msg.seat), []).append(msg)
    return out


def _rolls(model: ReplayModel) -> list[RollDetail]:
    return [d for d in model.details if isinstance(d, RollDetail)]


def _secrets(model: ReplayModel) -> list[SecretDetail]:
    return [d for d in model.details if isinstance(d, SecretDetail)]


# ------------------------------------------------------------------ honest logs


def test_every_roll_shows_each_seats_logged_link_and_rederives_the_value(three: Game) -> None:
    model = three.model()
    entropy = _messages(three.data, MsgType.ENTROPY)
    rolls = _rolls(model)
    assert len(rolls) == three.report.rolls_verified > 0
    for position, detail in enumerate(model.details):
        if isinstance(detail, RollDetail):
            applied = three.report.applied[position - 1]
            assert detail.step == applied.step and detail.recorded == applied.input
            assert [k.seat for k in detail.links] == [0, 1, 2]
            for k in detail.links:
                assert k.link == entropy[(detail.step, k.seat)][0].payload[0]
                assert k.chains and chain_step_ok(k.previous, k.link)
            assert detail.derived == detail.recorded and detail.ok
    assert model.details[0] is None  # the start position was made by nothing


def test_links_form_one_chain_per_seat_from_its_anchor(three: Game) -> None:
    """Across rolls and secret reveals, each link's predecessor is the seat's previous link
    and the first one's is the seat's anchor in the lobby record."""
    model = three.model()
    anchors = [s.anchor for s in three.record.seats]
    last: dict[int, tuple[bytes, int | None]] = {s: (anchors[s], None) for s in range(3)}
    seen = 0
    for detail in model.details:
        if isinstance(detail, RollDetail):
            links = list(detail.links)
        elif isinstance(detail, SecretDetail):
            links = [s.link for s in detail.seals if s.link is not None]
        else:
            continue
        for k in links:
            assert (k.previous, k.previous_step) == last[k.seat]
            last[k.seat] = (k.link, detail.step)
            seen += 1
    assert seen > 3 * len(_rolls(model))  # the secret reveals' links are in the chain too


def test_every_secret_round_shows_commitments_and_their_openings(three: Game) -> None:
    model = three.model()
    commits = _messages(three.data, MsgType.COMMIT)
    reveals = _messages(three.data, MsgType.REVEAL)
    secrets = _secrets(model)
    assert len(secrets) == three.report.secrets_verified > 0
    for detail in secrets:
        assert len(detail.seals) == 2 and not detail.bots
        for seal in detail.seals:
            reveal = reveals[(detail.step, seal.seat)][0]
            assert seal.commitment == commits[(detail.step, seal.seat)][0].payload[0]
            assert seal.nonce == reveal.payload[1] and seal.action == reveal.action
            assert seal.opens and seal.legal and seal.ok
            assert detail.recorded.of(seal.seat) == seal.action
        assert detail.derived == detail.recorded and detail.ok
        text = "\n".join(describe(detail))
        assert "✓ opens it" in text and "= the recorded choices" in text


def test_a_bots_secret_choice_is_derived_from_the_revealed_links(with_bot: Game) -> None:
    bot_rounds = [d for d in _secrets(with_bot.model()) if d.bots]
    assert bot_rounds
    for detail in bot_rounds:
        # the bot (seat 2) battles one of the two people: that person's choice is sealed,
        # the bot's is drawn
        assert detail.bots == (2,) and [s.seat for s in detail.seals] in ([0], [1])
        assert detail.derived == detail.recorded and detail.ok
        assert "bot seat(s) 2: drawn from the revealed links" in "\n".join(describe(detail))


def test_after_a_drop_rolls_use_the_remaining_seats(dropped: Game) -> None:
    # the silent seat's drop (`withheld` when it fell at a roll, protocol 6, SPEC §5.5)
    blames = dropped.report.blames
    drop = next(step for _seat, step, code, _ in blames if code in ("timeout", "withheld"))
    rolls = _rolls(dropped.model())
    assert any(d.step < drop for d in rolls) and any(d.step > drop for d in rolls)
    for detail in rolls:
        seats = [k.seat for k in detail.links]
        assert seats == ([0, 1, 2] if detail.step < drop else [0, 1])
        assert detail.ok
    assert all(d.ok for d in _secrets(dropped.model()))


def test_a_rolled_back_log_shows_the_history_that_stood(equivocated: tuple[Game, int]) -> None:
    """verify_log's applied steps hold the abandoned branch too; the model shows each step
    once, as decided last, and the cheater stops contributing from its equivocation on."""
    game, cheater = equivocated
    model = game.model()
    assert model.rollbacks and not model.stopped
    assert len(game.report.applied) > model.last  # some steps were decided twice
    assert [step for step, _, _ in model.positions] == list(range(model.last + 1))
    assert model.last == game.report.steps and model.positions[-1][2].is_over
    latest = {a.step: a.input for a in game.report.applied}  # the last decision of each
    for position, detail in enumerate(model.details[1:]):
        assert detail is None or detail.recorded == latest[position]
    rolls = _rolls(model)
    assert all(d.ok for d in rolls) and all(d.ok for d in _secrets(model))
    banned = model.rollbacks[0]
    assert any(cheater in [k.seat for k in d.links] for d in rolls if d.step < banned)
    assert all(cheater not in [k.seat for k in d.links] for d in rolls if d.step >= banned)
    blocks = list(headless_replay(game.data, game.report))
    assert len(blocks) == model.last + 1


def test_inspect_steps_directly_gives_none_for_moves(three: Game) -> None:
    model = three.model()
    steps = [
        (a, state.state_hash(), state)
        for a, (_, _, state) in zip(three.report.applied, model.positions, strict=False)
    ]
    details = inspect_steps(three.record, parse_log(three.data).entries, steps)
    assert details == model.details[1:]
    for (applied, _, _), detail in zip(steps, details, strict=True):
        assert (detail is None) == isinstance(applied.input, Move)


# ------------------------------------------------------------------ bent logs


def _rewrite(data: bytes, pick: Any, payload: Any) -> tuple[bytes, Signed]:
    """The log with the first message ``pick(msg)`` accepts given a new payload (its old
    signature kept: the details do not check signatures, verify_log does)."""
    entries = entries_of(data)
    for entry in entries:
        if entry[2] != EntryKind.MSG:
            continue
        msg = parse_unverified(entry[3])
        if pick(msg):
            fields = [1, int(msg.type), msg.game_id, msg.step, msg.seat, msg.state_hash]
            body = wire.pack([*fields, *payload(msg)])
            entry[3] = wire.pack([body, msg.signature])
            return rechain(entries), msg
    raise AssertionError("no such message")


def test_a_link_that_does_not_chain_is_shown_and_breaks_the_roll(three: Game) -> None:
    honest = _rolls(three.model())[1]
    bent, _msg = _rewrite(
        three.data,
        lambda m: m.type == MsgType.ENTROPY and m.step == honest.step and m.seat == 1,
        lambda m: [bytes(32)],
    )
    assert not verify_log(bent).valid  # the verifier refuses it (here: the signature)
    detail = next(d for d in _rolls(three.model(bent)) if d.step == honest.step)
    bad = next(k for k in detail.links if k.seat == 1)
    assert bad.link == bytes(32) and not bad.chains
    assert not detail.ok
    text = "\n".join(describe(detail))
    assert f"seat 1 link {'00' * 5} ✗ does not hash to its step-" in text
    assert "2 chaining link(s)" in text
    assert detail.seed != honest.seed  # the seed is over the two chaining links only


def test_a_reveal_that_does_not_open_its_commitment_is_flagged(three: Game) -> None:
    step = _secrets(three.model())[0].step
    bent, msg = _rewrite(
        three.data,
        lambda m: m.type == MsgType.REVEAL and m.step == step,
        lambda m: [m.payload[0], bytes(32), m.payload[2]],
    )
    detail = next(d for d in _secrets(three.model(bent)) if d.step == step)
    seal = next(s for s in detail.seals if s.seat == msg.seat)
    assert seal.nonce == bytes(32) and not seal.opens and not seal.ok
    assert not detail.ok
    assert "does NOT open it" in "\n".join(describe(detail))


def test_a_recorded_roll_that_the_links_do_not_give_is_flagged(three: Game) -> None:
    model = three.model()
    position = next(i for i, d in enumerate(model.details) if isinstance(d, RollDetail))
    applied = three.report.applied[position - 1]
    assert isinstance(applied.input, Roll)
    other = Roll(tuple(tuple(v % 6 + 1 for v in values) for values in applied.input.values))
    state = model.positions[position - 1][2]
    (detail,) = inspect_steps(
        three.record,
        parse_log(three.data).entries,
        [(dataclasses.replace(applied, input=other), state.state_hash(), state)],
    )
    assert isinstance(detail, RollDetail)
    assert detail.derived == applied.input != detail.recorded and not detail.ok
    assert "✗ ≠ the log's" in describe(detail)[-1]


def test_messages_of_another_history_are_not_taken(three: Game) -> None:
    """Only messages carrying the state hash before the step count (a rolled-back branch
    leaves others in the log); with a wrong hash the step shows no links at all."""
    model = three.model()
    position = next(i for i, d in enumerate(model.details) if isinstance(d, RollDetail))
    applied = three.report.applied[position - 1]
    state = model.positions[position - 1][2]
    (detail,) = inspect_steps(
        three.record,
        parse_log(three.data).entries,
        [(applied, bytes(32), state)],
    )
    assert isinstance(detail, RollDetail) and detail.links == ()


# ------------------------------------------------------------------ the model


def test_jump_to_a_step_and_to_a_turn(three: Game) -> None:
    model = three.model()
    assert model.jump("40") and model.positions[model.index][0] == 40
    assert model.jump(" 0 ") and model.index == 0
    assert model.jump("99999") and model.index == model.last  # past the end: the end
    assert len(model.turn_starts) > 5
    assert model.jump("t3") and model.index == model.turn_starts[2] and model.turn() == 3
    assert model.jump("T1") and model.index == model.turn_starts[0] and model.turn() == 1
    # A turn begins before its rolls; its first non-roll input is one seat's move or a round.
    for start in model.turn_starts:
        later = [a.input for a in three.report.applied[start:]]
        first = next(inp for inp in later if not isinstance(inp, Roll))
        assert isinstance(first, Move | Joint)
    at = model.index
    for bad in ("", "x", "t", "t0", f"t{len(model.turn_starts) + 1}", "-3", "4a"):
        assert not model.jump(bad) and model.message.startswith("jump:")
        assert model.index == at


def test_play_ticks_to_the_end_and_pauses(three: Game) -> None:
    model = three.model()
    assert not model.tick() and model.index == 0  # paused: a tick does nothing
    model.toggle_play()
    assert model.tick() and model.index == 1
    model.go_to(model.last - 2)
    assert model.tick() and not model.tick()  # the last tick reaches the end and pauses
    assert model.index == model.last and not model.playing
    model.toggle_play()  # playing a finished replay starts over
    assert model.playing and model.index == 0


def test_speed_steps_and_bounds(three: Game) -> None:
    model = three.model()
    start = model.steps_per_second
    model.faster()
    assert model.steps_per_second > start and model.interval == 1 / model.steps_per_second
    for _ in SPEEDS:
        model.faster()
    assert model.steps_per_second == max(SPEEDS)
    for _ in SPEEDS:
        model.slower()
    assert model.steps_per_second == min(SPEEDS)


def test_headless_replay_appends_the_details(three: Game) -> None:
    blocks = list(headless_replay(three.data, three.report))
    model = three.model()
    assert len(blocks) == len(model.positions)
    for block, detail in zip(blocks, model.details, strict=True):
        assert ("fairness:" in block) == (detail is not None)
        if detail is not None:
            assert block.rstrip("\n").endswith(describe(detail)[-1])


# ------------------------------------------------------------------ drops and hand-backs

ROOT = Path(__file__).resolve().parents[2]
MUST_PASS = sorted(
    [
        *(ROOT / "tests" / "corpus").glob("*/*.log"),
        *(ROOT / "protocol" / "vectors").glob("*.log"),
        *(ROOT / "protocol" / "vectors" / "must_fail").glob("*.lantag"),
    ]
)


def _crosses(data: bytes, report: VerifyReport) -> list[str]:
    """The fairness lines of the headless replay that carry a ✗."""
    text = "".join(headless_replay(data, report))
    return [line for line in text.splitlines() if "✗" in line]


def _every_detail_is_the_verifiers(data: bytes, report: VerifyReport) -> ReplayModel:
    """Every roll and secret round re-derived from the log is the one the verifier took."""
    model = ReplayModel(data, report)
    latest = {a.step: a.input for a in report.applied}
    details = [d for d in model.details if d is not None]
    assert len({d.step for d in details if isinstance(d, RollDetail)}) == len(
        {a.step for a in report.applied if isinstance(latest[a.step], Roll)}
    )
    for detail in details:
        assert detail.derived == detail.recorded == latest[detail.step], detail
    return model


@pytest.fixture
def toy_engine() -> Iterator[None]:
    """The session tests' toy engine (protocol/vectors/toy_game*.log are its games)."""
    from lanTag.rules.registry import register_engine, unregister_engine

    register_engine("toy", "tests.session.toygame", "Toy")
    yield
    unregister_engine("toy")


@pytest.mark.parametrize("path", MUST_PASS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_valid_corpus_and_must_pass_log_replays_without_a_cross(
    path: Path, toy_engine: None
) -> None:
    data = path.read_bytes()
    report = verify_log(data)
    if not (report.valid and report.replayed):
        pytest.skip("not a valid log this lanTag replays (a must-fail one, or other rules)")
    _every_detail_is_the_verifiers(data, report)
    if all(code == "timeout" for _seat, _step, code, _why in report.blames):
        assert _crosses(data, report) == []  # nobody cheated: every check is a ✓


@pytest.fixture(scope="module")
def toy_hand_backs() -> Iterator[list[tuple[str, bytes]]]:
    """Every peer's log of two toy games (a roll, a secret guess by every seat and a turn
    each, per round) in which seat 2 was dropped and given back: once killed and resumed,
    once after a signed LEAVE (Ctrl-Q then `join --resume`)."""
    from lanTag.rules.registry import register_engine, unregister_engine
    from tests.session.harness import SimNet, make_record, make_sessions

    register_engine("toy", "tests.session.toygame", "Toy")
    logs: list[tuple[str, bytes]] = []
    for how in ("killed", "left"):
        record, ids, secrets = make_record("toy", 3, options=(("rounds", 5),), seed=f"rb/{how}")
        sessions = make_sessions(record, ids, secrets)
        net = SimNet(sessions, seed=5)
        net.run_until(lambda: sessions[2].step >= 4)  # noqa: B023
        if how == "left":
            sessions[2].leave(net.now)
            net.flush()
        net.silent.add(2)
        net.run_until(lambda: all(2 not in s.live for s in sessions[:2]))  # noqa: B023
        net.run_until(lambda: sessions[0].step >= 12)  # noqa: B023  (rounds without it)
        net.silent.discard(2)
        sessions[2].rejoin.ask_back(net.now)
        net.run()
        assert net.all_over() and all(2 in s.live for s in sessions)
        logs += [(f"{how}/seat {i}", s.take_log()) for i, s in enumerate(sessions)]
    yield logs
    unregister_engine("toy")


def test_a_log_with_drops_and_hand_backs_replays_every_roll_and_round_as_verified(
    toy_hand_backs: list[tuple[str, bytes]],
) -> None:
    # Issue "[comeback]" item 7: the replay re-derived rolls and secret rounds as if a seat
    # given back were still dropped (its link missing from the roll, its choice a bot's):
    # ✗ on logs `lantag verify` calls VALID.  It now takes whose input counted from the
    # verifier's own decisions, so every check of these logs is a ✓.
    for name, data in toy_hand_backs:
        report = verify_log(data)
        assert report.valid and report.complete, (name, report.failure)
        notes = [e.data for e in parse_log(data).entries if e.kind == EntryKind.NOTE]
        assert ["back", [2], "admitted"] in notes, name
        model = _every_detail_is_the_verifiers(data, report)
        assert _crosses(data, report) == [], name
        back = next(step for step, data_ in _back_steps(data))
        rolls, rounds = _rolls(model), _secrets(model)
        for detail in rolls:
            seats = [k.seat for k in detail.links]
            assert seats == [0, 1, 2] or (seats == [0, 1] and detail.step < back), (name, detail)
        assert any(d.step >= back and [k.seat for k in d.links] == [0, 1, 2] for d in rolls)
        # secret rounds without seat 2 (a bot drew its guess), then with its own sealed guess
        assert any(d.step < back and d.bots == (2,) for d in rounds), name
        assert any(d.step >= back and [s.seat for s in d.seals] == [0, 1, 2] for d in rounds)


def _back_steps(data: bytes) -> list[tuple[int, object]]:
    return [
        (e.step, e.data)
        for e in parse_log(data).entries
        if e.kind == EntryKind.NOTE and e.data[0] == "back"
    ]
