"""Product bugs found by the chaos work: each test states the correct behaviour.

An open bug's test is marked ``xfail(strict=True)``, so the suite stays green while
it is open and turns red (XPASS) the moment it is fixed: then the marker goes and
the test stays as the bug's regression test (all of them, as of 2026-11-23).
"""

from __future__ import annotations

import pytest

from lanTag.log.entries import LogFormatError
from lanTag.log.verify import verify_log
from lanTag.net.frame import Frame, FrameType, encode
from lanTag.peer.join_handshake import START_DOMAIN, lobby_message
from lanTag.session import events as ev
from lanTag.session.lobby_record import LobbyRecord, SeatRecord, Timeouts
from lanTag.wire import pack
from tests.support.table import Table, addr

# The last: a header entry whose prev_hash is not the 32 zero bytes (found by the decoder
# fuzz once its skip of this finding went): parse_rows returned no entry, IndexError again.
HEADER_OFF_THE_CHAIN = pack([0, 0, bytes([1]) * 32, 0, ["lanTag-log/4", b"", 0]])


@pytest.mark.parametrize("data", [b"\xc1", b"\x81\x00\x00", b"\x91\xc1", HEADER_OFF_THE_CHAIN])
def test_bug_verify_log_on_a_file_whose_first_entry_is_not_msgpack(data: bytes) -> None:
    # parse_log returns ParsedLog(entries=(), error="entry 0: not msgpack ...") and
    # verify_log then indexes entries[0]: IndexError instead of "not a lanTag log".
    with pytest.raises(LogFormatError, match="not a lanTag log"):
        verify_log(data)


@pytest.mark.parametrize(
    "payload",
    [
        lobby_message("roster", 5, 2, 1),  # TypeError: int is not iterable
        lobby_message("roster", [["a", "b"]], 2, 1),  # ValueError: not enough values to unpack
        lobby_message("roster", [["a", "b", "c"]], "z", 1),  # ValueError: int("z")
        lobby_message("welcome", bytes(32), bytes(32), "e", "n", "x", False, 1),  # ValueError
    ],
)
def test_bug_malformed_lobby_message_from_the_host_address_crashes_a_joiner(
    payload: bytes,
) -> None:
    # JoinLobby.receive raises TypeError/ValueError, and PeerMachine._lobby_payload only
    # catches RemoteProtocolError: the exception leaves receive_datagram (on a real
    # socket UdpPump._fail stops the peer).  Lobby messages are still routed after the
    # start, so the host (no special power in the game) or anyone who can get a frame
    # accepted from the host's address can take every joiner down mid-game.
    table = Table("toy", 3, seed=2)
    table.start()
    table.peers[0].link.send(addr(1), payload, table.net.now)
    table.net.run_for(5.0)  # raises out of the joiner's receive_datagram today
    table.run_to_end(max_time=3600)
    assert len({s.state.state_hash() for s in table.sessions()}) == 1


def test_bug_signed_start_with_an_unknown_engine_crashes_the_joiner() -> None:
    # JoinLobby._start accepts any record that decodes; PeerMachine._begin then builds
    # Session(record) and get_game raises OptionError out of receive_datagram.
    table = Table("tagem", 2, seed=3)
    table.net.run_until(table.seated, 60)
    joiner = table.peers[1]
    host_id = table.peers[0].identity
    seat = SeatRecord(joiner.identity.public_key, joiner.lobby.anchor, "p1", "")  # type: ignore[union-attr]
    bad = LobbyRecord("no-such-game", (), None, (seat,), 16, Timeouts(), bytes(32))
    body = bad.encode()
    sig = host_id.signer().sign(START_DOMAIN + body)
    table.peers[0].link.send(addr(1), lobby_message("start", body, [], [], sig), table.net.now)
    table.net.run_for(2.0)  # the joiner must refuse the start, not raise
    assert joiner.session is None


@pytest.mark.parametrize(("seed", "faults"), [(5, True), (1, False), (6, False), (19, True)])
def test_bug_equivocation_rollback_strands_messages_of_later_steps(seed: int, faults: bool) -> None:
    # Seat of peer 1 sends MOVE "add 1" to some peers and "add 2" to the others (toy, 4
    # people).  Every honest peer proves the equivocation and rolls back to that step.
    # Fixed (issue #12): the rollback used to requeue every later step's messages into
    # the rollback step's box, where they were stranded; messages refused on the
    # abandoned history (a hash of the new one) were lost for good, their relays being
    # duplicates; and a proof arriving as a relay applied its ban only at the next new
    # message.  Now every logged message of those steps is looked at again in its own
    # step's box and the ban is applied at once.  tests/chaos/test_adversary.py plays
    # many more seeds.
    from tests.chaos.test_adversary import FAULTS, play
    from tests.support.adversary import Cheat

    faults_spec = FAULTS if faults else ""
    game = play(Cheat.EQUIVOCATE, engine="toy", at_step=3, seed=seed, faults=faults_spec)
    for i in game.honest:
        assert game.drops(i) == [(game.adversary.did.step, (game.seat,))], i


def _spoof(table: Table, data: bytes, src: tuple[str, int], dst: tuple[str, int]) -> None:
    table.net.machines[dst].receive_datagram(data, src, table.net.now)


def test_bug_one_spoofed_frame_per_peer_gets_an_honest_seat_dropped() -> None:
    # Anyone on the LAN sends ONE datagram to each other peer, with seat 0's address as
    # source and a fresh link epoch.  Each receiver used to take it as seat 0's restart:
    # reset its link, adopt the fake epoch and drop seat 0's real frames as "retired"
    # until the link expired (30 s), by which time seat 0 was voted silent.  Fixed: a new
    # epoch is believed only from a frame naming the receiver's own epoch (NETWORK.md,
    # "Incarnations"); the forgery is dropped and challenged, seat 0 ignores the challenge.
    # Expected: an unauthenticated frame may cost a retransmission, not a seat.
    table = Table("toy", 3, seed=5)
    table.start()
    table.net.run_until(lambda: table.sessions()[0].step >= 3, 120)
    frame = encode(Frame(FrameType.PING, 0x5EED, 0, 0, 0, 0))
    for i in (1, 2):
        _spoof(table, frame, addr(0), addr(i))
    table.run_to_end([1, 2], max_time=3600)
    for i in range(3):
        assert not table.events(i, ev.SeatsDropped), i
    for i in (1, 2):
        stats = table.peers[i].link.stats
        assert (stats.dropped_unconfirmed, stats.peer_restarts) == (1, 0), i


@pytest.mark.parametrize("cut", [25.0, 40.0, 300.0])
def test_bug_peer_cut_off_longer_than_link_expiry_waits_forever(cut: float) -> None:
    # Seat 2 is cut off (a laptop asleep, a Wi-Fi outage).  The others drop it and send
    # it the votes, but after 30 s of silence its links expire and the queued votes are
    # discarded.  Fixed (issue #12): a waiting seat repeats its latest vote at every
    # deadline, and a peer that hears from a seat it dropped answers it (at most once
    # per lag warning) with the drop proof (SPEC §5.5); seat 2 takes its drop, asks for
    # the rest (SYNC) and follows the game to the end as a dropped seat.
    table = Table("toy", 3, seed=3)
    table.start()
    table.net.run_until(lambda: table.sessions()[2].step >= 5, 120)
    table.net.cut([addr(2)], [addr(0), addr(1)])
    table.net.run_for(cut)
    table.net.heal()
    table.run_to_end([0, 1], max_time=3600)
    table.net.run_until(lambda: table.sessions()[2].state.is_over, table.net.now + 600)
    assert len({s.state.state_hash() for s in table.sessions()}) == 1
    for i in range(3):
        assert [e.seats for e in table.events(i, ev.SeatsDropped)] == [(2,)], i  # type: ignore[attr-defined]
        report = table.report(i)
        assert report.valid and report.complete, (i, report.failure)
