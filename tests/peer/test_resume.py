"""A crashed peer rebuilds its seat from its own log, catches up and plays on."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from lanTag.errors import LocalProtocolError
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind
from lanTag.log.verify import verify_log
from lanTag.net.link import LinkLayer
from lanTag.peer.machine import BotDriver, LinkSender, PeerMachine
from lanTag.peer.resume import (
    PEERS_NOTE,
    GameAlreadyOver,
    check_not_over,
    plan_resume,
    restore_session,
)
from lanTag.peer.runtime import LocalIdentity
from lanTag.session import events as ev
from lanTag.session.messages import MsgType, parse_unverified
from tests.cli.helpers import entries_of, rechain
from tests.peer.harness import Table, addr


def _h(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def _restart(table: Table, peer: int, seat: int, seed: int) -> PeerMachine:
    """What `lantag join --resume` does, on the simulated network."""
    plan = plan_resume(bytes(table.logs[peer]))
    assert plan.seat == seat and plan.local_addr is None  # the simulated peers bind no socket
    identity = Identity(_h(f"{seed}/id/{peer}"))
    secret = _h(f"{seed}/chain/{peer}")
    log = table.logs[peer]
    machine = PeerMachine(
        LinkLayer(999),
        None,
        identity,
        secret,
        table.rng.randbytes,
        driver=BotDriver("random"),
        write_log=log.extend,
    )
    session = restore_session(plan, identity, secret, LinkSender(machine.link), table.net.now)
    assert session.step > 0
    machine.resume(session, table.net.now)
    table.peers[peer] = machine
    table.net.add(addr(peer), machine)
    return machine


@pytest.mark.parametrize("engine", ["toy", "prototag"])
def test_peer_restarted_before_its_timeout_catches_up_and_plays_on(engine: str) -> None:
    table = Table(engine, 3, faults="loss=0.05,delay=2ms,jitter=2ms", seed=21)
    table.start()
    victim = table.peers[2].session
    assert victim is not None and victim.seat is not None
    seat = victim.seat
    table.net.run_until(lambda: victim.step >= 6, 3600)
    crashed_at = victim.step
    dead = PeerMachine(LinkLayer(1), None, Identity(bytes(32)), bytes(32), table.rng.randbytes)
    table.net.add(addr(2), dead)  # the process is gone: datagrams to it are lost
    table.net.run_for(1.0)  # well inside the turn timeout (20 s): nobody votes it out
    restarted = _restart(table, 2, seat, 21)
    table.net.run_until(table.over, 36_000)
    hashes = {p.session.state.state_hash() for p in table.peers if p.session}
    assert len(hashes) == 1
    for i in range(3):
        assert not any(isinstance(e, ev.SeatsDropped) for e in table.peers[i].events)
    assert restarted.session is not None and restarted.session.seat in restarted.session.live
    report = verify_log(bytes(table.logs[2]))  # the old entries and the new ones, one chain
    assert report.valid and report.complete, report.failure
    assert report.steps > crashed_at


def test_peer_restarted_after_being_dropped_takes_its_seat_back() -> None:
    """Protocol 5 (SPEC §5.6): the resumed seat asks back, a live seat's next contribution
    admits it, and every peer (the spectator too) has it live from the same step; it plays
    its own moves again and every log verifies.  A protocol-4 seat follows as a spectator."""
    table = Table("toy", 3, spectators=1, seed=22)
    table.start()
    victim = table.peers[2].session
    assert victim is not None and victim.seat is not None
    seat = victim.seat
    table.net.run_until(lambda: victim.step >= 4, 3600)
    dead = PeerMachine(LinkLayer(1), None, Identity(bytes(32)), bytes(32), table.rng.randbytes)
    table.net.add(addr(2), dead)
    others = [table.peers[0], table.peers[1]]
    table.net.run_until(
        lambda: all(any(isinstance(e, ev.SeatsDropped) for e in p.events) for p in others), 3600
    )
    restarted = _restart(table, 2, seat, 22)
    table.net.run_until(table.settled, 36_000)  # over, and the seals of the end are in
    assert len({p.session.state.state_hash() for p in table.peers if p.session}) == 1
    session = restarted.session
    assert session is not None
    backs = [[e for e in p.events if isinstance(e, ev.SeatsBack)] for p in table.peers]
    if not session.features.handback:
        assert seat not in session.live and not any(backs)
    else:
        assert seat in session.live
        assert len(backs[0]) == 1 and all(b == backs[0] for b in backs), backs  # spectator too
        back = backs[0][0]
        assert back.seats == (seat,)
        mine = [
            m
            for m in (parse_unverified(e[3]) for e in entries_of(bytes(table.logs[2])) if e[2] == 1)
            if m.seat == seat and m.step >= back.step and m.type is MsgType.MOVE
        ]
        assert mine, "the seat given back played no move of its own"
    reports = [verify_log(bytes(table.logs[i])) for i in range(4)]
    for report in reports:
        assert report.valid and report.complete, report.failure
    assert len({tuple((a.step, a.state_hash) for a in r.applied) for r in reports}) == 1


def test_spectator_log_cannot_be_resumed() -> None:
    table = Table("toy", 2, spectators=1, seed=23)
    table.start()
    table.net.run_until(table.over, 36_000)
    with pytest.raises(LocalProtocolError, match="spectator"):
        plan_resume(bytes(table.logs[2]))


# ------------------------------------------------------------------ nobody left to answer


@pytest.fixture
def silent_ports() -> Iterator[list[int]]:
    """Loopback ports where nothing answers (bound, never read): peers that are gone."""
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(3)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    yield [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()


def _log_file(tmp_path: Path, data: bytes, ports: list[int], seed: int, peer: int) -> Path:
    """The simulated peer's log as `lantag join --resume` finds it, its peers on loopback."""
    entries = entries_of(data)
    for entry in entries:
        if entry[2] == EntryKind.NOTE and entry[3][0] == PEERS_NOTE:
            info = json.loads(entry[3][2])
            info["peers"] = {s: ["127.0.0.1", ports[int(s)]] for s in info["peers"]}
            info["me"] = None
            entry[3] = [PEERS_NOTE, [], json.dumps(info, sort_keys=True)]
    path = tmp_path / "game.lantag"
    path.write_bytes(rechain(entries))
    path.with_suffix(".lantag.secret").write_text(_h(f"{seed}/chain/{peer}").hex() + "\n")
    return path


def _resume(path: Path, seed: int, peer: int, wait: float) -> int:
    from lanTag.cli.resume_command import resume_seat as resume_command

    args = argparse.Namespace(
        resume=str(path), headless=True, bot="random", netsim=None, resume_wait=wait
    )
    me = LocalIdentity(Identity(_h(f"{seed}/id/{peer}")), f"p{peer}")
    return asyncio.run(resume_command(args, me))


def test_resume_gives_up_when_every_other_peer_has_left(
    tmp_path: Path, silent_ports: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table("toy", 3, seed=24)
    table.start()
    victim = table.peers[2].session
    assert victim is not None
    table.net.run_until(lambda: victim.step >= 5, 3600)
    data = bytes(table.logs[2])  # it crashed here; the others finished and left since
    check_not_over(plan_resume(data))  # the log alone does not end the game
    path = _log_file(tmp_path, data, silent_ports, 24, 2)
    assert _resume(path, 24, 2, wait=0.3) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("lantag: no peer of this game answered in 0.3 s"), err
    report = verify_log(path.read_bytes())  # the log goes on, one chain, still unfinished
    assert report.valid and not report.complete, report.failure


def test_resume_of_a_finished_game_says_so_at_once(
    tmp_path: Path, silent_ports: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table("toy", 3, seed=25)
    table.start()
    table.net.run_until(table.over, 36_000)
    data = bytes(table.logs[1])
    with pytest.raises(GameAlreadyOver):
        check_not_over(plan_resume(data))
    path = _log_file(tmp_path, data, silent_ports, 25, 1)
    before = path.read_bytes()
    assert _resume(path, 25, 1, wait=3600.0) == 0  # no waiting for anyone: nothing to resume
    out = capsys.readouterr().out
    assert out.startswith("game over already, at step "), out
    assert path.read_bytes() == before  # the log is left as it was
