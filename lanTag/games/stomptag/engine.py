"""Stomptag: the forum game "TAG" of stomping and striding on a grid, refereed by the engine.

Flow: a Chance draws every seat's minimum bid (a shuffle of 1..N); a secret "bid" round
forms the itness queue; a Chance places the survivors on distinct random cells; then
each round every living player sends secret "orders" (stomp or stride, one move per move
owned), a Chance lands any teleports, and the round is resolved move by move.  Last
player standing wins.  Rules as implemented and every decision: docs/rules/stomptag.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from lanTag.games.stomptag.checks import broken_invariants
from lanTag.games.stomptag.codec import state_fields, state_to_obj
from lanTag.games.stomptag.orders import (
    Order,
    canonical_order,
    check_order,
    default_order,
    forfeit_order,
    order_text,
    parse_order,
    reads_action,
)
from lanTag.games.stomptag.position import position_of, state_of
from lanTag.games.stomptag.rounds import (
    Event,
    Settings,
    Table,
    place,
    resolve_round,
    settle_bids,
    teleport_slots,
)
from lanTag.games.stomptag.state import (
    BIDS,
    MINIMUMS,
    ORDERS,
    OVER,
    PLACING,
    TELEPORTS,
    StomptagFields,
    auto_side,
)
from lanTag.rules import awaited
from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    FORFEIT,
    Action,
    Chance,
    Decision,
    Game,
    IllegalAction,
    Input,
    Joint,
    OptionError,
    OptionSpec,
    Outcome,
    Over,
    Pick,
    Roll,
    Shuffle,
    Simultaneous,
    State,
)

DEFAULT_MAX_ROUNDS = 40
PLACE_SCORES = (3, 2, 2, 1, 1, 1)  # "first place gets 3 points, second and third ... 2 ..."


class Stomptag(Game):
    id: ClassVar[str] = "stomptag"
    display_name: ClassVar[str] = "Stomptag"
    min_seats: ClassVar[int] = 3  # "it must have at least 3 players"
    max_seats: ClassVar[int] = 256  # "no upper limit": a generous practical cap
    rules_version: ClassVar[int] = 1  # docs/rules/VERSIONS.md: bump with the digest pin
    summary: ClassVar[str] = (
        "Bid for your place in the itness queue, then send secret orders each round: "
        "stomp or stride, one direction per move. Stompers crush striders; the it tags "
        "by stomping into someone. Last player with points wins."
    )
    option_specs: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec("start_points", 35, "points each player starts with (the text: 35)", 1, 1000),
        OptionSpec(
            "grid_size",
            0,
            "side of the square grid; 0 = by players: 5 up to 10, 6 up to 15, +1 per 5 more",
            0,
            100,
        ),
        OptionSpec("teleport_cost", 5, "points a teleport costs (the text: 5)", 0, 100),
        OptionSpec("upgrade_cost", 5, "points an extra move costs (the text: 5)", 0, 100),
        OptionSpec(
            "max_moves",
            3,
            "most moves per round a player can buy up to (the text has no cap)",
            1,
            12,
        ),
        OptionSpec(
            "max_rounds",
            DEFAULT_MAX_ROUNDS,
            "rounds before the game ends on points; 0 = until one player is left (the text)",
            0,
            10_000,
        ),
        OptionSpec(
            "round_seconds",
            120,
            "seconds to send orders each round (kept by the session; 0 = no timer)",
            0,
            86_400,
        ),
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> StomptagState:
        cls.check_seats(seats)
        opts = cls.validate_options(options)
        if map_text is not None:
            raise OptionError("stomptag plays on an empty square grid and takes no map")
        side = int(opts["grid_size"]) or auto_side(seats)
        if side * side < seats:
            raise OptionError(f"option grid_size: a {side}x{side} grid cannot hold {seats} players")
        settings = Settings(
            int(opts["start_points"]),
            side,
            int(opts["teleport_cost"]),
            int(opts["upgrade_cost"]),
            int(opts["max_moves"]),
            int(opts["max_rounds"]),
            int(opts["round_seconds"]),
        )
        return StomptagState(
            seats,
            settings,
            MINIMUMS,
            0,
            (0,) * seats,
            (0,) * seats,
            Table.start(seats, settings.start_points),
            (),
            (),
        )

    @classmethod
    def reads(cls, action: Action) -> bool:
        return reads_action(action)

    @classmethod
    def state_from_obj(cls, obj: Any) -> StomptagState:
        state = StomptagState(*state_fields(obj))
        if problems := state.invariants():  # never hand a peer an unsound position
            raise ValueError("unsound stomptag state: " + "; ".join(problems))
        return state

    @classmethod
    def position(cls, state: State) -> dict[str, Any]:
        return position_of(state)

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> StomptagState:
        return state_of(cls, position, StomptagState)

    @classmethod
    def action_text(cls, action: Action) -> str:
        """Orders with their moves as words: the wire's ``orders stomp npt`` reads
        ``orders stomp n ne teleport``."""
        return order_text(action)

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        # minimums, bids, placing, then per round the orders and at most one teleport draw
        return 3 + 2 * DEFAULT_MAX_ROUNDS + 1


class StomptagState(StomptagFields):
    """A Stomptag position: its fields (state.py) and the rules over them."""

    __slots__ = ()
    game: ClassVar[type[Game]] = Stomptag

    # -- decisions ----------------------------------------------------------

    def decision(self) -> Decision:
        decision = self._decision
        if decision is None:
            decision = self._decide()
            object.__setattr__(self, "_decision", decision)
        return decision

    def _decide(self) -> Decision:
        if self.phase == MINIMUMS:
            return Chance((Shuffle(self.seats),), "minimum bids")
        if self.phase == BIDS:
            return Simultaneous(tuple(range(self.seats)), "bid")
        if self.phase == PLACING:
            free = self.settings.cells
            living = self.table.living()
            return Chance(tuple(Pick(free - i) for i in range(len(living))), "starting cells")
        if self.phase == ORDERS:
            return Simultaneous(self.table.living(), "orders")
        if self.phase == TELEPORTS:
            slots = teleport_slots(dict(self.orders))
            return Chance((Pick(self.settings.cells, len(slots)),), "teleport landings")
        return Over(self.outcome())

    def awaited(self) -> Awaited:
        """A round is the living players' secret orders and the teleport landings they
        ask for (each teleporting seat's roll); minimums, bids and starting cells set up."""
        decision = self.decision()
        if isinstance(decision, Chance) and self.phase == TELEPORTS:
            seats = tuple(sorted({seat for seat, _ in teleport_slots(dict(self.orders))}))
            return Awaited(awaited.ROLL, seats, decision.purpose, decision.draws)
        if isinstance(decision, Chance) and self.phase == PLACING:
            return Awaited(awaited.ROLL, self.table.living(), decision.purpose, decision.draws)
        if isinstance(decision, Simultaneous) and self.phase == BIDS:
            return Awaited(awaited.SECRET, decision.seats, decision.kind)
        # minimums, a round's orders (a turn of everyone at once), the end
        return awaited.awaited_from(self.decision())

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if self.phase == BIDS and 0 <= seat < self.seats:
            low, high = self.bid_range(seat)
            return tuple(Action("bid", (b,)) for b in range(low, high + 1))
        if self.phase == ORDERS and self._living(seat):
            return self.order_space(seat)
        return ()

    def check_action(self, seat: int, action: Action) -> None:
        if self.phase == BIDS and 0 <= seat < self.seats:
            if action.verb != "bid" or len(action.args) != 1 or not isinstance(action.args[0], int):
                raise self.refused(action, "a bid is 'bid N' with a whole number N")
            low, high = self.bid_range(seat)
            if not low <= action.args[0] <= high:
                raise IllegalAction(f"seat {seat} must bid from its minimum {low} up to {high}")
        elif self.phase == ORDERS and self._living(seat):
            space = self.order_space(seat)
            check_order(action, space.moves, space.teleport_ok, space.upgrade_ok)
        else:
            raise self.refused(action, f"seat {seat} has nothing to decide now ({self.phase})")

    def typed_action(self, seat: int, action: Action) -> Action:
        """Typed orders may name their moves as words (``orders stomp n ne``); the wire
        takes one letter per move (``orders stomp np``)."""
        if self.phase == ORDERS and self._living(seat):
            return canonical_order(action, self.table.moves[seat])
        return action

    def default_action(self, seat: int) -> Action:
        if self.phase == BIDS and 0 <= seat < self.seats:
            return Action("bid", (self.minimums[seat],))
        if self.phase == ORDERS and self._living(seat):
            # "If you don't send a PM, I will assume you don't want to move"
            return default_order(self.table.moves[seat]).action()
        return super().default_action(seat)

    # -- transitions --------------------------------------------------------

    def _apply(self, inp: Input) -> StomptagState:
        if isinstance(inp, Roll):
            return self._apply_roll(inp)
        assert isinstance(inp, Joint)  # State.apply matched it to a Simultaneous decision
        if self.phase == BIDS:
            # A forfeit (a convicted seat, SPEC §4.4) pays its minimum and stands first.
            forfeits = frozenset(seat for seat, action in inp.choices if action == FORFEIT)
            bids = tuple(
                self.minimums[seat] if action == FORFEIT else int(action.args[0])
                for seat, action in inp.choices
            )
            table, events = settle_bids(self.table, self.minimums, bids, forfeits)
            phase = PLACING if len(table.living()) > 1 else OVER
            return replace(self, phase=phase, bids=bids, table=table, events=events)
        # already checked against teleport and upgrade rights by check_action
        moves = self.table.moves
        orders = tuple(
            (
                seat,
                forfeit_order(moves[seat])
                if action == FORFEIT
                else parse_order(action, moves[seat], True, True),
            )
            for seat, action in inp.choices
        )
        if any(order.teleports for _, order in orders):
            return self._next(TELEPORTS, self.round, self.table, orders, ())
        return self._resolve(orders, ())

    def _apply_roll(self, roll: Roll) -> StomptagState:
        if self.phase == MINIMUMS:
            minimums = tuple(v + 1 for v in roll.values[0])
            return replace(self, phase=BIDS, minimums=minimums)
        if self.phase == PLACING:
            table = place(self.table, self.settings.cells, [v[0] for v in roll.values])
            return replace(self, phase=ORDERS, round=1, table=table, events=())
        return self._resolve(self.orders, roll.values[0])

    def _resolve(
        self, orders: tuple[tuple[int, Order], ...], landings: Sequence[int]
    ) -> StomptagState:
        table, events = resolve_round(self.table, self.settings, dict(orders), landings)
        limit = self.settings.max_rounds
        if table.out.count(0) <= 1 or (limit and self.round >= limit):
            return self._next(OVER, self.round, table, orders, events)
        return self._next(ORDERS, self.round + 1, table, orders, events)

    def _next(
        self,
        phase: str,
        round_: int,
        table: Table,
        orders: tuple[tuple[int, Order], ...],
        events: tuple[Event, ...],
    ) -> StomptagState:
        """``replace(self, ...)`` of the per-round fields, without replace's field walk."""
        s = self
        return StomptagState(
            s.seats, s.settings, phase, round_, s.minimums, s.bids, table, orders, events
        )

    # -- the end ------------------------------------------------------------

    def outcome(self) -> Outcome:
        """Survivors first (by points if the round limit ended the game), then by going out
        later; players who go out together share a place."""
        t = self.table
        living = t.living()
        groups = [
            tuple(s for s in living if t.points[s] == p)
            for p in sorted({t.points[s] for s in living}, reverse=True)
        ]
        groups += [
            tuple(s for s in range(self.seats) if t.out[s] == wave)
            for wave in sorted(set(t.out) - {0}, reverse=True)
        ]
        scores = [0] * self.seats
        rank = 1  # tied players all take the best place of their group
        for group in groups:
            for seat in group:
                scores[seat] = PLACE_SCORES[rank - 1] if rank <= len(PLACE_SCORES) else 0
            rank += len(group)
        names = " and ".join(f"seat {s}" for s in groups[0])
        if len(living) == 1:
            summary = f"{names} is the last player standing"
        elif not living:
            summary = f"{names} went out last, together"
        else:
            verb = "leads" if len(groups[0]) == 1 else "share the lead"
            summary = f"round limit reached: {names} {verb} with {t.points[groups[0][0]]} points"
        return Outcome(tuple(groups), summary, tuple(scores))

    # -- encodings and views ------------------------------------------------

    def to_obj(self) -> Any:
        return state_to_obj(self)

    def invariants(self) -> list[str]:
        return broken_invariants(self)
