#!/usr/bin/env python3
"""Bytes on the wire: signed message sizes per type, link overhead, bytes per game step.

One real game per engine is played to the end by whole peers (links + lobby + session +
random bots) on the in-process ``DirectTable`` of scripts/bench/benchlib.py with a 1 ms
virtual one-way latency (so delayed ACKs and keepalive timers run as on a LAN).  From it:

* per message type: the signed message (``canonical([body, signature])``) sizes seen in
  the logs, and the datagram it makes when sent alone (30-byte link header + the bundle's
  msgpack framing + the message); VOTE only appears when a seat goes silent, so one is
  signed here with a typical payload (one silent seat) if no log holds one;
* anatomy of a signed message: what the fixed fields cost;
* per game step: signed bytes in the host's log, and everything every peer put on the
  wire (counted per datagram by the driver: DATA, ACK and PING frames with their headers),
  plus the link frames counted by ``LinkLayer.stats``.

Target: every input message (MOVE, ENTROPY, COMMIT, REVEAL) <= 250 bytes signed.

Usage::

    python scripts/bench/bench_wire.py           # five engines, 4 peers
    python scripts/bench/bench_wire.py --quick   # prototag + stomptag, short games
    python scripts/bench/bench_wire.py --json
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchlib as bl

from lanTag import wire
from lanTag.identity import Identity
from lanTag.net.frame import HEADER
from lanTag.session.messages import MsgType, pack_bundle, parse_unverified, sign_message

GAMES: dict[str, tuple[int, tuple[tuple[str, int | bool | str], ...]]] = {
    "prototag": (4, ()),
    "assassination": (4, ()),
    "boardtag": (4, ()),
    "stomptag": (4, (("max_rounds", 12),)),
    "tagem": (4, (("max_turns", 8),)),
}
QUICK = {"prototag": (3, ()), "stomptag": (4, (("max_rounds", 4),))}
INPUTS = ("MOVE", "ENTROPY", "COMMIT", "REVEAL")
LINK_HEADER = HEADER.size


def play(engine: str, peers: int, options: tuple[tuple[str, int | bool | str], ...]) -> Any:
    t = bl.DirectTable(engine, peers, options=options, seed=5, latency=0.001)
    t.start()
    w0 = t.net.wire.snapshot()
    frames0 = sum(p.link.stats.sent for p in t.peers)
    if not t.net.run_until(t.over, max_time=36_000):
        raise RuntimeError(f"{engine}: the game did not finish")
    t.net.run_until(lambda: False, max_time=t.net.now + 0.1)  # let the last acks go out
    wire_used = t.net.wire.minus(w0)
    frames = sum(p.link.stats.sent for p in t.peers) - frames0
    return t, wire_used, frames


def sized(raw: bytes) -> tuple[int, int]:
    """(signed message bytes, datagram bytes when sent alone)."""
    return len(raw), LINK_HEADER + len(pack_bundle([raw]))


def anatomy(raw: bytes) -> list[dict[str, Any]]:
    m = parse_unverified(raw)
    payload = sum(len(wire.pack(p)) for p in m.payload)
    fixed_body = len(m.body) - payload
    return [
        {"part": "signature (bin 64)", "bytes": len(wire.pack(m.signature))},
        {"part": "game_id (bin 32)", "bytes": len(wire.pack(m.game_id))},
        {"part": "state_hash (bin 32)", "bytes": len(wire.pack(m.state_hash))},
        {
            "part": "version, type, step, seat + body array header",
            "bytes": fixed_body - len(wire.pack(m.game_id)) - len(wire.pack(m.state_hash)),
        },
        {
            "part": "outer [body, sig] framing",
            "bytes": len(raw) - len(m.body) - len(wire.pack(m.signature)),
        },
        {"part": f"payload ({m.type.name})", "bytes": payload},
        {"part": "total signed message", "bytes": len(raw)},
        {"part": "+ link header + bundle framing, sent alone", "bytes": sized(raw)[1] - len(raw)},
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    games = QUICK if args.quick else GAMES

    sizes: dict[str, list[int]] = defaultdict(list)
    dgram: dict[str, list[int]] = defaultdict(list)
    biggest: dict[str, bytes] = {}
    steps_table = bl.Table(
        "bytes per game step (whole game, all peers; wire = every datagram incl. ACK/PING)",
        [
            ("engine", "engine", ""),
            ("peers", "peers", ""),
            ("steps", "steps", ""),
            ("msgs_step", "signed msgs/step", ".1f"),
            ("signed_step", "signed B/step", ".0f"),
            ("dgrams_step", "datagrams/step", ".1f"),
            ("frames_step", "link frames/step", ".1f"),
            ("wire_step", "wire B/step", ".0f"),
            ("wire_peer", "wire B/step/peer", ".0f"),
            ("acks", "ACK-only %", ".1f"),
            ("hdr", "header %", ".1f"),
        ],
        notes=[
            "signed B/step: signed messages in the host's log (each counted once) per step",
            "link frames/step: LinkLayer.stats.sent summed over peers (the wire count from the "
            "driver is the same frames, counted as they leave)",
        ],
    )
    for engine, (peers, options) in games.items():
        t, used, frames = play(engine, peers, options)
        counts = bl.count_log(bytes(t.logs[0]))
        steps = len(counts.kinds)
        for log in t.logs:
            for e in bl.parse_log(bytes(log)).entries:
                if e.kind == bl.EntryKind.MSG:
                    m = parse_unverified(e.data)
                    s, d = sized(e.data)
                    sizes[m.type.name].append(s)
                    dgram[m.type.name].append(d)
                    if s > len(biggest.get(m.type.name, b"")):
                        biggest[m.type.name] = e.data
        signed = sum(counts.msg_bytes.values())
        steps_table.add(
            engine=engine,
            peers=peers,
            steps=steps,
            msgs_step=sum(counts.msg_count.values()) / steps,
            signed_step=signed / steps,
            dgrams_step=used.datagrams / steps,
            frames_step=frames / steps,
            wire_step=used.bytes / steps,
            wire_peer=used.bytes / steps / peers,
            acks=100 * used.by_type["ACK"] / max(1, used.datagrams),
            hdr=100 * LINK_HEADER * used.datagrams / max(1, used.bytes),
        )
        print(f"... {engine}", file=sys.stderr, flush=True)
    steps_table.close()

    synthetic = []
    if "VOTE" not in sizes:
        ident = Identity(bytes(32))
        vote = sign_message(
            ident.signer(), MsgType.VOTE, bytes(32), 1234, 3, bytes(32), ([1], 1)
        ).raw
        s, d = sized(vote)
        sizes["VOTE"].append(s)
        dgram["VOTE"].append(d)
        biggest["VOTE"] = vote
        synthetic.append("VOTE")

    types = bl.Table(
        "signed message sizes by type (all peers' logs of the games below)",
        [
            ("type", "type", ""),
            ("n", "seen", ""),
            ("min", "min B", ""),
            ("mean", "mean B", ".1f"),
            ("max", "max B", ""),
            ("dgram_max", "datagram alone, max B", ""),
            ("input", "input msg", ""),
        ],
        notes=[
            f"datagram alone = {LINK_HEADER}-byte link header + bundle framing (array + bin "
            "header, 3-4 bytes) + the signed message",
        ]
        + (
            [f"synthetic (signed here, no log had one): {', '.join(synthetic)}"]
            if synthetic
            else []
        ),
    )
    for name in [t.name for t in MsgType]:
        if name in sizes:
            v = sizes[name]
            types.add(
                type=name + (" *" if name in synthetic else ""),
                n=len(v),
                min=min(v),
                mean=statistics.fmean(v),
                max=max(v),
                dgram_max=max(dgram[name]),
                input="yes" if name in INPUTS else "",
            )
    types.close()

    parts = bl.Table(
        "anatomy of the largest REVEAL seen (bytes)",
        [("part", "part", ""), ("bytes", "bytes", "")],
        rows=anatomy(biggest["REVEAL"]) if "REVEAL" in biggest else [],
    )
    parts.close()

    worst = max((max(sizes[n]), n) for n in INPUTS if n in sizes)
    targets = [
        {
            "target": "<= 250 bytes per input message (MOVE/ENTROPY/COMMIT/REVEAL) incl. signature",
            "measured": ", ".join(f"{n} max {max(sizes[n])}" for n in INPUTS if n in sizes)
            + f" (largest: {worst[1]} {worst[0]} B)",
            "met": worst[0] <= 250,
        }
    ]
    bl.output("bench_wire", [types, parts, steps_table], targets, args.json)


if __name__ == "__main__":
    main()
