"""A crowd of throwaway identities at a host's door, in one process (issue #38 item 3).

``python -m tests.support.crowd HOST:PORT N`` opens N joiners made with lanTag's own
library, each with a fresh key, all nicknamed "friend", each on its own UDP socket bound
to an address of 127.1.0.0/16 (4 per address: the host's cap on strangers per address),
and keeps them at the door.  It prints ``waiting K of N`` as the host's "wait" answers
come in, and once its stdin closes (or after ``--hold`` seconds) one JSON line: how
many identities were told to wait, refused (by reason), or never answered.  The test
driving it (tests/cli/test_approve_crowd.py) reads both.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections import Counter

from lanTag.identity import Identity
from lanTag.peer.join_handshake import Refused, Waiting
from lanTag.peer.runtime import LocalIdentity, PeerHandle, open_join
from tests.support.processes import crowd_main

PER_ADDRESS = 4
WAVE = 50  # joiners opened at once: the host's 64 stranger slots take them in turns


def crowd_address(index: int) -> str:
    """The index-th crowd member's IP: 4 per address, from 127.1.0.1 on."""
    n = index // PER_ADDRESS
    return f"127.1.{n // 250}.{1 + n % 250}"


def _answer(handle: PeerHandle) -> str | None:
    """What the host told this identity last: "wait", "refused: REASON" or None."""
    said = None
    for event in handle.machine.events:
        if isinstance(event, Waiting):
            said = "wait"
        elif isinstance(event, Refused):
            said = f"refused: {event.reason}"
    return said


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def run(host: tuple[str, int], count: int, hold: float) -> dict[str, object]:
    handles: list[PeerHandle] = []
    told_waiting = 0
    try:
        for start in range(0, count, WAVE):
            for i in range(start, min(count, start + WAVE)):
                me = LocalIdentity(Identity(secrets.token_bytes(32)), "friend")
                handles.append(
                    await open_join(host, me, bind=(crowd_address(i), 0), chain_length=16)
                )
            await asyncio.sleep(0.2)  # let the wave through the door before the next
            waiting = sum(_answer(h) == "wait" for h in handles)
            if waiting != told_waiting:
                told_waiting = waiting
                print(f"waiting {waiting} of {count}", flush=True)
        for _ in range(600):  # the last waves' answers (60 s at most)
            waiting = sum(_answer(h) == "wait" for h in handles)
            if waiting != told_waiting:
                told_waiting = waiting
                print(f"waiting {waiting} of {count}", flush=True)
            if waiting + sum(str(_answer(h)).startswith("refused") for h in handles) == count:
                break
            await asyncio.sleep(0.1)
        print("crowd ready", flush=True)
        closed = asyncio.ensure_future(_stdin_closed())
        told_refused = 0
        for _ in range(int(hold * 10)):
            if closed.done():
                break
            refused = sum(str(_answer(h)).startswith("refused") for h in handles)
            if refused != told_refused:
                told_refused = refused
                print(f"refused {refused} of {count}", flush=True)
            await asyncio.sleep(0.1)
        answers = Counter(_answer(h) or "no answer" for h in handles)
        ever_waited = sum(any(isinstance(e, Waiting) for e in h.machine.events) for h in handles)
        return {"identities": count, "ever_waited": ever_waited, "answers": dict(answers)}
    finally:
        for handle in handles:
            await handle.pump.close()


def main(argv: list[str] | None = None) -> int:
    return crowd_main("crowd", run, argv, "seconds at most at the door")


if __name__ == "__main__":
    raise SystemExit(main())
