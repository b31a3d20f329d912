"""The lobby record names the previous game (protocol 3): a series is a hash-linked chain."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.errors import RemoteProtocolError
from lanTag.session import lobby_record
from lanTag.session.lobby_record import SERIES_PROTOCOL, LobbyRecord
from tests.session.harness import make_record


@pytest.fixture
def knows_protocol_3(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decode protocol-3 records even on a tree where the bump has not landed yet."""
    known = tuple(sorted({*lobby_record.KNOWN_PROTOCOLS, SERIES_PROTOCOL}))
    monkeypatch.setattr(lobby_record, "KNOWN_PROTOCOLS", known)


def _series_record(previous: bytes) -> LobbyRecord:
    record, _ids, _secrets = make_record("prototag", 2)
    return dataclasses.replace(record, protocol=SERIES_PROTOCOL, previous_game=previous)


def test_previous_game_round_trips_and_binds_the_game_id(knows_protocol_3: None) -> None:
    first = _series_record(b"")
    second = _series_record(first.game_id)
    assert LobbyRecord.decode(second.encode()) == second
    assert LobbyRecord.decode(first.encode()).previous_game == b""
    assert second.to_obj()[-1] == first.game_id
    # The same table, another predecessor: another game id.
    assert _series_record(bytes(32)).game_id != second.game_id


def test_a_protocol_3_record_has_eleven_fields(knows_protocol_3: None) -> None:
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
        dataclasses.replace(record, protocol=SERIES_PROTOCOL, previous_game=b"x")
    # A protocol-2 record keeps its 10 fields.
    assert len(dataclasses.replace(record, protocol=2).to_obj()) == 10
