"""The rule-engine API every game implements (the one module an engine imports: the
inputs of lanTag.rules.inputs and the decisions of lanTag.rules.decisions are re-exported).

Split after OpenSpiel: a static :class:`Game` (id, seat range, options) and an
immutable :class:`State`.  ``state.decision()`` is the one place that says who
acts next; ``state.apply(inp)`` is the one checked way forward.  Randomness
only ever arrives as a :class:`Roll` input for a :class:`Chance` decision, so
engines are pure functions of their inputs: no I/O, no clock, no ``random``.
What people see of a state (its view dict, its text board, a purpose in words) is
not part of this API: it lives in each game's view (``lanTag/games/<id>/view.py``), found
by engine id (``lanTag.views.registry.game_view``).
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import msgpack

from lanTag.errors import LanTagError
from lanTag.rules.decisions import (
    FACT_CODE,
    LEGACY_PURPOSES,
    Chance,
    Decision,
    Die,
    Draw,
    Fact,
    Outcome,
    Over,
    Pick,
    Shuffle,
    Simultaneous,
    Turn,
    check_draw,
    facts_from_obj,
    is_fact_code,
    lowest_values,
)
from lanTag.rules.inputs import (
    FORFEIT,
    Action,
    IllegalAction,
    Input,
    Joint,
    MalformedAction,
    Move,
    Roll,
    decode_input,
    encode_input,
    input_text,
)

if TYPE_CHECKING:
    from lanTag.rules.awaited import Awaited

__all__ = [
    "FACT_CODE",
    "FORFEIT",
    "LEGACY_PURPOSES",
    "Action",
    "Chance",
    "Decision",
    "Die",
    "Draw",
    "Fact",
    "Game",
    "IllegalAction",
    "Input",
    "Joint",
    "MalformedAction",
    "Move",
    "OptionError",
    "OptionSpec",
    "Outcome",
    "Over",
    "Pick",
    "PositionError",
    "Roll",
    "Shuffle",
    "Simultaneous",
    "State",
    "Turn",
    "canonical_pack",
    "decode_input",
    "encode_input",
    "facts_from_obj",
    "input_text",
    "is_fact_code",
    "lowest_values",
]


class OptionError(LanTagError, ValueError):
    """A bad game option or seat count; the message names the option and the allowed values."""


class PositionError(LanTagError, ValueError):
    """A position (``Game.from_position``) that is no state of the game: one line per problem."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


# --------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One game option: type, default, range or choices, and a help line."""

    name: str
    default: int | bool | str
    help: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def parse(self, text: str) -> int | bool | str:
        """Parse a ``k=v`` command-line value, then validate it."""
        if isinstance(self.default, bool):
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise OptionError(f"option {self.name}: expected yes/no, got {text!r}")
        if isinstance(self.default, int):
            try:
                value: int | bool | str = int(text)
            except ValueError:
                raise OptionError(
                    f"option {self.name}: expected an integer, got {text!r}"
                ) from None
            return self.validate(value)
        return self.validate(text.strip())

    def validate(self, value: object) -> int | bool | str:
        kind = type(self.default)
        if type(value) is not kind:
            raise OptionError(f"option {self.name}: expected {kind.__name__}, got {value!r}")
        assert isinstance(value, int | str)  # narrowed by the type check above
        if isinstance(value, int) and not isinstance(value, bool):
            if self.min is not None and value < self.min:
                raise OptionError(f"option {self.name}: {value} is below the minimum {self.min}")
            if self.max is not None and value > self.max:
                raise OptionError(f"option {self.name}: {value} is above the maximum {self.max}")
        if isinstance(value, str) and self.choices and value not in self.choices:
            raise OptionError(
                f"option {self.name}: {value!r} is not one of {', '.join(self.choices)}"
            )
        return value


# --------------------------------------------------------------------------- game & state


def canonical_pack(obj: object) -> bytes:
    """Canonical msgpack bytes (bin and str distinct, minimal ints, no floats)."""
    return _pack(obj)


# msgpack.packb's encoding with one Packer made once (packb builds one per call, and
# every state hash packs a whole state).
_pack = msgpack.Packer(use_bin_type=True).pack


class State(ABC):
    """An immutable game position.  Every method is pure."""

    game: ClassVar[type[Game]]

    @abstractmethod
    def decision(self) -> Decision:
        """Who acts next: Turn, Simultaneous, Chance or Over."""

    @abstractmethod
    def legal_actions(self, seat: int) -> Sequence[Action]:
        """Every legal action of ``seat`` now (empty if it is not asked to act).

        May be a lazy Sequence where the choice space is a large product.
        """

    @abstractmethod
    def _apply(self, inp: Input) -> State:
        """Apply an input already known to match the decision; raise IllegalAction if illegal."""

    @abstractmethod
    def to_obj(self) -> Any:
        """msgpack-ready canonical structure of the whole state (no floats, no maps)."""

    def awaited(self) -> Awaited:
        """What this state waits for, as data (lanTag.rules.awaited): the kind of input,
        from or for which seats, a roll's dice and whether it is a re-roll, where turns
        begin.  The default reads ``decision()`` alone; engines refine it."""
        # Imported here: lanTag.rules.awaited builds on this module's decision types.
        from lanTag.rules.awaited import awaited_from

        return awaited_from(self.decision())

    def forfeit_action(self, seat: int) -> Action:
        """A convicted seat's share of a joint secret choice (SPEC §4.4): ``FORFEIT``.

        The session puts it in a ``Joint`` for a seat whose reveal was proven bad (or that
        equivocated) at that step; ``_apply`` gives it an outcome no better for the seat
        than any choice it could have made honestly, and each engine's rules doc names it.
        Never legal on the wire (``check_action`` refuses it): only the session writes it.
        """
        _ = seat
        return FORFEIT

    def roll_owners(self) -> tuple[int, ...]:
        """The seats this state's roll is for (SPEC §5.5): a seat among them dropped at the
        roll withheld its own roll and gets ``withheld_roll`` instead of a draw.  Empty (the
        default, and for any state that waits for no roll): nobody's roll, drawn from the
        remaining links.  Never hashed or sent: a fact the session reads at a drop."""
        return ()

    def withheld_roll(self, seats: tuple[int, ...]) -> Roll:
        """The roll applied when ``seats`` (some of ``roll_owners()``, ascending) are dropped
        at their own roll (SPEC §5.5): no better for them than any roll they could have had.
        The default puts every die at its lowest face (a pick at 0, a shuffle unchanged);
        an engine whose lowest face is not the worst for a seat overrides it, and its rules
        doc (docs/rules/<game>.md) says why."""
        _ = seats
        decision = self.decision()
        if not isinstance(decision, Chance):
            raise IllegalAction("no roll is awaited")
        return Roll(tuple(lowest_values(d) for d in decision.draws))

    def default_action(self, seat: int) -> Action:
        """The action taken for a seat that is dropped for silence (a time-out).

        Engines override where the text names one (e.g. stomptag: "nothing").
        """
        legal = self.legal_actions(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has nothing to do")
        return legal[0]

    def invariants(self) -> list[str]:
        """Broken invariants of this position (empty when sound); tests call it every step."""
        return []

    def typed_action(self, seat: int, action: Action) -> Action:
        """The canonical (wire) form of an action a player typed for ``seat``.

        The console calls it before ``check_action``.  The default takes the text as it
        is; an engine whose wire form is terse for size (stomptag orders) accepts the
        readable form here too.  May raise MalformedAction naming what cannot be read.
        """
        return action

    # -- the checked path -------------------------------------------------

    def apply(self, inp: Input, *, actions_checked: bool = False) -> State:
        """Checked transition.  Raises IllegalAction (state unchanged) if illegal.

        ``actions_checked=True`` is for a caller that has itself run ``check_action`` on
        this very state for every action in ``inp`` (the session, when it accepts a move):
        the input is still matched against the decision, the legality lookup is not re-run.
        """
        d = self.decision()
        if isinstance(d, Over):
            raise IllegalAction("the game is over")
        if isinstance(d, Turn):
            if not isinstance(inp, Move):
                raise IllegalAction(f"seat {d.seat} must move")
            if inp.seat != d.seat:
                raise IllegalAction(f"it is seat {d.seat}'s turn, not seat {inp.seat}'s")
            if not actions_checked:
                self.check_action(inp.seat, inp.action)
        elif isinstance(d, Simultaneous):
            if not isinstance(inp, Joint):
                raise IllegalAction(f"a joint {d.kind} choice by seats {d.seats} is expected")
            if tuple(s for s, _ in inp.choices) != tuple(sorted(d.seats)):
                raise IllegalAction(f"joint choice must cover exactly seats {sorted(d.seats)}")
            for seat, action in inp.choices:
                if not actions_checked and action != FORFEIT:
                    self.check_action(seat, action)
        else:
            if not isinstance(inp, Roll):
                raise IllegalAction(f"a chance outcome for {d.purpose} is expected")
            if len(inp.values) != len(d.draws):
                raise IllegalAction(f"{d.purpose} needs {len(d.draws)} draw(s)")
            for draw, values in zip(d.draws, inp.values, strict=True):
                check_draw(draw, values)
        return self._apply(inp)

    def check_action(self, seat: int, action: Action) -> None:
        """Raise IllegalAction unless ``action`` is legal for ``seat`` now: MalformedAction
        when the game does not read it (``Game.reads``), else a rule refusal.

        The default looks the action up in ``legal_actions``; engines with huge
        action spaces override it with a direct check that gives a better reason.
        """
        if action not in self.legal_actions(seat):
            raise self.refused(action, f"{action} is not legal for seat {seat} now")

    def refused(self, action: Action, why: str) -> IllegalAction:
        """The error that refuses ``action`` for the reason ``why``: MalformedAction when
        this game does not read it (``Game.reads``), else IllegalAction (a rule refusal).
        Which one never depends on the state, only on the action."""
        return IllegalAction(why) if self.game.reads(action) else MalformedAction(why)

    # -- canonical bytes --------------------------------------------------

    def encode(self) -> bytes:
        return canonical_pack([self.game.id, self.to_obj()])

    def state_hash(self) -> bytes:
        return hashlib.sha256(self.encode()).digest()

    @property
    def is_over(self) -> bool:
        return isinstance(self.decision(), Over)


class Game(ABC):
    """Static description of a game: class attributes and class methods only."""

    id: ClassVar[str]
    display_name: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    summary: ClassVar[str] = ""
    # Bumped by any change to legality, transitions, option meaning, state encoding or
    # chance purposes/draws (docs/rules/VERSIONS.md).  Declared only: every engine sets
    # its own, so a subclass can never silently inherit another engine's number.
    rules_version: ClassVar[int]

    @classmethod
    def parse_options(cls, pairs: Mapping[str, str]) -> dict[str, int | bool | str]:
        """Parse ``k=v`` strings into validated values, defaults filled in."""
        specs = {s.name: s for s in cls.option_specs}
        out: dict[str, int | bool | str] = {s.name: s.default for s in cls.option_specs}
        for key, text in pairs.items():
            if key not in specs:
                known = ", ".join(specs) or "none"
                raise OptionError(f"{cls.id} has no option {key!r} (options: {known})")
            out[key] = specs[key].parse(text)
        return out

    @classmethod
    def validate_options(cls, options: Mapping[str, object] | None) -> dict[str, int | bool | str]:
        """Typed values in, validated values out, defaults filled in."""
        specs = {s.name: s for s in cls.option_specs}
        out: dict[str, int | bool | str] = {s.name: s.default for s in cls.option_specs}
        for key, value in (options or {}).items():
            if key not in specs:
                known = ", ".join(specs) or "none"
                raise OptionError(f"{cls.id} has no option {key!r} (options: {known})")
            out[key] = specs[key].validate(value)
        return out

    @classmethod
    def action_text(cls, action: Action) -> str:
        """How players read ``action`` (console, logs, replays): the wire text by default.

        The inverse of ``State.typed_action``: typing the text back gives the same action.
        """
        return str(action)

    @classmethod
    def reads(cls, action: Action) -> bool:
        """Whether ``action`` is one of this game's actions in some state: a verb of the
        game, with arguments of the number and kind it takes and words from the game's
        fixed vocabulary (a direction, a square name).  What a refusal of it depends on
        (whose turn, a board, a range) is the state's.  An action it does not read is
        refused with MalformedAction (``State.refused``).  The default reads every action;
        each shipped engine states its own (tests/rules/test_malformed.py checks it)."""
        _ = action
        return True

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        """An upper bound on inputs in any game with default options (tests rely on it)."""
        return 10_000

    @classmethod
    def check_seats(cls, seats: int) -> None:
        if not cls.min_seats <= seats <= cls.max_seats:
            raise OptionError(
                f"{cls.display_name} takes {cls.min_seats}-{cls.max_seats} players, not {seats}"
            )

    @classmethod
    @abstractmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        """The initial state.  Calls check_seats and validate_options first (OptionError)."""

    @classmethod
    @abstractmethod
    def state_from_obj(cls, obj: Any) -> State:
        """Inverse of ``State.to_obj()``; raises ValueError (or a subclass) on a bad structure."""

    @classmethod
    def position(cls, state: State) -> dict[str, Any]:
        """The state as a position: named, JSON-ready fields a person can read and edit
        (each engine's rules doc describes its fields).  ``from_position`` reads it back
        to a state with the same bytes."""
        raise PositionError([f"{cls.id} has no position format yet"])

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> State:
        """The state a position describes; PositionError names every problem found."""
        raise PositionError([f"{cls.id} has no position format yet"])

    @classmethod
    def decode_state(cls, data: bytes) -> State:
        """Inverse of ``State.encode()``; raises ValueError on bad bytes."""
        try:
            obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception as exc:  # msgpack raises several unrelated types
            raise ValueError(f"not a msgpack state: {exc}") from exc
        if not isinstance(obj, list) or len(obj) != 2 or obj[0] != cls.id:
            raise ValueError(f"not a {cls.id} state")
        state = cls.state_from_obj(obj[1])
        if state.encode() != data:
            raise ValueError("state bytes are not canonical")
        return state
