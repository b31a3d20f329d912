"""Hostile datagrams at a live peer of a real-UDP game on 127.0.0.1.

From a plain outsider socket, from a peer of the game turned hostile, and (as root)
from a raw IP socket with a forged source address: each is rejected and counted once
while the game goes on.  The table and checks are in tests/net/real_table.py.

No assertion is about time: every ``within`` / ``wait`` bound is a
hang guard only.
"""

from __future__ import annotations

import secrets
import socket
import struct
from pathlib import Path

import pytest

from lanTag import wire
from lanTag.identity import Identity
from lanTag.net.frame import Frame, FrameType, encode
from lanTag.session import events as ev
from lanTag.session.messages import PROTOCOL_VERSION, MsgType, pack_bundle, sign_message
from tests.net.real_table import LOCAL, RealTable, assert_clean_game, check_logs, wait_for

pytestmark = pytest.mark.usefixtures("patient_peers")  # tests/net/conftest.py


def _frame(epoch: int, seq: int, payload: bytes, index: int = 0, count: int = 1) -> bytes:
    return encode(Frame(FrameType.DATA, epoch, 0, seq, 0, 0, index, count, payload))


def _udp_packet(src: tuple[str, int], dst: tuple[str, int], payload: bytes) -> bytes:
    """An IPv4+UDP packet with a forged source (UDP checksum 0 = none, legal on IPv4)."""
    udp = struct.pack("!HHHH", src[1], dst[1], 8 + len(payload), 0) + payload
    ip = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + len(udp),
        0,
        0,
        64,
        socket.IPPROTO_UDP,
        0,  # the kernel fills in the IP checksum (and the id)
        socket.inet_aton(src[0]),
        socket.inet_aton(dst[0]),
    )
    return ip + udp


def _raw_sender() -> socket.socket | None:
    try:
        return socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    except PermissionError:
        return None


REJECT_CODES = ("malformed", "oversized", "bad-signature", "wrong-game", "not-in-roster")


def _rejections(counters: dict[str, int]) -> int:
    return sum(counters.get(code, 0) for code in REJECT_CODES)


async def test_hostile_datagrams_at_a_live_peer_are_rejected_counted_and_the_game_completes(
    tmp_path: Path,
) -> None:
    table = RealTable(tmp_path, "boardtag", 3)
    await table.open()
    outsider = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    outsider.bind((LOCAL, 0))
    raw = _raw_sender()
    try:
        await table.start()
        victim, rogue = table.handles[1], table.handles[2]
        session, rogue_session = victim.machine.session, rogue.machine.session
        assert session is not None and rogue_session is not None
        await wait_for(lambda: session.step >= 10, "the game to be under way")
        target = victim.address
        link0, rejected0 = victim.machine.link.stats, victim.machine.rejected
        counters0 = dict(session.counters)
        game_id, seats = session.game_id, len(session.record.seats)
        state_hash, step = session.state.state_hash(), session.step
        move = (["pass"],)  # a well-formed action
        stranger = Identity(secrets.token_bytes(32)).signer()
        rogue_key = rogue.machine.identity.signer()
        rogue_seat = rogue_session.seat
        assert rogue_seat is not None

        def signed(signer: object, game: bytes, seat: int) -> bytes:
            return sign_message(signer, MsgType.MOVE, game, step, seat, state_hash, move).raw  # type: ignore[arg-type]

        body = wire.pack([PROTOCOL_VERSION, int(MsgType.MOVE), game_id, step, 0, state_hash, *move])
        unsigned = wire.pack([body, bytes(64)])

        # 1. An outsider's socket.  Garbage never gets past the frame codec; well-framed
        #    frames either stop at the link (if it only accepts the roster) or reach the
        #    session and are rejected there.  Either way: each counted once, none taken.
        outsider.sendto(b"\x00" * 7, target)  # shorter than a frame header
        outsider.sendto(b"\x4c\x71" + bytes(28), target)  # bad version nibble
        outsider.sendto(b"L" * 1500, target)  # over the 1200-byte datagram budget
        epoch = secrets.randbits(31) | 1
        outsider.sendto(_frame(epoch, 0, pack_bundle([signed(stranger, game_id, 0)])), target)
        outsider.sendto(_frame(epoch, 1, pack_bundle([unsigned])), target)

        def outsider_counted() -> int:
            st = victim.machine.link.stats
            return (
                st.dropped_malformed
                - link0.dropped_malformed
                + st.dropped_unknown
                - link0.dropped_unknown
                + _rejections(session.counters)
                - _rejections(counters0)
            )

        await wait_for(lambda: outsider_counted() >= 4, "the outsider's datagrams")
        await wait_for(
            lambda: victim.machine.link.stats.dropped_oversized > link0.dropped_oversized,
            "the oversized datagram",
        )
        assert outsider_counted() == 4
        counters1, link1 = dict(session.counters), victim.machine.link.stats

        # 2. A peer of the game turned hostile: bad bundles on its own (reliable) link.
        payloads = [
            b"\xc1 not msgpack",  # malformed bundle
            pack_bundle([unsigned]),  # claims seat 0, zero signature
            pack_bundle([signed(stranger, game_id, 0)]),  # claims seat 0, someone else's key
            pack_bundle([signed(rogue_key, secrets.token_bytes(32), rogue_seat)]),  # other game
            pack_bundle([signed(rogue_key, game_id, seats + 3)]),  # a seat that does not exist
            wire.pack([bytes(70_000)]),  # over the 64 KiB bundle cap (sent in 60 fragments)
            wire.pack(["lt-lobby", 1, "start", b"", [], [], b""]),  # lobby, not from the host
        ]
        now = rogue.now()
        for payload in payloads:
            rogue.machine.link.send(target, payload, now)
        rogue.pump.poke()
        expected = {
            "malformed": 1,
            "bad-signature": 2,
            "wrong-game": 1,
            "not-in-roster": 1,
            "oversized": 1,
        }

        def delta(code: str) -> int:
            return session.counters.get(code, 0) - counters1.get(code, 0)

        await wait_for(
            lambda: (
                all(delta(code) >= n for code, n in expected.items())
                and victim.machine.rejected > rejected0
            ),
            "the rogue peer's messages to be rejected",
        )

        # 3. Forged source addresses (root only): garbage "from" two real peers.
        forged = 0
        if raw is not None:
            for peer in (table.handles[0], table.handles[2]):
                raw.sendto(_udp_packet(peer.address, target, b"\x4c\x1f" + bytes(28)), (LOCAL, 0))
                forged += 1
            await wait_for(
                lambda: (
                    victim.machine.link.stats.dropped_malformed >= link1.dropped_malformed + forged
                ),
                "the forged datagrams",
            )
        step_when_counted = session.step
        await table.play_to_the_end()
    finally:
        outsider.close()
        if raw is not None:
            raw.close()
        await table.close()
    assert step_when_counted < session.step, "the game was over before the attack landed"
    stats = victim.machine.link.stats
    assert stats.dropped_oversized == link0.dropped_oversized + 1
    assert stats.dropped_malformed == link1.dropped_malformed + forged
    assert stats.peer_restarts == link0.peer_restarts  # forged garbage did not reset a link
    assert victim.machine.rejected == rejected0 + 1
    assert {code: delta(code) for code in expected} == expected, session.counters
    rejected = [e for e in table.events(1) if isinstance(e, ev.Rejected)]
    assert len(rejected) >= sum(expected.values()) + 1
    # Nothing hostile is in the game: no blame, no desync, one history in every log.
    assert_clean_game(table)
    for report in check_logs(table.logs):
        assert not report.blames


async def test_bug_one_forged_datagram_blackholes_a_real_peers_link(tmp_path: Path) -> None:
    """A datagram with peer 2's source address and a made-up link epoch used to make the
    victim take peer 2 as restarted (reset, real epoch retired, every genuine frame of
    peer 2 dropped as stale for 30 s).  Now a new epoch is believed only from a frame
    that names the victim's own epoch, which an off-path forger cannot know: the victim
    keeps the real epoch, drops the forgery (``dropped_unconfirmed``) and challenges
    the address, and the real peer 2 ignores that challenge (addressed to another
    epoch).  The game finishes with nobody dropped.  Needs root for the raw socket.
    """
    raw = _raw_sender()
    if raw is None:
        pytest.skip("forging a source address needs a raw socket (root / CAP_NET_RAW)")
    table = RealTable(tmp_path, "boardtag", 3)
    await table.open()
    try:
        await table.start()
        victim, peer2 = table.handles[1], table.handles[2]
        session = victim.machine.session
        assert session is not None
        await wait_for(lambda: session.step >= 10, "the game to be under way")
        real_epoch = victim.machine.link.stats.links[peer2.address].peer_epoch
        before, before2 = victim.machine.link.stats, peer2.machine.link.stats
        forged = _frame(secrets.randbits(31) | 1, 0, pack_bundle([]))
        raw.sendto(_udp_packet(peer2.address, victim.address, forged), (LOCAL, 0))
        await wait_for(
            lambda: victim.machine.link.stats.dropped_unconfirmed > before.dropped_unconfirmed,
            "the forged frame",
        )
        step_when_counted = session.step
        await table.play_to_the_end()
        after, after2 = victim.machine.link.stats, peer2.machine.link.stats
    finally:
        raw.close()
        await table.close()
    assert step_when_counted < session.step, "the game was over before the attack landed"
    assert after.links[peer2.address].peer_epoch == real_epoch
    assert after.peer_restarts == before.peer_restarts
    assert after.messages_discarded == before.messages_discarded
    assert after.challenges_sent == before.challenges_sent + 1
    assert after2.peer_restarts == before2.peer_restarts  # the challenge reset nothing
    assert after2.challenges_sent == before2.challenges_sent
    assert_clean_game(table)
