"""Stomptag collision resolution: one move, constructed by hand, checked cell by cell.

Cells are (column, row), row 0 is the north edge.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lanTag.games.stomptag.collide import (
    CROSS,
    MEET,
    SWAP,
    Cell,
    Collision,
    Step,
    collision_points,
    pair_points,
    resolve_move,
)
from lanTag.games.stomptag.orders import DELTAS


def walk(seat: int, origin: Cell, move: str = "nothing", stomp: bool = False) -> Step:
    if move == "nothing":
        return Step(seat, origin, origin, stomp)
    dx, dy = DELTAS[move]
    return Step(seat, origin, (origin[0] + dx, origin[1] + dy), stomp, dx != 0 and dy != 0)


def jump(seat: int, origin: Cell, target: Cell, stomp: bool = False) -> Step:
    return Step(seat, origin, target, stomp)  # a teleport: no path, so it never crosses


def kinds(steps: list[Step]) -> list[list[tuple[str, tuple[int, ...]]]]:
    return [[(c.kind, c.seats) for c in phase] for phase in resolve_move(steps).phases]


# --------------------------------------------------------------------------- the points


def test_pair_points_follow_the_text() -> None:
    # "Two striders or two stompers that run into each other take 3 points."
    assert pair_points(False, False) == (-3, -3)
    assert pair_points(True, True) == (-3, -3)
    # "If a strider runs into a stomper, the strider loses 6 points, while the stomper gains 2"
    assert pair_points(True, False) == (2, -6)
    assert pair_points(False, True) == (-6, 2)


def test_collision_points_sum_over_every_other_member() -> None:
    pile = Collision(MEET, (0, 1, 2, 3), (1, 1))
    # stompers 0 and 1 hit each other (-3) and both striders (+2 +2); striders take -6 -6 -3
    assert collision_points(pile, {0, 1}) == (1, 1, -15, -15)


# --------------------------------------------------------------------------- first kind


def test_trading_places_is_a_swap_and_both_stay() -> None:
    res = resolve_move([walk(0, (0, 0), "e"), walk(1, (1, 0), "w")])
    assert [[(c.kind, c.seats) for c in p] for p in res.phases] == [[(SWAP, (0, 1))]]
    assert res.ends == ((0, (0, 0)), (1, (1, 0)))
    assert res.blocked == {0, 1}


def test_a_stomper_cannot_push_through_a_swap() -> None:
    # precedence would put the stomper where the stopped strider still stands
    res = resolve_move([walk(0, (2, 2), "n", stomp=True), walk(1, (2, 1), "s")])
    assert res.ends == ((0, (2, 2)), (1, (2, 1)))
    assert kinds([walk(0, (2, 2), "n", True), walk(1, (2, 1), "s")]) == [[(SWAP, (0, 1))]]


def test_diagonal_trade_is_a_swap_not_a_cross() -> None:
    assert kinds([walk(0, (0, 0), "se"), walk(1, (1, 1), "nw")]) == [[(SWAP, (0, 1))]]


def test_teleport_into_a_player_who_walks_into_the_teleporter_is_a_swap() -> None:
    assert kinds([jump(0, (0, 0), (3, 3)), walk(1, (3, 3), "w"), walk(2, (2, 3), "w")]) == []
    assert kinds([jump(0, (0, 0), (1, 0)), walk(1, (1, 0), "w")]) == [[(SWAP, (0, 1))]]


# --------------------------------------------------------------------------- second kind


def test_two_striders_entering_one_cell_both_stay() -> None:
    res = resolve_move([walk(0, (0, 1), "e"), walk(1, (2, 1), "w")])
    assert [c for p in res.phases for c in p] == [Collision(MEET, (0, 1), (1, 1))]
    assert res.ends == ((0, (0, 1)), (1, (2, 1)))


def test_two_stompers_entering_one_cell_both_stay() -> None:
    res = resolve_move([walk(0, (0, 1), "e", True), walk(1, (2, 1), "w", True)])
    assert res.ends == ((0, (0, 1)), (1, (2, 1)))
    assert res.blocked == {0, 1}


def test_the_stompers_move_takes_precedence_over_the_striders() -> None:
    res = resolve_move([walk(0, (0, 1), "e", stomp=True), walk(1, (2, 1), "w")])
    assert kinds([walk(0, (0, 1), "e", True), walk(1, (2, 1), "w")]) == [[(MEET, (0, 1))]]
    assert res.ends == ((0, (1, 1)), (1, (2, 1)))
    assert res.blocked == {1}


def test_running_into_someone_standing_still_is_a_meet_and_nobody_is_pushed() -> None:
    res = resolve_move([walk(0, (0, 0), "e", stomp=True), walk(1, (1, 0))])
    assert [c for p in res.phases for c in p] == [Collision(MEET, (0, 1), (1, 0))]
    assert res.ends == ((0, (0, 0)), (1, (1, 0)))
    assert res.blocked == {0}  # the one standing still was not trying to move


def test_three_into_one_cell_all_collide_with_each_other() -> None:
    steps = [walk(0, (0, 1), "e", True), walk(1, (2, 1), "w"), walk(2, (1, 0), "s")]
    res = resolve_move(steps)
    (pile,) = res.collisions()
    assert pile == Collision(MEET, (0, 1, 2), (1, 1))
    assert collision_points(pile, {0}) == (4, -9, -9)
    assert res.ends == ((0, (1, 1)), (1, (2, 1)), (2, (1, 0)))  # the lone stomper gets it


def test_four_way_pile_up_with_two_stompers_moves_nobody() -> None:
    steps = [
        walk(0, (0, 1), "e", True),
        walk(1, (2, 1), "w", True),
        walk(2, (1, 0), "s"),
        walk(3, (1, 2), "n"),
    ]
    res = resolve_move(steps)
    assert res.collisions() == (Collision(MEET, (0, 1, 2, 3), (1, 1)),)
    assert all(end == step.origin for (_, end), step in zip(res.ends, steps, strict=True))


def test_chain_a_stopped_player_blocks_whoever_followed_it() -> None:
    # 0 and 1 meet at (1,1) and stay; 2 was following 0 into (0,1) and now runs into it
    steps = [walk(0, (0, 1), "e"), walk(1, (2, 1), "w"), walk(2, (0, 2), "n")]
    res = resolve_move(steps)
    assert kinds(steps) == [[(MEET, (0, 1))], [(MEET, (0, 2))]]
    assert res.ends == ((0, (0, 1)), (1, (2, 1)), (2, (0, 2)))


def test_long_chain_runs_back_through_a_queue_of_followers() -> None:
    # a column of striders all walking north behind one who runs into a stomper standing still
    steps = [walk(0, (0, 0), stomp=True)] + [walk(s, (0, s), "n") for s in range(1, 5)]
    assert kinds(steps) == [[(MEET, (0, 1))], [(MEET, (1, 2))], [(MEET, (2, 3))], [(MEET, (3, 4))]]
    assert all(end == (0, s) for s, end in resolve_move(steps).ends)


def test_a_won_cell_is_given_back_when_its_occupant_is_stopped() -> None:
    # 0 (stomper) beats 1 to (1,1), which 2 was leaving; but 2 runs into 3 and stays,
    # so 0 and 2 now collide: nobody pushes a standing player out.
    steps = [
        walk(0, (0, 1), "e", True),
        walk(1, (2, 1), "w"),
        walk(2, (1, 1), "s"),
        walk(3, (1, 2)),
    ]
    res = resolve_move(steps)
    assert kinds(steps) == [[(MEET, (0, 1)), (MEET, (2, 3))], [(MEET, (0, 2))]]
    assert res.ends == ((0, (0, 1)), (1, (2, 1)), (2, (1, 1)), (3, (1, 2)))


def test_following_and_rotating_are_not_collisions() -> None:
    follow = [walk(0, (0, 0), "e"), walk(1, (1, 0), "e")]
    assert resolve_move(follow).ends == ((0, (1, 0)), (1, (2, 0)))
    rotate = [
        walk(0, (0, 0), "e"),
        walk(1, (1, 0), "s"),
        walk(2, (1, 1), "w"),
        walk(3, (0, 1), "n"),
    ]
    res = resolve_move(rotate)
    assert res.phases == () and res.ends == ((0, (1, 0)), (1, (1, 1)), (2, (0, 1)), (3, (0, 0)))


# --------------------------------------------------------------------------- third kind


def test_crossing_diagonals_between_striders_stop_both() -> None:
    steps = [walk(0, (0, 0), "se"), walk(1, (1, 0), "sw")]
    assert kinds(steps) == [[(CROSS, (0, 1))]]
    assert resolve_move(steps).ends == ((0, (0, 0)), (1, (1, 0)))


def test_crossing_diagonals_stomper_goes_through() -> None:
    steps = [walk(0, (0, 0), "se", True), walk(1, (1, 0), "sw")]
    res = resolve_move(steps)
    assert res.ends == ((0, (1, 1)), (1, (1, 0)))
    both = resolve_move([walk(0, (0, 0), "se", True), walk(1, (1, 0), "sw", True)])
    assert both.ends == ((0, (0, 0)), (1, (1, 0)))


def test_parallel_or_touching_diagonals_do_not_cross() -> None:
    assert kinds([walk(0, (0, 0), "se"), walk(1, (1, 0), "se")]) == []
    assert kinds([walk(0, (0, 0), "se"), walk(1, (1, 1), "ne")]) == []
    # a teleport has no path, even between diagonal neighbours
    assert kinds([walk(0, (0, 0), "se"), jump(1, (1, 0), (0, 1))]) == []


def test_same_cell_is_resolved_before_crossing_and_counted_players_are_still() -> None:
    # 0's diagonal crosses 1's, but 0 first meets 2 at (1,1) and is counted, so it is
    # "considered still": 1 crosses freely.
    steps = [walk(0, (0, 0), "se", True), walk(1, (1, 0), "sw"), walk(2, (2, 1), "w", True)]
    res = resolve_move(steps)
    assert kinds(steps) == [[(MEET, (0, 2))]]
    assert res.ends == ((0, (0, 0)), (1, (0, 1)), (2, (2, 1)))


def test_a_stomper_that_won_a_cell_no_longer_crosses_anyone() -> None:
    # 0 beats strider 2 to (1,1) and is counted, so it is "considered still" afterwards:
    # 1's diagonal, which crosses 0's, goes through.
    steps = [walk(0, (0, 0), "se", True), walk(1, (1, 0), "sw"), walk(2, (2, 1), "w")]
    res = resolve_move(steps)
    assert kinds(steps) == [[(MEET, (0, 2))]]
    assert res.ends == ((0, (1, 1)), (1, (0, 1)), (2, (2, 1)))


def test_loop_second_and_third_kinds_until_resolved() -> None:
    # phase 1 meet (3 and 4), phase 2 cross (0 and 1), phase 3 the cross's chain: 2 was
    # walking into 1's cell.
    steps = [
        walk(0, (0, 0), "se"),
        walk(1, (1, 0), "sw"),
        walk(2, (2, 0), "w"),
        walk(3, (3, 2), "s"),
        walk(4, (3, 4), "n"),
    ]
    assert kinds(steps) == [[(MEET, (3, 4))], [(CROSS, (0, 1))], [(MEET, (1, 2))]]
    assert resolve_move(steps).ends[:3] == ((0, (0, 0)), (1, (1, 0)), (2, (2, 0)))


def test_swaps_are_resolved_first_and_their_players_block_others() -> None:
    steps = [walk(0, (0, 0), "e"), walk(1, (1, 0), "w"), walk(2, (0, 1), "n")]
    assert kinds(steps) == [[(SWAP, (0, 1))], [(MEET, (0, 2))]]


def test_collisions_of_one_phase_are_simultaneous() -> None:
    steps = [walk(0, (0, 0), "e"), walk(1, (1, 0), "w"), walk(2, (3, 3), "e"), walk(3, (4, 3), "w")]
    assert kinds(steps) == [[(SWAP, (0, 1)), (SWAP, (2, 3))]]


# --------------------------------------------------------------------------- properties


@st.composite
def moves(draw: st.DrawFn) -> list[Step]:
    side = draw(st.integers(2, 6))
    count = draw(st.integers(1, min(12, side * side)))
    cells = draw(st.permutations([(x, y) for x in range(side) for y in range(side)]))[:count]
    steps = []
    for seat, origin in enumerate(cells):
        stomp = draw(st.booleans())
        kind = draw(st.sampled_from(["nothing", "teleport", *DELTAS]))
        if kind == "teleport":
            landing = (draw(st.integers(0, side - 1)), draw(st.integers(0, side - 1)))
            steps.append(jump(seat, origin, landing, stomp))
            continue
        step = walk(seat, origin, kind, stomp)
        inside = all(0 <= v < side for v in step.target)
        steps.append(step if inside else walk(seat, origin, "nothing", stomp))
    return steps


@settings(max_examples=300, deadline=None)
@given(moves(), st.randoms(use_true_random=False))
def test_property_resolution_is_sound_and_order_free(steps: list[Step], rnd: random.Random) -> None:
    res = resolve_move(steps)
    by_seat = {s.seat: s for s in steps}
    ends = dict(res.ends)
    assert len(set(ends.values())) == len(ends), "two players share a cell"
    assert all(ends[s] in (st_.origin, st_.target) for s, st_ in by_seat.items())
    counted = {s for c in res.collisions() for s in c.seats}
    assert all(ends[s] == by_seat[s].target for s in by_seat if s not in counted)
    assert res.blocked <= counted
    pairs = [(a, b) for c in res.collisions() for a in c.seats for b in c.seats if a < b]
    assert len(pairs) == len(set(pairs)), "a pair collided twice in one move"
    for seat in counted:  # only a stomper that met striders alone may still move
        if ends[seat] != by_seat[seat].origin:
            assert by_seat[seat].stomp
            mine = [c for c in res.collisions() if seat in c.seats]
            assert all(not by_seat[o].stomp for c in mine for o in c.seats if o != seat)
    kinds_seen = [c.kind for c in res.collisions()]
    assert SWAP not in kinds_seen[kinds_seen.count(SWAP) :], "swaps are resolved first"
    shuffled = list(steps)
    rnd.shuffle(shuffled)
    assert resolve_move(shuffled) == res
