"""The table password as a SPAKE2 exchange (issue #24 item 3): the right password seats,
a wrong one is refused and the host is told who guesses, a captured honest join gives an
eavesdropper no offline test of a password, and both identity keys are bound."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from lanTag import wire
from lanTag.identity import Identity
from lanTag.peer.join_handshake import (
    HostConfig,
    HostLobby,
    JoinerRefused,
    JoinLobby,
    PasswordNeeded,
    Refused,
)
from lanTag.peer.pake import HostPake, joiner_confirmation, joiner_pake, start_seal, transcript

HOST = ("10.0.0.1", 1)
JOINER = ("10.0.0.2", 2)
RIGHT = "sesame"
CANDIDATES = ["1234", "0000", "password", "hunter2", RIGHT, "letmein", "sesame!", "Sesame"]


def _rng(seed: int) -> Callable[[int], bytes]:
    return random.Random(seed).randbytes


def _host(password: str = RIGHT) -> HostLobby:
    config = HostConfig("prototag", "game", 3, password=password)
    return HostLobby(config, Identity(bytes([1]) * 32), bytes([2]) * 32, "host", _rng(1))


def _joiner(password: str, seed: int = 7, **kw: Any) -> JoinLobby:
    ident = Identity(bytes([seed]) * 32)
    return JoinLobby(HOST, ident, bytes([4]) * 32, "ann", password=password, **kw)


def _exchange(host: HostLobby, joiner: JoinLobby, seen: list[bytes], addr: Any = JOINER) -> None:
    """Deliver both ways until quiet; every payload is also 'sniffed' into ``seen``."""
    for _ in range(8):
        moved = False
        for _to, payload in joiner.outbox:
            seen.append(payload)
            host.receive(payload, addr, 100.0)
            moved = True
        joiner.outbox.clear()
        for to, payload in host.outbox:
            if to == addr:
                seen.append(payload)
                joiner.receive(payload, HOST)
                moved = True
        host.outbox.clear()
        if not moved:
            return


def test_the_right_password_seats_and_a_wrong_one_is_refused_and_told_to_the_host() -> None:
    host = _host()
    good, bad = _joiner(RIGHT), _joiner("sesam", seed=8)
    _exchange(host, good, [])
    assert good.your_seat == 1
    _exchange(host, bad, [], addr=("10.0.0.9", 5))
    assert [e.reason for e in bad.events if isinstance(e, Refused)] == ["wrong password"]
    assert bad.your_seat is None and host.taken == 2
    told = [e.reason for e in host.events if isinstance(e, JoinerRefused)]
    assert told == ["1 wrong password from 10.0.0.9"]


def test_a_joiner_without_the_password_is_asked_and_may_try_again() -> None:
    host, joiner = _host(), _joiner("")
    _exchange(host, joiner, [])
    assert any(isinstance(e, PasswordNeeded) for e in joiner.events)
    joiner.give_password("wrong")
    _exchange(host, joiner, [])
    assert any(isinstance(e, Refused) and e.reason == "wrong password" for e in joiner.events)
    joiner.give_password(RIGHT)  # a new hello, a new exchange: one guess per exchange
    _exchange(host, joiner, [])
    assert joiner.your_seat == 1


@dataclass
class Capture:
    host_key: bytes
    challenge: bytes
    pake_b: bytes
    joiner_key: bytes
    anchor: bytes
    nickname: str
    pake_a: bytes
    confirm: bytes
    spectator: bool
    record: bytes
    seal: bytes


def _sniffed_join(joiner_rng: Callable[[int], bytes]) -> Capture:
    """One honest join and start with the right password, as an eavesdropper sees it."""
    host, joiner = _host(), _joiner(RIGHT, random_bytes=joiner_rng)
    seen: list[bytes] = []
    _exchange(host, joiner, seen)
    assert joiner.your_seat == 1
    host.start(bytes(32))
    _exchange(host, joiner, seen)
    assert joiner.started is not None  # the seal verified: an honest, complete join
    msgs = {m[2]: m[3:] for m in map(wire.unpack, seen)}
    w, j, s = msgs["welcome"], msgs["join"], msgs["start"]
    return Capture(w[0], w[1], w[11], j[0], j[1], j[2], j[3], j[4], j[5], s[0], s[4])


def _transcript(c: Capture) -> bytes:
    return transcript(
        c.host_key, c.joiner_key, c.challenge, c.pake_a, c.pake_b, c.anchor, c.nickname,
        c.spectator,
    )


def _legacy_proof(password: str, c: Capture) -> bytes:
    """Protocol 2's proof: HMAC(H("lanTag/v1/pw" 0x00 ‖ pw), challenge ‖ public key)."""
    key = hashlib.sha256(b"lanTag/v1/pw\x00" + password.encode()).digest()
    return hmac.new(key, c.challenge + c.joiner_key, hashlib.sha256).digest()


def offline_check(password: str, c: Capture, entropy: Callable[[int], bytes]) -> bool:
    """The best test of a candidate an eavesdropper has: every public value of the
    transcript against everything it can compute from the candidate (the old HMAC
    proof; a SPAKE2 run as either side, with the ``entropy`` it can draw, checked against
    the confirmation and the start seal)."""
    if hmac.compare_digest(_legacy_proof(password, c), c.confirm):
        return True
    answer = joiner_pake(password, c.host_key, c.pake_b, entropy)
    host_side = HostPake(password, c.host_key, entropy).finish(c.pake_a)
    keys = [k for k in (answer[1] if answer else None, host_side) if k is not None]
    t = _transcript(c)
    return any(
        hmac.compare_digest(joiner_confirmation(k, t), c.confirm)
        or hmac.compare_digest(start_seal(k, t, c.record), c.seal)
        for k in keys
    )


def test_a_captured_honest_join_gives_no_offline_test_of_the_password() -> None:
    capture = _sniffed_join(_rng(42))
    verdicts = {pw: offline_check(pw, capture, _rng(1000 + i)) for i, pw in enumerate(CANDIDATES)}
    # The right password looks exactly like every wrong one.
    assert set(verdicts.values()) == {False}, verdicts
    # Not a blind check: with the joiner's ephemeral secret (its entropy, which never left
    # it) the same check picks out the right password and only it.
    with_secret = {pw: offline_check(pw, capture, _rng(42)) for pw in CANDIDATES}
    assert [pw for pw, ok in with_secret.items() if ok] == [RIGHT]


def test_the_offline_check_would_find_a_protocol_2_proof() -> None:
    """The check is strong enough to break the proof protocol 3 replaced: had the join
    carried an HMAC proof, the eavesdropper's check picks the password out of the list."""
    capture = _sniffed_join(_rng(42))
    capture.confirm = _legacy_proof(RIGHT, capture)
    found = [pw for i, pw in enumerate(CANDIDATES) if offline_check(pw, capture, _rng(i))]
    assert found == [RIGHT]


def test_the_confirmation_binds_both_identity_keys() -> None:
    """A confirmation made for one host key or joiner key fails for another: the PAKE key
    confirms a transcript naming both, so a relay cannot swap either identity."""
    c = _sniffed_join(_rng(42))
    answer = joiner_pake(RIGHT, c.host_key, c.pake_b, _rng(42))
    assert answer is not None and answer[0] == c.pake_a
    key = answer[1]
    assert joiner_confirmation(key, _transcript(c)) == c.confirm
    other = bytes(32)
    for swapped in ({"host_key": other}, {"joiner_key": other}):
        t = _transcript(Capture(**{**c.__dict__, **swapped}))
        assert joiner_confirmation(key, t) != c.confirm
    # The host's own SPAKE2 identity is its key: another host key gives another PAKE key.
    moved = joiner_pake(RIGHT, other, c.pake_b, _rng(42))
    assert moved is None or moved[1] != key


def test_a_join_whose_confirmation_names_another_joiner_key_is_refused() -> None:
    """The host recomputes the transcript with the key that signed the join: a right
    password confirmed for another joiner key (one a relay would swap in) is refused."""
    host, joiner = _host(), _joiner(RIGHT, seed=9)
    host.receive(joiner.outbox.pop()[1], JOINER, 0.0)
    ((_to, welcome),) = host.outbox
    host.outbox.clear()
    joiner.receive(welcome, HOST)
    ((_to, join),) = joiner.outbox
    fields = wire.unpack(join)
    key = joiner._pake_key
    assert key is not None
    other = Identity(bytes([7]) * 32).public_key
    w = wire.unpack(welcome)
    t = transcript(w[3], other, w[4], fields[6], w[14], fields[4], fields[5], fields[8])
    fields[7] = joiner_confirmation(key, t)  # right PAKE key, transcript of another key
    host.receive(wire.pack(fields), JOINER, 0.0)
    assert [wire.unpack(p)[3] for _, p in host.outbox] == ["wrong password"]
    assert host.taken == 1
    # The same join with its own transcript is accepted (the swap alone made it fail).
    host2, joiner2 = _host(), _joiner(RIGHT, seed=9)
    _exchange(host2, joiner2, [])
    assert joiner2.your_seat == 1


def test_a_host_that_does_not_know_the_password_cannot_start_the_joiner() -> None:
    """Mutual: the start seal needs the PAKE key; a host that seated us without it (an
    impostor that just answers) is refused before any game."""
    real_host, joiner = _host(), _joiner(RIGHT)
    _exchange(real_host, joiner, [])
    assert joiner.your_seat == 1
    real_host.start(bytes(32))
    ((_to, start),) = [(a, p) for a, p in real_host.outbox if wire.unpack(p)[2] == "start"]
    fields = wire.unpack(start)
    fields[7] = bytes(32)  # a seal made without the PAKE key
    real_host.outbox.clear()
    joiner.receive(wire.pack(fields), HOST)
    assert joiner.started is None
    assert [e.reason for e in joiner.events if isinstance(e, Refused)] == [
        "the host did not prove it knows the password"
    ]


@pytest.mark.parametrize("pake_a", [b"", bytes(33), b"B" + bytes(32), b"A" + b"\xff" * 32])
def test_a_broken_pake_message_is_a_wrong_password_not_a_crash(pake_a: bytes) -> None:
    host = _host()
    hello = _joiner(RIGHT).outbox[0][1]
    host.receive(hello, JOINER, 0.0)
    host.outbox.clear()
    ident = Identity(bytes([7]) * 32)
    body = wire.pack([ident.public_key, bytes(32), "x", pake_a, False])
    joiner_state = host._joiners[JOINER]
    sig = ident.signer().sign(b"lanTag/v1/join\x00" + joiner_state.challenge + body)
    join = wire.pack(
        ["lt-lobby", 2, "join", ident.public_key, bytes(32), "x", pake_a, bytes(32), False, sig]
    )
    host.receive(join, JOINER, 0.0)
    assert [wire.unpack(p)[3] for _, p in host.outbox] == ["wrong password"]


def _welcome_fields(host: HostLobby, joiner: JoinLobby) -> list[Any]:
    host.receive(joiner.outbox.pop()[1], JOINER, 0.0)
    ((_to, welcome),) = host.outbox
    host.outbox.clear()
    fields: list[Any] = wire.unpack(welcome)
    return fields


def test_a_password_welcome_without_a_pake_message_is_malformed() -> None:
    from lanTag.errors import RemoteProtocolError

    joiner = _joiner(RIGHT)
    fields = _welcome_fields(_host(), joiner)
    fields[14] = b""  # password: yes, but nothing to answer
    with pytest.raises(RemoteProtocolError) as info:
        joiner.receive(wire.pack(fields), HOST)
    assert info.value.code == "malformed" and not joiner.outbox


def test_a_second_welcome_with_another_key_is_rejected_and_the_first_key_kept() -> None:
    from lanTag.errors import RemoteProtocolError

    joiner = _joiner(RIGHT)
    first = _welcome_fields(_host(), joiner)
    joiner.receive(wire.pack(first), HOST)
    other = HostLobby(
        HostConfig("prototag", "game", 3, password=RIGHT), Identity(bytes([9]) * 32),
        bytes(32), "host", _rng(5),
    )
    second = _welcome_fields(other, _joiner(RIGHT))
    with pytest.raises(RemoteProtocolError) as info:
        joiner.receive(wire.pack(second), HOST)
    assert info.value.code == "out-of-turn" and joiner.host_key == first[3]


def test_a_second_join_from_a_seated_joiner_gets_its_roster_again_and_nothing_more() -> None:
    """Its link restarted and lost our answer (issue #38): the same join again is answered
    with the roster again (no second seat, no second password try); a join under another
    key from that address is still refused."""
    from lanTag.errors import RemoteProtocolError

    host, joiner = _host(), _joiner(RIGHT)
    sent: list[bytes] = []
    _exchange(host, joiner, sent)
    assert joiner.your_seat == 1
    (join,) = [p for p in sent if wire.unpack(p)[2] == "join"]
    host.outbox.clear()
    tries = host.limiter.wrong(JOINER[0]), host.limiter.refused(JOINER[0])
    host.receive(join, JOINER, 0.0)
    [(to, again)] = host.outbox
    assert to == JOINER and wire.unpack(again)[2:3] == ["roster"] and wire.unpack(again)[5] == 1
    assert host.taken == 2
    assert (host.limiter.wrong(JOINER[0]), host.limiter.refused(JOINER[0])) == tries
    other = wire.unpack(join)
    other[3] = bytes(32)  # another key
    with pytest.raises(RemoteProtocolError) as info:
        host.receive(wire.pack(other), JOINER, 0.0)
    assert info.value.code == "out-of-turn" and host.taken == 2


@pytest.mark.parametrize("pake_b", [b"B" + b"\xff" * 32, b"A" + bytes(32), bytes(33)])
def test_a_broken_pake_message_from_the_host_is_a_refusal_not_a_crash(pake_b: bytes) -> None:
    joiner = _joiner(RIGHT)
    fields = _welcome_fields(_host(), joiner)
    fields[14] = pake_b
    joiner.receive(wire.pack(fields), HOST)
    assert [e.reason for e in joiner.events if isinstance(e, Refused)] == [
        "the host sent a broken password exchange"
    ]
    assert not joiner.outbox  # no join, no confirmation
