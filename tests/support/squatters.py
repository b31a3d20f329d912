"""Squatters at an open table, in one process (issue #38 item 3).

``python -m tests.support.squatters HOST:PORT N`` opens N joiners made with lanTag's own
library (fresh keys, nicknamed "friend", each on its own UDP socket bound to an address of
127.2.0.0/16), which sit down at a table with neither --approve nor a password and keep
their lobby links alive.  The moment a joiner's game starts it says nothing more: not its
link of the first roll, not even a link-level ack (its socket stays open, and what comes in
is read and thrown away).  It prints ``seated K of N`` as the roster seats them,
``started K of N`` as starts come, and once its stdin closes (or after ``--hold`` seconds)
one JSON line: how many sat down and were started, and how many datagrams they held back
once started (what an honest peer would have sent).  The
test driving it is tests/cli/test_squat_processes.py.
"""

from __future__ import annotations

import asyncio
import secrets
import sys

from lanTag.identity import Identity
from lanTag.net.endpoint import Addr, DatagramMachine
from lanTag.peer.machine import PeerMachine
from lanTag.peer.runtime import LocalIdentity, PeerHandle, open_join
from tests.support.processes import crowd_main


class MuteFromTheStart:
    """A peer that is itself until its game starts, and then a squatter: what it would
    send from then on is dropped (the first roll's link, acks, keepalives)."""

    def __init__(self, inner: PeerMachine) -> None:
        self.inner = inner
        self.held_back = 0  # datagrams the peer would have sent once started

    @property
    def started(self) -> bool:
        return self.inner.session is not None

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        if not self.started:
            self.inner.receive_datagram(data, addr, now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        out = self.inner.datagrams_to_send(now)
        if self.started:
            self.held_back += len(out)
            return []
        return out

    def next_timer(self) -> float | None:
        return None if self.started else self.inner.next_timer()

    def handle_timer(self, now: float) -> None:
        if not self.started:
            self.inner.handle_timer(now)


def squatter_address(index: int) -> str:
    return f"127.2.{index // 250}.{1 + index % 250}"


def _seated(handle: PeerHandle) -> bool:
    lobby = handle.machine.lobby
    return getattr(lobby, "your_seat", None) is not None


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def run(host: tuple[str, int], count: int, hold: float) -> dict[str, object]:
    handles: list[PeerHandle] = []
    mutes: list[MuteFromTheStart] = []
    try:
        for i in range(count):
            me = LocalIdentity(Identity(secrets.token_bytes(32)), "friend")
            handle = await open_join(host, me, bind=(squatter_address(i), 0))
            mute = MuteFromTheStart(handle.machine)
            machine: DatagramMachine = mute
            handle.pump.machine = machine  # from now on the pump feeds the mute wrapper
            handles.append(handle)
            mutes.append(mute)
        closed = asyncio.ensure_future(_stdin_closed())
        told = (0, 0)
        for _ in range(int(hold * 10)):
            now = (sum(_seated(h) for h in handles), sum(m.started for m in mutes))
            if now != told:
                if now[0] != told[0]:
                    print(f"seated {now[0]} of {count}", flush=True)
                if now[1] != told[1]:
                    print(f"started {now[1]} of {count}", flush=True)
                told = now
            if closed.done():
                break
            await asyncio.sleep(0.1)
        return {
            "identities": count,
            "seated": told[0],
            "started": told[1],
            "held_back": sum(m.held_back for m in mutes),
        }
    finally:
        for handle in handles:
            await handle.pump.close()


def main(argv: list[str] | None = None) -> int:
    return crowd_main("squatters", run, argv, "seconds at most")


if __name__ == "__main__":
    raise SystemExit(main())
