"""The adversary as a process: a modified ``lantag join`` for the real-process tests.

    python -m tests.support.adversary --cheat two-commits --join 127.0.0.1:PORT --log PATH

(two colluders: ``--cheat honest --identity-seed HEX`` for the one that lends its key,
``--cheat collude --partner-seed HEX`` for the one that signs with it)

joins a table on loopback like ``lantag join --headless`` and plays with a bot,
honestly except for one cheat (:class:`tests.support.adversary.Cheat`), then
stays until the game is over for it (a dropped seat follows the game) or
``--max-seconds`` pass.  It prints ``seat N`` once seated and ``cheated at step
K`` when its cheat went out.  Test code, not a user-facing command: nothing in
the product imports it (tests/chaos/test_cheat_processes.py runs it).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import time
from pathlib import Path

from lanTag.fair.hash_chain import DEFAULT_LENGTH, HashChain
from lanTag.identity import Identity
from lanTag.log.file import LogWriter
from lanTag.net.link import LinkLayer
from lanTag.net.udp import UdpPump
from lanTag.peer.join_handshake import JoinLobby
from lanTag.peer.machine import PeerMachine
from tests.support.adversary import Adversary, Cheat


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.support.adversary")
    parser.add_argument("--cheat", required=True, choices=[c.value for c in Cheat])
    parser.add_argument("--join", required=True, help="the host's HOST:PORT")
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--at-step", type=int, default=0)
    parser.add_argument("--bot", default="random")
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument(
        "--identity-seed", help="hex: the seat's key from this seed (a colluder lends it)"
    )
    parser.add_argument("--partner-seed", help="hex: the colluding seat's key (--cheat collude)")
    return parser.parse_args(argv)


async def run(args: argparse.Namespace) -> int:
    host, _, port = str(args.join).rpartition(":")
    seed = args.identity_seed
    identity = Identity(bytes.fromhex(seed) if seed else secrets.token_bytes(32))
    partner = Identity(bytes.fromhex(args.partner_seed)) if args.partner_seed else None
    chain_secret = secrets.token_bytes(32)
    anchor = HashChain(chain_secret, DEFAULT_LENGTH).anchor
    writer = LogWriter(args.log)
    lobby = JoinLobby((host, int(port)), identity, anchor, "cheater", chain_length=DEFAULT_LENGTH)
    machine = PeerMachine(
        LinkLayer(secrets.randbits(256)),
        lobby,
        identity,
        chain_secret,
        secrets.token_bytes,
        write_log=writer.write,
    )
    adversary = Adversary(
        machine, Cheat(args.cheat), at_step=args.at_step, bot=args.bot, partner=partner
    )
    pump = await UdpPump.start(adversary, ("127.0.0.1", 0))
    machine.local_addr = pump.address
    pump.poke()
    deadline = time.monotonic() + args.max_seconds
    seated = announced = False
    try:
        while time.monotonic() < deadline:
            session = machine.session
            if session is not None and not seated:
                seated = True
                print(f"seat {session.seat}", flush=True)
            if adversary.did.step is not None and not announced:
                announced = True
                print(f"cheated at step {adversary.did.step}", flush=True)
            if session is not None and session.state.is_over:
                break
            machine.events.clear()  # nobody reads them: keep memory flat
            await asyncio.sleep(0.02)
    finally:
        await pump.close()
        writer.close()
    if adversary.withholder is not None:  # what it chose at each of its rolls
        for c in adversary.withholder.choices:
            print(
                f"roll at step {c.step} of {list(c.seats)}: with its link {c.with_link.values}"
                f" without {c.without.values} withheld {c.withheld}",
                flush=True,
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    return asyncio.run(run(parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
