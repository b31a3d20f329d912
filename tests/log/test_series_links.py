"""The links between the games of a series (lanTag.log.series.link_problems), on reports."""

from __future__ import annotations

from lanTag.log.report import Player, VerifyReport
from lanTag.log.series import SeriesGame, link_problems


def _game(number: int, game_id: str, previous: str, host: str = "hostfp") -> SeriesGame:
    report = VerifyReport(
        game_id=game_id,
        previous_game=previous,
        players=[Player(0, "h", host, ""), Player(1, "j", "joinfp", "")],
    )
    return SeriesGame(number, f"{number:02d}.lantag", report)


def _chain(*ids: str) -> list[tuple[str, str]]:
    return [(gid, ids[i - 1] if i else "") for i, gid in enumerate(ids)]


def test_a_whole_chain_has_no_problem() -> None:
    games = [_game(n, gid, prev) for n, (gid, prev) in enumerate(_chain("a1", "b2", "c3"), 1)]
    assert link_problems(games) == []


def test_a_missing_game_is_named() -> None:
    chain = _chain("a1", "b2", "c3")
    games = [_game(1, *chain[0]), _game(2, *chain[2])]
    (problem,) = link_problems(games)
    assert "game 2 (02.lantag) follows game b2, which is not here" in problem
    assert "missing" in problem


def test_a_missing_first_game_is_named() -> None:
    chain = _chain("a1", "b2", "c3")
    (problem,) = link_problems([_game(1, *chain[1]), _game(2, *chain[2])])
    assert "the series' start is missing" in problem


def test_games_out_of_order() -> None:
    chain = _chain("a1", "b2", "c3")
    games = [_game(1, *chain[0]), _game(2, *chain[2]), _game(3, *chain[1])]
    problems = link_problems(games)
    assert "game 2 (02.lantag) follows game 3 (03.lantag), not game 1" in problems[0]
    assert "out of order" in problems[0]
    assert len(problems) == 2  # game 3 (b2) then does not follow game 2 (c3) either


def test_a_second_first_game_is_named() -> None:
    games = [_game(1, "a1", ""), _game(2, "z9", "")]
    (problem,) = link_problems(games)
    assert "is the first game of a series, yet it comes after game 1" in problem


def test_a_game_of_another_host_is_from_another_table() -> None:
    chain = _chain("a1", "b2")
    games = [_game(1, *chain[0]), _game(2, *chain[1], host="otherfp")]
    (problem,) = link_problems(games)
    assert "hosted by otherfp" in problem and "another table" in problem
