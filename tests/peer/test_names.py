"""Nicknames people can trust (issue #38 item 5): one NFC form without invisible or bidi
control characters, and a look-alike of a known host's nickname under another key gets the
changed-key warning."""

from __future__ import annotations

import pytest

from lanTag.identity import Identity
from lanTag.peer.join_handshake import HostConfig, HostKeyChanged, HostLobby, JoinLobby
from lanTag.peer.names import clean_nickname, look_alike, skeleton
from lanTag.peer.runtime import IdentityError, check_nickname

HOST = ("10.0.0.1", 1)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("alice\u200b", "alice"),  # zero-width space
        ("al\u200dice\ufeff", "alice"),  # zero-width joiner, BOM
        ("\u202eecila", "ecila"),  # a right-to-left override shows "alice"
        ("bob\u2066\u2069", "bob"),  # bidi isolates
        ("Zoe\u0308", "Zo\u00eb"),  # NFC: e + combining diaeresis is one ë
        ("  jo \u00a0\u3000 ann ", "jo ann"),  # any spaces: one, trimmed
        ("a\ufe0fb\u3164", "ab"),  # a variation selector, a Hangul filler
        ("x" * 40, "x" * 32),
    ],
)
def test_a_nickname_has_one_visible_form(raw: str, clean: str) -> None:
    assert clean_nickname(raw) == clean


@pytest.mark.parametrize(
    "alike",
    [
        "\u0430lice",  # Cyrillic a
        "ALICE",
        "Alice",
        "al1ce",
        "\u0430\u04cf\u0456\u0441\u0435",  # all Cyrillic
        "\uff41\uff4c\uff49\uff43\uff45",  # full-width
        "alice\u200b",
    ],
)
def test_look_alikes_share_a_skeleton(alike: str) -> None:
    assert skeleton(alike) == skeleton("alice")
    assert look_alike(alike, {"alice": "1" * 16, "bob": "2" * 16}) in ("alice", None)
    assert look_alike(alike, {"alice": "1" * 16}) == ("alice" if alike != "alice" else None)


def test_other_names_do_not() -> None:
    assert skeleton("bob") != skeleton("alice") and skeleton("alicia") != skeleton("alice")
    assert look_alike("bob", {"alice": "1" * 16}) is None


def test_your_own_nickname_is_stored_clean() -> None:
    assert check_nickname("Zoe\u0308\u200b") == "Zo\u00eb"
    with pytest.raises(IdentityError):
        check_nickname("\u200b\u200b")  # nothing visible
    with pytest.raises(IdentityError):
        check_nickname("x" * 33)


def _welcome(host_nickname: str, host_seed: int, known: dict[str, str]) -> JoinLobby:
    host = HostLobby(
        HostConfig("prototag", "g", 2), Identity(bytes([host_seed]) * 32), bytes(32),
        host_nickname, bytes,
    )  # fmt: skip
    joiner = JoinLobby(HOST, Identity(bytes([3]) * 32), bytes(32), "ann", known_hosts=known)
    for _, payload in joiner.outbox:
        host.receive(payload, ("10.0.0.2", 2), 0.0)
    joiner.outbox.clear()
    for _, payload in host.outbox:
        joiner.receive(payload, HOST)
    return joiner


def test_a_look_alike_host_with_another_key_gets_the_changed_key_warning() -> None:
    alice = Identity(bytes([1]) * 32).fingerprint
    known = {"alice": alice}
    for impostor in ("alice\u200b", "\u0430lice", "ALICE"):
        joiner = _welcome(impostor, 9, known)
        [warning] = [e for e in joiner.events if isinstance(e, HostKeyChanged)]
        assert warning.known == alice and warning.now == Identity(bytes([9]) * 32).fingerprint
        assert warning.looks_like in ("alice", "")  # "" when cleaning made it the same name
        assert joiner.held_for_key and joiner.outbox == []  # no join without a yes
    same = _welcome("\u0430lice", 1, known)  # the real alice's key, a new spelling: fine
    assert not [e for e in same.events if isinstance(e, HostKeyChanged)] and same.outbox
    other = _welcome("bob", 9, known)
    assert not [e for e in other.events if isinstance(e, HostKeyChanged)] and other.outbox


def test_the_host_cleans_a_joiners_nickname_for_everyone() -> None:
    config = HostConfig("prototag", "g", 2)
    host = HostLobby(config, Identity(bytes([1]) * 32), bytes(32), "h", bytes)
    joiner = JoinLobby(HOST, Identity(bytes([3]) * 32), bytes(32), "ann\u202e\u200b")
    for _ in range(3):
        for _, payload in joiner.outbox:
            host.receive(payload, ("10.0.0.2", 2), 0.0)
        joiner.outbox.clear()
        for _, payload in host.outbox:
            joiner.receive(payload, HOST)
        host.outbox.clear()
    assert [e.nickname for e in host.roster()] == ["h", "ann"]
