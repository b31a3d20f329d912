"""Fair die rolls: message rounds per roll and roll latency for N peers on loopback UDP.

Every step of the ``benchdice`` engine (scripts/bench/benchgames.py) is one Chance (a
d6), so the game's step rate is the roll rate.  Three measurements, same run:

* protocol (in-process, lanTag's own code on a virtual clock, scripts/bench/benchlib.py
  ``DirectTable``): ENTROPY messages per seat per roll and any other signed message at a
  chance step, counted from a peer's signed log; *rounds per roll* = virtual time per
  roll / the virtual one-way latency (10 ms), i.e. how many sequential message hops a roll
  costs; datagrams per roll and the CPU all N peers spend per roll on one core;
* real: N OS processes, each one peer (``lanTag.peer.runtime.open_host`` / ``open_join`` with a
  ``BotDriver``, its own loopback UDP socket, its signed log written with fsync as
  ``lantag host/join`` do); the roll latency is the time from the last peer applying
  roll k-1 to the last peer applying roll k (CLOCK_MONOTONIC is system-wide);
* floor: N processes doing a raw unsigned all-to-all UDP exchange of the same pattern
  (each sends one datagram of the same size to every other and waits for all), same
  statistic per round;
* wifi (``--wifi``, on by default except with ``--quick``): rolls for N = 4 and 8
  in-process over a simulated Wi-Fi (one-way 3 ms ± 2 ms, 1 % loss, 0.5 % bursts of 5;
  bench_counts.wifi_table): median and p90 time per roll in mean one-way delays (virtual
  time), goal median <= 1.5.  bench_secret.py prints the same table with secret rounds.

Usage::

    python -m scripts.bench.bench_dice            # N = 2 4 8 16, 150 rolls
    python -m scripts.bench.bench_dice --quick    # N = 2 4, 30 rolls
    python -m scripts.bench.bench_dice --peers 4 8 --rolls 300 --logs none --json
    python -m scripts.bench.bench_dice --peers 2 --logs none --wifi-rolls 500
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from scripts.bench import bench_counts
from scripts.bench import benchlib as bl

VIRTUAL_LATENCY = 0.010
WARMUP = 5


def protocol_row(
    n: int, rolls: int, sign_rate: float = 0.0, verify_rate: float = 0.0
) -> dict[str, Any]:
    """Counts and CPU on the in-process network; rounds from a virtual one-way latency."""
    t = bl.DirectTable("benchdice", n, options=(("rolls", rolls),), latency=VIRTUAL_LATENCY)
    t.start()
    w0, v0, c0 = t.net.wire.snapshot(), t.net.now, time.process_time()
    steps = [p.session.step for p in t.peers if p.session is not None]
    assert len(steps) == n  # every peer has its session once the table started
    done = rolls - sum(steps) / n  # rolls left, mean over peers
    t.net.run_until(t.over)
    cpu = time.process_time() - c0
    wire = t.net.wire.minus(w0)
    counts = bl.count_log(bytes(t.logs[0]))
    return {
        "entropy_per_seat": counts.per_seat("chance", "ENTROPY", n),
        "other_msgs": counts.others_at("chance", {"ENTROPY"}),
        "rounds": (t.over_at() - v0) / done / VIRTUAL_LATENCY,
        "dgrams": wire.datagrams / done,
        "bytes": wire.bytes / done,
        "dgram_size": wire.bytes_by_type["DATA"] / max(1, wire.by_type["DATA"]),
        "cpu_ms": cpu / done * 1e3,
        # every seat signs its ENTROPY once and verifies every other seat's
        "sig_ms": (n / sign_rate + n * (n - 1) / verify_rate) * 1e3 if sign_rate else None,
    }


def real_row(n: int, rolls: int, logs: str, size: int, timeout: float) -> dict[str, Any]:
    run = bl.run_real(
        "benchdice",
        n,
        n,
        options=(("rolls", rolls),),
        bot="random",
        timeout=timeout,
        logs=logs != "none",
        fsync=logs == "fsync",
    )
    iv = [d for _, d, kind, _ in run.intervals(WARMUP) if kind == "chance"]
    s = bl.stats_ms(iv)
    floor = bl.stats_ms(bl.run_floor(n, n, rolls + 1, size)[WARMUP:])
    sfloor = bl.stats_ms(bl.run_floor(n, n, rolls + 1, size, signed=True)[WARMUP:])
    counts = None
    if run.logdir:
        host_log = next(p["log"] for p in run.peers if p["seat"] == 0)
        counts = bl.count_log(Path(host_log).read_bytes())
    return {
        "roll_ms": s["median_ms"],
        "roll_p90": s["p90_ms"],
        "rolls": s["n"],
        "floor_ms": floor["median_ms"],
        "ratio": (s["median_ms"] or 0) / floor["median_ms"] if floor["median_ms"] else None,
        "sfloor_ms": sfloor["median_ms"],
        "sratio": (s["median_ms"] or 0) / sfloor["median_ms"] if sfloor["median_ms"] else None,
        "real_dgrams": run.pump_total("sent") / rolls,
        "retrans": run.link_total("retransmitted"),
        "drops": run.kernel_drops,
        "cpu_ms": run.cpu_total() / rolls * 1e3,
        "real_entropy_per_seat": None
        if counts is None
        else counts.per_seat("chance", "ENTROPY", n),
        "timed_out": run.timed_out,
        "notes": sorted(set(run.notes())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_dice", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true", help="N = 2 4, 30 rolls")
    ap.add_argument("--peers", type=int, nargs="+", help="peer counts (default 2 4 8 16)")
    ap.add_argument("--rolls", type=int, help="rolls per game (default 150, quick 30)")
    ap.add_argument(
        "--logs",
        choices=["fsync", "nofsync", "none"],
        nargs="+",
        help="peers' signed logs, one real table row per mode: fsync per batch (what lantag "
        "host/join do), written without fsync, or none (default: fsync none; quick: fsync)",
    )
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per real game")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile the in-process game at the largest N and one real peer process "
        "(extra runs, after the measured ones)",
    )
    ap.add_argument(
        "--wifi",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rolls over a simulated Wi-Fi, in-process (default: on, off with --quick)",
    )
    ap.add_argument(
        "--wifi-peers", type=int, nargs="+", default=[4, 8], help="Wi-Fi table N (default 4 8)"
    )
    ap.add_argument("--wifi-rolls", type=int, help="rolls per Wi-Fi row (default 200, quick 50)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    wifi = (not args.quick) if args.wifi is None else args.wifi
    ns = args.peers or ([2, 4] if args.quick else [2, 4, 8, 16])
    rolls = args.rolls or (30 if args.quick else 150)
    log_modes = args.logs or (["fsync"] if args.quick else ["fsync", "none"])

    proto = bl.Table(
        f"fair d6 roll, protocol (in-process, {rolls} rolls, virtual one-way latency "
        f"{VIRTUAL_LATENCY * 1e3:g} ms)",
        [
            ("n", "peers", ""),
            ("entropy_per_seat", "ENTROPY/seat/roll", ".2f"),
            ("other_msgs", "other msgs/roll", ".2f"),
            ("rounds", "rounds/roll", ".2f"),
            ("dgrams", "datagrams/roll", ".1f"),
            ("bytes", "bytes/roll", ".0f"),
            ("cpu_ms", "CPU ms/roll (all peers, 1 core)", ".2f"),
            ("sig_ms", "sig-only CPU ms/roll", ".2f"),
        ],
        notes=[
            "sig-only: N signs + N(N-1) verifies at the raw Ed25519 rates measured in this run",
        ],
    )
    real = bl.Table(
        f"fair d6 roll, real UDP on loopback (1 process per peer; "
        f"median of {rolls - WARMUP} rolls after {WARMUP} warm-up)",
        [
            ("n", "peers", ""),
            ("logs", "logs", ""),
            ("roll_ms", "roll ms", ".2f"),
            ("roll_p90", "p90 ms", ".2f"),
            ("floor_ms", "floor ms", ".3f"),
            ("ratio", "roll/floor", ".1f"),
            ("sfloor_ms", "signed floor ms", ".3f"),
            ("sratio", "roll/signed floor", ".1f"),
            ("real_dgrams", "datagrams/roll*", ".1f"),
            ("retrans", "retransmits", "d"),
            ("drops", "kernel drops", "d"),
            ("cpu_ms", "CPU ms/roll (all procs)", ".2f"),
        ],
        notes=[
            "floor: raw unsigned UDP, each of N processes sends one datagram (same size as an "
            "ENTROPY datagram) to every other and waits for all; median per round",
            "signed floor: the same exchange, each datagram Ed25519-signed by its sender and "
            "verified by every receiver (libsodium, as lanTag), nothing else",
            "roll ms: from the last peer applying roll k-1 to the last peer applying roll k",
            "logs: fsync = every peer writes its signed log and fsyncs after each batch (what "
            "lantag host/join do; all peers share one disk here); none = no log",
            "* datagrams/roll: every datagram the pumps sent (incl. lobby, ACKs) / rolls",
            "kernel drops: UDP receive-buffer drops in this network namespace during the game",
        ],
    )
    sign_rate, verify_rate = bl.ed25519_rates(0.3 if args.quick else 1.0)
    proto.notes.append(f"raw Ed25519 here: {sign_rate:,.0f} signs/s, {verify_rate:,.0f} verifies/s")
    for n in ns:
        p = protocol_row(n, rolls, sign_rate, verify_rate)
        proto.add(n=n, **p)
        for mode in log_modes:
            r = real_row(n, rolls, mode, int(p["dgram_size"]), args.timeout)
            real.add(n=n, logs=mode, **r)
            if r["timed_out"] or r["notes"]:
                real.notes.append(f"N={n} {mode}: timed_out={r['timed_out']} notes={r['notes']}")
        print(f"... N={n} done", file=sys.stderr)
    proto.close()
    real.close()
    rounds = [r["rounds"] for r in proto.rows]
    per_seat = [r["entropy_per_seat"] for r in proto.rows]
    main_rows = [r for r in real.rows if r["logs"] == log_modes[0]]
    ratios = [r["ratio"] for r in main_rows if r["ratio"] is not None]
    targets = [
        {
            "target": "one message round per roll (protocol: 1 ENTROPY per seat, rounds/roll)",
            "measured": f"ENTROPY/seat/roll {min(per_seat):.2f}-{max(per_seat):.2f}, "
            f"rounds/roll {min(rounds):.2f}-{max(rounds):.2f}",
            "met": all(abs(x - 1) < 0.01 for x in per_seat) and all(x <= 1.05 for x in rounds),
        },
        {
            "target": "one message round per roll "
            f"(latency: roll <= ~1 floor round, logs {log_modes[0]})",
            "measured": "roll/floor "
            + ", ".join(
                f"N={r['n']}: {r['ratio']:.1f}x" for r in main_rows if r["ratio"] is not None
            ),
            "met": bool(ratios) and max(ratios) <= 2.0,
        },
    ]
    tables = [proto, real]
    if wifi:
        rolls_wifi = args.wifi_rolls or (50 if args.quick else 200)
        wt = bench_counts.wifi_table([("roll", n, rolls_wifi) for n in args.wifi_peers])
        tables.append(wt)
        for r in wt.rows:
            targets.append(
                {
                    "target": f"Wi-Fi roll N={r['n']}: median <= {r['goal']:g} one-way delays",
                    "measured": f"median {r['median']:.2f}, p90 {r['p90']:.2f} delays",
                    "met": r["verdict"] == "MET",
                }
            )
    extra: dict[str, Any] = {}
    if args.profile:
        n = max(ns)

        def inproc() -> None:
            t = bl.DirectTable("benchdice", n, options=(("rolls", rolls),))
            t.start()
            t.net.run_until(t.over)

        for label, st in (
            (
                f"in-process benchdice, {n} peers, {rolls} rolls (whole stack, no sockets)",
                bl.profile_call(inproc),
            ),
            (
                f"one real peer process of {n}, benchdice {rolls} rolls (wall clock)",
                bl.profile_real_peer("benchdice", n, n, (("rolls", rolls),)),
            ),
        ):
            cat, text = bl.profile_report(label, st)
            tables.append(cat)
            extra.setdefault("profiles", {})[label] = text
    bl.output("bench_dice", tables, targets, args.json, extra)
    if not args.json:
        for label, text in extra.get("profiles", {}).items():
            print(f"\ncProfile, top functions by own time: {label}\n{text}")


if __name__ == "__main__":
    main()
