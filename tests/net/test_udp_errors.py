"""The UDP pump survives per-datagram socket errors on every error path (issue #23).

Selector loops (Linux, macOS) report a failed receive or send to the protocol's
``error_received``; CPython's proactor loop (Windows) does the same but then stops
reading (gh-127057).  Errors are injected at the socket (FlakySocket) and at the
transport (CPython's proactor transport on a stand-in IOCP); games play to the end.
Every time bound here is a hang guard, never an assertion on speed.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from pathlib import Path

import pytest

from lanTag.net import udp
from lanTag.net.endpoint import Addr
from lanTag.net.link import LinkLayer
from lanTag.net.udp import LinkEndpoint, UdpPump
from tests.net.flaky_udp import ERRORS, FlakySocket, flaky_socket, open_proactor_transport
from tests.net.real_table import RealTable, assert_clean_game, wait_for

GUARD = 30.0


def use_sockets(monkeypatch: pytest.MonkeyPatch, made: list[FlakySocket], **faults: int) -> None:
    async def bound(bind: Addr) -> socket.socket:
        sock = flaky_socket(faults.get("recv_every", 0), faults.get("send_every", 0))
        made.append(sock)
        return sock

    monkeypatch.setattr(udp, "_bound_socket", bound)


class Inbox:
    def __init__(self) -> None:
        self.got: list[bytes] = []

    def __call__(self, addr: Addr, message: bytes) -> None:
        self.got.append(message)


@pytest.mark.parametrize("path", ["selector", "proactor"])
async def test_receive_errors_never_end_reception(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    made: list[FlakySocket] = []
    use_sockets(monkeypatch, made, recv_every=2)  # every other receive fails
    if path == "proactor":
        monkeypatch.setattr(udp, "_open_transport", open_proactor_transport)
    inbox = Inbox()
    pump = await UdpPump.start(LinkEndpoint(LinkLayer(1), inbox), ("127.0.0.1", 0))
    sender = LinkEndpoint(LinkLayer(2), lambda *_: None)
    monkeypatch.undo()  # the sender is a plain socket on the plain loop
    probe = await UdpPump.start(sender, ("127.0.0.1", 0))
    try:
        sent = [f"message {i}".encode() for i in range(20)]
        for m in sent:
            sender.send(pump.address, m, probe.now())
        probe.poke()
        await wait_for(lambda: len(inbox.got) == len(sent), "every message", GUARD)
    finally:
        await probe.close()
        await pump.close()
    assert inbox.got == sent
    assert made[0].recv_faults.raised >= len(ERRORS)  # each kind of error was raised
    assert pump.stats.recv_errors == made[0].recv_faults.raised
    assert pump.last_error in {errno.errorcode[e.errno] for e in ERRORS if e.errno}


async def test_cpython_proactor_transport_stops_reading_without_the_restart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The emulation reproduces the Windows bug: delete _resume_reading and nothing is
    read after the first failed receive (no receive pending, none ever scheduled)."""
    made: list[FlakySocket] = []
    use_sockets(monkeypatch, made, recv_every=1)  # the first receive fails
    monkeypatch.setattr(udp, "_open_transport", open_proactor_transport)
    monkeypatch.setattr(udp, "_resume_reading", lambda transport: None)
    pump = await UdpPump.start(LinkEndpoint(LinkLayer(1), Inbox()), ("127.0.0.1", 0))
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
            raw.sendto(b"x", pump.address)
            await wait_for(lambda: pump.stats.recv_errors == 1, "the failed receive", GUARD)
            for _ in range(20):  # let every pending callback run
                await asyncio.sleep(0)
        transport = pump.protocol.transport
        assert transport is not None and not transport.is_closing()
        assert transport._read_fut is None  # type: ignore[attr-defined]
        assert pump.stats.received == 0
    finally:
        await pump.close()


async def test_a_send_error_marks_the_address_until_it_is_heard_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[FlakySocket] = []
    use_sockets(monkeypatch, made)
    inbox = Inbox()
    a = LinkEndpoint(LinkLayer(1), inbox)
    pump = await UdpPump.start(a, ("127.0.0.1", 0))
    monkeypatch.undo()
    b_inbox = Inbox()
    b = LinkEndpoint(LinkLayer(2), b_inbox)
    probe = await UdpPump.start(b, ("127.0.0.1", 0))
    try:
        made[0].dead.add(probe.address)
        a.send(probe.address, b"lost", pump.now())
        pump.poke()
        await wait_for(lambda: probe.address in pump.unreachable, "the unreachable mark", GUARD)
        assert pump.unreachable[probe.address] == "EHOSTUNREACH"
        assert pump.stats.send_errors > 0 and pump.stats.sent == 0
        made[0].dead.clear()  # the route is back: the link's retransmission gets through
        b.send(pump.address, b"hello", probe.now())
        probe.poke()
        await wait_for(lambda: b_inbox.got == [b"lost"] and inbox.got == [b"hello"], "both", GUARD)
        await wait_for(lambda: probe.address not in pump.unreachable, "the mark cleared", GUARD)
    finally:
        await probe.close()
        await pump.close()


@pytest.mark.parametrize("path", ["selector", "proactor"])
async def test_a_game_plays_on_through_socket_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, path: str
) -> None:
    """Every peer's socket fails one receive in 5 and one send in 7 (ICMP unreachable,
    no route, refused, cycling); the game still ends in one state on every peer."""
    made: list[FlakySocket] = []
    use_sockets(monkeypatch, made, recv_every=5, send_every=7)
    if path == "proactor":
        monkeypatch.setattr(udp, "_open_transport", open_proactor_transport)
    table = RealTable(tmp_path, "prototag", 3)
    await table.open()
    try:
        await table.start()
        await table.play_to_the_end()
    finally:
        await table.close()
    assert_clean_game(table)
    assert all(s.recv_faults.raised > 0 and s.send_faults.raised > 0 for s in made)
    assert all(h.pump.stats.recv_errors > 0 for h in table.handles)
