"""Balance simulator: many games of one engine, in-process, rules and bots only (no network).

``simulate(engine, games, seed, ...)`` plays ``games`` games, each from its own
``random.Random`` seeded by (engine, seed, game index), and sums them up in a
:class:`SimReport`: the game-length distribution, win rates by seat and by starting
role, and the engine's own figures (lanTag/sim/metrics.py).  Games are spread over
worker processes in chunks; since each game's randomness depends only on its index and
results are gathered in index order, a seed gives the same report for any worker count.

Chance outcomes come from the seeded generator here, not from the fair-randomness
protocol: the simulator is a design tool outside the lockstep core.  Bots get the same
generator's ``randrange`` as their ``below`` source.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanTag.bots import BOTS, BotFn
from lanTag.rules.base import (
    Chance,
    Game,
    Input,
    Joint,
    Move,
    OptionError,
    Outcome,
    Over,
    State,
    Turn,
)
from lanTag.rules.playout import random_roll
from lanTag.rules.registry import get_game
from lanTag.sim.metrics import LIMIT, Figure, figures_for, tracker_for, unit_for

__all__ = ["GameResult", "SimReport", "format_report", "plot", "simulate"]

Progress = Callable[[int, int], None]  # (games finished, games in all)

DEFAULT_SEATS = 4
# Tag 'em's first heuristic never attacks in games of three or more; heuristic2 is the same
# bot with a Tag 'em that plays to end the game (docs/bots.md).  A simulation writes no
# log, so its default can move on without touching what logs replay.
DEFAULT_BOT = "heuristic2"
MIN_STEP_CAP = 20_000  # a game still running after this many inputs is stopped and counted
CAPPED = "unfinished (step cap)"


@dataclass(frozen=True, slots=True)
class GameResult:
    """One simulated game.  ``ranking`` is empty when the game hit the step cap."""

    index: int
    steps: int
    length: int  # in the engine's unit (SimReport.unit)
    ranking: tuple[tuple[int, ...], ...]
    roles: tuple[str, ...]  # each seat's starting role
    values: tuple[tuple[str, int], ...]  # the engine's figures for this game
    ending: str = CAPPED  # how it ended: a goal of the rules, metrics.LIMIT, or CAPPED

    @property
    def capped(self) -> bool:
        return not self.ranking

    def value(self, name: str) -> int:
        return dict(self.values)[name]


@dataclass(frozen=True)
class SimReport:
    engine: str
    seats: int
    games: int
    seed: int
    options: dict[str, int | bool | str]
    bots: tuple[str, ...]
    unit: str
    figures: tuple[Figure, ...]
    results: tuple[GameResult, ...]
    elapsed: float = field(default=0.0, compare=False)  # wall time; not part of the result

    # ------------------------------------------------------------------ summaries

    @property
    def finished(self) -> tuple[GameResult, ...]:
        return tuple(r for r in self.results if not r.capped)

    @property
    def capped(self) -> int:
        return sum(1 for r in self.results if r.capped)

    @property
    def lengths(self) -> list[int]:
        return [r.length for r in self.results]

    def endings(self) -> dict[str, int]:
        """How many games ended each way (the rules' goals, the limit, the step cap), goals
        first, in order of first appearance."""
        counts: dict[str, int] = {}
        for r in sorted(self.results, key=lambda r: r.ending in (LIMIT, CAPPED)):
            counts[r.ending] = counts.get(r.ending, 0) + 1
        return counts

    def wins_by_seat(self) -> list[int]:
        """Games each seat finished in the top group (shared first places count)."""
        return [sum(1 for r in self.finished if s in r.ranking[0]) for s in range(self.seats)]

    def last_by_seat(self) -> list[int]:
        """Games each seat finished in the bottom group (games where not all tie)."""
        return [
            sum(1 for r in self.finished if len(r.ranking) > 1 and s in r.ranking[-1])
            for s in range(self.seats)
        ]

    def sole_wins_by_seat(self) -> list[int]:
        """Games each seat won alone."""
        return [sum(1 for r in self.finished if r.ranking[0] == (s,)) for s in range(self.seats)]

    def edge_by_seat(self) -> list[float]:
        """Mean over finished games of (seats ranked below - seats ranked above) / (seats - 1):
        +1 always alone on top, -1 always alone at the bottom, 0 for an average seat when
        every seat is played the same way."""
        out = []
        for s in range(self.seats):
            total = 0
            for r in self.finished:
                place = next(i for i, group in enumerate(r.ranking) if s in group)
                above = sum(len(g) for g in r.ranking[:place])
                below = sum(len(g) for g in r.ranking[place + 1 :])
                total += below - above
            done = len(self.finished)
            out.append(total / (done * (self.seats - 1)) if done else 0.0)
        return out

    def by_role(self) -> dict[str, tuple[int, int, int]]:
        """role -> (seat-games, wins, last places), in order of first appearance."""
        table: dict[str, list[int]] = {}
        for r in self.finished:
            for seat, role in enumerate(r.roles):
                row = table.setdefault(role, [0, 0, 0])
                row[0] += 1
                row[1] += seat in r.ranking[0]
                row[2] += len(r.ranking) > 1 and seat in r.ranking[-1]
        return {role: (n, w, last) for role, (n, w, last) in table.items()}

    def figure_value(self, figure: Figure) -> float:
        """A rate (0..1) or a mean over finished games."""
        done = self.finished
        if not done:
            return 0.0
        return sum(r.value(figure.name) for r in done) / len(done)

    def length_stats(self) -> dict[str, float]:
        data = sorted(self.lengths)
        if not data:
            return {}
        return {
            "min": data[0],
            "p10": _quantile(data, 0.1),
            "median": _quantile(data, 0.5),
            "mean": round(sum(data) / len(data), 2),
            "p90": _quantile(data, 0.9),
            "max": data[-1],
        }

    def histogram(self, bins: int = 12) -> list[tuple[int, int, int]]:
        """(low, high, count) bins covering the lengths, ``high`` inclusive."""
        data = self.lengths
        if not data:
            return []
        low, high = min(data), max(data)
        width = max(1, math.ceil((high - low + 1) / bins))
        counts: dict[int, int] = {}
        for x in data:
            counts[(x - low) // width] = counts.get((x - low) // width, 0) + 1
        return [
            (low + i * width, low + (i + 1) * width - 1, counts.get(i, 0))
            for i in range((high - low) // width + 1)
        ]

    # ------------------------------------------------------------------ output

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary (no per-game rows, no wall time: the same seed gives the
        same JSON)."""
        done = len(self.finished)
        wins, last = self.wins_by_seat(), self.last_by_seat()
        sole, edge = self.sole_wins_by_seat(), self.edge_by_seat()
        return {
            "engine": self.engine,
            "seats": self.seats,
            "games": self.games,
            "finished": done,
            "capped": self.capped,
            "seed": self.seed,
            "options": self.options,
            "bots": list(self.bots),
            "length": {
                "unit": self.unit,
                **self.length_stats(),
                "histogram": [list(b) for b in self.histogram()],
            },
            "endings": self.endings(),
            "steps_mean": _ratio(sum(r.steps for r in self.results), len(self.results)),
            "by_seat": [
                {
                    "seat": s,
                    "bot": self.bots[s],
                    "wins": wins[s],
                    "win_rate": _ratio(wins[s], done),
                    "sole_wins": sole[s],
                    "last": last[s],
                    "last_rate": _ratio(last[s], done),
                    "edge": round(edge[s], 4),
                }
                for s in range(self.seats)
            ],
            "by_role": [
                {
                    "role": role,
                    "seat_games": n,
                    "wins": w,
                    "win_rate": _ratio(w, n),
                    "last": lo,
                    "last_rate": _ratio(lo, n),
                }
                for role, (n, w, lo) in self.by_role().items()
            ],
            "figures": [
                {
                    "name": f.name,
                    "label": f.label,
                    "kind": f.kind,
                    "value": round(self.figure_value(f), 4),
                }
                for f in self.figures
            ],
        }

    def text(self) -> str:
        return format_report(self)

    def plot(self, path: str) -> None:
        plot(self, path)


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def _quantile(data: list[int], q: float) -> int:
    """Nearest-rank quantile of sorted ``data``."""
    return data[min(len(data) - 1, max(0, math.ceil(q * len(data)) - 1))]


# ---------------------------------------------------------------------- running games


def _typed_options(game: type[Game], options: Mapping[str, object] | None) -> dict[str, Any]:
    """Options as given by code (typed) or by the command line (``k=v`` strings)."""
    specs = {s.name: s for s in game.option_specs}
    typed: dict[str, object] = {}
    for key, value in (options or {}).items():
        spec = specs.get(key)
        if spec is not None and isinstance(value, str) and not isinstance(spec.default, str):
            typed[key] = spec.parse(value)
        else:
            typed[key] = value
    return game.validate_options(typed)


def _game_rng(engine: str, seed: int, index: int) -> random.Random:
    # String seeds are hashed with SHA-512 by random.seed: stable across runs and
    # platforms and independent of PYTHONHASHSEED.
    return random.Random(f"lantag-sim/{engine}/{seed}/{index}")


def play_game(
    engine: str,
    seats: int,
    options: Mapping[str, object],
    bots: Sequence[BotFn],
    rng: random.Random,
    *,
    index: int = 0,
    map_text: str | None = None,
    max_steps: int = MIN_STEP_CAP,
) -> GameResult:
    """Play one game to the end (or ``max_steps`` inputs) and measure it."""
    game = get_game(engine)
    state: State = game.new_state(seats, options, map_text)
    tracker = tracker_for(engine)
    below = rng.randrange
    outcome: Outcome | None = None
    steps = 0
    while steps < max_steps:
        d = state.decision()
        if isinstance(d, Over):
            outcome = d.outcome
            break
        if isinstance(d, Chance):
            inp: Input = random_roll(d, below)
        elif isinstance(d, Turn):
            inp = Move(d.seat, bots[d.seat](state, d.seat, below))
        else:
            inp = Joint(tuple((s, bots[s](state, s, below)) for s in sorted(d.seats)))
        after = state.apply(inp)
        tracker.observe(state, inp, after)
        state = after
        steps += 1
    else:
        d = state.decision()
        if isinstance(d, Over):  # the very last input ended the game
            outcome = d.outcome
    values = tracker.values(state, outcome)
    return GameResult(
        index=index,
        steps=steps,
        length=tracker.length(state),
        ranking=outcome.ranking if outcome is not None else (),
        roles=tracker.roles(state, seats),
        values=tuple((f.name, values.get(f.name, 0)) for f in tracker.figures),
        ending=tracker.ending(state, outcome) if outcome is not None else CAPPED,
    )


@dataclass(frozen=True)
class _Chunk:
    engine: str
    seats: int
    options: dict[str, Any]
    bots: tuple[str, ...]
    seed: int
    indices: tuple[int, ...]
    map_text: str | None
    max_steps: int


def _run_chunk(chunk: _Chunk) -> list[GameResult]:
    """Worker entry point: bots travel by name, so only plain data crosses processes."""
    bots = [BOTS[name] for name in chunk.bots]
    return [
        play_game(
            chunk.engine,
            chunk.seats,
            chunk.options,
            bots,
            _game_rng(chunk.engine, chunk.seed, i),
            index=i,
            map_text=chunk.map_text,
            max_steps=chunk.max_steps,
        )
        for i in chunk.indices
    ]


def simulate(
    engine: str,
    games: int,
    seed: int = 0,
    options: Mapping[str, object] | None = None,
    bots: str | Sequence[str] = DEFAULT_BOT,
    seats: int | None = None,
    workers: int = 2,
    progress: Progress | None = None,
    *,
    map_text: str | None = None,
    max_steps: int | None = None,
) -> SimReport:
    """Play ``games`` seeded games of ``engine`` and sum them up.

    ``options`` may hold typed values or ``k=v`` strings from the command line.  ``bots``
    is one bot name for every seat or one name per seat (see ``lanTag.bots.bot_names()``).
    ``seats`` defaults to 4, clamped to the engine's range.  ``workers`` > 1 uses that
    many processes; the report does not depend on it.  ``progress(done, total)`` is
    called in this process as chunks of games finish.  A game still running after
    ``max_steps`` inputs (default: twice the engine's playout bound, at least 20000) is
    stopped and counted as capped.  Raises OptionError on bad options, seats or bots.
    """
    if games < 1:
        raise OptionError(f"games must be at least 1, not {games}")
    game = get_game(engine)
    n = seats if seats is not None else min(max(DEFAULT_SEATS, game.min_seats), game.max_seats)
    game.check_seats(n)
    typed = _typed_options(game, options)
    names = (bots,) * n if isinstance(bots, str) else tuple(bots)
    if len(names) != n:
        raise OptionError(f"{len(names)} bots given for {n} seats")
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise OptionError(f"unknown bot {unknown[0]!r} (bots: {', '.join(BOTS)})")
    cap = max_steps or max(MIN_STEP_CAP, 2 * game.playout_step_bound(n))
    started = time.monotonic()
    workers = max(1, min(workers, games))
    # Small chunks keep both processes busy to the end and the progress line moving.
    size = max(1, min(50, math.ceil(games / (workers * 8))))
    chunks = [
        _Chunk(engine, n, typed, names, seed, tuple(range(i, min(i + size, games))), map_text, cap)
        for i in range(0, games, size)
    ]
    results: list[GameResult] = []
    if progress:
        progress(0, games)
    if workers == 1:
        for chunk in chunks:
            results += _run_chunk(chunk)
            if progress:
                progress(len(results), games)
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        try:
            futures = [pool.submit(_run_chunk, c) for c in chunks]
            for future in as_completed(futures):
                results += future.result()
                if progress:
                    progress(len(results), games)
        finally:
            # On an error or Ctrl-C, drop the chunks not started instead of playing them all.
            pool.shutdown(wait=True, cancel_futures=True)
    results.sort(key=lambda r: r.index)
    return SimReport(
        engine=engine,
        seats=n,
        games=games,
        seed=seed,
        options=typed,
        bots=names,
        unit=unit_for(engine),
        figures=figures_for(engine),
        results=tuple(results),
        elapsed=time.monotonic() - started,
    )


# ---------------------------------------------------------------------- presentation


def format_report(report: SimReport) -> str:
    """A plain-text report: lengths, the engine's figures, seats and roles."""
    game = get_game(report.engine)
    done = len(report.finished)
    opts = " ".join(f"{k}={_opt(v)}" for k, v in report.options.items()) or "(none)"
    bots = ", ".join(sorted(set(report.bots)))
    lines = [
        f"{game.display_name}: {report.games} games, {report.seats} seats, seed {report.seed}",
        f"options: {opts}",
        f"bots: {bots if len(set(report.bots)) == 1 else ' '.join(report.bots)}",
    ]
    if report.capped:
        lines.append(f"capped: {report.capped} games stopped unfinished (excluded from wins)")
    stats = report.length_stats()
    lines.append("")
    lines.append(
        f"game length ({report.unit}): min {stats['min']}, p10 {stats['p10']}, median "
        f"{stats['median']}, mean {stats['mean']}, p90 {stats['p90']}, max {stats['max']}"
    )
    hist = report.histogram()
    top = max(c for _, _, c in hist)
    for low, high, count in hist:
        label = f"{low}" if low == high else f"{low}-{high}"
        bar = "#" * round(40 * count / top) if top else ""
        lines.append(f"  {label:>11} {count:>6}  {bar}")
    lines.append("")
    ends = ", ".join(f"{how} {_pct(n, report.games)}" for how, n in report.endings().items())
    lines.append(f"how games end: {ends}")
    if report.figures:
        for f in report.figures:
            value = report.figure_value(f)
            shown = f"{100 * value:.1f}%" if f.kind == "rate" else f"{value:.2f}"
            lines.append(f"  {f.label}: {shown}")
    lines += ["", "  seat  bot          wins    win%  alone%   last%    edge"]
    wins, last = report.wins_by_seat(), report.last_by_seat()
    sole, edge = report.sole_wins_by_seat(), report.edge_by_seat()
    for s in range(report.seats):
        lines.append(
            f"  {s:>4}  {report.bots[s]:<10} {wins[s]:>6} {_pct(wins[s], done):>7} "
            f"{_pct(sole[s], done):>7} {_pct(last[s], done):>7} {edge[s]:>+7.2f}"
        )
    lines.append(
        "  (win: top place, shared or alone; last: bottom place; edge: mean of "
        "(seats below - seats above) / (seats - 1))"
    )
    roles = report.by_role()
    if len(roles) > 1:
        lines += ["", "  role           seat-games    win%   last%"]
        for role, (n, w, lo) in roles.items():
            lines.append(f"  {role:<14} {n:>10} {_pct(w, n):>7} {_pct(lo, n):>7}")
    lines += [
        "",
        f"mean inputs per game: {sum(r.steps for r in report.results) / report.games:.1f}",
    ]
    return "\n".join(lines)


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "-"


def _opt(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def plot(report: SimReport, path: str) -> None:
    """Draw the game-length histogram as a PNG (a tiny built-in writer: no dependencies)."""
    from lanTag.files import write_atomic
    from lanTag.sim.png import histogram_png

    title = f"{report.engine} {report.games} games: length in {report.unit}"
    write_atomic(Path(path), histogram_png(report.histogram(bins=24), title))


# ---------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lanTag.sim.simulate``: the same arguments as ``lantag simulate``."""
    import argparse
    import json
    import sys

    parser = argparse.ArgumentParser(prog="python -m lanTag.sim.simulate", description=__doc__)
    parser.add_argument("--game", required=True, help="engine id (prototag, boardtag, ...)")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seats", type=int, default=None)
    parser.add_argument("--bots", default=DEFAULT_BOT, help="a bot name, or one per seat: a,b,c")
    parser.add_argument("--option", action="append", default=[], metavar="K=V")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plot", metavar="FILE.png")
    args = parser.parse_args(argv)
    options = dict(kv.split("=", 1) for kv in args.option)
    bots: str | list[str] = args.bots.split(",") if "," in args.bots else args.bots

    def show(done: int, total: int) -> None:
        print(f"\r{done}/{total} games", end="", file=sys.stderr, flush=True)

    # Run as ``python -m``, this file is ``__main__``; the real module's functions are the
    # ones worker processes can find by name.
    from lanTag.sim.simulate import simulate as run

    try:
        report = run(
            args.game, args.games, args.seed, options, bots, args.seats, args.workers, show
        )
    except (OptionError, ValueError) as exc:
        print(f"\nerror: {exc}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.text())
    if args.plot:
        report.plot(args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
