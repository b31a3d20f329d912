"""Measuring a bot against a field of other bots (tests/sim/test_bot_strength.py and
scripts/bench/bot_strength.py): the tested bot takes each seat in turn, the other seats
play ``field``; the baseline is a ``field`` bot in the same seats with the same seeds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lanTag.rules.registry import get_game


@dataclass(frozen=True, slots=True)
class Matchup:
    engine: str
    seats: int
    games: int
    bot: str
    field: str
    wins: int  # games the tested bot finished in the top group (shared first places count)
    sole: int  # games it won alone
    last: int  # games it finished in the bottom group
    edge: float  # mean (seats below - seats above) / (seats - 1); see SimReport.edge_by_seat
    base_wins: int  # the same for a ``field`` bot in the same seat, all seats ``field``
    base_sole: int
    base_last: int
    base_edge: float
    seconds_per_game: float  # wall time of the tested games, both processes together

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def last_rate(self) -> float:
        return self.last / self.games

    @property
    def base_win_rate(self) -> float:
        return self.base_wins / self.games

    @property
    def base_last_rate(self) -> float:
        return self.base_last / self.games


def matchup(
    engine: str,
    games: int,
    seed: int = 0,
    bot: str = "heuristic",
    field: str = "random",
    seats: int | None = None,
    options: Mapping[str, object] | None = None,
    workers: int = 2,
) -> Matchup:
    """``games`` games split evenly over the seats the tested bot rotates through."""
    from lanTag.sim.simulate import DEFAULT_SEATS, simulate  # the simulator imports lanTag.bots

    game = get_game(engine)
    n = seats if seats is not None else min(max(DEFAULT_SEATS, game.min_seats), game.max_seats)
    wins = sole = last = base_wins = base_sole = base_last = 0
    edge = base_edge = elapsed = 0.0
    for seat in range(n):
        count = games // n + (1 if seat < games % n else 0)
        if count == 0:
            continue
        lineup = [bot if s == seat else field for s in range(n)]
        run_seed = seed * 1000 + seat  # a different set of games for every seat
        tested = simulate(engine, count, run_seed, options, lineup, n, workers)
        base = simulate(engine, count, run_seed, options, field, n, workers)
        wins += tested.wins_by_seat()[seat]
        sole += tested.sole_wins_by_seat()[seat]
        last += tested.last_by_seat()[seat]
        edge += tested.edge_by_seat()[seat] * count
        base_wins += base.wins_by_seat()[seat]
        base_sole += base.sole_wins_by_seat()[seat]
        base_last += base.last_by_seat()[seat]
        base_edge += base.edge_by_seat()[seat] * count
        elapsed += tested.elapsed
    return Matchup(
        engine=engine,
        seats=n,
        games=games,
        bot=bot,
        field=field,
        wins=wins,
        sole=sole,
        last=last,
        edge=edge / games,
        base_wins=base_wins,
        base_sole=base_sole,
        base_last=base_last,
        base_edge=base_edge / games,
        seconds_per_game=elapsed / games,
    )
