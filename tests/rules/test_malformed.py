"""Malformed input is told from a rule refusal (issue #37, item 4).

``MalformedAction`` (a subclass of ``IllegalAction``) says that text or bytes are no action
of the game at all; a plain ``IllegalAction`` refuses a well-formed action the rules forbid
here and now.  Which one never depends on the state: ``Game.reads`` decides it.  Every
caller that refuses an illegal action refuses a malformed one too (the session blames both
``illegal-action``), so the split changes no verdict, only how precisely a refusal is named.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from lanTag.rules.base import (
    Action,
    Game,
    IllegalAction,
    MalformedAction,
    Over,
    Simultaneous,
    State,
    Turn,
    decode_input,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import engine_ids, get_game

PLAYOUTS = 12
SAMPLES = 6  # legal actions sampled per acting seat (stomptag's order space is huge)

# Per game: actions it cannot read in any state (an unknown verb, arguments of the wrong
# number or kind, a word outside its vocabulary).
NOT_ACTIONS: dict[str, tuple[Action, ...]] = {
    "prototag": (
        Action("step", ("q",)),
        Action("step"),
        Action("step", (1,)),
        Action("rps", ("lizard",)),
        Action("jump", ("n",)),
    ),
    "boardtag": (
        Action("place", ("z9",)),
        Action("place", (3,)),
        Action("face", ("up",)),
        Action("end", (1,)),
        Action("jump", ("abc",)),
        Action("tag"),
    ),
    "assassination": (
        Action("step", ("ne",)),
        Action("step", ("n", "e")),
        Action("leave"),
        Action("leave", (3,)),
        Action("reroll", ("now",)),
    ),
    "tagem": (
        Action("move", (0,)),
        Action("move", (0, "up")),
        Action("attack", ("x", "n")),
        Action("end", ("now",)),
        Action("fly", (0, "n")),
    ),
    "stomptag": (
        Action("bid"),
        Action("bid", ("many",)),
        Action("orders", ("walk", "nn")),
        Action("orders", ("stomp", "n", "e")),
        Action("orders", ("stomp", "nb")),
        Action("orders", ("stomp",)),
    ),
}
GARBAGE = (Action("xyzzy"), Action("xyzzy", (3, "n")))


def _acting(state: State) -> tuple[int, ...]:
    decision = state.decision()
    if isinstance(decision, Turn):
        return (decision.seat,)
    if isinstance(decision, Simultaneous):
        return tuple(sorted(decision.seats))
    return ()


def _sample(legal: Sequence[Action], rng: random.Random) -> list[Action]:
    picks = range(len(legal)) if len(legal) <= SAMPLES else rng.sample(range(len(legal)), SAMPLES)
    return [legal[i] for i in picks]


def _refusal(state: State, seat: int, action: Action) -> type[IllegalAction] | None:
    """The class of the error ``check_action`` raises, or None when it takes the action."""
    try:
        state.check_action(seat, action)
    except IllegalAction as exc:
        return type(exc)
    return None


def test_malformed_is_an_illegal_action() -> None:
    # Every `except IllegalAction` (the session's conviction, the console's one-line error)
    # keeps catching it; it is still a ValueError and a lanTag error.
    assert issubclass(MalformedAction, IllegalAction)
    assert issubclass(MalformedAction, ValueError)


def test_every_shipped_game_states_what_it_reads() -> None:
    assert set(NOT_ACTIONS) == set(engine_ids())
    for engine in engine_ids():
        game = get_game(engine)
        assert game.reads.__func__ is not Game.reads.__func__, engine
        for action in (*NOT_ACTIONS[engine], *GARBAGE):
            assert not game.reads(action), (engine, str(action))


@pytest.mark.parametrize("engine", engine_ids())
def test_the_refusal_says_malformed_exactly_for_what_the_game_cannot_read(engine: str) -> None:
    """Along seeded playouts, for every seat at every state: a malformed action is refused
    with MalformedAction; an action legal in some state (seen along the way) is taken, or
    refused with a plain IllegalAction, never called malformed."""
    game = get_game(engine)
    seen: dict[str, Action] = {}  # legal somewhere: well-formed
    refusals = malformed = 0
    for n in range(PLAYOUTS):
        rng = random.Random(f"malformed-{engine}-{n}")
        seats = game.min_seats + n % (min(game.max_seats, 5) - game.min_seats + 1)
        state = game.new_state(seats)
        steps = 0
        while not isinstance(state.decision(), Over) and steps < 300:
            for seat in _acting(state):
                for action in _sample(state.legal_actions(seat), rng):
                    assert game.reads(action), (engine, str(action))
                    seen.setdefault(str(action), action)
            well_formed = list(seen.values())
            for seat in range(seats):
                for action in (*NOT_ACTIONS[engine], *GARBAGE):
                    assert _refusal(state, seat, action) is MalformedAction, (engine, str(action))
                    malformed += 1
                for action in rng.sample(well_formed, min(len(well_formed), 8)):
                    kind = _refusal(state, seat, action)
                    assert kind in (None, IllegalAction), (engine, seat, str(action), kind)
                    refusals += kind is IllegalAction
            state = state.apply(random_input(state, rng.randrange))
            steps += 1
    assert refusals > 50 and malformed > 50  # both kinds were really tried, many times


# One readable case per game: the same verb, well-formed and forbidden, then malformed.


def _state_where(engine: str, seed: str, wanted: Callable[[State], bool]) -> State:
    """The first state of a seeded playout where ``wanted(state)`` holds."""
    game = get_game(engine)
    rng = random.Random(seed)
    state = game.new_state(game.min_seats)
    while not wanted(state):
        assert not isinstance(state.decision(), Over), f"{engine}: no such state"
        state = state.apply(random_input(state, rng.randrange))
    return state


def _mover(state: State) -> int:
    decision = state.decision()
    assert isinstance(decision, Turn)
    return decision.seat


def _turn_with_a_refused(verb: str, forms: list[tuple[int | str, ...]]) -> Callable[[State], bool]:
    """A turn where ``verb`` is legal in some form and forbidden in another of ``forms``."""

    def wanted(state: State) -> bool:
        if not isinstance(state.decision(), Turn):
            return False
        legal = state.legal_actions(_mover(state))
        return any(a.verb == verb for a in legal) and any(
            Action(verb, args) not in legal for args in forms
        )

    return wanted


@pytest.mark.parametrize(
    ("engine", "verb", "forms", "bad"),
    [
        ("prototag", "step", [("n",), ("e",), ("s",), ("w",)], Action("step", ("up",))),
        ("assassination", "step", [("n",), ("e",), ("s",), ("w",)], Action("step", ("up",))),
        ("tagem", "move", [(0, d) for d in "nesw"], Action("move", (0, "up"))),
    ],
)
def test_a_forbidden_step_is_refused_and_a_nonsense_one_is_malformed(
    engine: str, verb: str, forms: list[tuple[int | str, ...]], bad: Action
) -> None:
    state = _state_where(engine, f"{engine}-case", _turn_with_a_refused(verb, forms))
    seat = _mover(state)
    legal = state.legal_actions(seat)
    forbidden = next(Action(verb, args) for args in forms if Action(verb, args) not in legal)
    with pytest.raises(IllegalAction) as refused:
        state.check_action(seat, forbidden)
    assert type(refused.value) is IllegalAction, str(refused.value)
    with pytest.raises(MalformedAction):
        state.check_action(seat, bad)


def test_boardtag_and_stomptag_cases() -> None:
    # Board Tag, placing a die: a square off the edge is forbidden, "z9" is no square.
    state = _state_where("boardtag", "bt", lambda s: "place" in {a.verb for a in _legal(s)})
    seat = _mover(state)
    with pytest.raises(IllegalAction) as refused:
        state.check_action(seat, Action("place", ("d4",)))
    assert type(refused.value) is IllegalAction and "not an edge square" in str(refused.value)
    with pytest.raises(MalformedAction, match="not a square"):
        state.check_action(seat, Action("place", ("z9",)))
    # Stomptag, bidding: a bid out of range is forbidden, a word is no bid.
    state = _state_where("stomptag", "st", lambda s: "bid" in {a.verb for a in _legal(s)})
    seat = next(seat for seat in _acting(state) if state.legal_actions(seat))
    with pytest.raises(IllegalAction) as refused:
        state.check_action(seat, Action("bid", (999,)))
    assert type(refused.value) is IllegalAction and "must bid" in str(refused.value)
    with pytest.raises(MalformedAction, match="whole number"):
        state.check_action(seat, Action("bid", ("many",)))
    # ... and orders typed with a word that is no move cannot even be written for the wire.
    state = _state_where("stomptag", "st2", lambda s: "orders" in {a.verb for a in _legal(s)})
    seat = next(seat for seat in _acting(state) if state.legal_actions(seat))
    with pytest.raises(MalformedAction, match="is not a move"):
        state.typed_action(seat, Action.parse("orders stomp north bogus"))


def _legal(state: State) -> list[Action]:
    return [a for seat in _acting(state) for a in list(state.legal_actions(seat))[:200]]


@pytest.mark.parametrize(
    "text", ["", "   ", "Step N!", "42", "step n.5", "place\x00 a1", "orders stomp n?"]
)
def test_unparseable_text_is_malformed(text: str) -> None:
    with pytest.raises(MalformedAction):
        Action.parse(text)


@pytest.mark.parametrize(
    "obj",
    [
        b"\x92\x00",  # bytes, not an array
        [],
        [0, 1],
        [0, 1, []],
        [0, 1, [3, "n"]],  # a verb that is no string
        [0, True, ["step", "n"]],
        [1, [[1, ["rps", "rock"]], [0, ["rps", "paper"]]]],  # joint not sorted by seat
        [1, [[0]]],
        [2, [["x"]]],
        [9, []],
        [0, 1, ["step", 1.5]],
    ],
)
def test_undecodable_input_is_malformed(obj: object) -> None:
    with pytest.raises(MalformedAction):
        decode_input(obj)
