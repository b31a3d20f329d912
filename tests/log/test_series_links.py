"""The links between the games of a series (lanTag.log.series.link_problems), on reports."""

from __future__ import annotations

from pathlib import Path

from lanTag.log.entries import parse_log
from lanTag.log.report import Player, VerifyReport
from lanTag.log.series import SeriesGame, SeriesReport, link_problems, verify_series
from lanTag.log.standings import SeatOfGame, standings
from tests.log.honest_log import HONEST

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "protocol3"


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


def test_each_broken_link_is_said_with_the_first_16_digits_of_the_game_ids() -> None:
    first, second, third = ("a" * 64, "b" * 64, "c" * 64)
    a16, b16 = first[:16], second[:16]
    assert link_problems([_game(1, second, first)]) == [
        f"game 1 (01.lantag) follows game {a16}, which is not here: the series' start is missing"
    ]
    assert link_problems([_game(1, first, ""), _game(2, third, second)]) == [
        f"game 2 (02.lantag) follows game {b16}, which is not here (expected game 1 "
        f"(01.lantag), {a16}): a game is missing, or this one is from another table"
    ]
    out_of_order = [_game(1, first, ""), _game(2, third, second), _game(3, second, first)]
    assert link_problems(out_of_order)[0] == (
        "game 2 (02.lantag) follows game 3 (03.lantag), not game 1 (01.lantag): "
        "the games are out of order"
    )


def test_the_series_report_as_json_holds_each_game_its_links_and_the_standings() -> None:
    played = VerifyReport(
        game_id="a1",
        complete=True,
        ranking=[[1], [0]],
        players=[Player(0, "h", "hostfp", ""), Player(1, "j", "joinfp", "")],
    )
    game = SeriesGame(1, "01.lantag", played)
    missing = SeriesGame(2, "02.lantag", None, "not a lanTag log: empty or unreadable")
    seats = [SeatOfGame("hostfp", "h"), SeatOfGame("joinfp", "j")]
    report = SeriesReport([game, missing], ["a link problem"], standings([(seats, [[1], [0]])]))
    assert report.to_json() == {
        "valid": False,
        "complete": False,
        "replayed": False,
        "games": [
            {**played.to_json(), "number": 1, "file": "01.lantag", "previous_game": ""},
            {
                "valid": False,
                "log": False,
                "error": "not a lanTag log: empty or unreadable",
                "number": 2,
                "file": "02.lantag",
                "previous_game": "",
            },
        ],
        "links": ["a link problem"],
        "standings": [
            {
                "place": 1,
                "key": "joinfp",
                "nickname": "j",
                "points": 3,
                "wins": 1,
                "games": 1,
                "per_game": [3],
            },
            {
                "place": 2,
                "key": "hostfp",
                "nickname": "h",
                "points": 2,
                "wins": 0,
                "games": 1,
                "per_game": [2],
            },
        ],
    }
    second = _game(2, "b2", "a1")
    assert SeriesReport([game, second]).to_json()["games"][1]["previous_game"] == "a1"
    assert SeriesReport([game]).to_json()["replayed"] is True


def test_verify_series_names_a_file_that_is_no_log_and_scores_only_complete_games() -> None:
    data = (CORPUS / "prototag.log").read_bytes()
    entries = parse_log(data).entries
    cut = b"".join(e.raw for e in entries[: len(entries) // 2])  # valid, not complete
    report = verify_series([("01.lantag", data), ("02.lantag", cut), ("03.lantag", b"no log\n")])
    assert report.games[2] == SeriesGame(
        3, "03.lantag", None, "not a lanTag log (it does not start with a log entry)"
    )
    one, two = (g.report for g in report.games[:2])
    assert one is not None and one.complete and two is not None and not two.complete
    # The cut game scores nothing, not even 0: each player sat in one game that counts
    # (per_game holds a column per game that is a log).
    assert report.standings
    assert all(s.games == 1 and s.per_game[1] is None for s in report.standings)


def test_a_series_scores_a_person_by_fingerprint_and_a_bot_seat_by_its_nickname() -> None:
    report = verify_series([("01.lantag", HONEST)])  # three people and a replicated bot
    played = report.games[0].report
    assert played is not None and played.complete
    people = {p.fingerprint: p.nickname for p in played.players if not p.bot}
    bots = {f"bot:{p.nickname}": p.nickname for p in played.players if p.bot}
    assert len(people) == 3 and len(bots) == 1
    assert {s.key: s.nickname for s in report.standings} == {**people, **bots}


def test_no_games_have_no_links_and_a_first_game_without_players_names_no_host() -> None:
    assert link_problems([]) == []
    bare = SeriesGame(1, "01.lantag", VerifyReport(game_id="a1"))
    assert link_problems([bare]) == []
    assert link_problems([bare, _game(2, "b2", "a1")]) == [
        "game 2 (02.lantag) was hosted by hostfp, the series by : it is from another table"
    ]
