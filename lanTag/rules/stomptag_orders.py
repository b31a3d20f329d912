"""Stomptag orders: the action words, parsing with reasons, and the lazy order space.

An order is ``orders <mode> <move>...`` with exactly one move per move the player has
this round, e.g. ``orders stomp n ne``; the verb ``orders+up`` also buys an upgrade.
With k moves there are 2 * 2 * 10**k orders, so the legal set is decoded lazily.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from lanTag.rules.base import Action, IllegalAction

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
MOVES = (NOTHING, *DELTAS, TELEPORT)
WALKS = MOVES[:-1]  # every move but teleport


@dataclass(frozen=True, slots=True)
class Order:
    """One player's secret orders for a round."""

    stomp: bool
    moves: tuple[str, ...]
    upgrade: bool = False

    def action(self) -> Action:
        mode = "stomp" if self.stomp else "stride"
        return Action(ORDERS_UP if self.upgrade else ORDERS, (mode, *self.moves))

    @property
    def teleports(self) -> int:
        return self.moves.count(TELEPORT)


def default_order(moves: int) -> Order:
    """ "If you don't send a PM, I will assume you don't want to move": stride, stay put."""
    return Order(False, (NOTHING,) * moves)


def parse_order(action: Action, moves: int, teleport_ok: bool, upgrade_ok: bool) -> Order:
    """The Order that ``action`` gives, or IllegalAction saying what is wrong with it."""
    check_order(action, moves, teleport_ok, upgrade_ok)
    args = action.args
    return Order(args[0] == "stomp", tuple(map(str, args[1:])), action.verb == ORDERS_UP)


_MOVE_SET = frozenset(MOVES)
_WALK_SET = frozenset(WALKS)


def check_order(action: Action, moves: int, teleport_ok: bool, upgrade_ok: bool) -> None:
    """IllegalAction unless :func:`parse_order` accepts ``action`` (the same reasons)."""
    verb, args = action.verb, action.args
    if verb != ORDERS:
        if verb != ORDERS_UP:
            raise IllegalAction(
                f"orders look like 'orders stomp n' or 'orders+up stride e' (not {verb!r})"
            )
        if not upgrade_ok:
            raise IllegalAction("no more upgrades: you already have the most moves allowed")
    if not args or args[0] not in MODES:
        raise IllegalAction("the first word of orders is 'stomp' or 'stride', for the whole round")
    steps = args[1:]
    if len(steps) != moves:
        raise IllegalAction(
            f"you have {moves} move(s) this round: "
            f"give exactly {moves} direction(s), not {len(steps)}"
        )
    if (_MOVE_SET if teleport_ok else _WALK_SET).issuperset(steps):
        return  # every step allowed; else the loop below finds the first bad one
    for step in steps:
        if step not in MOVES:
            raise IllegalAction(f"{step!r} is not a move (moves: {', '.join(MOVES)})")
        if step == TELEPORT and not teleport_ok:
            raise IllegalAction(
                "teleport only right after someone was tagged or after your own teleport"
            )


class OrderSpace(Sequence[Action]):
    """Every legal order of one seat, decoded from an index on demand.

    Index layout, most significant first: verb (plain, +up), mode (stride, stomp),
    then one digit per move in ``MOVES`` order.  Index 0 is the default order.
    """

    def __init__(self, moves: int, teleport_ok: bool, upgrade_ok: bool) -> None:
        self.moves = moves
        self.teleport_ok = teleport_ok
        self.upgrade_ok = upgrade_ok
        self.choices = MOVES if teleport_ok else WALKS
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
        return Action(VERBS[verb_index], (MODES[mode_index], *reversed(digits)))

    def __iter__(self) -> Iterator[Action]:
        for i in range(self.size):
            yield self[i]

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, Action):
            return False
        try:
            parse_order(value, self.moves, self.teleport_ok, self.upgrade_ok)
        except IllegalAction:
            return False
        return True

    def index_of(self, action: Action) -> int:
        """Inverse of indexing (IllegalAction if the order is not in this space)."""
        order = parse_order(action, self.moves, self.teleport_ok, self.upgrade_ok)
        index = VERBS.index(action.verb) * len(MODES) + MODES.index(str(action.args[0]))
        for step in order.moves:
            index = index * len(self.choices) + self.choices.index(step)
        return index
