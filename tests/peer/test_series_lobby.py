"""The next game's lobby (lanTag.peer.series): what the host says, what a joiner takes."""

from __future__ import annotations

from typing import Any

import pytest

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import Identity
from lanTag.peer.join_handshake import TAG, VERSION, HostConfig, HostLobby, JoinLobby, Refused
from lanTag.peer.series import done_message, next_message, parse_series_message
from lanTag.peer.series_events import NextGame, SeriesDone

HOST = ("10.0.0.1", 1)
JOINER = ("10.0.0.2", 2)
HOST_ID = Identity(bytes([1]) * 32)
FIRST = bytes([9]) * 32  # the game just played


def _host(**config: Any) -> HostLobby:
    return HostLobby(
        HostConfig("prototag", "night", 2, **config), HOST_ID, bytes([2]) * 32, "host", bytes
    )


def _joiner(**kwargs: Any) -> JoinLobby:
    return JoinLobby(HOST, Identity(bytes([3]) * 32), bytes([4]) * 32, "ann", **kwargs)


def _exchange(host: HostLobby, joiner: JoinLobby) -> None:
    for _ in range(4):
        for _to, payload in joiner.outbox:
            host.receive(payload, JOINER)
        joiner.outbox.clear()
        for _to, payload in host.outbox:
            joiner.receive(payload, HOST)
        host.outbox.clear()


def test_a_joiner_takes_the_next_game_only_if_it_follows_ours() -> None:
    host, joiner = _host(previous_game=FIRST), _joiner(follows=FIRST, host_key=HOST_ID.public_key)
    _exchange(host, joiner)
    started = host.start(bytes(32))
    _exchange(host, joiner)
    assert joiner.started is not None and joiner.started.record == started.record
    assert started.record.previous_game == FIRST

    other_host = _host(previous_game=bytes([7]) * 32)
    late = _joiner(follows=FIRST, host_key=HOST_ID.public_key)
    _exchange(other_host, late)
    other_host.start(bytes(32))
    _exchange(other_host, late)
    assert late.started is None
    assert Refused("the host's next game does not follow the game we played") in late.events


def test_another_host_key_is_refused_before_a_seat() -> None:
    joiner = _joiner(follows=FIRST, host_key=bytes([5]) * 32)
    host = _host(previous_game=FIRST)
    _exchange(host, joiner)
    assert Refused("another host answered for the next game") in joiner.events
    assert host.taken == 1  # never seated


def test_open_seats_are_filled_by_bots_when_the_host_says_so() -> None:
    host = _host(fill_empty="random")
    record = host.start(bytes(32)).record
    assert [s.bot for s in record.seats] == ["", "random"]
    assert [s.bot for s in _host().start(bytes(32)).record.seats] == [""]


def test_a_joiner_saying_leave_is_remembered() -> None:
    host = _host()
    host.receive(wire.pack([TAG, VERSION, "leave"]), JOINER)
    assert host.left == {JOINER}


def test_series_messages_round_trip_and_others_are_not_theirs() -> None:
    assert parse_series_message(next_message(FIRST, "prototag", "night")) == NextGame(
        FIRST, "prototag", "night"
    )
    assert parse_series_message(done_message(FIRST)) == SeriesDone(FIRST)
    assert parse_series_message(wire.pack([TAG, VERSION, "leave"])) is None
    assert parse_series_message(b"\x93\x01\x02\x03") is None
    for bad in (
        [TAG, VERSION, "next", b"short", "prototag", "x"],
        [TAG, VERSION, "next", FIRST, "", "x"],
        [TAG, VERSION, "done", FIRST, "extra"],
    ):
        with pytest.raises(RemoteProtocolError):
            parse_series_message(wire.pack(bad))


def test_a_newcomer_takes_the_seat_a_leaver_left_in_the_next_game() -> None:
    # Whole peers on the simulated network: after game 1 the joiner is gone; the host's
    # next lobby is open to anyone again (the game had closed its links to the roster),
    # so a newcomer at another address joins and plays game 2 in that seat.
    import dataclasses
    import random

    from lanTag.fair.hash_chain import HashChain
    from lanTag.net.link import LinkLayer
    from lanTag.peer import series
    from lanTag.peer.machine import BotDriver, PeerMachine
    from tests.support.table import CHAIN, Table, addr, identity_for

    table = Table("prototag", 2, seed=21, options=(("board_size", 5), ("end_steps", 2)))
    table.start()
    table.run_to_end()
    host = table.peers[0]
    first = host.session
    assert first is not None
    table.kill(1)  # the joiner left the night
    config = dataclasses.replace(
        host.lobby.config,  # type: ignore[union-attr]
        previous_game=first.game_id,
        fill_empty="random",
    )
    second_log = bytearray()
    lobby = series.host_next_game(
        host, config, "host", bytes([8]) * 32, random.Random(1).randbytes, second_log.extend,
        table.net.now,
    )  # fmt: skip
    newcomer_id = identity_for("newcomer", 0)
    secret = bytes([6]) * 32
    newcomer = PeerMachine(
        LinkLayer(77),
        JoinLobby(addr(0), newcomer_id, HashChain(secret, CHAIN).anchor, "nat"),
        newcomer_id,
        secret,
        random.Random(2).randbytes,
        driver=BotDriver("random"),
    )
    table.net.add(addr(5), newcomer)
    table.net.run_until(lambda: lobby.taken == 2, table.net.now + 60)
    host.start_game(table.net.now)
    table.net.run_until(
        lambda: newcomer.session is not None and newcomer.session.state.is_over,
        table.net.now + 3600,
    )
    record = newcomer.session.record  # type: ignore[union-attr]
    assert record.previous_game == first.game_id
    assert [s.nickname for s in record.seats] == ["host", "nat"]
    assert [s.bot for s in record.seats] == ["", ""]  # the newcomer's seat, not a bot's
