"""Private chat reaches only its recipient, decrypted with keys derived from the identities."""

from __future__ import annotations

from lanTag.log.entries import EntryKind, parse_log
from lanTag.private_chat import seal
from lanTag.session import events as ev
from tests.peer.harness import Table


def test_private_message_is_read_by_its_recipient_only_and_never_logged() -> None:
    table = Table("toy", 3, seed=31)
    table.start()
    sender = table.peers[0].session
    assert sender is not None and sender.seat is not None
    seats = {p.session.seat: i for i, p in enumerate(table.peers) if p.session}
    to = next(s for s in seats if s != sender.seat)
    other = next(s for s in seats if s not in (sender.seat, to))
    text = "alliance? you take the north"
    sealed = seal(
        sender.record.seats[to].public_key, text, sender.private_line.aad(sender.seat, to)
    )
    sender.private_line.send(to, sealed)
    table.net.run_until(table.over, 36_000)
    got = [e for e in table.peers[seats[to]].events if isinstance(e, ev.Chat)]
    assert got == [ev.Chat(sender.seat, text, private=True)]
    assert not [e for e in table.peers[seats[other]].events if isinstance(e, ev.Chat)]
    for i in range(3):
        raw_entries = [e.raw for e in parse_log(bytes(table.logs[i])).entries]
        assert not any(text.encode() in raw for raw in raw_entries)
        assert all(
            e.kind != EntryKind.MSG or b"alliance" not in e.raw
            for e in parse_log(bytes(table.logs[i])).entries
        )


def test_a_private_message_for_someone_else_does_not_open() -> None:
    from lanTag.identity import Identity
    from lanTag.private_chat import PrivateChatError, open_sealed

    alice, bob = Identity(bytes([1]) * 32), Identity(bytes([2]) * 32)
    eph, nonce, box = seal(alice.public_key, "hi", b"aad")
    assert open_sealed(alice.seed, eph, nonce, box, b"aad") == "hi"
    for seed, aad in ((bob.seed, b"aad"), (alice.seed, b"other")):
        try:
            open_sealed(seed, eph, nonce, box, aad)
        except PrivateChatError:
            continue
        raise AssertionError("opened with the wrong key or context")
