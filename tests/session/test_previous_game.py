"""The lobby record names the previous game (protocol 3): a series is a hash-linked chain."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.errors import RemoteProtocolError
from lanTag.session.features import FIRST_PROTOCOL
from lanTag.session.lobby_record import LobbyRecord, seat_names
from tests.session.harness import make_record


def _series_record(previous: bytes) -> LobbyRecord:
    record, _ids, _secrets = make_record("prototag", 2)
    return dataclasses.replace(record, protocol=FIRST_PROTOCOL["series"], previous_game=previous)


def test_previous_game_round_trips_and_binds_the_game_id() -> None:
    first = _series_record(b"")
    second = _series_record(first.game_id)
    assert LobbyRecord.decode(second.encode()) == second
    assert LobbyRecord.decode(first.encode()).previous_game == b""
    assert second.to_obj()[-1] == first.game_id
    # The same table, another predecessor: another game id.
    assert _series_record(bytes(32)).game_id != second.game_id


def test_a_protocol_3_record_has_eleven_fields() -> None:
    obj = _series_record(b"").to_obj()
    from lanTag import wire

    with pytest.raises(RemoteProtocolError, match="11 fields"):
        LobbyRecord.decode(wire.pack(obj[:-1]))
    obj[-1] = b"short"
    with pytest.raises(RemoteProtocolError, match="previous game"):
        LobbyRecord.decode(wire.pack(obj))


def test_older_records_cannot_name_a_previous_game() -> None:
    record, _ids, _secrets = make_record("prototag", 2)
    with pytest.raises(ValueError, match="previous game"):
        dataclasses.replace(record, protocol=2, previous_game=bytes(32))
    with pytest.raises(ValueError, match="previous game"):
        dataclasses.replace(record, protocol=FIRST_PROTOCOL["series"], previous_game=b"x")
    # A protocol-2 record keeps its 10 fields.
    assert len(dataclasses.replace(record, protocol=2).to_obj()) == 10


def test_two_seats_of_one_nickname_are_told_apart() -> None:
    record, _ids, _secrets = make_record("prototag", 3, 1)
    seats = record.seats
    assert seat_names(seats) == ("p0", "p1", "p2", "bot0")
    twins = (
        dataclasses.replace(seats[0], nickname="max"),
        dataclasses.replace(seats[1], nickname="max"),
        seats[2],
        dataclasses.replace(seats[3], nickname="max"),
    )
    shown = seat_names(twins)
    assert shown == (
        f"max ({seats[0].fingerprint[:4]})",
        f"max ({seats[1].fingerprint[:4]})",
        "p2",
        "max (bot)",
    )
    assert len(set(shown)) == 4
