"""Board Tag checks the engine runs: its invariants, its legality (why an action is refused), the
outcome line."""

from __future__ import annotations

from lanTag.games.boardtag import board as bb
from lanTag.games.boardtag.board import (
    CHOOSE_IT,
    DICE_PER_SEAT,
    FACE,
    IT,
    MAX_SCORE,
    MIN_SCORE,
    OFF,
    OVER,
    PHASES,
    PLACE,
    RETURN,
    RUN,
)
from lanTag.games.boardtag.state import BoardTagFields
from lanTag.rules.base import Action


def broken_invariants(state: BoardTagFields) -> list[str]:
    broken: list[str] = []
    if state.phase not in PHASES:
        return [f"unknown phase {state.phase!r}"]
    if not 2 <= state.seats <= 6 or len(state.dice) != DICE_PER_SEAT * state.seats:
        return [f"{len(state.dice)} dice for {state.seats} seats"]
    if state.run_order not in ("left", "right") or state.max_rounds < 0:
        broken.append("bad options")
    indices = (state.active_die, *state.finished, *state.passed_by_it)
    if any(not OFF <= i < len(state.dice) for i in indices):
        return [*broken, "a die index is out of range"]
    squares = [d.square for d in state.dice if d.square != OFF]
    if len(squares) != len(set(squares)):
        broken.append("two dice share a square")
    for i, d in enumerate(state.dice):
        if d.owner != i // DICE_PER_SEAT or not MIN_SCORE <= d.score <= MAX_SCORE:
            broken.append(f"die {i} has owner {d.owner} and score {d.score}")
        if not OFF <= d.square < bb.SIZE * bb.SIZE:
            broken.append(f"die {i} is on square {d.square}")
    if state.phase == CHOOSE_IT:
        return broken + (["dice on the board before IT is chosen"] if squares else [])
    if not 0 <= state.it_seat < state.seats or state.it_die // DICE_PER_SEAT != state.it_seat:
        return [*broken, f"IT die {state.it_die} does not belong to IT seat {state.it_seat}"]
    if not 0 <= state.it_point < bb.LATTICE * bb.LATTICE or state.it_facing not in bb.FACINGS:
        broken.append("IT is off the lattice or faces nowhere")
    if state.dice[state.it_die].square != OFF:
        broken.append("the IT die is on the board")
    if state.phase != PLACE and state.dice[state.it_die].score == MAX_SCORE:
        broken.append("the IT die shows 6 (a tagged die always loses a point)")
    off = {i for i, d in enumerate(state.dice) if d.square == OFF}
    expected_off = {state.it_die}
    if state.phase == RETURN:
        expected_off.add(state.active_die)
    if state.phase != PLACE and off != expected_off:
        broken.append(f"dice off the board {sorted(off)}, expected {sorted(expected_off)}")
    if state.phase == RUN:
        if any(state.dice[i].square == OFF for i in state.finished):
            broken.append("a finished die is off the board")
        if state.active_die != OFF and (
            state.active_die in state.finished or state.dice[state.active_die].owner != state.mover
        ):
            broken.append("the active die is not an unmoved die of the mover")
    if state.phase in (FACE, IT) and state.mover != state.it_seat:
        broken.append("the IT player must act")
    if state.phase == OVER:
        ranked = sorted(s for group in state.ranking for s in group)
        if ranked != list(range(state.seats)):
            broken.append("the ranking does not place every seat once")
    elif not 0 <= state.mover < state.seats:
        broken.append(f"no seat {state.mover} to act")
    return broken


# The action shapes of each phase, as the refusal of an unknown one names them.
_SHAPES = {
    "place": "place <square>",
    "face": "face n|e|s|w",
    "pick": "pick <square>",
    "step": "step <dir>",
    "stay": "stay",
    "done": "done",
    "jump": "jump ffl|ffr|llf|rrf",
    "tag": "tag <square>",
    "end": "end",
}
_VERBS = {
    PLACE: ("place",),
    RETURN: ("place",),
    FACE: ("face",),
    IT: ("jump", "face", "tag", "end"),
}
_RUNNING = ("step", "stay", "done")  # a Run Phase die picked; ("pick",) before
_TAKES_WORD = frozenset(("place", "face", "pick", "step", "jump", "tag"))


def reads_action(action: Action) -> bool:
    """Whether ``action`` is a Board Tag action in some phase (``Game.reads``): one of the
    shapes above, its word a square, a direction, a facing or a jump of the game."""
    verb, args = action.verb, action.args
    if verb not in _SHAPES:
        return False
    if verb not in _TAKES_WORD:
        return not args
    if len(args) != 1 or not isinstance(args[0], str):
        return False
    word = args[0]
    if verb == "step":
        return word in bb.STEPS
    if verb == "jump":
        return word in bb.JUMPS
    if verb == "face":
        return word in bb.FACINGS
    return bb.parse_square(word) is not None


def refusal(state: BoardTagFields, seat: int, action: Action) -> str | None:
    """Why ``action`` is not legal for ``seat`` now, or None when it is: Board Tag's
    legality, stated once.  ``check_action`` raises these words; ``legal_actions`` lists
    the actions of the phase's shapes that this lets through."""
    phase = state.phase
    if phase in (CHOOSE_IT, OVER):
        return "no player acts now" if phase == CHOOSE_IT else "the game is over"
    if seat != state.mover:
        return f"it is seat {state.mover}'s turn, not seat {seat}'s"
    allowed: tuple[str, ...]
    if phase == RUN:
        allowed = ("pick",) if state.active_die == OFF else _RUNNING
    else:
        allowed = _VERBS[phase]
    verb, args = action.verb, action.args
    word = args[0] if len(args) == 1 else None
    if verb not in allowed or ((not isinstance(word, str)) if verb in _TAKES_WORD else args):
        expected = ", ".join(_SHAPES[v] for v in allowed)
        return f"{action} is not an action now; expected {expected}"
    if verb == "end":
        return None
    if verb == "stay":
        return None if state.steps == 0 else "this die has already moved; say done"
    if verb == "done":
        return None if state.steps > 0 else "take a step or stay first"
    assert isinstance(word, str)  # every other verb takes one word (checked above)
    if verb == "step":
        return _step_refusal(state, word)
    if verb == "jump":
        if word not in bb.JUMPS:
            return f"{word!r} is not a jump ({' '.join(bb.JUMPS)})"
        if not state.can_pay(state.it_die, state.jumps):
            return "the free jump is used and the IT die never spends its last point"
        if bb.jump_target(state.it_point, state.it_facing, word) is None:
            return "that jump leaves the board's lines"
        return None
    if verb == "face":
        if word not in bb.FACINGS:
            return f"{word!r} is not a facing ({' '.join(bb.FACINGS)})"
        if phase == FACE:  # IT's first facing: any
            return None
        if word == state.it_facing:
            return f"IT already faces {word}"
        if not state.can_pay(state.it_die, state.turns):
            return "the free turn is used and the IT die never spends its last point"
        return None
    return _square_refusal(state, seat, verb, word)


def _step_refusal(state: BoardTagFields, word: str) -> str | None:
    if word not in bb.STEPS:
        return f"{word!r} is not a direction ({' '.join(bb.STEPS)})"
    if not state.can_pay(state.active_die, state.steps):
        return "the free step is used and a Runner never spends its last point"
    to = bb.step_target(state.dice[state.active_die].square, word)
    if to is None:
        return "that step leaves the board"
    return "that square is occupied" if state.die_at(to) is not None else None


def _square_refusal(state: BoardTagFields, seat: int, verb: str, word: str) -> str | None:
    """``place``, ``pick`` and ``tag``: the verbs that name a square."""
    sq = bb.parse_square(word)
    if sq is None:
        return f"{word!r} is not a square (a1..h8)"
    die = state.die_at(sq)
    if verb == "place":
        if not bb.is_edge(sq):
            return f"{word} is not an edge square"
        return f"{word} is taken" if die is not None else None
    if verb == "pick":
        if die is None or die not in state.unmoved_dice(seat):
            return f"no die of yours waiting to move on {word}"
        return None
    if die is None:
        return f"there is no die on {word}"
    if sq not in bb.front_squares(state.it_point, state.it_facing):
        return f"{word} is not one of the two squares in front of IT"
    if state.dice[die].owner == state.it_seat:
        return "don't tag your own Runner: there is no gain in it"
    return None


def outcome_summary(state: BoardTagFields) -> str:
    """How the game ended, in words ('' while it goes on)."""
    if not state.end or not state.ranking:
        return ""
    head = state.ranking[0]
    if state.end[0] == "three-sixes":
        summary = " and ".join(f"seat {s}" for s in head) + " ended an IT Phase with three sixes"
        if state.end[1] != -1:
            summary += f"; seat {state.end[1]} was IT and did not tag them"
        return summary
    best = state.totals()[head[0]]
    leaders = " and ".join(f"seat {s}" for s in head)
    verb = "leads" if len(head) == 1 else "share the lead"
    return f"round limit {state.max_rounds} reached: {leaders} {verb} with {best} pips"
