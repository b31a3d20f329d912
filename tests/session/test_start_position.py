"""A game set up from a position (#26 item 3, protocol 4): the lobby record holds the
start position's canonical state bytes, so the game id binds it, joiners learn it from
the host's START, and ``verify`` / ``replay`` / ``lantag position`` start from it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random

import pytest

from lanTag import wire
from lanTag.cli.position_command import states_of_log
from lanTag.errors import RemoteProtocolError
from lanTag.log.entries import EntryKind, LogChain, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import Over, PositionError, State
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game
from lanTag.session.features import FIRST_PROTOCOL
from lanTag.session.lobby_record import LobbyRecord, start_state
from tests.session.harness import make_record
from tests.support.table import Table


def _mid_game(engine: str, seats: int, seed: int, steps: int) -> State:
    """A position ``steps`` random inputs into a game (stopping before its end)."""
    game = get_game(engine)
    rng = random.Random(f"start-position-{engine}-{seed}")
    state = game.new_state(seats)
    for _ in range(steps):
        after = state.apply(random_input(state, rng.randrange))
        if isinstance(after.decision(), Over):
            break
        state = after
    return state


def _record(state: State, seats: int = 3) -> LobbyRecord:
    record, _ids, _secrets = make_record(state.game.id, seats)
    options = tuple(sorted(state.game.position(state)["options"].items()))
    return dataclasses.replace(
        record,
        protocol=FIRST_PROTOCOL["start_position"],
        options=options,
        start_position=state.encode(),
    )


def test_the_start_position_round_trips_and_binds_the_game_id() -> None:
    state = _mid_game("prototag", 3, 0, 12)
    record = _record(state)
    assert LobbyRecord.decode(record.encode()) == record
    assert record.to_obj()[-1] == state.encode()
    assert start_state(record).encode() == state.encode()
    other = dataclasses.replace(record, start_position=_mid_game("prototag", 3, 0, 13).encode())
    assert other.game_id != record.game_id
    plain = dataclasses.replace(record, start_position=b"")
    assert start_state(plain).encode() == get_game("prototag").new_state(3).encode()


def test_a_start_position_is_a_twelfth_field_present_only_when_there_is_one() -> None:
    obj = _record(_mid_game("prototag", 3, 0, 5)).to_obj()
    assert len(obj) == 12
    with pytest.raises(RemoteProtocolError, match="11 fields \\(12 with a start position\\)"):
        LobbyRecord.decode(wire.pack(obj[:-2]))
    for bad in ("not bytes", b""):  # an empty one is left out, never written
        with pytest.raises(RemoteProtocolError, match="bad start position"):
            LobbyRecord.decode(wire.pack([*obj[:-1], bad]))
    # A game from the engine's start keeps the protocol-4 record (and game id) it had.
    record, _ids, _secrets = make_record("prototag", 3)
    plain = dataclasses.replace(record, protocol=FIRST_PROTOCOL["start_position"])
    assert len(plain.to_obj()) == 11 and LobbyRecord.decode(plain.encode()) == plain
    with pytest.raises(ValueError, match="protocol-4 record or later"):
        dataclasses.replace(record, protocol=3, start_position=b"x")
    with pytest.raises(RemoteProtocolError, match="a protocol-3 record has 11 fields"):
        LobbyRecord.decode(wire.pack([3, *obj[1:]]))


def _refused(record: LobbyRecord) -> str:
    with pytest.raises(PositionError) as caught:
        start_state(record)
    return str(caught.value)


def test_a_start_position_that_does_not_fit_the_table_is_refused() -> None:
    state = _mid_game("prototag", 3, 0, 12)
    record = _record(state)
    assert "4 seats" not in _refused(dataclasses.replace(record, seats=(*record.seats,) * 2))
    assert "3 seats, the table has 6" in _refused(
        dataclasses.replace(record, seats=(*record.seats,) * 2)
    )
    assert "options are not the game's" in _refused(
        dataclasses.replace(record, options=(("end_steps", 3),))
    )
    assert "no map of its own" in _refused(dataclasses.replace(record, map_text="x"))
    assert _refused(dataclasses.replace(record, start_position=b"\x93junk")).startswith(
        "start position: "
    )
    tagem = get_game("tagem").new_state(3).encode()
    assert "not a prototag state" in _refused(dataclasses.replace(record, start_position=tagem))


def test_a_start_position_where_the_game_is_over_is_refused() -> None:
    game = get_game("prototag")
    rng = random.Random(3)
    state = game.new_state(3)
    while not state.is_over:
        state = state.apply(random_input(state, rng.randrange))
    assert "the game is over there" in _refused(_record(state))


def test_a_position_the_rules_refuse_is_refused_with_the_rules_words() -> None:
    start = get_game("prototag").new_state(3)
    tiles = (start.positions[0], *start.positions)[:3]  # type: ignore[attr-defined]
    bad = dataclasses.replace(start, positions=tiles)
    message = _refused(_record(bad))
    assert message.startswith("start position: ") and "share a tile" in message


# Each engine's game, set up from a position some way in: (engine, seats, steps in).
TABLES = [
    ("prototag", 3, 25),
    ("assassination", 3, 20),
    ("boardtag", 2, 30),
    ("stomptag", 3, 4),
    ("tagem", 2, 15),
]


@pytest.mark.parametrize(("engine", "seats", "steps"), TABLES)
def test_a_table_plays_from_a_position_to_the_end_and_every_log_verifies(
    engine: str, seats: int, steps: int
) -> None:
    start = _mid_game(engine, seats, 1, steps)
    assert not start.is_over and start.encode() != get_game(engine).new_state(seats).encode()
    options = tuple(sorted(start.game.position(start)["options"].items()))
    table = Table(
        engine, seats, seed=5, options=options, bot="heuristic", start_position=start.encode()
    )
    table.start()
    table.run_to_end()
    digest = hashlib.sha256(start.encode()).hexdigest()
    for i in range(seats):  # the joiners learned the position from the host's START
        report = table.report(i)
        assert report.valid and report.complete, (i, report.failure)
        assert report.start_position == digest
        log = bytes(table.logs[i])
        assert states_of_log(log, f"peer {i}")[0].encode() == start.encode()


def _edited_header(log: bytes, start_position: bytes) -> bytes:
    """The log with its record's start position replaced, every entry chained again."""
    entries = parse_log(log).entries
    magic, record_bytes, writer = entries[0].data
    record = dataclasses.replace(LobbyRecord.decode(record_bytes), start_position=start_position)
    chain = LogChain()
    out = chain.append(0, EntryKind.HEADER, [magic, record.encode(), writer])
    for entry in entries[1:]:
        out += chain.append(entry.step, entry.kind, entry.data)
    return out


def test_a_log_whose_start_position_was_edited_fails_verification() -> None:
    start = _mid_game("prototag", 3, 2, 20)
    options = tuple(sorted(start.game.position(start)["options"].items()))
    table = Table("prototag", 3, seed=9, options=options, start_position=start.encode())
    table.start()
    table.run_to_end()
    log = bytes(table.logs[0])
    assert verify_log(log).valid
    # Another legal position: the game id changes, so no signed message is of this game.
    other = _mid_game("prototag", 3, 2, 21).encode()
    report = verify_log(_edited_header(log, other))
    assert not report.valid and report.failure is not None
    assert report.failure.entry > 0
    # No position at all (the engine's own start): the same.
    assert not verify_log(_edited_header(log, b"")).valid
