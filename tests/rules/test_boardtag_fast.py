"""Board Tag's fast paths against their definitions, over seeded random playouts.

Legality is stated once (``checks.refusal``): ``check_action`` raises its words and
``legal_actions`` lists the shapes it lets through, so any action it accepts must be listed
and any it refuses must not be.  ``encode`` packs a hand-written ``encode_state`` and
transitions build states with ``_but``; each must agree with its slow definition:
``encode_state_generic`` + ``canonical_pack``, ``replace``.
"""

from __future__ import annotations

import random
from dataclasses import fields, replace

import pytest

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.checks import refusal
from lanTag.games.boardtag.codec import encode_state, encode_state_generic
from lanTag.games.boardtag.engine import BoardTag, BoardTagState
from lanTag.rules.base import Action, Chance, IllegalAction, Move, Over, Roll, canonical_pack

VERBS = ("place", "face", "pick", "step", "stay", "done", "jump", "tag", "end", "rps")
WORDS = (
    *(bb.square_name(sq) for sq in range(bb.SIZE * bb.SIZE)),
    *bb.STEPS,
    *bb.JUMPS,
    "a9",
    "i1",
    "zz",
)
POOL = (
    *(Action(v) for v in VERBS),
    *(Action(v, (w,)) for v in VERBS for w in WORDS),
    *(Action(v, (3,)) for v in VERBS),
    *(Action(v, ("n", "e")) for v in VERBS),
)


def playout(seed: int) -> list[BoardTagState]:
    rng = random.Random(seed)
    seats = rng.randint(2, 6)
    options = {"max_rounds": rng.choice((0, 2, 15)), "run_order": rng.choice(("left", "right"))}
    state = BoardTag.new_state(seats, options)
    states = [state]
    for _ in range(BoardTag.playout_step_bound(seats)):
        decision = state.decision()
        if isinstance(decision, Over):
            break
        if isinstance(decision, Chance):
            state = state.apply(Roll(((rng.randrange(seats),),)))
        else:
            legal = list(state.legal_actions(decision.seat))
            state = state.apply(Move(decision.seat, rng.choice(legal)))
        states.append(state)
    return states


@pytest.mark.parametrize("seed", range(8))
def test_check_action_accepts_exactly_the_legal_actions(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for state in playout(seed):
        for seat in range(-1, state.seats + 1):
            legal = list(state.legal_actions(seat))
            # Every legal action, a sample of the pool, and each legal verb with other words.
            near = [Action(a.verb, (w,)) for a in legal[:4] for w in rng.sample(WORDS, 6)]
            for action in (*legal, *rng.sample(POOL, 40), *near):
                reason = refusal(state, seat, action)
                assert (reason is None) == (action in legal), (state, seat, action, reason)
                if action in legal:
                    state.check_action(seat, action)
                else:
                    with pytest.raises(IllegalAction) as refused:
                        state.check_action(seat, action)
                    assert str(refused.value) == reason


@pytest.mark.parametrize("seed", range(8, 12))
def test_fast_encoding_and_state_building_match_their_definitions(seed: int) -> None:
    names = [f.name for f in fields(BoardTagState)]
    for state in playout(seed):
        assert encode_state(state) == encode_state_generic(state)
        assert state.encode() == canonical_pack([BoardTag.id, encode_state_generic(state)])
        changes = {names[0]: state.seats, "phase": bb.OVER, "events": (("x",),), "jumps": 2}
        assert state._but(**changes) == replace(state, **changes)
