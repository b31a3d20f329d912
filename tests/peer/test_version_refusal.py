"""A joiner whose protocol or rules version differs is refused before it takes a seat,
with a message naming both versions on its side and who and why on the host's."""

from __future__ import annotations

from typing import Any

import pytest

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.identity import Identity
from lanTag.peer.join_handshake import (
    HostConfig,
    HostLobby,
    JoinerRefused,
    JoinLobby,
    Refused,
    RosterChanged,
    Welcomed,
)
from lanTag.rules.registry import get_game
from lanTag.session.messages import PROTOCOL_VERSION

HOST = ("10.0.0.1", 1)
JOINER = ("10.0.0.2", 2)


def _host() -> HostLobby:
    config = HostConfig("prototag", "game", 2)
    return HostLobby(config, Identity(bytes([1]) * 32), bytes([2]) * 32, "host", bytes)


def _joiner() -> JoinLobby:
    return JoinLobby(HOST, Identity(bytes([3]) * 32), bytes([4]) * 32, "ann")


def _deliver(src: Any, dst: Any, from_addr: tuple[str, int]) -> None:
    for _to, payload in src.outbox:
        dst.receive(payload, from_addr)
    src.outbox.clear()


def _hello_with(
    joiner: JoinLobby, *, protocol: int | None = None, rules: int | None = None
) -> bytes:
    ((_to, payload),) = joiner.outbox
    obj = wire.unpack(payload)
    if protocol is not None:
        obj[5] = protocol
    if rules is not None:
        obj[6] = [[e, rules if e == "prototag" else v] for e, v in obj[6]]
    return wire.pack(obj)


def test_same_versions_take_a_seat() -> None:
    host, joiner = _host(), _joiner()
    _deliver(joiner, host, JOINER)
    _deliver(host, joiner, HOST)
    _deliver(joiner, host, JOINER)
    _deliver(host, joiner, HOST)
    assert any(isinstance(e, Welcomed) for e in joiner.events)
    assert joiner.your_seat == 1
    assert not any(isinstance(e, JoinerRefused) for e in host.events)


@pytest.mark.parametrize("rules_delta", [-1, 1])
def test_other_rules_are_refused_before_the_welcome(rules_delta: int) -> None:
    host, joiner = _host(), _joiner()
    mine = get_game("prototag").rules_version
    theirs = mine + rules_delta
    host.receive(_hello_with(joiner, rules=theirs), JOINER)
    joiner.outbox.clear()
    _deliver(host, joiner, HOST)
    (refused,) = [e for e in joiner.events if isinstance(e, Refused)]
    assert f"Prototag rules {mine}, you have {theirs}" in refused.reason
    assert ("upgrade lanTag" in refused.reason) is True
    (told,) = [e for e in host.events if isinstance(e, JoinerRefused)]
    assert told.reason == (
        f"refused ann: they have Prototag rules {theirs}, this game plays rules {mine}"
    )
    assert not any(isinstance(e, Welcomed | RosterChanged) for e in joiner.events)
    assert host.taken == 1 and joiner.your_seat is None
    assert not host.outbox


@pytest.mark.parametrize("theirs", [PROTOCOL_VERSION - 1, PROTOCOL_VERSION + 1])
def test_another_protocol_is_refused_naming_both(theirs: int) -> None:
    """A joiner of the release before this one and a newer one alike."""
    host, joiner = _host(), _joiner()
    host.receive(_hello_with(joiner, protocol=theirs), JOINER)
    _deliver(host, joiner, HOST)
    (refused,) = [e for e in joiner.events if isinstance(e, Refused)]
    assert refused.reason.startswith(
        f"the host runs lanTag protocol {PROTOCOL_VERSION}, you have {theirs}"
    )
    (told,) = [e for e in host.events if isinstance(e, JoinerRefused)]
    assert told.reason == (
        f"refused ann: they run lanTag protocol {theirs}, this game protocol {PROTOCOL_VERSION}"
    )
    assert host.taken == 1 and joiner.your_seat is None


@pytest.mark.parametrize("older", [2, 3, 4])
def test_a_host_of_an_older_protocol_is_refused_by_the_joiner(older: int) -> None:
    """The other way round: the welcome of a host of a previous protocol (the same lobby
    envelope, its protocol field 2, 3 or 4) is refused by the joiner, naming both versions."""
    joiner = _joiner()
    rules = get_game("prototag").rules_version
    fields = [bytes(32), bytes(32), "prototag", "g", 2, False, 1, older, rules, "9.9"]
    welcome = wire.pack(["lt-lobby", 2, "welcome", *fields])
    joiner.outbox.clear()
    joiner.receive(welcome, HOST)
    (refused,) = [e for e in joiner.events if isinstance(e, Refused)]
    assert refused.reason.startswith(
        f"the host runs lanTag protocol {older}, you have {PROTOCOL_VERSION}"
    )
    assert not joiner.outbox  # no join sent


def test_a_protocol_1_joiner_gets_a_refusal_it_can_read() -> None:
    host = _host()
    host.receive(wire.pack(["lt-lobby", 1, "hello", "old", False]), JOINER)
    ((_to, payload),) = host.outbox
    assert wire.unpack(payload) == [
        "lt-lobby",
        1,
        "refuse",
        f"the host runs lanTag protocol {PROTOCOL_VERSION}, you have 1: upgrade lanTag",
    ]
    assert [e.reason for e in host.events if isinstance(e, JoinerRefused)] == [
        f"refused old: they run lanTag protocol 1, this game protocol {PROTOCOL_VERSION}"
    ]


def test_a_welcome_of_other_rules_is_refused_by_the_joiner_too() -> None:
    """Defence in depth: a host that does not check (an older or a modified one)."""
    joiner = _joiner()
    mine = get_game("prototag").rules_version
    welcome = wire.pack(
        [
            "lt-lobby",
            2,
            "welcome",
            bytes(32),
            bytes(32),
            "prototag",
            "g",
            2,
            False,
            1,
            PROTOCOL_VERSION,
            mine + 1,
            "9.9",
        ]
    )
    joiner.outbox.clear()
    joiner.receive(welcome, HOST)
    (refused,) = [e for e in joiner.events if isinstance(e, Refused)]
    assert f"Prototag rules {mine + 1}, you have {mine}" in refused.reason
    assert not joiner.outbox  # no join sent


@pytest.mark.parametrize(
    "versions",
    [["2", [["prototag", 1]], ""], [2, [["prototag", "1"]], ""], [2, "x", ""], [2, [], 7]],
    ids=repr,
)
def test_malformed_versions_in_a_hello_are_one_clear_error(versions: list[Any]) -> None:
    host = _host()
    with pytest.raises(RemoteProtocolError) as info:
        host.receive(wire.pack(["lt-lobby", 2, "hello", "x", False, *versions]), JOINER)
    assert info.value.code == "malformed" and "versions" in info.value.message
    assert host.taken == 1 and not host.outbox
