"""Stomptag properties over random positions and random joint orders, and a 64-player game."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import TypeVar

from hypothesis import given, settings
from hypothesis import strategies as st

from lanTag.games.stomptag.collide import CROSS, MEET, SWAP
from lanTag.games.stomptag.engine import Stomptag, StomptagState
from lanTag.games.stomptag.orders import Order, parse_order
from lanTag.games.stomptag.rounds import (
    CANCEL,
    EDGE,
    MADE_IT,
    OUT,
    RECOVER,
    TAG,
    TAX,
    TELEPORTED,
    UPGRADE,
    Table,
    resolve_round,
    teleport_slots,
)
from lanTag.rules.base import Action, Joint, Over, Roll, State
from lanTag.rules.playout import random_input
from tests.rules.stomptag_helpers import position

COLLISIONS = (SWAP, MEET, CROSS)
T = TypeVar("T")


@st.composite
def rounds(draw: st.DrawFn) -> tuple[StomptagState, Joint, tuple[int, ...]]:
    """A sound position waiting for orders, random orders for it, and teleport landings."""
    seats = draw(st.integers(3, 9))
    side = draw(st.integers(3, 6))
    cells = draw(st.permutations([(x, y) for x in range(side) for y in range(side)]))
    alive = draw(st.lists(st.booleans(), min_size=seats, max_size=seats))
    if sum(alive) < 2:
        alive[:2] = [True, True]
    living = [s for s in range(seats) if alive[s]]
    state = position(
        [cells[s] if alive[s] else None for s in range(seats)],
        points=draw(st.lists(st.integers(1, 40), min_size=seats, max_size=seats)),
        it=draw(st.sampled_from(living)),
        queue=draw(st.permutations(living)),
        moves=draw(st.lists(st.integers(1, 3), min_size=seats, max_size=seats)),
        teleported=draw(st.lists(st.booleans(), min_size=seats, max_size=seats)),
        tag_last_round=draw(st.booleans()),
        options={"grid_size": side},
    )
    choices = []
    for seat in living:
        space = state.legal_actions(seat)
        choices.append((seat, space[draw(st.integers(0, len(space) - 1))]))
    joint = Joint(tuple(choices))
    orders = {s: parse(s, a, state) for s, a in choices}
    count = len(teleport_slots(orders))
    landings = draw(st.lists(st.integers(0, side * side - 1), min_size=count, max_size=count))
    return state, joint, tuple(landings)


def resolve(state: StomptagState, joint: Joint, landings: tuple[int, ...]) -> StomptagState:
    after = state.apply(joint)
    if landings:
        after = after.apply(Roll((landings,)))
    assert isinstance(after, StomptagState)
    return after


@settings(max_examples=250, deadline=None)
@given(rounds())
def test_property_no_shared_cells_and_points_follow_only_the_rules(
    case: tuple[StomptagState, Joint, tuple[int, ...]],
) -> None:
    state, joint, landings = case
    after = resolve(state, joint, landings)
    assert after.invariants() == []
    placed = [c for c in after.table.cells if c >= 0]
    assert len(placed) == len(set(placed)), "two players share a cell"
    stomp = {s for s, a in joint.choices if a.args[0] == "stomp"}
    collided = {s for e in after.events if e.what in COLLISIONS for s in e.seats}
    explained = [0] * state.seats
    it_now = state.table.it
    for event in after.events:
        assert event.what in (
            *COLLISIONS,
            UPGRADE,
            TELEPORTED,
            EDGE,
            CANCEL,
            TAG,
            RECOVER,
            TAX,
            OUT,
            MADE_IT,
        )
        for seat, value in zip(event.seats, event.values, strict=False):
            explained[seat] += value
        if event.what in COLLISIONS:  # every pair: -3 same mode, else stomper +2 strider -6
            for seat, value in zip(event.seats, event.values, strict=True):
                others = [o for o in event.seats if o != seat]
                same = sum((o in stomp) == (seat in stomp) for o in others)
                mixed = len(others) - same
                assert value == -3 * same + (2 * mixed if seat in stomp else -6 * mixed)
        elif event.what in (UPGRADE, TELEPORTED):
            assert event.values == (-5,) * len(event.seats)
        elif event.what == RECOVER:
            assert event.values == (1,) * len(event.seats)
            assert not set(event.seats) & (stomp | collided)
        elif event.what == TAX:  # "your points are reduced by 4 each turn you are it"
            assert event.values == (-4,) and event.seats == (it_now,)
        else:
            assert event.values == ()
            if event.what == TAG:
                it_now = event.seats[1]
            elif event.what == MADE_IT:
                it_now = event.seats[0]
    changes = [b - a for a, b in zip(state.table.points, after.table.points, strict=True)]
    assert changes == explained


@settings(max_examples=150, deadline=None)
@given(rounds(), st.randoms(use_true_random=False))
def test_property_seat_numbers_do_not_matter(
    case: tuple[StomptagState, Joint, tuple[int, ...]], rnd: random.Random
) -> None:
    """Relabel the seats: the same round, resolved, is the same round relabelled."""
    state, joint, landings = case
    n = state.seats
    perm = list(range(n))
    rnd.shuffle(perm)  # old seat s is new seat perm[s]
    inverse = [perm.index(s) for s in range(n)]
    t = state.table

    def moved(values: tuple[T, ...]) -> tuple[T, ...]:
        return tuple(values[inverse[s]] for s in range(n))

    table = Table(
        moved(t.points),
        moved(t.cells),
        moved(t.out),
        tuple(perm[s] for s in t.queue),
        perm[t.it],
        moved(t.moves),
        moved(t.teleported),
        t.tag_last_round,
    )
    relabelled = replace(state, table=table)
    new_joint = Joint(tuple(sorted((perm[s], a) for s, a in joint.choices)))
    # the landings are drawn in seat order, so hand each teleport the landing it had
    old_orders = {s: parse(s, a, state) for s, a in joint.choices}
    landing_of = dict(zip(teleport_slots(old_orders), landings, strict=True))
    new_orders = {perm[s]: o for s, o in old_orders.items()}
    new_landings = tuple(landing_of[inverse[s], i] for s, i in teleport_slots(new_orders))
    a, b = resolve(state, joint, landings), resolve(relabelled, new_joint, new_landings)
    assert tuple(b.table.points[perm[s]] for s in range(n)) == a.table.points
    assert tuple(b.table.cells[perm[s]] for s in range(n)) == a.table.cells
    assert tuple(b.table.out[perm[s]] for s in range(n)) == a.table.out
    assert b.table.queue == tuple(perm[s] for s in a.table.queue)
    assert b.table.it == (perm[a.table.it] if a.table.it >= 0 else -1)
    assert b.table.tag_last_round == a.table.tag_last_round


@settings(max_examples=150, deadline=None)
@given(rounds(), st.randoms(use_true_random=False))
def test_property_order_of_receipt_does_not_matter(
    case: tuple[StomptagState, Joint, tuple[int, ...]], rnd: random.Random
) -> None:
    """The orders, handed to the round resolver in any order, give the same round."""
    state, joint, landings = case
    received = [(s, parse(s, a, state)) for s, a in joint.choices]
    first = resolve_round(state.table, state.settings, dict(received), landings)
    rnd.shuffle(received)
    assert resolve_round(state.table, state.settings, dict(received), landings) == first


def parse(seat: int, action: Action, state: StomptagState) -> Order:
    return parse_order(action, state.table.moves[seat], True, True)


def test_a_64_player_seeded_game_runs_to_completion() -> None:
    rng = random.Random("stomptag-64")
    state: State = Stomptag.new_state(64)
    assert isinstance(state, StomptagState) and state.settings.side == 16
    steps = 0
    while not isinstance(decision := state.decision(), Over):
        state = state.apply(random_input(state, rng.randrange))
        assert state.invariants() == []
        steps += 1
        assert steps <= Stomptag.playout_step_bound(64)
    ranked = sorted(s for group in decision.outcome.ranking for s in group)
    assert ranked == list(range(64))
    assert len(decision.outcome.scores) == 64 and sum(decision.outcome.scores) >= 3
    assert isinstance(state, StomptagState)
    assert state.round >= 1  # the bids left at least two players to play rounds
