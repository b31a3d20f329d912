"""See before you sit (issue #38 item 6): a table set up from a position says so in its
advert (digest, whose turn, the headline), `lantag list` shows it, the host's welcome
carries it so a joiner by HOST:PORT sees it before its join, and a start from another
position than the one shown is refused."""

from __future__ import annotations

import dataclasses

import pytest

from lanTag.identity import Identity
from lanTag.net.discovery import LobbyAdvert
from lanTag.net.lobby_adverts import BadTxt, format_lobbies, lobby_from_txt
from lanTag.peer.join_handshake import HostConfig, HostLobby, JoinLobby, Refused, Welcomed
from lanTag.views.brief import position_digest, position_line, position_note
from tests.peer.test_silent_start import _seat_2_to_move

HOST = ("10.0.0.1", 1)
JOINER = ("10.0.0.2", 2)


def test_the_advert_and_the_list_say_the_position_whose_turn_and_the_headline() -> None:
    position, _options = _seat_2_to_move()
    digest, note = position_digest(position)[:16], position_note("prototag", position)
    assert note.startswith("seat 2 to move; Prototag ") and len(note) <= 120
    advert = LobbyAdvert(
        name="Cafe", engine="prototag", fingerprint="1" * 16, port=4000, seats_taken=1,
        seats_total=3, position=digest, position_note=note,
    )  # fmt: skip
    txt = advert.txt()
    assert sum(len(k) + 1 + len(v.encode()) for k, v in txt.items()) < 400  # one small TXT
    info = lobby_from_txt("x", {k.encode(): v.encode() for k, v in txt.items()})
    assert (info.position, info.position_note) == (digest, note)
    shown = format_lobbies([info], json=False)
    assert f"from position {digest}: {note}" in shown
    assert position_line("prototag", position) == f"from position {digest}: {note}"
    with pytest.raises(BadTxt):
        lobby_from_txt("x", {**{k.encode(): v.encode() for k, v in txt.items()}, b"pos": b"zz"})
    plain = dataclasses.replace(advert, position="", position_note="")
    assert "pos" not in plain.txt() and "from position" not in format_lobbies(
        [lobby_from_txt("y", {k.encode(): v.encode() for k, v in plain.txt().items()})],
        json=False,
    )


def _welcomed(config: HostConfig) -> tuple[HostLobby, JoinLobby]:
    host = HostLobby(config, Identity(bytes([1]) * 32), bytes(32), "h", bytes)
    joiner = JoinLobby(HOST, Identity(bytes([2]) * 32), bytes(32), "ann")
    for _ in range(3):
        for _, payload in joiner.outbox:
            host.receive(payload, JOINER, 0.0)
        joiner.outbox.clear()
        for _, payload in host.outbox:
            joiner.receive(payload, HOST)
        host.outbox.clear()
    return host, joiner


def test_a_joiner_sees_the_position_in_the_welcome_before_it_joins() -> None:
    position, options = _seat_2_to_move()
    config = HostConfig("prototag", "g", 2, options=options, start_position=position)
    host, joiner = _welcomed(config)
    [welcome] = [e for e in joiner.events if isinstance(e, Welcomed)]
    assert welcome.start_position == position and joiner.your_seat == 1
    plain_host, plain = _welcomed(HostConfig("prototag", "g", 2))
    assert [e.start_position for e in plain.events if isinstance(e, Welcomed)] == [b""]
    for lobby, j in ((host, joiner), (plain_host, plain)):
        lobby.start(bytes(32))
        for _, payload in lobby.outbox:
            j.receive(payload, HOST)
        assert j.started is not None, [e for e in j.events if isinstance(e, Refused)]


def test_a_start_from_another_position_than_the_one_shown_is_refused() -> None:
    position, options = _seat_2_to_move()
    config = HostConfig("prototag", "g", 2, options=options, start_position=position)
    host, joiner = _welcomed(config)
    host.config = dataclasses.replace(host.config, start_position=b"")  # shown one, starts another
    host.start(bytes(32))
    for _, payload in host.outbox:
        joiner.receive(payload, HOST)
    assert joiner.started is None
    assert [e.reason for e in joiner.events if isinstance(e, Refused)] == [
        "the host started from another position than the one it showed"
    ]
