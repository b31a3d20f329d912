"""The host you join is the host you chose (issue #24 item 4), on the pure machines: a
welcome from another key than the advert's is refused naming both and no join is sent;
a host nickname known with another key stops the join until the user accepts it."""

from __future__ import annotations

from typing import Any

from lanTag.identity import Identity, fingerprint
from lanTag.peer.join_handshake import (
    HostConfig,
    HostKeyChanged,
    HostLobby,
    JoinLobby,
    Refused,
    Welcomed,
)

HOST = ("10.0.0.1", 1)
JOINER = ("10.0.0.2", 2)
REAL = Identity(bytes([1]) * 32)
IMPOSTOR = Identity(bytes([5]) * 32)


def _host(ident: Identity = REAL, nickname: str = "alice") -> HostLobby:
    config = HostConfig("prototag", "Cafe", 2)
    return HostLobby(config, ident, bytes([2]) * 32, nickname, bytes)


def _joiner(**kw: Any) -> JoinLobby:
    return JoinLobby(HOST, Identity(bytes([3]) * 32), bytes([4]) * 32, "ann", **kw)


def _run(host: HostLobby, joiner: JoinLobby) -> list[str]:
    """Deliver until quiet; the kinds of message the joiner sent."""
    from lanTag import wire

    sent: list[str] = []
    for _ in range(6):
        for _to, payload in joiner.outbox:
            sent.append(wire.unpack(payload)[2])
            host.receive(payload, JOINER, 0.0)
        joiner.outbox.clear()
        for _to, payload in host.outbox:
            joiner.receive(payload, HOST)
        host.outbox.clear()
    return sent


def test_the_advertised_key_is_joined() -> None:
    joiner = _joiner(expect_fingerprint=REAL.fingerprint)
    assert _run(_host(), joiner) == ["hello", "join"]
    assert joiner.your_seat == 1


def test_another_key_than_the_adverts_is_refused_naming_both_and_nothing_is_proven() -> None:
    joiner = _joiner(expect_fingerprint=REAL.fingerprint)  # the impostor copied it
    assert _run(_host(IMPOSTOR), joiner) == ["hello"]  # no join: no proof, no password
    (refused,) = [e.reason for e in joiner.events if isinstance(e, Refused)]
    assert IMPOSTOR.fingerprint in refused and REAL.fingerprint in refused
    assert refused.startswith(f"the host answered with key {IMPOSTOR.fingerprint}, not ")
    assert joiner.your_seat is None


def test_a_known_nickname_with_another_key_waits_for_the_user() -> None:
    joiner = _joiner(known_hosts={"alice": REAL.fingerprint})
    assert _run(_host(IMPOSTOR), joiner) == ["hello"]
    (changed,) = [e for e in joiner.events if isinstance(e, HostKeyChanged)]
    assert changed == HostKeyChanged("alice", REAL.fingerprint, IMPOSTOR.fingerprint)
    assert joiner.held_for_key
    joiner.accept_host_key()  # the user said yes: the join goes out now
    from lanTag import wire

    assert [wire.unpack(p)[2] for _, p in joiner.outbox] == ["join"]
    assert not joiner.held_for_key
    host = _host(IMPOSTOR)
    joiner2 = _joiner(known_hosts={"alice": REAL.fingerprint}, trust_changed_key=True)
    assert _run(host, joiner2) == ["hello", "join"]  # warned, then joined
    assert any(isinstance(e, HostKeyChanged) for e in joiner2.events)
    assert joiner2.your_seat == 1


def test_a_known_nickname_with_its_key_and_an_unknown_one_join_quietly() -> None:
    for known in ({"alice": REAL.fingerprint}, {"bob": IMPOSTOR.fingerprint}, {}):
        joiner = _joiner(known_hosts=known)
        assert _run(_host(), joiner) == ["hello", "join"]
        assert not any(isinstance(e, HostKeyChanged) for e in joiner.events)
        (welcome,) = [e for e in joiner.events if isinstance(e, Welcomed)]
        assert welcome.host_fingerprint == fingerprint(REAL.public_key)
    assert joiner.host_nickname == "alice"
