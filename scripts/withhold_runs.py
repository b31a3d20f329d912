"""Issue #38's withhold-and-rejoin attack with real processes: what it gains, what it costs.

Each table is the one of ``tests/chaos/test_cheat_processes.py``: ``lantag host`` and an
honest ``lantag join`` (bots, headless, loopback) and a third seat, a 3-seat Prototag game
(``--turn-timeout 6``, the step timeout at its 10 s default).  The third seat is
``python -m tests.support.adversary --cheat withhold-roll`` (tests.support.withholder: it
holds its link of each of its own rolls back until it has read the others', withholds it
when the roll without it has more pips, is dropped and signs a REJOIN), or, for the
baseline, another honest ``lantag join``.

Measured from the logs, not from what the cheater says: every honest log must verify; for
each roll of the cheater's seat (``awaited().seats`` is just it, on the agreed state) at
which it played its seat (its own log holds its link of that roll), the gain is the pips
rolled minus the pips its link would have given (the roll recomputed with that link, which
chains from its previous one: a withheld link is derivable after the fact, SPEC §4.2).  A
roll it did not withhold gains exactly 0.  Printed: the mean gain per such roll with a 95%
confidence interval, how many it withheld, the blames and hand-backs the host's log holds,
and the game's length (wall time and steps) against honest tables run the same way.

    .venv/bin/python -m scripts.withhold_runs --rolls 200 --honest 8 --parallel 2

``--cheat withhold-roll-aware`` is an attacker that knows protocol 6's withheld roll (a roll
withheld by its own seat is that seat's worst, SPEC §5.5): it withholds only when that pays.

Bounded: tables run until the cheater's own rolls reach ``--rolls`` (at most ``--max-games``),
each table given at most the test's 120 s.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from lanTag.fair.hash_chain import chain_step_ok
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import Chance, Roll, State
from lanTag.session import referee
from lanTag.session.features import Features
from lanTag.session.lobby_record import LobbyRecord, start_state
from lanTag.session.messages import MsgType, Signed, parse_unverified
from tests.chaos.test_cheat_processes import (
    OPTIONS,
    PORT,
    SEATED,
    WAIT,
    _lines_until,
    _peer_env,
    _spawn,
)

CHEATS = ("withhold-roll", "withhold-roll-careful", "withhold-roll-leave", "withhold-roll-aware")


@dataclass
class Table:
    codes: list[int | None]
    logs: list[Path]
    seconds: float  # from the third seat's start to the end of the host and the joiner
    out: str  # what the third process said


@dataclass
class Game:
    """One finished table, read from its logs."""

    steps: int
    seconds: float
    cheater: int | None = None
    gains: list[float] = field(default_factory=list)  # one per roll the cheater played
    withheld_gains: list[float] = field(default_factory=list)  # those it withheld
    withheld: int = 0
    out_rolls: int = 0  # rolls of its seat it did not play (a bot's seat by then)
    blames: list[tuple[int, int, str]] = field(default_factory=list)  # host log
    handbacks: int = 0
    drops: int = 0
    mismatches: int = 0  # recomputed rolls that are not the log's (must stay 0)
    lost: bool = False  # the third seat (the cheater's, or an honest one) lost the game


async def run_table(tmp: Path, cheat: str | None) -> Table:
    logs = [tmp / f"peer{i}.lantag" for i in range(3)]
    common = ["--headless", "--bot", "random", "--bind", "127.0.0.1"]
    host = await _spawn(
        [
            "-m", "lanTag", "host", "--game", "prototag", "--seats", "3", "--no-advertise",
            "--turn-timeout", "6", "--log", str(logs[0]), *OPTIONS, *common,
        ],
        _peer_env(tmp, 0),
    )  # fmt: skip
    procs = [host]
    try:
        assert host.stderr is not None
        port = None
        while port is None:
            line = await asyncio.wait_for(host.stderr.readline(), WAIT)
            if not line:
                raise RuntimeError("the host ended before announcing its port")
            m = PORT.search(line)
            port = int(m.group(1)) if m else None
        address = f"127.0.0.1:{port}"
        procs.append(
            await _spawn(["-m", "lanTag", "join", address, "--log", str(logs[1]), *common],
                         _peer_env(tmp, 1))
        )  # fmt: skip
        seated: list[str] = []
        assert procs[1].stdout is not None
        await asyncio.wait_for(_lines_until(procs[1].stdout, SEATED, seated), WAIT)
        third = (
            ["-m", "lanTag", "join", address, "--log", str(logs[2]), *common]
            if cheat is None
            else [
                "-m", "tests.support.adversary", "--cheat", cheat, "--join", address,
                "--log", str(logs[2]), "--max-seconds", str(WAIT),
            ]
        )  # fmt: skip
        start = time.monotonic()
        procs.append(await _spawn(third, _peer_env(tmp, 2)))
        await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs[:2])), WAIT)
        seconds = time.monotonic() - start
        if procs[2].returncode is None:  # a dropped cheater may follow a little longer
            procs[2].terminate()
        out, err = await asyncio.wait_for(procs[2].communicate(), WAIT)
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
    said = (out + err).decode(errors="replace")
    return Table([p.returncode for p in procs], logs, seconds, said)


def _messages(log: bytes) -> list[Signed]:
    return [parse_unverified(e.data) for e in parse_log(log).entries if e.kind == EntryKind.MSG]


def _pips(roll: Roll) -> float:
    return float(sum(sum(values) for values in roll.values))


def read_game(table: Table, cheater_log: bool) -> Game:
    """What the logs say: the host's verified log, and (for a cheat) the cheater's own."""
    host = table.logs[0].read_bytes()
    report = verify_log(host)
    if not (report.valid and report.complete):
        raise RuntimeError(f"the host's log does not verify: {report.failure}")
    for log in table.logs[1:2]:
        other = verify_log(log.read_bytes())
        if not (other.valid and other.complete):
            raise RuntimeError(f"the joiner's log does not verify: {other.failure}")
    game = Game(report.steps, table.seconds)
    game.blames = [(seat, step, code) for seat, step, code, _why in report.blames]
    entries = parse_log(host).entries
    game.handbacks = sum(1 for e in entries if e.kind == EntryKind.NOTE and e.data[0] == "back")
    # The third to join holds seat 2 (seats follow the join order; the cheater says its own).
    game.lost = bool(report.ranking) and 2 in report.ranking[-1]
    if not cheater_log:
        return game
    seat_line = re.search(r"^seat (\d+)", table.out, re.M)
    if seat_line is None:
        raise RuntimeError(f"the cheater never took a seat: {table.out[-400:]}")
    cheater = game.cheater = int(seat_line.group(1))
    game.lost = bool(report.ranking) and cheater in report.ranking[-1]
    record = LobbyRecord.decode(entries[0].data[1])
    inputs = {a.step: a.input for a in report.applied}  # the last decision of each step
    states: dict[int, State] = {}
    state = start_state(record)
    for step in sorted(inputs):
        states[step] = state
        state = state.apply(inputs[step])
    theirs = _messages(host)
    mine = _messages(table.logs[2].read_bytes())
    game.drops = sum(1 for s, _k, c in game.blames if s == cheater and c in ("withheld", "timeout"))
    last = record.seats[cheater].anchor  # its last link the agreed history used
    for step in sorted(inputs):
        state = states[step]
        decision = state.decision()
        h = state.state_hash()
        if not isinstance(decision, Chance):
            for m in theirs:  # a secret round's REVEAL moves its chain on too
                ours = m.type is MsgType.REVEAL and m.seat == cheater and m.step == step
                if ours and m.state_hash == h and chain_step_ok(last, m.payload[2]):
                    last = m.payload[2]
            continue
        links: dict[int, bytes] = {}
        for m in theirs:
            if m.type is MsgType.ENTROPY and m.step == step and m.state_hash == h:
                links.setdefault(m.seat, m.payload[0])
        mine_here = [
            m.payload[0]
            for m in mine
            if m.type is MsgType.ENTROPY and m.seat == cheater and m.step == step
            and m.state_hash == h
        ]  # fmt: skip
        own = mine_here[0] if mine_here else None
        if state.awaited().seats == (cheater,):
            actual = inputs[step]
            assert isinstance(actual, Roll)
            if own is None:
                game.out_rolls += 1  # it did not play its seat then
            else:
                if not chain_step_ok(last, own):
                    game.mismatches += 1  # not the next link of its chain
                used = {seat: link for seat, link in links.items() if seat != cheater}
                with_it = referee.chance_roll(
                    decision, record.game_id, step, {**used, cheater: own}
                )[0]
                if cheater not in links:
                    game.withheld += 1
                recomputed = referee.chance_roll(decision, record.game_id, step, links)[0]
                if cheater not in links and Features.of(record.protocol).withheld:
                    recomputed = state.withheld_roll((cheater,))  # its own: SPEC §5.5
                if recomputed != actual:
                    game.mismatches += 1
                game.gains.append(_pips(actual) - _pips(with_it))
                if cheater not in links:
                    game.withheld_gains.append(game.gains[-1])
        if cheater in links:
            last = links[cheater]
    return game


def mean_ci(xs: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (normal approximation: n is large here)."""
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = sum(xs) / n
    if n == 1:
        return mean, math.nan, math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


async def batch(
    base: Path, first: int, count: int, cheat: str | None
) -> list[Table | BaseException]:
    dirs = []
    for n in range(first, first + count):
        d = base / f"{'honest' if cheat is None else cheat}{n}"
        d.mkdir()
        dirs.append(d)
    got = await asyncio.gather(*(run_table(d, cheat) for d in dirs), return_exceptions=True)
    return list(got)


def play(base: Path, cheat: str | None, games: int, rolls: int, parallel: int) -> list[Game]:
    out: list[Game] = []
    n = 0
    while n < games and (cheat is None or sum(len(g.gains) for g in out) < rolls):
        count = min(parallel, games - n)
        for t in asyncio.run(batch(base, n, count, cheat)):
            n += 1
            if isinstance(t, BaseException):
                print(f"  table {n}: FAILED: {str(t).splitlines()[0] if str(t) else t!r}")
                continue
            try:
                g = read_game(t, cheat is not None)
            except RuntimeError as exc:
                print(f"  table {n}: {exc}")
                continue
            out.append(g)
            print(
                f"  table {n}: exits {t.codes} {g.steps} steps {g.seconds:.1f} s"
                + (
                    ""
                    if cheat is None
                    else f", seat {g.cheater}: {len(g.gains)} own rolls, {g.withheld} withheld,"
                    f" gain {sum(g.gains):+.0f} pips, blames "
                    f"{[(k, c) for s, k, c in g.blames if s == g.cheater]}, "
                    f"hand-backs {g.handbacks}, honest blamed "
                    f"{sorted({s for s, _k, _c in g.blames if s != g.cheater})}, "
                    f"out rolls {g.out_rolls}, mismatches {g.mismatches}"
                ),
                flush=True,
            )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.withhold_runs", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--cheat", default="withhold-roll", choices=CHEATS)
    parser.add_argument("--rolls", type=int, default=200, help="the cheater's own rolls wanted")
    parser.add_argument("--max-games", type=int, default=120)
    parser.add_argument("--honest", type=int, default=8, help="baseline tables (no cheater)")
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--keep", metavar="DIR", help="write the tables' logs here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="withhold_runs.") as scratch:
        base = Path(args.keep or scratch)
        base.mkdir(parents=True, exist_ok=True)
        print(f"{args.cheat}: tables until {args.rolls} of the cheater's own rolls")
        cheated = play(base, args.cheat, args.max_games, args.rolls, args.parallel)
        print(f"honest baseline: {args.honest} tables")
        honest = play(base, None, args.honest, 0, args.parallel)
    gains = [x for g in cheated for x in g.gains]
    withheld = [x for g in cheated for x in g.withheld_gains]
    m, lo, hi = mean_ci(gains)
    wm, wlo, whi = mean_ci(withheld)
    t_c, t_lo, t_hi = mean_ci([g.seconds for g in cheated])
    h_c, h_lo, h_hi = mean_ci([g.seconds for g in honest])
    s_c = mean_ci([float(g.steps) for g in cheated])[0]
    s_h = mean_ci([float(g.steps) for g in honest])[0]
    honest_blamed = sum(1 for g in cheated for s, _k, _c in g.blames if s != g.cheater)
    honest_blamed += sum(len(g.blames) for g in honest)
    codes = sorted({c for g in cheated for s, _k, c in g.blames if s == g.cheater})
    print()
    print(f"| {args.cheat}, {len(cheated)} games | value |")
    print("|---|---|")
    print(f"| cheater's own rolls played | {len(gains)} |")
    print(f"| withheld | {sum(g.withheld for g in cheated)} ({_per_game(cheated, 'withheld')}) |")
    print(f"| mean pip gain per own roll (95% CI) | {m:+.3f} ({lo:+.3f} .. {hi:+.3f}) |")
    print(f"| mean pip gain per withheld roll (95% CI) | {wm:+.2f} ({wlo:+.2f} .. {whi:+.2f}) |")
    print(f"| drops of the cheater per game (max) | {_per_game(cheated, 'drops')} |")
    print(f"| hand-backs per game (max) | {_per_game(cheated, 'handbacks')} |")
    print(f"| the cheater's blames | {', '.join(codes)} |")
    print(f"| rolls of its seat after it was out | {sum(g.out_rolls for g in cheated)} |")
    print(f"| honest seats blamed | {honest_blamed} |")
    print(f"| recomputed rolls not the log's | {sum(g.mismatches for g in cheated)} |")
    print(f"| game seconds: cheat (95% CI) | {t_c:.1f} ({t_lo:.1f} .. {t_hi:.1f}) |")
    print(
        f"| game seconds: honest, {len(honest)} games (95% CI) "
        f"| {h_c:.1f} ({h_lo:.1f} .. {h_hi:.1f}) |"
    )
    print(f"| length factor (seconds; steps) | {t_c / h_c:.2f}; {s_c / s_h:.2f} |")
    lost_c, lc_lo, lc_hi = mean_ci([float(g.lost) for g in cheated])
    lost_h, lh_lo, lh_hi = mean_ci([float(g.lost) for g in honest])
    print(f"| the cheater's seat lost (95% CI) | {lost_c:.2f} ({lc_lo:.2f} .. {lc_hi:.2f}) |")
    print(f"| seat 2 lost, honest games (95% CI) | {lost_h:.2f} ({lh_lo:.2f} .. {lh_hi:.2f}) |")
    return 0


def _per_game(games: list[Game], name: str) -> str:
    values = [getattr(g, name) for g in games]
    if not values:
        return "-"
    return f"{sum(values) / len(values):.2f} a game, at most {max(values)}"


if __name__ == "__main__":
    sys.exit(main())
