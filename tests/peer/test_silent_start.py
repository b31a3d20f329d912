"""A seated joiner that is silent when the host starts is unseated before step 0
(issue #24): the game starts without it instead of freezing at its first turn."""

from __future__ import annotations

from lanTag.peer.join_handshake import JoinerRefused, Refused
from lanTag.peer.machine import SILENT_AT_START, UNSEATED
from lanTag.testing.table import Table, addr


def _lines(table: Table, i: int) -> list[str]:
    return [e.reason for e in table.peers[i].events if isinstance(e, JoinerRefused)]


def test_a_silent_seat_is_unseated_at_the_start_and_told_so_when_it_comes_back() -> None:
    table = Table("tagem", 3, seed=11)
    table.net.run_until(table.seated, max_time=60)
    host, friend, gone = table.peers
    gone_name = gone.lobby.nickname  # type: ignore[union-attr]
    table.net.cut([addr(2)], [addr(0), addr(1)])  # e.g. its laptop went to sleep
    table.net.run_for(SILENT_AT_START + 1)
    host.start_game(table.net.now)
    record = host.session.record  # type: ignore[union-attr]
    assert [s.nickname for s in record.seats if s.public_key] == ["host", "p1"]
    [line] = _lines(table, 0)
    assert line.startswith(f"unseated {gone_name} (") and "silent for" in line
    table.net.run_until(lambda: friend.session is not None, max_time=table.net.now + 30)
    assert [m for m in _lines(table, 1) if gone_name in m] == [
        next(m for m in _lines(table, 1) if "not in the game" in m)
    ]
    table.net.heal()  # it comes back: one clear refusal, no seat, no session
    table.net.run_until(
        lambda: any(isinstance(e, Refused) for e in gone.events), max_time=table.net.now + 30
    )
    assert [e.reason for e in gone.events if isinstance(e, Refused)] == [UNSEATED]
    assert gone.session is None
    table.run_to_end([0, 1], max_time=3600)


def test_a_seat_heard_from_recently_keeps_its_place() -> None:
    table = Table("tagem", 3, seed=12)
    table.net.run_until(table.seated, max_time=60)
    table.net.run_for(SILENT_AT_START + 1)  # keepalives: everyone is heard every second
    table.peers[0].start_game(table.net.now)
    record = table.peers[0].session.record  # type: ignore[union-attr]
    assert len([s for s in record.seats if s.public_key]) == 3
    assert _lines(table, 0) == []
