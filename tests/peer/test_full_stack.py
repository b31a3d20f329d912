"""Lobby, reliable links and lockstep sessions together on a lossy simulated LAN."""

from __future__ import annotations

import pytest

from lanTag.log.verify import verify_log
from lanTag.peer.join_handshake import Refused, Started
from lanTag.session import events as ev
from tests.peer.harness import Table


@pytest.mark.parametrize("engine", ["prototag", "assassination", "boardtag"])
def test_three_peers_and_a_spectator_play_to_the_end_under_faults(engine: str) -> None:
    table = Table(
        engine,
        3,
        spectators=1,
        bots=("random",) if engine != "prototag" else (),
        faults="loss=0.2,dup=0.05,reorder=0.1,delay=5ms,jitter=5ms",
        seed=7,
    )
    table.start()
    # Until the seals are in: a spectator's log holds no HAVE of its own, so the last move
    # is acknowledged there by the others' HAVEs or seals (SPEC §9), which come after it.
    table.net.run_until(table.settled, max_time=3600)
    hashes = {p.session.state.state_hash() for p in table.peers if p.session}
    assert len(hashes) == 1
    for i, peer in enumerate(table.peers):
        kinds = [type(e) for e in peer.events]
        assert ev.Desync not in kinds and ev.SeatsDropped not in kinds, (i, kinds)
        report = verify_log(bytes(table.logs[i]))
        assert report.valid and report.complete, report.failure
    assert sum(isinstance(e, Started) for e in table.peers[3].events) == 1


def test_wrong_password_is_refused_and_right_one_joins() -> None:
    table = Table("prototag", 2, password="sesame", seed=3)
    table.peers[1].lobby.password = "wrong"  # type: ignore[union-attr]
    table.net.run_for(1.0)
    assert any(isinstance(e, Refused) and "password" in e.reason for e in table.peers[1].events)
    table.peers[1].lobby.give_password("sesame")  # type: ignore[union-attr]
    table.peers[1].poke(table.net.now)
    table.start()
    table.net.run_until(table.over, max_time=3600)
