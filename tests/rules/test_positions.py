"""Positions (#26 item 1): named fields a person can write, read back to the same bytes.

Every engine with a position format round-trips every state of random playouts through
``Game.position`` / JSON / ``Game.from_position``; a position that is no state of the game
is refused with one message per problem.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from lanTag.games.assassination.engine import Assassination
from lanTag.games.boardtag.engine import BoardTag
from lanTag.games.prototag.engine import Prototag
from lanTag.games.stomptag.engine import Stomptag
from lanTag.games.tagem.engine import Tagem
from lanTag.rules.base import (
    Action,
    Chance,
    Joint,
    Move,
    Over,
    PositionError,
    Roll,
    Simultaneous,
    Turn,
)
from lanTag.rules.playout import random_input
from lanTag.rules.registry import engine_ids, get_game
from tests.session.toygame import Toy

POSITION_ENGINES = ("prototag", "assassination", "boardtag", "stomptag", "tagem")


def _has_positions(engine: str) -> bool:
    game = get_game(engine)
    try:
        game.position(game.new_state(game.min_seats))
    except PositionError:
        return False
    return True


def test_the_engines_with_a_position_format_are_the_documented_ones() -> None:
    assert tuple(e for e in engine_ids() if _has_positions(e)) == POSITION_ENGINES
    # An engine that writes no format (a plugin, the session tests' toy) says so.
    with pytest.raises(PositionError, match="toy has no position format yet"):
        Toy.from_position({})
    with pytest.raises(PositionError, match="toy has no position format yet"):
        Toy.position(Toy.new_state(2))


@pytest.mark.parametrize("engine", POSITION_ENGINES)
def test_positions_round_trip_through_json_over_random_playouts(engine: str) -> None:
    game = get_game(engine)
    states = 0
    for seed in range(6):
        rng = random.Random(f"positions-{engine}-{seed}")
        seats = rng.randint(game.min_seats, min(game.max_seats, 6))
        state = game.new_state(seats)
        for _ in range(300):
            text = json.dumps(game.position(state))
            again = game.from_position(json.loads(text))
            assert again.encode() == state.encode(), text
            states += 1
            if isinstance(state.decision(), Over):
                break
            state = state.apply(random_input(state, rng.randrange))
    assert states > 60  # stomptag games are short: a round is a few steps


def _prototag(**fields: Any) -> dict[str, Any]:
    """A hand-written position: seat 0 tagged, to roll; seats 1 and 2 elsewhere."""
    position: dict[str, Any] = {
        "game": "prototag",
        "rules": Prototag.rules_version,
        "seats": 3,
        "phase": "roll",
        "pieces": ["d4", "a1", "g7"],
        "tagged": 0,
        "mover": 0,
    }
    position.update(fields)
    return position


def test_a_hand_written_prototag_position_plays_on() -> None:
    # Options left out take their defaults; so do the counters.
    state = Prototag.from_position(_prototag(pieces=["d4", "d2", "g7"]))
    decision = state.decision()
    assert isinstance(decision, Chance) and decision.purpose == "roll/0/d6"
    state = state.apply(Roll(((2,),)))
    state = state.apply(Move(0, Action("step", ("n",))))
    state = state.apply(Move(0, Action("step", ("n",))))  # reaches seat 1 on d2
    assert isinstance(state.decision(), Simultaneous)
    position = Prototag.position(state)
    assert position["phase"] == "rps" and position["opponent"] == 1
    assert position["pieces"] == ["d2", "d2", "g7"] and position["path"] == ["d4", "d3", "d2"]
    assert position["tagged_steps"] == 2 and position["options"]["board_size"] == 7


def test_a_position_names_tiles_as_the_board_does() -> None:
    state = Prototag.new_state(4)
    position = Prototag.position(state)
    assert position["pieces"] == ["a1", "g1", "g7", "a7"]  # the corners, clockwise
    assert position["phase"] == "start" and position["tagged"] is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"pieces": ["d4", "a1", "a1"]}, "seats (1, 2) share a tile"),
        ({"tagged": 5}, "tagged: seat 5 does not exist (seats 0-2)"),
        ({"pieces": ["d4", "z9", "g7"]}, "pieces: item 1: 'z9' is not a tile of the 7x7 board"),
        ({"pieces": ["d4", "a1"]}, "pieces: 2 tiles for 3 seats"),
        ({"pieces": []}, "pieces: 0 tiles for 3 seats"),
        ({"rules": 1}, "rules: the position is for prototag rules 1; this lanTag plays rules 2"),
        ({"game": "tagem"}, "game: 'tagem' is not 'prototag'"),
        ({"seats": 9}, "seats: Prototag takes 2-8 players, not 9"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"options": {"board_size": 99}}, "options: option board_size: 99 is above the maximum 15"),
        ({"phase": "dance"}, "phase: 'dance' is not a phase"),
        ({"tagged_steps": 41}, "the game ends exactly when the tagged steps reach end_steps"),
        ({"roll": -1}, "roll: -1 is below 0"),
    ],
)
def test_an_illegal_prototag_position_is_refused_with_its_problem(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(PositionError) as refused:
        Prototag.from_position(_prototag(**fields))
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


def test_every_problem_of_a_position_is_named_once() -> None:
    with pytest.raises(PositionError) as refused:
        Prototag.from_position(_prototag(tagged=5, mover="x", pieces=["d4", "a1", "q1"]))
    problems = refused.value.problems
    assert len(problems) == 3, problems
    assert problems[0].startswith("pieces: item 2: 'q1'")
    assert problems[1] == "tagged: seat 5 does not exist (seats 0-2)"
    assert problems[2] == "mover: 'x' is not a seat"
    with pytest.raises(PositionError, match="is an object of named fields"):
        Prototag.from_position(["prototag"])  # type: ignore[arg-type]


def test_a_position_missing_its_pieces_or_phase_says_so() -> None:
    position = _prototag()
    del position["pieces"], position["phase"]
    with pytest.raises(PositionError) as refused:
        Prototag.from_position(position)
    assert refused.value.problems == (
        "pieces: the tile of every seat is needed",
        "phase: one of start, pick, roll, move, rps, over is needed",
    )


def test_turn_decisions_survive_the_round_trip() -> None:
    state = Prototag.from_position(_prototag(phase="move", roll=3, path=["d4"]))
    assert state.decision() == Turn(0)
    assert Prototag.from_position(Prototag.position(state)) == state


# ---------------------------------------------------------------- assassination


def _assassination(**fields: Any) -> dict[str, Any]:
    """Seat 0 the victim on b2, seat 1 an assassin on a2 about to roll; 3 seats, 5x5."""
    position: dict[str, Any] = {
        "game": "assassination",
        "rules": Assassination.rules_version,
        "seats": 3,
        "phase": "roll",
        "victim": 0,
        "mover": 1,
        "pieces": ["b2", "a2", "e5"],
        "last_assassin": 1,
    }
    position.update(fields)
    return position


def test_an_assassin_set_up_next_to_the_victim_catches_it() -> None:
    # "If an assassin lands on the victim's square, the assassin gets a small victory ...
    # and becomes the new victim", who starts again from the Safe House.
    state = Assassination.from_position(_assassination())
    state = state.apply(Roll(((1,),))).apply(Move(1, Action("step", ("e",))))
    position = Assassination.position(state)
    assert position["catches"] == [0, 1, 0] and position["victim"] == 1
    assert position["pieces"] == ["b2", "safe-house", "e5"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"pieces": ["b2", "b2", "e5"]}, "assassin 1 shares the victim's square"),
        ({"pieces": ["b2", "c3", "e5"]}, "'c3' is not a square of the 5x5 board"),
        ({"victim": 3}, "victim: seat 3 does not exist (seats 0-2)"),
        ({"bases_touched": [["n", "up"], [], []]}, "bases_touched: item 0: ['n', 'up'] is not"),
        ({"catches": [0, 0]}, "catches: 2 entries for 3 seats"),
        ({"roll": 6}, "roll: 6 is above 5"),
    ],
)
def test_an_illegal_assassination_position_is_refused_with_its_problem(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(PositionError) as refused:
        Assassination.from_position(_assassination(**fields))
    assert message in str(refused.value)


# ---------------------------------------------------------------- board tag


def _boardtag(**fields: Any) -> dict[str, Any]:
    """IT Phase: seat 1 is IT at (4,4) facing north; seat 0's 4 stands in front on e5."""
    dice = [
        {"owner": 0, "score": 1, "square": "h7"},
        {"owner": 0, "score": 4, "square": "e5"},
        {"owner": 0, "score": 1, "square": "f8"},
        {"owner": 1, "score": 1, "square": "e7"},
        {"owner": 1, "score": 1, "square": "h4"},
        {"owner": 1, "score": 2, "square": None},
    ]
    position: dict[str, Any] = {
        "game": "boardtag",
        "rules": BoardTag.rules_version,
        "seats": 2,
        "phase": "it",
        "dice": dice,
        "round": 1,
        "it_seat": 1,
        "it_die": 5,
        "it_point": "(4,4)",
        "it_facing": "n",
        "mover": 1,
        "finished": [4, 3, 1, 2, 0],
    }
    position.update(fields)
    return position


def test_it_tags_a_runner_set_up_in_front_of_it() -> None:
    # "IT may tag either of the two squares in front of it": the tagged die loses a point
    # and leaves the board, and its owner is IT.
    state = BoardTag.from_position(_boardtag())
    assert Action("tag", ("e5",)) in state.legal_actions(1)
    position = BoardTag.position(state.apply(Move(1, Action("tag", ("e5",)))))
    assert position["it_seat"] == 0 and position["it_die"] == 1
    assert position["dice"][1] == {"owner": 0, "score": 3, "square": None}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"it_point": "(9,1)"}, "it_point: '(9,1)' is not a lattice point ((0,0)..(8,8))"),
        ({"it_seat": 2}, "it_seat: seat 2 does not exist (seats 0-1)"),
        ({"it_facing": "up"}, "it_facing: 'up' is not one of n, e, s, w"),
        ({"dice": []}, "dice: 0 dice for 2 seats (3 each)"),
        ({"gained_near_it": 1}, "gained_near_it: 1 is not true or false"),
    ],
)
def test_an_illegal_boardtag_position_is_refused_with_its_problem(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(PositionError) as refused:
        BoardTag.from_position(_boardtag(**fields))
    assert message in str(refused.value)


def test_two_runners_on_one_square_are_refused() -> None:
    position = _boardtag()
    position["dice"][0]["square"] = "e5"
    with pytest.raises(PositionError, match="two dice share a square"):
        BoardTag.from_position(position)
    position["dice"][0]["score"] = 7
    with pytest.raises(PositionError, match=r"dice: item 0: 7 is above 6"):
        BoardTag.from_position(position)


# ---------------------------------------------------------------- tag 'em


def _tagem(**fields: Any) -> dict[str, Any]:
    """Skirmish (the 2-player auto map), Capture-Their-Flag, 2 pawns each, A to move."""
    start = Tagem.new_state(2, {"mode": "ctcf", "pawns": 2}).apply(Roll(((0, 1),)))
    position = Tagem.position(start)
    position.update(fields)
    return position


def test_a_declared_attack_shows_its_modifiers_by_name() -> None:
    # B0 on cover (r2c11 is '%'), A0 attacks it from the west with A1 also next to B0:
    # "+1 horde, -1 cover" for the attacker, nothing for the defender.
    state = Tagem.from_position(_tagem(pawns=[["r2c10", "r1c11"], ["r2c11", "r7c11"]]))
    state = state.apply(Move(0, Action("attack", (0, "e"))))
    assert Tagem.position(state)["pending"] == {
        "attacker": "A0",
        "defender": "B0",
        "attacker_horde": 1,
        "defender_horde": 0,
        "attacker_garrison": False,
        "defender_garrison": False,
        "defender_cover": True,
    }
    again = Tagem.from_position(json.loads(json.dumps(Tagem.position(state))))
    assert again.encode() == state.encode()


def test_a_defeated_pawn_set_up_on_cover_respawns_elsewhere() -> None:
    # The same attack, rolled 6 against 1: B0 is defeated and, in a respawning mode,
    # comes back at its X formation but never on r2c11, where it was lost (decision 16).
    state = Tagem.from_position(_tagem(pawns=[["r2c10", "r1c11"], ["r2c11", "r7c11"]]))
    state = state.apply(Move(0, Action("attack", (0, "e")))).apply(Roll(((6, 1),)))
    position = Tagem.position(state)
    assert position["tags"] == [1, 0] and position["pending"] is None
    assert position["pawns"][0] == ["r2c10", "r1c11"]
    assert position["pawns"][1][0] not in (None, "r2c11")


@pytest.mark.parametrize("mode", ["ctf", "ctcf"])
def test_flag_positions_round_trip(mode: str) -> None:
    for seed in range(3):
        rng = random.Random(f"positions-tagem-{mode}-{seed}")
        state = Tagem.new_state(2, {"mode": mode, "pawns": 2, "max_turns": 6})
        while not isinstance(state.decision(), Over):
            again = Tagem.from_position(json.loads(json.dumps(Tagem.position(state))))
            assert again.encode() == state.encode()
            state = state.apply(random_input(state, rng.randrange))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"pawns": [["r2c2", "r99c0"], ["r8c12", "r7c11"]]}, "'r99c0' is not a tile of the map"),
        ({"pawns": [["r2c2"], ["r8c12", "r7c11"]]}, "pawns: 2 teams of 2 pawns"),
        ({"winner": 2}, "winner: seat 2 does not exist (seats 0-1)"),
        ({"map": ["name: x", "grid:", "..."]}, "map: "),
        (
            {"flags": [{"owner": 0, "cell": None, "carrier": "C0"}]},
            "flags: item 0: there is no pawn C0 with 2 seats of 2 pawns",
        ),
    ],
)
def test_an_illegal_tagem_position_is_refused_with_its_problem(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(PositionError) as refused:
        Tagem.from_position(_tagem(**fields))
    assert message in str(refused.value)


def test_two_pawns_on_one_tile_are_refused() -> None:
    with pytest.raises(PositionError, match="not a tagem position: "):
        Tagem.from_position(_tagem(pawns=[["r2c2", "r2c2"], ["r8c12", "r7c11"]]))


# ---------------------------------------------------------------- stomptag


def _stomptag(**fields: Any) -> dict[str, Any]:
    """Round 3, orders: seat 0 is it on (3,4), seat 1 just north of it on (3,3)."""
    position: dict[str, Any] = {
        "game": "stomptag",
        "rules": Stomptag.rules_version,
        "seats": 3,
        "phase": "orders",
        "round": 3,
        "players": [
            {"cell": "(3,4)", "minimum": 2, "bid": 7, "points": 20},
            {"cell": "(3,3)", "minimum": 3, "bid": 26, "points": 10},
            {"cell": "(5,5)", "minimum": 1, "bid": 11, "points": 21},
        ],
        "queue": [0, 2, 1],
        "it": 0,
    }
    position.update(fields)
    return position


def test_the_it_stomping_onto_a_still_player_tags_it() -> None:
    state = Stomptag.from_position(_stomptag())
    typed = {0: "orders stomp n", 1: "orders stride nothing", 2: "orders stride nothing"}
    joint = Joint(tuple((s, state.typed_action(s, Action.parse(t))) for s, t in typed.items()))
    position = Stomptag.position(state.apply(joint))
    assert ["tag", 1, [0, 1], [], -1] in position["last_events"]
    assert position["players"][1]["out"] == 1 and position["it"] == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"it": 7}, "it: seat 7 does not exist (seats 0-2)"),
        ({"players": [{"cell": "(9,9)"}, {}, {}]}, "'(9,9)' is not a cell of the 5x5 grid"),
        ({"players": [{"cell": "(3,4)"}]}, "players: 1 players for 3 seats"),
        ({"players": [{"colour": 1}, {}, {}]}, "a player is an object with some of points"),
        (
            {"orders": [{"seat": 0, "order": "orders jump n", "forfeit": False}]},
            "'orders jump n' is not 'orders stomp|stride <moves>'",
        ),
    ],
)
def test_an_illegal_stomptag_position_is_refused_with_its_problem(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(PositionError) as refused:
        Stomptag.from_position(_stomptag(**fields))
    assert message in str(refused.value)


def test_two_players_on_one_cell_are_refused() -> None:
    position = _stomptag()
    position["players"][2]["cell"] = "(3,3)"
    with pytest.raises(PositionError, match="not a stomptag position: "):
        Stomptag.from_position(position)


# ---------------------------------------------------------------- never a traceback

_JUNK: list[Any] = [None, -1, 0, 99, "x", "a1", "(1,1)", "r0c0", [], {}, [1, 2], True, [None]]


def _mutated(position: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of ``position`` with one field (or one item, or one key of an item) spoiled."""
    copy: dict[str, Any] = json.loads(json.dumps(position))
    key = rng.choice(list(copy))
    value = copy[key]
    if isinstance(value, list) and value and rng.random() < 0.5:
        index = rng.randrange(len(value))
        if isinstance(value[index], dict) and value[index]:
            value[index][rng.choice(list(value[index]))] = rng.choice(_JUNK)
        else:
            value[index] = rng.choice(_JUNK)
    elif isinstance(value, dict) and value:
        value[rng.choice(list(value))] = rng.choice(_JUNK)
    elif rng.random() < 0.2:
        del copy[key]
    else:
        copy[key] = rng.choice(_JUNK)
    return copy


@pytest.mark.parametrize("engine", POSITION_ENGINES)
def test_a_spoiled_position_is_refused_in_words_never_with_a_traceback(engine: str) -> None:
    game = get_game(engine)
    rng = random.Random(f"spoiled-{engine}")
    state, refused = game.new_state(game.min_seats + 1), 0
    for _ in range(40):
        for _ in range(4):
            try:
                game.from_position(_mutated(game.position(state), rng))
            except PositionError as exc:
                refused += 1
                assert str(exc) and "\n" not in str(exc)
        if isinstance(state.decision(), Over):
            break
        state = state.apply(random_input(state, rng.randrange))
    assert refused > 20
