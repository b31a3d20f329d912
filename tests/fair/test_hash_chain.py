"""Per-seat hash chains: one preimage per draw, checked against the previous link."""

from __future__ import annotations

import hashlib

import pytest

from lanTag.fair.hash_chain import DEFAULT_LENGTH, DOMAIN, HashChain, chain_step_ok


def _h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def _link(data: bytes) -> bytes:
    """H as documented: SHA-256 of the chain domain and the previous preimage."""
    return hashlib.sha256(b"lanTag/v1/chain\x00" + data).digest()


SECRET = _h("chain/secret/0")
LENGTH = 64


@pytest.fixture(scope="module")
def chain() -> HashChain:
    return HashChain(SECRET, LENGTH)


def test_domain_and_default_length_are_pinned() -> None:
    assert DOMAIN == b"lanTag/v1/chain\x00"
    assert DEFAULT_LENGTH == 4096


def test_anchor_is_the_secret_hashed_length_times(chain: HashChain) -> None:
    value = SECRET
    for _ in range(LENGTH):
        value = _link(value)
    assert chain.anchor == value
    assert chain.length == LENGTH
    assert chain.reveal(LENGTH) == SECRET  # the last reveal is the secret itself


def test_each_reveal_verifies_against_the_previous_link(chain: HashChain) -> None:
    previous = chain.anchor
    for i in range(1, LENGTH + 1):
        revealed = chain.reveal(i)
        assert chain_step_ok(previous, revealed), f"reveal #{i}"
        assert _link(revealed) == previous
        previous = revealed


def test_skipping_a_link_fails(chain: HashChain) -> None:
    previous = chain.anchor
    for i in range(1, LENGTH - 1):
        assert not chain_step_ok(previous, chain.reveal(i + 1)), f"skip to #{i + 1}"
        assert not chain_step_ok(previous, chain.reveal(i + 2)), f"skip to #{i + 2}"
        previous = chain.reveal(i)


def test_reusing_a_link_fails(chain: HashChain) -> None:
    assert not chain_step_ok(chain.anchor, chain.anchor)
    for i in range(1, LENGTH):
        assert not chain_step_ok(chain.reveal(i), chain.reveal(i)), f"reuse #{i}"
        if i > 1:
            assert not chain_step_ok(chain.reveal(i), chain.reveal(i - 1)), f"go back to #{i - 1}"


def test_going_backwards_fails(chain: HashChain) -> None:
    # The link before is H(link), i.e. what a seat would send to "undo" a reveal.
    assert not chain_step_ok(chain.reveal(2), chain.anchor)
    assert not chain_step_ok(chain.reveal(1), chain.anchor)


def test_forged_links_fail(chain: HashChain) -> None:
    previous, honest = chain.reveal(3), chain.reveal(4)
    for i in range(256):
        flipped = bytearray(honest)
        flipped[i // 8] ^= 1 << (i % 8)
        assert not chain_step_ok(previous, bytes(flipped)), f"bit {i}"
    for k in range(200):
        assert not chain_step_ok(previous, _h(f"chain/forgery/{k}"))
    # A reveal from another seat's chain (same position) does not fit this chain either.
    other = HashChain(_h("chain/secret/1"), LENGTH)
    assert not chain_step_ok(previous, other.reveal(4))
    # A plain SHA-256 preimage (no domain) is not a link.
    assert hashlib.sha256(honest).digest() != previous


@pytest.mark.parametrize("size", [0, 1, 31, 33, 64])
def test_wrong_length_reveals_fail(chain: HashChain, size: int) -> None:
    candidate = (chain.reveal(1) * 3)[:size]
    assert not chain_step_ok(chain.anchor, candidate)


def test_wrong_length_previous_fails(chain: HashChain) -> None:
    assert not chain_step_ok(chain.anchor[:31], chain.reveal(1))
    assert not chain_step_ok(b"", chain.reveal(1))


def test_anchors_differ_per_secret_and_length() -> None:
    anchors = {HashChain(_h(f"chain/secret/{k}"), 16).anchor for k in range(50)}
    assert len(anchors) == 50
    lengths = {HashChain(SECRET, n).anchor for n in (1, 2, 3, 16, 17)}
    assert len(lengths) == 5


def test_a_longer_chain_extends_a_shorter_one() -> None:
    short, long = HashChain(SECRET, 8), HashChain(SECRET, 12)
    for i in range(1, 9):
        assert long.reveal(i + 4) == short.reveal(i)


@pytest.mark.parametrize("index", [0, -1, LENGTH + 1, LENGTH + 100])
def test_reveal_out_of_range_raises_index_error(chain: HashChain, index: int) -> None:
    with pytest.raises(IndexError, match=rf"^chain has {LENGTH} reveals, asked for #{index}$"):
        chain.reveal(index)


def test_length_one_chain() -> None:
    c = HashChain(SECRET, 1)
    assert c.reveal(1) == SECRET and chain_step_ok(c.anchor, SECRET)
    with pytest.raises(IndexError):
        c.reveal(2)


@pytest.mark.parametrize(("secret", "length"), [(b"", 4), (SECRET[:31], 4), (SECRET, 0)])
def test_bad_secret_or_length_raises_value_error(secret: bytes, length: int) -> None:
    with pytest.raises(ValueError, match=r"^a chain needs a 32-byte secret and a positive length$"):
        HashChain(secret, length)


def test_default_length_chain() -> None:
    c = HashChain(SECRET)
    assert c.length == DEFAULT_LENGTH
    assert chain_step_ok(c.anchor, c.reveal(1))
    assert c.reveal(DEFAULT_LENGTH) == SECRET
