"""Stomptag: setup, bids, placement, the action vocabulary, views and the end of the game."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lanTag.games.stomptag.engine import Stomptag, StomptagState
from lanTag.games.stomptag.orders import LETTERS, Order, OrderSpace, check_order, parse_order
from lanTag.games.stomptag.rounds import BID, MADE_IT
from lanTag.games.stomptag.state import auto_side
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Joint,
    OptionError,
    Over,
    Pick,
    Roll,
    Shuffle,
    Simultaneous,
)
from lanTag.rules.registry import get_game
from lanTag.views.registry import game_view
from tests.rules.stomptag_helpers import at, events_of, play, position, simple, typed

VIEW = game_view("stomptag")


def bids_state(
    seats: int = 4, perm: tuple[int, ...] | None = None, **options: object
) -> StomptagState:
    state = Stomptag.new_state(seats, options)
    after = state.apply(Roll((perm or tuple(range(seats)),)))
    assert isinstance(after, StomptagState)
    return after


def bid(state: StomptagState, *amounts: int) -> StomptagState:
    after = state.apply(Joint(tuple((s, Action("bid", (b,))) for s, b in enumerate(amounts))))
    assert isinstance(after, StomptagState)
    return after


# --------------------------------------------------------------------------- the table


def test_registry_and_seat_limits() -> None:
    assert get_game("stomptag") is Stomptag
    with pytest.raises(OptionError):  # "it must have at least 3 players"
        Stomptag.new_state(2)
    assert Stomptag.max_seats >= 64  # "This game has no upper limit of players"
    Stomptag.new_state(256)


def test_grid_grows_with_the_players() -> None:
    # "a 5*5 grid for up to 10 players, 6*6 for up to 15 players, or even larger"
    assert [auto_side(n) for n in (3, 10, 11, 15, 16, 20, 21, 64)] == [5, 5, 6, 6, 7, 7, 8, 16]
    assert Stomptag.new_state(12).settings.side == 6
    assert Stomptag.new_state(3, {"grid_size": 9}).settings.side == 9
    with pytest.raises(OptionError, match="grid_size"):
        Stomptag.new_state(10, {"grid_size": 3})


def test_unknown_options_and_maps_are_refused() -> None:
    with pytest.raises(OptionError, match="no option"):
        Stomptag.new_state(3, {"lives": 3})
    with pytest.raises(OptionError, match="map"):
        Stomptag.new_state(3, map_text="#####")


def test_minimum_bids_are_a_fair_shuffle_of_one_to_n() -> None:
    state = Stomptag.new_state(4)
    assert state.decision() == Chance((Shuffle(4),), "minimum bids")
    assert bids_state(4, (2, 0, 3, 1)).minimums == (3, 1, 4, 2)


# --------------------------------------------------------------------------- bids


def test_bids_are_sealed_and_run_from_the_minimum_to_every_point() -> None:
    state = bids_state(4, (2, 0, 3, 1))
    assert state.decision() == Simultaneous((0, 1, 2, 3), "bid")
    legal = state.legal_actions(0)
    assert legal[0] == Action("bid", (3,)) and legal[-1] == Action("bid", (35,))
    assert len(legal) == 33
    with pytest.raises(IllegalAction, match="minimum 3"):
        state.check_action(0, Action("bid", (2,)))
    with pytest.raises(IllegalAction, match="up to 35"):
        state.check_action(0, Action("bid", (36,)))
    with pytest.raises(IllegalAction, match="whole number"):
        state.check_action(0, Action("bid", ("lots",)))
    assert state.default_action(2) == Action("bid", (4,))


def test_bids_form_the_itness_queue_lower_first_ties_by_lower_minimum() -> None:
    state = bids_state(4, (2, 0, 3, 1))  # minimums 3 1 4 2
    after = bid(state, 5, 9, 5, 2)
    # queue by (bid, minimum): 3 (2), 0 (5, min 3), 2 (5, min 4), 1 (9); the front is it
    assert after.table.it == 3
    assert after.table.queue == (0, 2, 1, 3)  # the new it goes to the back
    assert after.table.points == (30, 26, 30, 33)  # bids are paid
    assert simple(events_of(after, BID)) == [(BID, 0, (0, 1, 2, 3), (-5, -9, -5, -2))]
    assert simple(events_of(after, MADE_IT)) == [(MADE_IT, 0, (3,), ())]


def test_a_hasty_bid_knocks_a_player_out_before_the_game_begins() -> None:
    after = bid(bids_state(4), 1, 2, 35, 4)
    assert after.table.out == (0, 0, 1, 0) and after.table.points[2] == 0
    assert 2 not in after.table.queue
    assert after.decision() == Chance((Pick(25), Pick(24), Pick(23)), "starting cells")


def test_a_minimum_above_the_points_leaves_one_ruinous_bid() -> None:
    state = bids_state(4, (0, 1, 2, 3), start_points=3)
    assert list(state.legal_actions(3)) == [Action("bid", (4,))]
    after = bid(state, 1, 2, 3, 4)
    assert after.table.living() == (0, 1)


def test_bidding_everyone_but_one_out_ends_the_game() -> None:
    after = bid(bids_state(3), 1, 35, 35)
    outcome = after.decision()
    assert isinstance(outcome, Over)
    assert outcome.outcome.ranking == ((0,), (1, 2))


# --------------------------------------------------------------------------- placement


def test_players_are_placed_on_random_distinct_cells() -> None:
    state = bid(bids_state(3), 1, 2, 3)
    assert state.decision() == Chance((Pick(25), Pick(24), Pick(23)), "starting cells")
    placed = state.apply(Roll(((24,), (0,), (0,))))
    assert isinstance(placed, StomptagState)
    # each seat takes the n-th still-free cell in reading order
    assert [at(placed, s) for s in range(3)] == [(4, 4), (0, 0), (1, 0)]
    assert placed.phase == "orders" and placed.round == 1
    assert placed.decision() == Simultaneous((0, 1, 2), "orders")


# --------------------------------------------------------------------------- the vocabulary


def test_order_space_is_lazy_and_decodes_every_index() -> None:
    space = OrderSpace(2, teleport_ok=False, upgrade_ok=True)
    assert len(space) == 2 * 2 * 9**2
    assert space[0] == Action.parse("orders stride xx")  # stride, stay put: the default
    assert space[-1] == Action.parse("orders+up stomp qq")  # nw nw
    assert all(space.index_of(space[i]) == i for i in range(len(space)))
    assert len(set(space)) == len(space)
    assert Action.parse("orders stomp nt") not in space  # a teleport, not allowed here
    assert Action.parse("orders stomp n n") not in space  # the words are not the wire form
    assert space[1:3] == [Action.parse("orders stride xn"), space[2]]
    with pytest.raises(IndexError):
        space[len(space)]
    huge = OrderSpace(12, teleport_ok=True, upgrade_ok=True)
    assert len(huge) == 4 * 10**12
    assert huge[len(huge) - 1] == Action.parse("orders+up stomp " + "t" * 12)


def test_the_wire_form_is_one_letter_per_move_in_one_word() -> None:
    # One wire form per order: all moves in one word, a letter each (the 250-byte budget).
    assert LETTERS == {
        "nothing": "x",
        "n": "n",
        "ne": "p",
        "e": "e",
        "se": "m",
        "s": "s",
        "sw": "z",
        "w": "w",
        "nw": "q",
        "teleport": "t",
    }
    order = Order(True, ("n", "ne", "teleport"), upgrade=True)
    assert order.action() == Action("orders+up", ("stomp", "npt"))
    assert order.text() == "orders+up stomp n ne teleport"
    assert Stomptag.action_text(order.action()) == order.text()
    assert Stomptag.action_text(Action("bid", (3,))) == "bid 3"
    space = OrderSpace(3, teleport_ok=True, upgrade_ok=True)
    assert parse_order(order.action(), 3, True, True) == order
    # the long form and any mixture are refused on the wire, each with a reason
    wire_reasons = {
        "orders+up stomp n ne teleport": "one word of move letters",
        "orders+up stomp n pt": "one word of move letters",
        "orders+up stomp teleport": "not a word of move letters",
        "orders+up stomp npk": "not a word of move letters",
        "orders+up stomp np": "exactly 3 move",
    }
    for text, reason in wire_reasons.items():
        assert Action.parse(text) not in space
        with pytest.raises(IllegalAction, match=reason):
            check_order(Action.parse(text), 3, True, True)
    with pytest.raises(IllegalAction, match="not a word of move letters"):
        check_order(Action("orders", ("stomp", 7)), 1, True, True)
    # every letter word decodes to the order it encodes (no two words share an order)
    orders = {parse_order(a, 3, True, True) for a in space}
    assert len(orders) == len(space)
    assert all(o.action() in space for o in orders)


def test_typed_orders_take_words_or_letters() -> None:
    state = position([(0, 0), (2, 2), (4, 4)], moves=[2, 1, 3], tag_last_round=True)
    same = {
        (0, "orders stomp n teleport"): "orders stomp nt",
        (0, "orders stomp nt"): "orders stomp nt",
        (0, "orders stomp n t"): "orders stomp nt",
        (0, "ORDERS stomp N Teleport"): "orders stomp nt",
        (2, "orders stride nothing sw nw"): "orders stride xzq",
        (0, "orders+up stomp n p"): "orders+up stomp np",
        (1, "orders stride ne"): "orders stride p",  # one move: ne is north-east
        (0, "orders stride ne"): "orders stride ne",  # two moves: ne is n then e
        (1, "orders stride e"): "orders stride e",
    }
    for (seat, text), wire in same.items():
        action = state.typed_action(seat, Action.parse(text))
        assert action == Action.parse(wire), text
        state.check_action(seat, action)
        # and what players read types back to the same order
        assert state.typed_action(seat, Action.parse(Stomptag.action_text(action))) == action
    assert state.typed_action(0, Action.parse("bid 3")) == Action.parse("bid 3")
    with pytest.raises(IllegalAction, match="'up' is not a move"):
        state.typed_action(0, Action.parse("orders stomp n up"))
    with pytest.raises(IllegalAction, match="'np' is not a move"):
        state.typed_action(0, Action.parse("orders stomp np t"))  # letters go in one word
    bids = bids_state(3)
    assert bids.typed_action(0, Action.parse("orders stomp n ne")) == Action.parse(
        "orders stomp n ne"
    )  # no orders asked: left for check_action to refuse


def test_orders_are_checked_with_a_reason() -> None:
    state = position([(0, 0), (2, 2), (4, 4)], moves=[2, 1, 3])
    good = [
        "orders stomp n e",
        "orders+up stride nothing sw",
        "orders stomp ne",
        "orders stride xz",
    ]
    for text in good:
        action = typed(state, 0, text)
        state.check_action(0, action)
        assert action in state.legal_actions(0)
    reasons = {
        "orders stomp n": "exactly 2",
        "orders stomp nothing": "exactly 2",
        "orders stomp xxx": "exactly 2",
        "orders hop n e": "'stomp' or 'stride'",
        "orders stomp n teleport": "teleport only",
        "orders stomp nt": "teleport only",
        "move n": "orders look like",
    }
    for text, reason in reasons.items():
        with pytest.raises(IllegalAction, match=reason):
            state.check_action(0, typed(state, 0, text))
    with pytest.raises(IllegalAction, match="not a move"):
        typed(state, 0, "orders stomp n up")
    with pytest.raises(IllegalAction, match="no more upgrades"):
        state.check_action(2, typed(state, 2, "orders+up stomp n n n"))
    with pytest.raises(IllegalAction, match="orders look like"):
        state.check_action(0, Action.parse("bid 3"))


def test_missing_orders_mean_stride_and_stay_put() -> None:
    # "If you don't send a PM, I will assume you don't want to move"
    state = position([(0, 0), (2, 2), (4, 4)], moves=[2, 1, 1])
    assert state.default_action(0) == Action.parse("orders stride xx")
    assert Stomptag.action_text(state.default_action(0)) == "orders stride nothing nothing"
    assert state.legal_actions(0)[0] == state.default_action(0)


def test_out_players_are_not_asked() -> None:
    state = position([(0, 0), None, (4, 4)])
    assert state.decision() == Simultaneous((0, 2), "orders")
    assert list(state.legal_actions(1)) == []
    with pytest.raises(IllegalAction, match="nothing to decide"):
        state.check_action(1, Action.parse("orders stride n"))
    assert state.typed_action(1, Action.parse("orders stride ne")) == Action.parse(
        "orders stride ne"
    )  # an out seat's typing is left as it is, for check_action to refuse


# --------------------------------------------------------------------------- the end


def _over(state: StomptagState, out: tuple[int, ...]) -> StomptagState:
    return replace(state, phase="over", table=replace(state.table, out=out))


def test_placings_score_three_two_two_one_one_one() -> None:
    # "first place gets 3 points, second and third place gets 2 points, and 4th to 6th ... 1"
    state = position([(0, 0)] + [None] * 7, it=0, queue=[0])
    over = _over(state, out=(0, 7, 6, 5, 4, 3, 2, 1))
    outcome = over.decision()
    assert isinstance(outcome, Over)
    assert outcome.outcome.ranking == ((0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,))
    assert outcome.outcome.scores == (3, 2, 2, 1, 1, 1, 0, 0)
    assert "seat 0 is the last player standing" in outcome.outcome.summary


def test_players_out_at_the_same_moment_share_a_place() -> None:
    state = position([(0, 0)] + [None] * 5, it=0, queue=[0])
    outcome = _over(state, out=(0, 2, 2, 1, 1, 1)).decision()
    assert isinstance(outcome, Over)
    assert outcome.outcome.ranking == ((0,), (1, 2), (3, 4, 5))
    assert outcome.outcome.scores == (3, 2, 2, 1, 1, 1)


def test_round_limit_ranks_survivors_by_points() -> None:
    state = position([(0, 0), (2, 2), (4, 4)], points=[10, 11, 11], it=0, options={"max_rounds": 1})
    after = play(state, {})  # everyone strides in place: +1, the it pays 4
    outcome = after.decision()
    assert isinstance(outcome, Over)
    assert after.table.points == (7, 12, 12)
    assert outcome.outcome.ranking == ((1, 2), (0,))
    assert outcome.outcome.scores == (2, 3, 3)
    assert "round limit" in outcome.outcome.summary


def test_no_round_limit_plays_on() -> None:
    state = position([(0, 0), (2, 2), (4, 4)], options={"max_rounds": 0}, round_=500)
    assert play(state, {}).phase == "orders"
    limited = position([(0, 0), (2, 2), (4, 4)], round_=40)
    assert play(limited, {}).phase == "over"


# --------------------------------------------------------------------------- views


def test_view_and_render_show_the_board() -> None:
    state = position([(0, 0), (2, 1), (4, 4)], it=1)
    after = play(state, {0: "orders stomp e", 2: "orders+up stride n"})
    view = VIEW.view(after, 2)
    assert view["board"][0][1] == 0 and view["board"][1][2] == 1 and view["board"][3][4] == 2
    assert view["players"][1]["it"] and view["players"][2]["moves"] == 2
    assert view["to_act"] == [0, 1, 2] and view["can_upgrade"] is True
    assert view["last_orders"] == [  # the table's words: mode, moves, and an upgrade bought
        [0, "stomp e"],
        [1, "stride nothing"],
        [2, "stride n + upgrade"],
    ]
    assert any(e["what"] == "upgrade" and "2 -5" in e["text"] for e in view["events"])
    text = VIEW.render(after)
    assert "@1" in text and "legend:" in text
    assert "\norders: seat 0 stomp e; seat 1 stride nothing; seat 2 stride n + upgrade\n" in text
    assert text.splitlines()[-1].startswith("status: waiting for secret orders from seats 0 1 2")


def test_state_round_trips_through_its_encoding() -> None:
    state = position([(0, 0), (1, 0), (4, 4)], tag_last_round=True)
    pending = state.apply(
        Joint(
            (
                (0, Action.parse("orders stomp t")),
                (1, Action.parse("orders stride w")),
                (2, Action.parse("orders stride x")),
            )
        )
    )
    assert isinstance(pending, StomptagState) and pending.phase == "teleports"
    for s in (state, pending, play(state, {0: "orders stomp e"})):
        assert Stomptag.decode_state(s.encode()) == s
    with pytest.raises(ValueError):
        Stomptag.decode_state(b"\x93\x01\x02\x03")
    with pytest.raises(ValueError):
        Stomptag.state_from_obj([3, [35, 5], "orders"])
    crowded = state.to_obj()
    crowded[6][1] = [0, 0, 24]  # two players on one cell
    with pytest.raises(ValueError, match="share a cell"):
        Stomptag.state_from_obj(crowded)
