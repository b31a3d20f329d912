"""Tag 'em's fast paths against their slow definitions, over seeded random playouts.

TagemState has a direct encode/state_hash, a decision() memo, a direct check_action and a
move that skips Play's scratch copy; each must agree with the plain definition everywhere.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace

import pytest

from lanTag.games.tagem.engine import DIRS, MAX_PAWNS, Tagem, TagemState
from lanTag.games.tagem.play import Play
from lanTag.games.tagem.view import events_texts
from lanTag.rules.base import Action, IllegalAction, Move, Over, Turn, canonical_pack
from lanTag.rules.playout import random_input
from tests.rules.tagem_helpers import act, setup

CANDIDATES = [
    Action("end"),
    Action("end", (0,)),
    Action("move", (0,)),
    Action("move", ("n", 0)),
    Action("attack", (0, 1)),
    Action("jump", (0, "n")),
    *(
        Action(verb, (p, d))
        for verb in ("move", "attack")
        for p in range(-1, MAX_PAWNS + 1)
        for d in DIRS
    ),
]


def _playout(seed: int, seats: int, options: dict[str, object]) -> list[TagemState]:
    rng = random.Random(f"tagem-fast-{seed}")
    state = Tagem.new_state(seats, options)
    states = [state]
    while not isinstance(state.decision(), Over) and len(states) < 400:
        nxt = state.apply(random_input(state, rng.randrange))
        assert isinstance(nxt, TagemState)
        state = nxt
        states.append(state)
    return states


GAMES = [
    (seed, 2 + seed % 7, {"mode": mode, "pom": pom, "pawns": pawns, "max_turns": turns})
    for seed, (mode, pom, pawns, turns) in enumerate(
        [
            ("elimination", 0, 5, 10),
            ("ctf", 0, 5, 0),
            ("ctcf", 3, 5, 10),
            ("elimination", 2, 3, 4),
            ("ctf", 1, 1, 6),
            ("ctcf", 0, 5, 0),
            ("elimination", 7, 5, 0),
        ]
    )
]


def _slow_move(state: TagemState, move: Move) -> TagemState:
    """What _apply did before the fast path: every move through Play."""
    pawn, d = int(move.action.args[0]), DIRS.index(str(move.action.args[1]))
    here = state.pawns[move.seat][pawn]
    return Play(state).move(move.seat, pawn, here, state.board.steps[here][d]).freeze()


@pytest.mark.parametrize(("seed", "seats", "options"), GAMES)
def test_fast_paths_match_their_definitions(
    seed: int, seats: int, options: dict[str, object]
) -> None:
    for state in _playout(seed, seats, options):
        slow = canonical_pack([Tagem.id, state.to_obj()])
        assert state.encode() == slow
        assert state.state_hash() == hashlib.sha256(slow).digest()
        fresh = replace(state)  # a copy with an empty decision() memo
        assert fresh == state and fresh.decision() == state._decide() == state.decision()
        for seat in range(state.seats):
            legal = list(state.legal_actions(seat))
            accepted = []
            for action in CANDIDATES:
                try:
                    state.check_action(seat, action)
                except IllegalAction:
                    continue
                accepted.append(action)
            assert sorted(map(str, accepted)) == sorted(map(str, legal))
        decision = state.decision()
        if not isinstance(decision, Turn):
            continue
        for action in state.legal_actions(decision.seat):
            if action.verb != "move":
                continue
            move = Move(decision.seat, action)
            fast, slow_state = state.apply(move), _slow_move(state, move)
            assert fast == slow_state and fast.encode() == slow_state.encode()
            assert fast.decision() == slow_state.decision()


def test_garrison_moves_and_unsorted_stopped_pawns() -> None:
    # A2 then A0 enter Garrisons; Play.freeze sorts `stopped`, a decoded state may not.
    state = setup(
        {"A0": (4, 4), "A1": (6, 6), "A2": (2, 2), "B0": (7, 9)},
        terrain={(4, 5): "^", (2, 3): "^", (5, 6): "~"},
    )
    for text in ("move 2 e", "move 0 e", "move 1 n", "move 1 e", "move 1 e"):
        move = Move(0, Action.parse(text))
        assert state.apply(move) == _slow_move(state, move)
        state = act(state, 0, text)
        if text == "move 0 e":
            assert state.stopped == (0, 2)
            obj = state.to_obj()
            obj[9] = [2, 0]
            odd = Tagem.state_from_obj(obj)
            assert isinstance(odd, TagemState) and odd.stopped == (2, 0)
            for action in odd.legal_actions(0):
                if action.verb == "move":
                    move = Move(0, action)
                    assert odd.apply(move).encode() == _slow_move(odd, move).encode()
    assert events_texts(state) == ["A1 moves e to (9,6) (1 PoM)"]  # r5c8: column 9, row 6
