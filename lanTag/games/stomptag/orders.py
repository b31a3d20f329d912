"""Stomptag orders: the move words and letters, parsing with reasons, the lazy order space.

An order names stomp or stride and one move per move the player owns this round; the
verb ``orders+up`` also buys an upgrade.  Players read and type the moves as words
(``orders stomp n ne teleport``); on the wire an order is canonical and compact: all the
moves in ONE word of one letter each (``orders stomp npt``), so that the largest legal
order of 12 moves still fits the 250-byte input-message budget (docs/rules/stomptag.md,
decision 32).  ``canonical_order`` turns what a player typed into the wire form and
``order_text`` the wire form back into words.  With k moves there are 2 * 2 * 10**k
orders, so the legal set is decoded lazily.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from lanTag.rules.base import Action, IllegalAction, MalformedAction

ORDERS = "orders"
ORDERS_UP = "orders+up"  # the same order plus an upgrade purchase
VERBS = (ORDERS, ORDERS_UP)
MODES = ("stride", "stomp")  # stride first: index 0 of the order space is the default order
NOTHING = "nothing"
TELEPORT = "teleport"
DELTAS: dict[str, tuple[int, int]] = {
    "n": (0, -1),
    "ne": (1, -1),
    "e": (1, 0),
    "se": (1, 1),
    "s": (0, 1),
    "sw": (-1, 1),
    "w": (-1, 0),
    "nw": (-1, -1),
}
MOVES = (NOTHING, *DELTAS, TELEPORT)  # the words; this order is the order space's digits
WALKS = MOVES[:-1]  # every move but teleport
# One letter per move, read as a little map: the diagonals are the keyboard's corner
# letters (q top left, p top right, z bottom left, m bottom right), x marks staying put.
#     q n p
#     w x e     and t = teleport
#     z s m
LETTERS: dict[str, str] = {
    NOTHING: "x",
    "n": "n",
    "ne": "p",
    "e": "e",
    "se": "m",
    "s": "s",
    "sw": "z",
    "w": "w",
    "nw": "q",
    TELEPORT: "t",
}
MOVE_OF: dict[str, str] = {letter: move for move, letter in LETTERS.items()}
LETTER_HELP = "n e s w, p=ne m=se z=sw q=nw, x=nothing, t=teleport"
_DIGITS = tuple(LETTERS[m] for m in MOVES)  # the order space's digits, as letters
_WALK_DIGITS = _DIGITS[:-1]
_LETTER_SET = frozenset(_DIGITS)
_WALK_LETTER_SET = frozenset(_WALK_DIGITS)
_TELEPORT_LETTER = LETTERS[TELEPORT]


@dataclass(frozen=True, slots=True)
class Order:
    """One player's secret orders for a round (moves as words, e.g. ``("n", "teleport")``)."""

    stomp: bool
    moves: tuple[str, ...]
    upgrade: bool = False
    # A convicted seat's forfeit (SPEC §4.4): it stands still and loses the stride point.
    forfeit: bool = False

    def action(self) -> Action:
        """The canonical wire form: ``orders stomp nt``."""
        letters = "".join(LETTERS[m] for m in self.moves)
        return Action(ORDERS_UP if self.upgrade else ORDERS, (self.mode, letters))

    def text(self) -> str:
        """The form players read and type: ``orders stomp n teleport``."""
        return " ".join([ORDERS_UP if self.upgrade else ORDERS, self.mode, *self.moves])

    @property
    def mode(self) -> str:
        return "stomp" if self.stomp else "stride"

    @property
    def teleports(self) -> int:
        return self.moves.count(TELEPORT)


def default_order(moves: int) -> Order:
    """ "If you don't send a PM, I will assume you don't want to move": stride, stay put."""
    return Order(False, (NOTHING,) * moves)


def forfeit_order(moves: int) -> Order:
    """A convicted seat's orders: stand still, and no stride recovery this round."""
    return Order(False, (NOTHING,) * moves, forfeit=True)


def parse_order(action: Action, moves: int, teleport_ok: bool, upgrade_ok: bool) -> Order:
    """The Order that ``action`` (wire form) gives, or IllegalAction saying what is wrong."""
    check_order(action, moves, teleport_ok, upgrade_ok)
    args = action.args
    word = str(args[1])
    return Order(args[0] == "stomp", tuple(MOVE_OF[c] for c in word), action.verb == ORDERS_UP)


def reads_action(action: Action) -> bool:
    """Whether ``action`` is a Stomptag action in some state (``Game.reads``): ``bid`` a
    whole number, or orders in their wire form (the mode, then one word of move letters)."""
    verb, args = action.verb, action.args
    if verb == "bid":
        return len(args) == 1 and isinstance(args[0], int)
    return (
        verb in VERBS
        and len(args) == 2
        and args[0] in MODES
        and isinstance(args[1], str)
        and _LETTER_SET.issuperset(args[1])
    )


def _refused(action: Action, why: str) -> IllegalAction:
    """``State.refused`` for orders: MalformedAction unless Stomptag reads ``action``."""
    return IllegalAction(why) if reads_action(action) else MalformedAction(why)


def check_order(action: Action, moves: int, teleport_ok: bool, upgrade_ok: bool) -> None:
    """IllegalAction unless :func:`parse_order` accepts ``action`` (the same reasons);
    MalformedAction for no Stomptag action at all (:func:`reads_action`).

    Only the canonical form is legal: exactly one word of move letters after the mode, so
    that every order has one wire form (the words are for typing, see canonical_order).
    """
    verb, args = action.verb, action.args
    if verb != ORDERS:
        if verb != ORDERS_UP:
            why = f"orders look like 'orders stomp n ne' or 'orders+up stride e' (not {verb!r})"
            raise _refused(action, why)  # a bid is Stomptag's, just not now
        if not upgrade_ok:
            raise _refused(action, "no more upgrades: you already have the most moves allowed")
    if not args or args[0] not in MODES:
        why = "the first word of orders is 'stomp' or 'stride', for the whole round"
        raise MalformedAction(why)
    if len(args) == 2:
        word = args[1]
        if (
            isinstance(word, str)
            and len(word) == moves
            and (_LETTER_SET if teleport_ok else _WALK_LETTER_SET).issuperset(word)
        ):
            return  # the usual legal order, checked in one pass; else find the first fault
        if not isinstance(word, str) or not _LETTER_SET.issuperset(word):
            raise MalformedAction(
                f"{word!r} is not a word of move letters ({LETTER_HELP}; one letter per move)"
            )
        given = len(word)
    elif len(args) == 1:
        given = 0
    else:
        raise MalformedAction(
            f"orders are one word of move letters after the mode ({LETTER_HELP}), "
            f"e.g. 'orders {args[0]} {'x' * moves}', not {len(args) - 1} words"
        )
    if given != moves:
        why = f"you have {moves} move(s) this round: give exactly {moves} move(s), not {given}"
        raise _refused(action, why)  # no moves at all is no order: malformed
    raise IllegalAction("teleport only right after someone was tagged or after your own teleport")


def canonical_order(action: Action, moves: int) -> Action:
    """The wire form of an order as a player typed it, for a seat with ``moves`` moves.

    The moves may be typed one word each, as words or letters (``orders stomp n ne
    teleport``, ``orders stomp n p t``), or as the wire's one word of letters (``orders
    stomp npt``).  A word that is both (``ne``: one move north-east, or n then e) is read
    by the seat's move count.  Anything that is not an order at all comes back unchanged,
    for check_order to say what is wrong with it.
    """
    args = action.args
    if action.verb not in VERBS or len(args) < 2 or args[0] not in MODES:
        return action
    words = args[1:]
    if len(words) == 1:
        word = words[0]
        if (
            isinstance(word, str)
            and _LETTER_SET.issuperset(word)
            and (len(word) == moves or word not in LETTERS)
        ):
            return action  # already the wire form (a wrong count is check_order's to report)
    letters = []
    for word in words:
        letter = LETTERS.get(word) if isinstance(word, str) else None
        if letter is None and isinstance(word, str) and word in MOVE_OF:
            letter = word  # a single letter typed as its own word
        if letter is None:
            raise MalformedAction(
                f"{word!r} is not a move (moves: {' '.join(MOVES)}; or their letters: "
                f"{LETTER_HELP})"
            )
        letters.append(letter)
    return Action(action.verb, (args[0], "".join(letters)))


def order_text(action: Action) -> str:
    """A wire-form order in words (``orders stomp npt`` -> ``orders stomp n ne teleport``);
    anything else as it is."""
    args = action.args
    if (
        action.verb in VERBS
        and len(args) == 2
        and args[0] in MODES
        and isinstance(args[1], str)
        and _LETTER_SET.issuperset(args[1])
    ):
        return " ".join([action.verb, str(args[0]), *(MOVE_OF[c] for c in args[1])])
    return str(action)


class OrderSpace(Sequence[Action]):
    """Every legal order of one seat (wire form), decoded from an index on demand.

    Index layout, most significant first: verb (plain, +up), mode (stride, stomp),
    then one digit per move in ``MOVES`` order.  Index 0 is the default order.
    """

    def __init__(self, moves: int, teleport_ok: bool, upgrade_ok: bool) -> None:
        self.moves = moves
        self.teleport_ok = teleport_ok
        self.upgrade_ok = upgrade_ok
        self.choices = _DIGITS if teleport_ok else _WALK_DIGITS
        self.per_mode: int = len(self.choices) ** moves
        self.size: int = (2 if upgrade_ok else 1) * len(MODES) * self.per_mode

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if isinstance(index, slice):
            return [self[i] for i in range(self.size)[index]]
        position = index + self.size if index < 0 else index
        if not 0 <= position < self.size:
            raise IndexError(f"order index {index} out of range")
        verb_index, rest = divmod(position, len(MODES) * self.per_mode)
        mode_index, rest = divmod(rest, self.per_mode)
        digits = []
        for _ in range(self.moves):
            rest, digit = divmod(rest, len(self.choices))
            digits.append(self.choices[digit])
        return Action(VERBS[verb_index], (MODES[mode_index], "".join(reversed(digits))))

    def __iter__(self) -> Iterator[Action]:
        for i in range(self.size):
            yield self[i]

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, Action):
            return False
        try:
            check_order(value, self.moves, self.teleport_ok, self.upgrade_ok)
        except IllegalAction:
            return False
        return True

    def index_of(self, action: Action) -> int:
        """Inverse of indexing (IllegalAction if the order is not in this space)."""
        check_order(action, self.moves, self.teleport_ok, self.upgrade_ok)
        index = VERBS.index(action.verb) * len(MODES) + MODES.index(str(action.args[0]))
        for letter in str(action.args[1]):
            index = index * len(self.choices) + self.choices.index(letter)
        return index
