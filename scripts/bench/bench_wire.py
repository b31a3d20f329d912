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

* worst case per engine: the largest LEGAL input message, built and signed by hand, so
  the verdict does not rest on what random games happened to send.  The largest action
  of each engine is reasoned from its action grammar (``HAND_WORST``, and for stomptag
  ``stomptag_worst`` over every move count up to ``max_moves``' maximum), at the option
  values that make it largest, signed with step 2**32-1 (the protocol's widest step
  int) and the engine's highest seat number (``max_seats - 1``: the widest seat int a
  game of that engine can have; the protocol's cap, 65535, would add 1 B to stomptag
  only).  Random playouts at those options then look at legal actions (every one, or a
  sample of a huge lazy space) to confirm that none is larger.

Target: every input message (MOVE, ENTROPY, COMMIT, REVEAL) <= 250 bytes signed: both
the largest one the games sent and the worst case.

Usage::

    python -m scripts.bench.bench_wire           # five engines, 4 peers
    python -m scripts.bench.bench_wire --quick   # prototag + stomptag, short games
    python -m scripts.bench.bench_wire --worst   # only the worst-case table
    python -m scripts.bench.bench_wire --json
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from lanTag import wire
from lanTag.identity import Identity
from lanTag.net.frame import HEADER
from lanTag.rules.base import Action, Game, Over, Simultaneous, Turn
from lanTag.rules.playout import random_input
from lanTag.rules.registry import get_game
from lanTag.session.messages import MsgType, pack_bundle, parse_unverified, sign_message
from scripts.bench import benchlib as bl

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


# --------------------------------------------------------------------------- worst case

WIDEST_STEP = 2**32 - 1  # the protocol's largest step (messages.py: 0 <= step < 2**32)
NONCE = bytes(32)  # COMMIT, ENTROPY and REVEAL carry fixed 32-byte values
# Option values that make each engine's actions (and seat numbers) largest.
WORST_OPTIONS: dict[str, dict[str, object]] = {
    "prototag": {},
    "assassination": {},
    "boardtag": {},
    # max_moves at its maximum; free upgrades and plenty of points let random play buy
    # moves up to it (the search below), and teleports open after any tag.
    "stomptag": {"max_moves": 12, "upgrade_cost": 0, "start_points": 1000, "max_rounds": 40},
    # pawn numbers up to 8 (still one-byte ints); ringfort seats 2-8 players of 9 pawns
    "tagem": {"pawns": 9, "map": "ringfort"},
}
# The largest legal action per message type, reasoned from each engine's grammar; every
# alternative listed in a comment is no larger in msgpack (fixstr: 1 + length bytes).
HAND_WORST: dict[str, dict[str, Action]] = {
    "prototag": {
        "MOVE": Action("step", ("n",)),  # step n|e|s|w
        "REVEAL": Action("rps", ("scissors",)),  # rps rock|paper|scissors (simultaneous)
    },
    "assassination": {
        # reroll, keep, step n|e|s|w, leave <square next to the Safe House, e.g. c4>
        "MOVE": Action("leave", ("c4",)),
    },
    "boardtag": {
        # place|pick|tag <square a1..h8>, jump ffl|ffr|llf|rrf, step n..nw, face n|e|s|w,
        # stay, done, end: "place h8" and "jump ffl" are the longest (10 B)
        "MOVE": Action("place", ("h8",)),
    },
    "tagem": {
        "MOVE": Action("attack", (8, "n")),  # move|attack <pawn 0-8> <n|e|s|w>, end
    },
}


def stomptag_worst(max_moves: int) -> Action:
    """Stomptag's largest legal order: every move a teleport (the longest move, however
    moves are spelled), stride (longer than stomp), and orders+up (longer than orders) when
    an upgrade is still allowed (fewer than max_moves moves), over every move count."""
    from lanTag.games.stomptag.orders import TELEPORT, Order, check_order

    candidates = []
    for moves in range(1, max_moves + 1):
        upgrade_ok = moves < max_moves
        for stomp in (False, True):
            for upgrade in (False, True) if upgrade_ok else (False,):
                action = Order(stomp, (TELEPORT,) * moves, upgrade).action()
                check_order(action, moves, True, upgrade_ok)  # the engine agrees it is legal
                candidates.append(action)
    return max(candidates, key=lambda a: len(wire.pack(a.to_msgpack())))


def hand_worst(engine: str) -> dict[str, Action]:
    if engine == "stomptag":
        spec = next(s for s in get_game(engine).option_specs if s.name == "max_moves")
        assert spec.max is not None
        return {"REVEAL": stomptag_worst(spec.max)}
    return HAND_WORST[engine]


def action_bytes(action: Action) -> int:
    return len(wire.pack(action.to_msgpack()))


def search_largest(
    engine: str, games: int, seed: int = 0, sample: int = 200
) -> tuple[dict[str, tuple[int, Action]], int]:
    """Random playouts at WORST_OPTIONS: the largest legal action seen per message type
    (MOVE on a turn, REVEAL in a simultaneous choice) and how many actions were looked at.
    Spaces above ``sample`` actions (stomptag's orders) are sampled: both ends and
    ``sample`` random indices (an order's size depends only on its verb, mode and move
    count, so each size class is hit with near certainty)."""
    game: type[Game] = get_game(engine)
    rng = random.Random(f"worst-{engine}-{seed}")
    best: dict[str, tuple[int, Action]] = {}
    looked = 0
    for _ in range(games):
        seats = rng.randint(game.min_seats, min(game.max_seats, 6))
        state = game.new_state(seats, WORST_OPTIONS[engine])
        for _ in range(game.playout_step_bound(seats)):
            d = state.decision()
            if isinstance(d, Over):
                break
            if isinstance(d, Turn | Simultaneous):
                kind = "MOVE" if isinstance(d, Turn) else "REVEAL"
                for seat in (d.seat,) if isinstance(d, Turn) else d.seats:
                    legal = state.legal_actions(seat)
                    n = len(legal)
                    picks = (
                        range(n)
                        if n <= sample
                        else [0, n - 1, *(rng.randrange(n) for _ in range(sample))]
                    )
                    for i in picks:
                        action = legal[i]
                        size = action_bytes(action)
                        looked += 1
                        if size > best.get(kind, (-1, action))[0]:
                            best[kind] = (size, action)
            state = state.apply(random_input(state, rng.randrange))
    return best, looked


def signed_size(msg_type: MsgType, seat: int, action: Action | None = None) -> int:
    """The signed message of that type (with ``action`` for a MOVE or REVEAL, else a 32-byte
    value) at the widest step, signed with a real key and parsed back as a peer would."""
    ident = Identity(hashlib.sha256(b"bench_wire worst case").digest())
    payload: tuple[Any, ...] = (NONCE,)
    if msg_type in (MsgType.MOVE, MsgType.REVEAL):
        assert action is not None
        # a REVEAL's nonce and chain link, and (protocol 6) the vector of commitments it names
        extra = (NONCE, NONCE, NONCE) if msg_type is MsgType.REVEAL else ()
        payload = (action.to_msgpack(), *extra)
    msg = sign_message(ident.signer(), msg_type, bytes(32), WIDEST_STEP, seat, bytes(32), payload)
    assert msg.parsed_action == action  # the shape check passed: a message a peer takes
    return len(msg.raw)


def worst_case_table(engines: list[str], games: int) -> tuple[bl.Table, int]:
    """One row per engine and input message type; returns the table and its largest size."""
    table = bl.Table(
        "worst case: the largest legal input message per engine, signed (step 2**32-1, seat "
        "max_seats-1)",
        [
            ("engine", "engine", ""),
            ("type", "type", ""),
            ("seat", "seat", ""),
            ("action", "largest legal action (wire form)", ""),
            ("options", "options", ""),
            ("action_b", "action B", ""),
            ("seen_b", "search: largest seen B", ""),
            ("looked", "actions looked at", ""),
            ("signed", "signed B", ""),
        ],
        notes=[
            "largest legal action: reasoned from the grammar (bench_wire.HAND_WORST, "
            "stomptag_worst); the search plays random games at those options and must find "
            "nothing larger (a larger find replaces it and is flagged !)",
            "COMMIT and ENTROPY carry a 32-byte value whatever the engine: their rows differ "
            "only by the seat int",
            "seat: the engine's highest seat number; the protocol's seat cap (65535) would "
            "add 1 B to a row whose seat is above 127 (stomptag)",
        ],
    )
    largest = 0
    for engine in engines:
        game = get_game(engine)
        seat = game.max_seats - 1
        options = WORST_OPTIONS[engine]
        seen, looked = search_largest(engine, games)
        hand = hand_worst(engine)
        kinds = sorted(set(hand) | set(seen), key=["MOVE", "REVEAL"].index)
        for kind in kinds:
            action = hand.get(kind)
            size = action_bytes(action) if action is not None else -1
            found = seen.get(kind)
            flag = ""
            if found is not None and found[0] > size:
                action, size, flag = found[1], found[0], " !"
            assert action is not None
            signed = signed_size(MsgType[kind], seat, action)
            largest = max(largest, signed)
            table.add(
                engine=engine,
                type=kind,
                seat=seat,
                action=str(action) + flag,
                options=" ".join(f"{k}={v}" for k, v in options.items()) or "defaults",
                action_b=size,
                seen_b=found[0] if found is not None else None,
                looked=looked,
                signed=signed,
            )
        has_secret = "REVEAL" in kinds
        for kind in ("COMMIT", "ENTROPY") if has_secret else ("ENTROPY",):
            signed = signed_size(MsgType[kind], seat)
            largest = max(largest, signed)
            table.add(engine=engine, type=kind, seat=seat, action="(32-byte value)", signed=signed)
    return table.close(), largest


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_wire", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--worst", action="store_true", help="only the worst-case table")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    games = QUICK if args.quick else GAMES
    worst, worst_max = worst_case_table(list(GAMES), 3 if args.quick else 20)
    if args.worst:
        bl.output("bench_wire", [worst], [_target(None, worst_max)], args.json)
        return

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

    targets = [_target(sizes, worst_max)]
    bl.output("bench_wire", [types, parts, steps_table, worst], targets, args.json)


def _target(sizes: Mapping[str, list[int]] | None, worst_max: int) -> dict[str, Any]:
    """MET only if the largest message the games sent AND the worst case fit in 250 B."""
    measured, met = [], worst_max <= 250
    if sizes is not None:
        seen = max((max(sizes[n]), n) for n in INPUTS if n in sizes)
        measured.append(
            "seen: "
            + ", ".join(f"{n} max {max(sizes[n])}" for n in INPUTS if n in sizes)
            + f" (largest: {seen[1]} {seen[0]} B)"
        )
        met = met and seen[0] <= 250
    measured.append(f"worst legal case: {worst_max} B")
    return {
        "target": "<= 250 bytes per input message (MOVE/ENTROPY/COMMIT/REVEAL) incl. signature",
        "measured": "; ".join(measured),
        "met": met,
    }


if __name__ == "__main__":
    main()
