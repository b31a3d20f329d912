"""What a step needs and how its input is derived from signed contributions.

Pure functions shared by the live session and the offline verifier, so both
reach the same input from the same accepted messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from enum import Enum

from lanTag.bots import choose_action
from lanTag.fair.draw import DrawStream, draw_seed
from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
    Die,
    Draw,
    IllegalAction,
    Input,
    Joint,
    Move,
    Over,
    Pick,
    Roll,
    Simultaneous,
    State,
    Turn,
)
from lanTag.rules.playout import draw_values
from lanTag.session.features import Features


class NeedKind(Enum):
    TURN = "turn"  # one human seat sends MOVE
    BOT_TURN = "bot-turn"  # a replicated bot acts: no traffic
    ENTROPY = "entropy"  # every live human seat sends ENTROPY
    SECRET = "secret"  # human participants COMMIT, then REVEAL
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Needs:
    kind: NeedKind
    humans: tuple[int, ...]  # seats whose signed messages the step waits for
    bots: tuple[int, ...] = ()  # bot seats whose choice is computed by everyone
    secret_kind: str = ""


def needs_for(decision: Decision, live_humans: frozenset[int]) -> Needs:
    if isinstance(decision, Over):
        return Needs(NeedKind.OVER, ())
    if isinstance(decision, Turn):
        if decision.seat in live_humans:
            return Needs(NeedKind.TURN, (decision.seat,))
        return Needs(NeedKind.BOT_TURN, (), (decision.seat,))
    if isinstance(decision, Chance):
        return Needs(NeedKind.ENTROPY, tuple(sorted(live_humans)))
    assert isinstance(decision, Simultaneous)
    seats = sorted(decision.seats)
    return Needs(
        NeedKind.SECRET,
        tuple(s for s in seats if s in live_humans),
        tuple(s for s in seats if s not in live_humans),
        decision.kind,
    )


def bot_turn_action(state: State, game_id: bytes, step: int, seat: int, bot: str) -> Action:
    """A replicated bot's move: public randomness from (game id, step), same on every peer."""
    stream = DrawStream(draw_seed(game_id, step, f"bot-turn/{seat}", ()))
    return choose_action(bot, state, seat, stream.below)


def chance_roll(
    decision: Chance, game_id: bytes, step: int, reveals: Mapping[int, bytes]
) -> tuple[Roll, bytes]:
    """The roll derived from every contributing seat's chain reveal, and its seed."""
    seed = draw_seed(game_id, step, decision.purpose, reveals.items())
    stream = DrawStream(seed)
    return Roll(tuple(draw_values(d, stream.below) for d in decision.draws)), seed


def joint_choice(
    state: State,
    game_id: bytes,
    step: int,
    human_actions: Mapping[int, Action],
    reveals: Mapping[int, bytes],
    bots: Mapping[int, str],
) -> Joint:
    """Humans' revealed actions plus bot choices drawn from the humans' reveals.

    The reveals are only known after every human committed, so nobody can
    predict or steer a bot's secret choice.
    """
    choices = dict(human_actions)
    for seat, bot in sorted(bots.items()):
        stream = DrawStream(draw_seed(game_id, step, f"bot-secret/{seat}", reveals.items()))
        choices[seat] = choose_action(bot, state, seat, stream.below)
    return Joint(tuple(sorted(choices.items())))


def draw_facts(draw: Draw) -> list[object]:
    """A draw kind as log data (SPEC §9): [0, faces, count] a Die, [1, n, count] a Pick,
    [2, n] a Shuffle."""
    if isinstance(draw, Die):
        return [0, list(draw.faces), draw.count]
    if isinstance(draw, Pick):
        return [1, draw.n, draw.count]
    return [2, draw.n]


def step_facts(
    protocol: int, decision: Decision, inp: Input, withheld: AbstractSet[int] = frozenset()
) -> tuple[object, ...]:
    """What a protocol-2 STEP entry records after [input, state hash] so that a verifier
    without the engine recomputes the step's fairness (SPEC §9): a roll's draw purpose and
    draw kinds, a secret round's commitment purpose; nothing for a move (or in protocol 1).
    A roll that is the withheld roll of seats dropped at their own roll (``withheld``,
    protocol 6, SPEC §5.5) records those seats too, ascending: the roll is not drawn."""
    if not Features.of(protocol).purposes:
        return ()
    if isinstance(inp, Roll) and isinstance(decision, Chance):
        facts: tuple[object, ...] = (decision.purpose, [draw_facts(d) for d in decision.draws])
        return (*facts, sorted(withheld)) if withheld else facts
    if isinstance(inp, Joint) and isinstance(decision, Simultaneous):
        return (decision.kind,)
    return ()


def all_checked(checked: Mapping[int, Action], inp: Input) -> bool:
    """Every action of ``inp`` is the one ``checked`` holds for its seat: the actions that
    passed ``check_action`` on the state ``inp`` is applied to (a Roll has none).  Then
    ``State.apply(inp, actions_checked=True)`` may skip the engine's second lookup."""
    if isinstance(inp, Move):
        return checked.get(inp.seat) == inp.action
    if isinstance(inp, Joint):
        return all(checked.get(seat) == action for seat, action in inp.choices)
    return False


class CheckedActions:
    """The actions that passed ``check_action`` on one state (seat -> action): an input made
    only of those is applied with ``actions_checked=True`` (see ``all_checked``)."""

    __slots__ = ("_actions", "_state")

    def __init__(self) -> None:
        self._state: State | None = None
        self._actions: dict[int, Action] = {}

    def mark(self, state: State, seat: int, action: Action) -> None:
        if self._state is not state:  # states are immutable values: a new one, a new table
            self._state, self._actions = state, {}
        self._actions[seat] = action

    def cover(self, state: State, inp: Input) -> bool:
        """Every action of ``inp`` passed check_action on ``state`` (a Roll has none)."""
        return self._state is state and all_checked(self._actions, inp)


def checked_action(state: State, seat: int, action: Action) -> Action:
    """``action`` if legal for ``seat`` now; otherwise IllegalAction."""
    state.check_action(seat, action)
    return action


__all__ = [
    "IllegalAction",
    "NeedKind",
    "Needs",
    "all_checked",
    "bot_turn_action",
    "chance_roll",
    "checked_action",
    "draw_facts",
    "joint_choice",
    "needs_for",
    "step_facts",
]
