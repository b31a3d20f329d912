"""Simultaneous secret rounds (commit + reveal) for N peers; a 64-peer stomptag round.

Every step of the ``benchsecret`` engine (scripts/bench/benchgames.py) is one secret
choice by every seat: each seat sends COMMIT, and once it holds every commitment, REVEAL.

* protocol (in-process ``DirectTable``, N = 2..64): COMMIT and REVEAL per seat per round
  and any other signed message, from a peer's signed log; *rounds* = virtual time per
  secret round / the virtual one-way latency (10 ms); datagrams per round; the CPU all N
  peers spend per round on one core, next to the CPU their signatures alone cost
  (2N signs + 2N(N-1) verifies at the raw Ed25519 rates of the last table);
* real (N <= 16 by default): peers on loopback UDP in their own processes (several per
  process above --max-procs), round latency = last peer applying round k-1 to last peer
  applying round k, against the raw unsigned all-to-all UDP exchange of bench_dice (one
  round; a commit-reveal is inherently two such rounds);
* stomptag: one real game of N (default 64) peers spread over --stomp-procs processes,
  random bots, max_rounds 3: wall time of the 64-seat bid round and of each orders round;
* raw Ed25519 sign/verify per second (``cryptography`` signs, libsodium verifies, as
  lanTag does), the floor of every signed step;
* budget: the protocol table's datagrams per round against the budget of issue "[scale]",
  2.5·N·(N−1) datagrams in 2.00 message rounds, with a verdict per row;
* wifi (``--wifi``, on by default except with ``--quick``): secret rounds and rolls
  (``benchdice``) for N = 4 and 8 in-process over a simulated Wi-Fi (one-way 3 ms ± 2 ms,
  1 % loss, 0.5 % bursts of 5; bench_counts.wifi_table): median and p90 time per step in
  mean one-way delays (virtual time), goals median <= 2.5 (secret) and <= 1.5 (roll).

Usage::

    python -m scripts.bench.bench_secret             # protocol N=2..64, real N<=16, stomptag 64
    python -m scripts.bench.bench_secret --quick     # protocol N<=16, real N=2 8, stomptag 8
    python -m scripts.bench.bench_secret --json --stomp-peers 32
    python -m scripts.bench.bench_secret --peers 0 --real-peers 0   # stomptag only (0: skip)
    python -m scripts.bench.bench_secret --peers 0 --real-peers 0 --stomp-peers 0 --wifi
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from scripts.bench import bench_counts
from scripts.bench import benchlib as bl

VIRTUAL_LATENCY = 0.010
WARMUP = 3


def budget(n: int) -> float:
    """Issue "[scale]": an honest secret round in at most 2.5·N·(N−1) datagrams."""
    return 2.5 * n * (n - 1)


def budget_verdict(row: dict[str, Any], n: int) -> str:
    """MET when the round took at most the budget's datagrams in 2.00 message rounds."""
    met = row["dgrams"] <= budget(n) and round(row["rounds"], 2) == 2.0
    return "MET" if met else "MISSED"


def protocol_row(n: int, rounds: int, sign_rate: float, verify_rate: float) -> dict[str, Any]:
    t = bl.DirectTable("benchsecret", n, options=(("rounds", rounds),), latency=VIRTUAL_LATENCY)
    t.start()
    w0, v0, c0 = t.net.wire.snapshot(), t.net.now, time.process_time()
    steps = [p.session.step for p in t.peers if p.session is not None]
    assert len(steps) == n  # every peer has its session once the table started
    done = rounds - sum(steps) / n
    t.net.run_until(t.over)
    cpu = time.process_time() - c0
    wire = t.net.wire.minus(w0)
    counts = bl.count_log(bytes(t.logs[0]))
    sig_cpu = 2 * n / sign_rate + 2 * n * (n - 1) / verify_rate
    return {
        "commit": counts.per_seat("secret", "COMMIT", n),
        "reveal": counts.per_seat("secret", "REVEAL", n),
        "other_msgs": counts.others_at("secret", {"COMMIT", "REVEAL"}),
        "rounds": (t.over_at() - v0) / done / VIRTUAL_LATENCY,
        "dgrams": wire.datagrams / done,
        "cpu_ms": cpu / done * 1e3,
        "cpu_peer_ms": cpu / done / n * 1e3,
        "sig_ms": sig_cpu * 1e3,
        "dgram_size": wire.bytes_by_type["DATA"] / max(1, wire.by_type["DATA"]),
        "measured_rounds": round(done, 1),
    }


def real_row(
    n: int, rounds: int, procs: int, size: int, logs: str, timeout: float
) -> dict[str, Any]:
    run = bl.run_real(
        "benchsecret",
        n,
        procs,
        options=(("rounds", rounds),),
        timeout=timeout,
        logs=logs != "none",
        fsync=logs == "fsync",
    )
    iv = [d for _, d, kind, _ in run.intervals(WARMUP) if kind == "secret"]
    s = bl.stats_ms(iv)
    floor = bl.stats_ms(bl.run_floor(n, procs, rounds + 1, size)[WARMUP:])
    sfloor = bl.stats_ms(bl.run_floor(n, procs, rounds + 1, size, signed=True)[WARMUP:])
    f = floor["median_ms"]
    sf = sfloor["median_ms"]
    return {
        "procs": procs,
        "round_ms": s["median_ms"],
        "round_p90": s["p90_ms"],
        "floor_ms": f,
        "ratio1": s["median_ms"] / f if f and s["median_ms"] else None,
        "ratio2": s["median_ms"] / (2 * f) if f and s["median_ms"] else None,
        "sfloor_ms": sf,
        "sratio2": s["median_ms"] / (2 * sf) if sf and s["median_ms"] else None,
        "retrans": run.link_total("retransmitted"),
        "drops": run.kernel_drops,
        "cpu_ms": run.cpu_total() / rounds * 1e3,
        "timed_out": run.timed_out,
        "notes": sorted(set(run.notes())),
    }


def stomptag_inproc(n: int) -> dict[str, Any]:
    """The stomptag bid round (every seat secret) in-process: CPU of all peers, datagrams."""
    t = bl.DirectTable("stomptag", n)
    t.start()
    t.run_steps(1)  # minimum bids (chance)
    w0, c0 = t.net.wire.snapshot(), time.process_time()
    t.run_steps(1)
    cpu = time.process_time() - c0
    return {"n": n, "cpu_ms": cpu * 1e3, "dgrams": t.net.wire.minus(w0).datagrams}


def stomptag_rows(
    n: int, procs: int, timeout: float, logs: str
) -> tuple[list[dict[str, Any]], Any]:
    run = bl.run_real(
        "stomptag",
        n,
        procs,
        options=(("max_rounds", 3),),
        bot="random",
        timeout=timeout,
        logs=logs != "none",
        fsync=logs == "fsync",
    )
    applied = run.all_applied()
    rows = []
    prev_t = None
    prev_orders_t = None
    for k in sorted(applied):
        t, kind, nseats = applied[k]
        row: dict[str, Any] = {"step": k, "kind": kind, "seats": nseats or None}
        if prev_t is not None:
            row["step_ms"] = (t - prev_t) * 1e3
        if kind == "secret" and prev_orders_t is not None:
            row["round_ms"] = (t - prev_orders_t) * 1e3
        if kind == "secret":
            prev_orders_t = t
        rows.append(row)
        prev_t = t
    return rows, run


def main() -> None:
    ap = argparse.ArgumentParser(
        prog="python -m scripts.bench.bench_secret", description=__doc__.splitlines()[0]
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--peers", type=int, nargs="+", help="protocol table N (default 2..64)")
    ap.add_argument("--real-peers", type=int, nargs="+", help="real-socket N (default 2 4 8 16)")
    ap.add_argument("--rounds", type=int, help="secret rounds per real game (default 40)")
    ap.add_argument("--max-procs", type=int, default=16, help="processes for the real games")
    ap.add_argument("--stomp-peers", type=int, help="stomptag peers (default 64, quick 8; 0: skip)")
    ap.add_argument("--stomp-procs", type=int, default=4, help="processes for the stomptag game")
    ap.add_argument(
        "--logs",
        choices=["fsync", "nofsync", "none"],
        nargs="+",
        help="real-table log modes, a row each (default: fsync none; quick: fsync)",
    )
    ap.add_argument(
        "--stomp-logs",
        choices=["fsync", "nofsync", "none"],
        default="nofsync",
        help="stomptag game's logs (default nofsync: several peers share a process and a "
        "disk here, so one peer's fsync would stall the others, which 64 laptops would not)",
    )
    ap.add_argument("--timeout", type=float, default=240.0)
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also cProfile: the stomptag bid round in-process at --stomp-peers, and one real "
        "peer process of an N=8 benchsecret game (extra runs, after the measured ones)",
    )
    ap.add_argument(
        "--wifi",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="secret rounds and rolls over a simulated Wi-Fi, in-process (default: on, "
        "off with --quick)",
    )
    ap.add_argument(
        "--wifi-peers", type=int, nargs="+", default=[4, 8], help="Wi-Fi table N (default 4 8)"
    )
    ap.add_argument(
        "--wifi-steps",
        type=int,
        nargs=2,
        metavar=("SECRET", "ROLLS"),
        help="secret rounds and rolls measured per Wi-Fi row (default 40 200, quick 10 50)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    wifi = (not args.quick) if args.wifi is None else args.wifi
    wifi_secret, wifi_rolls = args.wifi_steps or ((10, 50) if args.quick else (40, 200))
    ns = [n for n in args.peers or ([2, 4, 8, 16] if args.quick else [2, 4, 8, 16, 32, 64]) if n]
    real_ns = [n for n in args.real_peers or ([2, 8] if args.quick else [2, 4, 8, 16]) if n]
    rounds = args.rounds or (10 if args.quick else 40)
    stomp_n = args.stomp_peers if args.stomp_peers is not None else (8 if args.quick else 64)
    log_modes = args.logs or (["fsync"] if args.quick else ["fsync", "none"])

    sign_rate, verify_rate = bl.ed25519_rates(0.3 if args.quick else 1.0)
    ed = bl.Table(
        "raw Ed25519 (signs: cryptography, verifies: libsodium), one core",
        [("op", "operation", ""), ("per_s", "per second", ".0f"), ("us", "us each", ".1f")],
    )
    ed.add(op="sign", per_s=sign_rate, us=1e6 / sign_rate)
    ed.add(op="verify", per_s=verify_rate, us=1e6 / verify_rate)
    ed.close()

    proto = bl.Table(
        f"secret round (commit + reveal), protocol (in-process, virtual one-way latency "
        f"{VIRTUAL_LATENCY * 1e3:g} ms)",
        [
            ("n", "peers", ""),
            ("measured_rounds", "rounds run", ""),
            ("commit", "COMMIT/seat", ".2f"),
            ("reveal", "REVEAL/seat", ".2f"),
            ("other_msgs", "other msgs", ".2f"),
            ("rounds", "msg rounds", ".2f"),
            ("dgrams", "datagrams", ".0f"),
            ("cpu_ms", "CPU ms (all peers)", ".1f"),
            ("cpu_peer_ms", "CPU ms/peer", ".2f"),
            ("sig_ms", "sig-only CPU ms", ".1f"),
            ("budget", "budget 2.5N(N-1)", ".0f"),
            ("verdict", "verdict", ""),
        ],
        notes=[
            "per secret round; CPU on one core, the whole stack of every peer (no sockets)",
            "budget (issue [scale]): an honest secret round in at most 2.5·N·(N−1) "
            "datagrams and 2.00 message rounds; verdict MET when both hold",
        ],
    )
    sizes = {}
    for n in ns:
        r = max(3, min(rounds, 240 // n))  # keep N=64 bounded
        row = protocol_row(n, r, sign_rate, verify_rate)
        sizes[n] = int(row["dgram_size"])
        proto.add(n=n, budget=budget(n), verdict=budget_verdict(row, n), **row)
        print(f"... protocol N={n}", file=sys.stderr, flush=True)
    proto.close()

    real = bl.Table(
        f"secret round, real UDP on loopback (median of {rounds - WARMUP} "
        f"rounds after {WARMUP} warm-up)",
        [
            ("n", "peers", ""),
            ("logs", "logs", ""),
            ("procs", "procs", ""),
            ("round_ms", "round ms", ".2f"),
            ("round_p90", "p90 ms", ".2f"),
            ("floor_ms", "floor ms", ".3f"),
            ("ratio1", "round/floor", ".1f"),
            ("ratio2", "round/(2 floor)", ".1f"),
            ("sfloor_ms", "signed floor ms", ".3f"),
            ("sratio2", "round/(2 signed floor)", ".1f"),
            ("retrans", "retransmits", "d"),
            ("drops", "kernel drops", "d"),
            ("cpu_ms", "CPU ms/round (all procs)", ".1f"),
        ],
        notes=[
            "floor: one raw unsigned all-to-all UDP exchange (bench_dice's floor), median per "
            "round; a commit-reveal needs two, so round/(2 floor) = 1 is the ideal",
            "signed floor: the same exchange with every datagram Ed25519-signed and verified by "
            "every receiver (libsodium, as lanTag), nothing else",
            "logs: fsync = every peer writes its signed log and fsyncs after each batch (what "
            "lantag host/join do; all peers share one disk here); none = no log",
        ],
    )
    for n in real_ns:
        size = sizes.get(n) or 250
        for mode in log_modes:
            r = real_row(n, rounds, min(n, args.max_procs), size, mode, args.timeout)
            real.add(n=n, logs=mode, **r)
            if r["timed_out"] or r["notes"]:
                real.notes.append(f"N={n} {mode}: timed_out={r['timed_out']} notes={r['notes']}")
        print(f"... real N={n}", file=sys.stderr, flush=True)
    real.close()

    tables = [ed] + [t for t in (proto, real) if t.rows]  # --peers 0 skips one
    targets: list[dict[str, Any]] = []
    if proto.rows:
        missed = [r["n"] for r in proto.rows if r["verdict"] != "MET"]
        targets.append(
            {
                "target": "secret round <= 2.5·N·(N−1) datagrams in 2.00 message rounds "
                "(issue [scale])",
                "measured": ", ".join(
                    f"N={r['n']}: {r['dgrams']:.0f} dgrams / {budget(r['n']):.0f}, "
                    f"{r['rounds']:.2f} rounds"
                    for r in proto.rows
                ),
                "met": not missed,
            }
        )
    if wifi:
        runs = [("secret", n, wifi_secret) for n in args.wifi_peers] + [
            ("roll", n, wifi_rolls) for n in args.wifi_peers
        ]
        wt = bench_counts.wifi_table(runs)
        tables.append(wt)
        for r in wt.rows:
            targets.append(
                {
                    "target": f"Wi-Fi {r['kind']} N={r['n']}: median <= {r['goal']:g} "
                    "one-way delays",
                    "measured": f"median {r['median']:.2f}, p90 {r['p90']:.2f} delays",
                    "met": r["verdict"] == "MET",
                }
            )
    r8 = next((r for r in real.rows if r["n"] == 8 and r["logs"] == log_modes[0]), None)
    if r8 is not None and r8["ratio1"] is not None:
        targets.append(
            {
                "target": "N=8 secret round <= 2x the unsigned floor "
                f"(one all-to-all round; logs {log_modes[0]})",
                "measured": f"{r8['round_ms']:.2f} ms = {r8['ratio1']:.1f}x floor "
                f"({r8['ratio2']:.1f}x two floor rounds)",
                "met": r8["ratio1"] <= 2.0,
            }
        )
    if stomp_n:
        inproc = bl.Table(
            f"stomptag bid round in-process ({stomp_n} peers, every seat secret, no sockets)",
            [
                ("n", "peers", ""),
                ("cpu_ms", "CPU ms (all peers)", ".0f"),
                ("dgrams", "datagrams", "d"),
            ],
            rows=[stomptag_inproc(stomp_n)],
        )
        inproc.close()
        tables.append(inproc)
        rows, run = stomptag_rows(
            stomp_n, min(args.stomp_procs, stomp_n), args.timeout, args.stomp_logs
        )
        st = bl.Table(
            f"stomptag, {stomp_n} peers over {min(args.stomp_procs, stomp_n)} processes, real "
            f"UDP on loopback, random bots, max_rounds 3, logs {args.stomp_logs} "
            "(times: last peer applying each step)",
            [
                ("step", "step", ""),
                ("kind", "kind", ""),
                ("seats", "secret seats", ""),
                ("step_ms", "step ms", ".0f"),
                ("round_ms", "round ms", ".0f"),
            ],
            rows=rows,
            notes=[
                f"setup+game wall {run.wall:.1f} s, CPU of all processes during the game "
                f"{run.cpu_total():.1f} s, retransmits {run.link_total('retransmitted')}, "
                f"kernel UDP receive-buffer drops {run.kernel_drops}, "
                f"timed out: {run.timed_out}, notes: {sorted(set(run.notes()))}",
                "round ms: from the previous secret step (or game start) to this one, "
                "including the chance steps in between (teleports, placement)",
            ],
        )
        st.close()
        tables.append(st)
        orders = [r["round_ms"] for r in rows if r.get("round_ms") is not None]
        bid = next((r for r in rows if r["kind"] == "secret"), None)
        if stomp_n >= 64:
            # The target (issue [scale], done-when) is the bid round, every seat secret; the
            # orders rounds are reported beside it (the first includes a chance step).
            bid_ms = (bid or {}).get("step_ms")
            measured = (
                f"bid round {bid['step_ms']:.0f} ms" if bid and bid.get("step_ms") else "bid n/a"
            ) + (f", orders rounds {', '.join(f'{x:.0f}' for x in orders)} ms" if orders else "")
            targets.append(
                {
                    "target": f"{stomp_n}-peer stomptag bid round < 1 s",
                    "measured": measured,
                    "met": None if bid_ms is None else bid_ms < 1000,
                }
            )
    extra: dict[str, Any] = {}
    if args.profile:
        profiles = []
        if stomp_n:
            t = bl.DirectTable("stomptag", stomp_n)
            t.start()
            t.run_steps(1)  # minimum bids (chance)
            profiles.append(
                (
                    f"in-process stomptag bid round, {stomp_n} peers, all seats secret "
                    "(no sockets)",
                    bl.profile_call(lambda: t.run_steps(1)),
                )
            )
        profiles.append(
            (
                f"one real peer process of 8, benchsecret {rounds} rounds (wall clock)",
                bl.profile_real_peer("benchsecret", 8, 8, (("rounds", rounds),)),
            )
        )
        for label, st in profiles:
            cat, text = bl.profile_report(label, st)
            tables.append(cat)
            extra.setdefault("profiles", {})[label] = text
    bl.output("bench_secret", tables, targets, args.json, extra)
    if not args.json:
        for label, text in extra.get("profiles", {}).items():
            print(f"\ncProfile, top functions by own time: {label}\n{text}")


if __name__ == "__main__":
    main()
