""" "Master of games" points and the standings of a series (lanTag.log.standings)."""

from __future__ import annotations

import pytest

from lanTag.log.standings import (
    SeatOfGame,
    distinct_names,
    format_standings,
    game_points,
    place_points,
    places,
    standings,
)


def test_places_one_to_six_score_3_2_2_1_1_1_and_later_places_nothing() -> None:
    assert [place_points(p) for p in range(1, 9)] == [3, 2, 2, 1, 1, 1, 0, 0]
    with pytest.raises(ValueError, match=r"^a place is 1 or more, not 0$"):
        place_points(0)


def test_tied_players_share_the_best_place_of_their_group() -> None:
    # Seats 2 and 0 tie for first; seat 1 is then third (2 points), seat 3 fourth.
    assert places([[2, 0], [1], [3]]) == {2: 1, 0: 1, 1: 3, 3: 4}
    assert game_points([[2, 0], [1], [3]]) == {2: 3, 0: 3, 1: 2, 3: 1}
    # Three tied for second all get 2; the next is fifth.
    assert game_points([[0], [1, 2, 3], [4]]) == {0: 3, 1: 2, 2: 2, 3: 2, 4: 1}
    with pytest.raises(ValueError, match="twice"):
        places([[0], [0]])


def test_a_two_player_game_scores_3_and_2() -> None:
    assert game_points([[1], [0]]) == {1: 3, 0: 2}
    assert game_points([[0, 1]]) == {0: 3, 1: 3}


def test_eight_players_the_last_two_score_nothing() -> None:
    assert game_points([[s] for s in range(8)]) == dict(enumerate([3, 2, 2, 1, 1, 1, 0, 0]))


def test_standings_sum_by_key_not_by_seat_or_nickname() -> None:
    ann, bob = SeatOfGame("aaaa1111", "ann"), SeatOfGame("bbbb", "bob")
    bob2 = SeatOfGame("cccc", "bob")
    games = [
        ((ann, bob, bob2), [[0], [1], [2]]),  # ann 3, bob 2, other bob 2
        ((bob, ann, bob2), [[0], [1, 2]]),  # bob 3, ann 2, other bob 2 (tied second)
        ((ann, bob), None),  # not complete: scores nothing
    ]
    table = standings(games)
    assert [(s.key, s.points, s.wins, s.games, s.per_game) for s in table] == [
        ("aaaa1111", 5, 1, 2, (3, 2, None)),
        ("bbbb", 5, 1, 2, (2, 3, None)),
        ("cccc", 4, 0, 2, (2, 2, None)),
    ]
    assert [s.place for s in table] == [1, 1, 3]  # equal points and wins share a place
    lines = format_standings(table)
    assert "bob (bbbb)" in lines[1] and "bob (cccc)" in lines[2] and "ann " in lines[0]
    assert " 5 points" in lines[0] and "(3 2 -)" in lines[0]


def test_more_wins_break_a_tie_in_points() -> None:
    a, b, c, d = (SeatOfGame(k, k) for k in "abcd")
    # a: 3 + 1 = 4 with a win, b: 2 + 2 = 4 without one: a is ahead of b.
    table = standings([((a, b, c, d), [[0], [1], [2], [3]]), ((c, b, d, a), [[0], [1], [2], [3]])])
    assert [(s.key, s.points, s.wins, s.place) for s in table] == [
        ("c", 5, 1, 1),
        ("a", 4, 1, 2),
        ("b", 4, 0, 3),
        ("d", 3, 0, 4),
    ]


def test_distinct_names_only_where_two_share_a_nickname() -> None:
    assert distinct_names({"k1": "zoe", "k2": "max", "bot:x": "x"}) == {
        "k1": "zoe",
        "k2": "max",
        "bot:x": "x",
    }
    assert distinct_names({"abcd99": "max", "ef0123": "max"}) == {
        "abcd99": "max (abcd)",
        "ef0123": "max (ef01)",
    }


def test_every_seat_of_a_game_is_in_the_table_and_an_unranked_seat_scores_nothing() -> None:
    a, b, c, d = (SeatOfGame(k, k) for k in "abcd")
    # c sat in a complete game that ranks only a and b; d only in a game not complete.
    table = standings([((a, b, c), [[0], [1]]), ((a, d, b), None)])
    assert [(s.key, s.points, s.games, s.per_game) for s in table] == [
        ("a", 3, 1, (3, None)),
        ("b", 2, 1, (2, None)),
        ("c", 0, 1, (0, None)),
        ("d", 0, 0, (None, None)),
    ]


def test_a_bot_and_a_person_of_one_nickname_are_told_apart_by_their_keys() -> None:
    assert distinct_names({"bot:alex": "alex", "e55f9812": "alex"}) == {
        "bot:alex": "alex (alex)",
        "e55f9812": "alex (e55f)",
    }


def test_an_empty_table_has_no_lines() -> None:
    assert format_standings([]) == []


def test_points_then_wins_then_nickname_then_key_order_the_table() -> None:
    amy, zed, w, v = (SeatOfGame(k, k) for k in ("amy", "zed", "w", "v"))
    # amy: 2 + 0 (unranked), zed: sat out game 1, then 2: equal points and wins, so by name.
    table = standings([((w, amy), [[0], [1]]), ((v, zed, amy), [[0], [1]])])
    assert [(s.key, s.points, s.wins, s.per_game) for s in table][2:] == [
        ("amy", 2, 0, (2, 0)),
        ("zed", 2, 0, (None, 2)),
    ]
    # More wins first, whatever the names: zed won a game (3 + 1), amy did not (2 + 2).
    others = [SeatOfGame(k, k) for k in "pqrs"]
    first = [[0], [1], [2], [3]]
    table = standings([((zed, amy, *others[:2]), first), ((others[2], amy, others[3], zed), first)])
    assert [(s.key, s.points, s.wins) for s in table][:2] == [("zed", 4, 1), ("amy", 4, 0)]
    a = SeatOfGame("a", "a")
    # A player of games not complete only: no points and no wins, placed by name.
    aa, zz = SeatOfGame("aa", "aa"), SeatOfGame("zz", "zz")
    table = standings([((a, aa), [[0], [1]]), ((zz, a), None)])
    assert [(s.key, s.points, s.wins, s.games) for s in table] == [
        ("a", 3, 1, 1),
        ("aa", 2, 0, 1),
        ("zz", 0, 0, 0),
    ]
    # Two players of one nickname, equal in all else: by key.
    k1, k2 = SeatOfGame("k1", "bob"), SeatOfGame("k2", "bob")
    table = standings([((a, k1), [[0], [1]]), ((a, k2), [[0], [1]])])
    assert [(s.key, s.per_game) for s in table] == [
        ("a", (3, 3)),
        ("k1", (2, None)),
        ("k2", (None, 2)),
    ]
