"""Tag 'em (Santo Ciaravino, 2008): five pawns a side on a map of tiles.

Every turn a player spends a shared pool of Points of Movement (PoM) on
orthogonal steps (the cost is set by the tile left: Wade costs 2) and on
attacks (1 PoM each: both sides roll a d6 plus Horde, Garrison and Cover
modifiers).  Three game types: Elimination, Capture-The-Flag and
Capture-Their-Flag.  Maps live in board.py; docs/rules/tagem.md lists every
decision taken where the text is silent.

Seats are letters on the board (seat 0 = A).  Turn order is rolled at the
start and then fixed; eliminated teams are skipped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, ClassVar

import msgpack

from lanTag.games.tagem.board import (
    DIRS,
    MAX_PLAYERS,
    SHIPPED_MAPS,
    MapError,
    Tile,
    auto_map,
    canonical_map,
    check_formations,
    parse_map,
    shipped_map,
)
from lanTag.games.tagem.checks import invariants
from lanTag.games.tagem.codec import state_from_obj, state_to_obj
from lanTag.games.tagem.pieces import (
    ATTACK_ACTIONS,
    DEFAULT_MAX_TURNS,
    END,
    LETTERS,
    MAX_PAWNS,
    MODES,
    MOVE_ACTIONS,
    TWO_D6,
    Attack,
    Flag,
    pawn_name,
    size_up,
)
from lanTag.games.tagem.play import Play, describe_move
from lanTag.games.tagem.position import position_of, state_of
from lanTag.games.tagem.state import TagemFields
from lanTag.rules import awaited
from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    Action,
    Chance,
    Decision,
    Fact,
    Game,
    IllegalAction,
    Input,
    MalformedAction,
    Move,
    OptionError,
    OptionSpec,
    Outcome,
    Over,
    Roll,
    Shuffle,
    State,
    Turn,
    canonical_pack,
)

__all__ = ["Attack", "Flag", "MapError", "Tagem", "TagemState"]


class TagemState(TagemFields):
    """A Tag 'em position: its fields (state.py) and the rules over them."""

    __slots__ = ()
    game: ClassVar[type[Game]]

    # ------------------------------------------------------------------ rules

    def decision(self) -> Decision:
        decision = self._decision
        if decision is None:
            decision = self._decide()
            object.__setattr__(self, "_decision", decision)
        return decision

    def _decide(self) -> Decision:
        if not self.order:
            return Chance((Shuffle(self.seats),), "turn-order")
        if self._finished():
            return Over(self.outcome())
        if self.pending is not None:
            a = self.pending
            return Chance(
                (TWO_D6,),
                f"attack/{a.attacker}.{a.attacker_pawn}.{a.attacker_bonus}"
                f"/{a.defender}.{a.defender_pawn}.{a.defender_bonus}",
            )
        return _TURNS[self.order[self.turn]]

    def awaited(self) -> Awaited:
        """A turn is the mover's moves and attacks until its PoM run out or it ends; an
        attack's roll (attacker's die, then defender's) belongs to the attacker's turn."""
        decision = self.decision()
        if isinstance(decision, Turn):
            seat = decision.seat
            starts = self.pom_left == self.pom  # every action spends at least 1 PoM
            return Awaited(awaited.MOVE, (seat,), awaited.MOVE, turn_of=seat, turn_starts=starts)
        if isinstance(decision, Chance) and self.pending is not None:
            a = self.pending
            seats = (a.attacker, a.defender)
            return Awaited(
                awaited.ROLL, seats, decision.purpose, decision.draws, turn_of=a.attacker
            )
        return awaited.awaited_from(self.decision())  # the turn order, the end

    # -- a withheld own roll (SPEC §5.5; docs/rules/tagem.md "Withheld rolls") -----------------

    def roll_owners(self) -> tuple[int, ...]:
        """An attack's roll is the attacker's and the defender's (a die each); the turn
        order is nobody's."""
        a = self.pending  # set exactly while the attack's roll is awaited
        return () if a is None else (a.attacker, a.defender)

    def withheld_roll(self, seats: tuple[int, ...]) -> Roll:
        """A withholder's die on 1, the other side's on 6: whatever the modifiers, the
        withholder loses (docs/rules/tagem.md "Withheld rolls"); both withholding, both on
        1 (the modifiers decide)."""
        a = self.pending
        if a is None:
            return State.withheld_roll(self, seats)  # (slots: no bare super())
        low, high = min(TWO_D6.faces), max(TWO_D6.faces)
        attacker = low if a.attacker in seats else high
        defender = low if a.defender in seats else high
        return Roll(((attacker, defender),))

    def attack_modifiers(self, seat: int, action: Action) -> Attack:
        """The modifiers (horde, garrison, cover) ``seat``'s proposed ``attack P D`` would
        roll with now; IllegalAction, saying why, unless it is a legal attack."""
        if action.verb != "attack":
            raise self.refused(action, f"{action} is not an attack")
        self.check_action(seat, action)
        pawn, d = int(action.args[0]), DIRS.index(str(action.args[1]))
        target = self.board.steps[self.pawns[seat][pawn]][d]
        foe = self.holder(target)
        return size_up(self.board, self.pawns, seat, pawn, foe, self.pawns[foe].index(target))

    def legal_actions(self, seat: int) -> Sequence[Action]:
        if not self._acting(seat):
            return ()
        actions: list[Action] = []
        occupied = {cell for team in self.pawns for cell in team}
        own = set(self.pawns[seat])
        steps, tiles = self.board.steps, self.board.tiles
        for pawn, cell in enumerate(self.pawns[seat]):
            if cell < 0:
                continue
            cost = 2 if tiles[cell] == Tile.WADE else 1
            mobile = pawn not in self.stopped and cost <= self.pom_left
            for d, target in enumerate(steps[cell]):
                if target < 0:
                    continue
                if target not in occupied:
                    if mobile:
                        actions.append(MOVE_ACTIONS[pawn][d])
                elif target not in own:
                    actions.append(ATTACK_ACTIONS[pawn][d])  # 1 PoM, and a turn always has >= 1
        actions.append(END)
        return actions

    def _acting(self, seat: int) -> bool:
        decision = self.decision()
        return isinstance(decision, Turn) and decision.seat == seat

    def default_action(self, seat: int) -> Action:
        """A dropped player forfeits the rest of the turn, as the text allows at any time."""
        if not self._acting(seat):
            raise IllegalAction(f"seat {seat} has nothing to do")
        return END

    def check_action(self, seat: int, action: Action) -> None:
        if not self._acting(seat):
            raise self.refused(action, f"seat {seat} is not asked to act now")
        if action.verb != "end" or action.args:  # action != END, minus the generated __eq__
            self._check_step(seat, action)

    def _check_step(self, seat: int, action: Action) -> None:
        """Raise IllegalAction, saying why, unless ``action`` is a legal move or attack
        (MalformedAction for no move or attack at all: the shape ``Tagem.reads`` takes)."""
        usage = _USAGE
        if action.verb not in ("move", "attack"):
            raise MalformedAction(f"unknown action {action.verb!r}: {usage}")
        args = action.args
        if len(args) != 2 or not isinstance(args[0], int) or args[1] not in DIRS:
            raise MalformedAction(f"bad {action.verb} {args}: {usage}")
        pawn, d = args[0], DIRS.index(str(args[1]))
        if not 0 <= pawn < self.pawn_count:
            raise IllegalAction(f"no pawn {pawn}: pawns are numbered 0-{self.pawn_count - 1}")
        here = self.pawns[seat][pawn]
        if here < 0:
            raise IllegalAction(f"pawn {pawn} is out of play")
        target = self.board.steps[here][d]
        if target < 0:
            raise IllegalAction(f"pawn {pawn} cannot go {DIRS[d]}: Block tile or edge of the map")
        holder = self.holder(target)
        if action.verb == "attack":
            if holder < 0 or holder == seat:
                raise IllegalAction(f"no opposing pawn {DIRS[d]} of pawn {pawn}")
            return
        if holder >= 0:
            who = pawn_name(holder, self.pawns[holder].index(target))
            raise IllegalAction(f"pawn {pawn} cannot move {DIRS[d]}: {who} is there")
        if pawn in self.stopped:
            raise IllegalAction(f"pawn {pawn} entered a Garrison this turn and must stay")
        if self.board.tiles[here] == Tile.WADE and self.pom_left < 2:
            raise IllegalAction(f"leaving Wade costs 2 PoM and only {self.pom_left} is left")

    # ------------------------------------------------------------------ transitions

    def _apply(self, inp: Input) -> TagemState:
        decision = self.decision()
        if isinstance(decision, Chance):
            assert isinstance(inp, Roll)
            if self.pending is None:
                order = tuple(inp.values[0])
                return replace(self, order=order, events=(("order",),))
            return Play(self).resolve(self.pending, inp.values[0]).freeze()
        assert isinstance(inp, Move)
        if inp.action == END:
            play = Play(self)
            play.events.append(("ends", inp.seat, self.pom_left))
            play.end_turn()
            return play.freeze()
        # apply() has run check_action, so the move or attack is known to be legal
        pawn, d = int(inp.action.args[0]), DIRS.index(str(inp.action.args[1]))
        here = self.pawns[inp.seat][pawn]
        target = self.board.steps[here][d]
        if inp.action.verb == "attack":
            foe = self.holder(target)
            foe_pawn = self.pawns[foe].index(target)
            attack = size_up(self.board, self.pawns, inp.seat, pawn, foe, foe_pawn)
            event: Fact = ("attacks", inp.seat, pawn, foe, attack.defender_pawn)
            return replace(self, pending=attack, pom_left=self.pom_left - 1, events=(event,))
        return self._moved(inp.seat, pawn, d, here, target)

    def _moved(self, seat: int, pawn: int, d: int, here: int, target: int) -> TagemState:
        """Play.move without the scratch copy, for the common step that touches no flag
        and leaves PoM for the turn; anything else goes through Play."""
        # steps[here] holds distinct cells, so Play's steps[here].index(target) is d
        cost, event, garrisoned = describe_move(self.board, seat, pawn, DIRS[d], here, target)
        pom_left = self.pom_left - cost
        flags = self.flags
        if pom_left == 0 or (
            flags
            and any(f.cell == target or (f.carrier, f.carrier_pawn) == (seat, pawn) for f in flags)
        ):
            return Play(self).move(seat, pawn, here, target).freeze()
        stopped = (*self.stopped, pawn) if garrisoned else self.stopped
        if len(stopped) > 1:
            stopped = tuple(sorted(stopped))  # as Play.freeze
        pawns = self.pawns
        team = pawns[seat]
        moved = (*team[:pawn], target, *team[pawn + 1 :])
        return TagemState(
            self.board,
            self.mode,
            self.pom,
            self.pawn_count,
            self.max_turns,
            self.order,
            self.turn,
            self.round,
            pom_left,
            stopped,
            (*pawns[:seat], moved, *pawns[seat + 1 :]),
            flags,
            self.out,
            self.tags,
            None,  # pending
            self.winner,
            (event,),  # events
        )

    # ------------------------------------------------------------------ results

    def outcome(self) -> Outcome:
        """Ranking once the game is decided, or the tie-break at the turn limit."""
        alive = self.alive()
        scores = self.scores()
        if self.winner >= 0:
            head: list[tuple[int, ...]] = [(self.winner,)]
            summary = f"{LETTERS[self.winner]} brought the flag home"
            rest = [s for s in alive if s != self.winner]
            head += _groups(rest, lambda s: (False, scores[s]))
        elif self.mode != "ctf" and len(alive) == 1:
            head, summary = [(alive[0],)], f"{LETTERS[alive[0]]} is the last team standing"
        else:
            carriers = {f.carrier for f in self.flags if f.carrier >= 0}
            head = _groups(alive, lambda s: (self.mode == "ctf" and s in carriers, scores[s]))
            best = " ".join(LETTERS[s] for s in head[0]) if head else "nobody"
            summary = f"turn limit reached after {self.max_turns} rounds: {best} ahead"
        return Outcome(tuple(head) + tuple(reversed(self.out)), summary, scores)

    # ------------------------------------------------------------------ encoding & views

    def to_obj(self) -> list[Any]:
        return state_to_obj(self)

    def encode(self) -> bytes:
        """canonical_pack([id, to_obj()]), byte for byte (tests/rules/test_tagem_fast.py):
        the fixed head with the map text is packed once, tuples pack as msgpack arrays."""
        return self._head()[0] + self._encoded_tail()

    def state_hash(self) -> bytes:
        """sha256(encode()): the head's digest state is kept, so the map text is hashed once."""
        digest = self._head()[1].copy()
        digest.update(self._encoded_tail())
        return digest.digest()

    def _head(self) -> tuple[bytes, hashlib._Hash]:
        return _encoded_head(self.board.text, self.mode, self.pom, self.pawn_count, self.max_turns)

    def _encoded_tail(self) -> bytes:
        """The packed fields after max_turns (to_obj()[5:]), without an array header."""
        pending = () if self.pending is None else self.pending.fields()
        flags = self.flags
        tail = (
            self.order,
            self.turn,
            self.round,
            self.pom_left,
            self.stopped,
            self.pawns,
            tuple((f.owner, f.cell, f.carrier, f.carrier_pawn) for f in flags) if flags else (),
            self.out,
            self.tags,
            pending,
            self.winner,
            self.events,
        )
        return canonical_pack(tail)[1:]  # drop the one-byte array header of these 12 fields

    def invariants(self) -> list[str]:
        return invariants(self)


_TURNS = tuple(Turn(seat) for seat in range(MAX_PLAYERS))  # frozen values, shared
_USAGE = f"use 'move <pawn> <dir>', 'attack <pawn> <dir>' or 'end' (dir: {'/'.join(DIRS)})"


@lru_cache(maxsize=32)  # a pure function of immutable values: a game keeps one head
def _encoded_head(
    text: str, mode: str, pom: int, pawn_count: int, max_turns: int
) -> tuple[bytes, hashlib._Hash]:
    """Bytes of ``[id, [text, mode, pom, pawn_count, max_turns,`` of a 17-field state, and a
    sha256 object fed with them (only ever copied, never updated itself)."""
    packer = msgpack.Packer(use_bin_type=True)
    parts = [packer.pack_array_header(2), packer.pack(Tagem.id), packer.pack_array_header(17)]
    parts += [packer.pack(v) for v in (text, mode, pom, pawn_count, max_turns)]
    head = b"".join(parts)
    return head, hashlib.sha256(head)


def _groups(seats: Sequence[int], key: Callable[[int], tuple[bool, int]]) -> list[tuple[int, ...]]:
    """Seats grouped by equal key, best (largest) first."""
    groups: list[tuple[int, ...]] = []
    for s in sorted(seats, key=lambda s: (key(s), -s), reverse=True):
        if groups and key(groups[-1][0]) == key(s):
            groups[-1] = (*groups[-1], s)
        else:
            groups.append((s,))
    return groups


class Tagem(Game):
    id = "tagem"
    display_name = "Tag 'em"
    min_seats = 2
    max_seats = 8
    rules_version = 3  # docs/rules/VERSIONS.md: bump with the digest pin
    summary = (
        "Five pawns a side on a tile map: spend Points of Movement to move and attack "
        "(d6 + Horde, Garrison, Cover); eliminate, or capture the flag."
    )
    option_specs = (
        OptionSpec(
            "mode",
            "elimination",
            "game type: elimination (last team standing), ctf "
            "(capture-the-flag: one flag, bring it to your starting point) or ctcf "
            "(capture-their-flag: a flag on every starting point)",
            choices=MODES,
        ),
        OptionSpec(
            "pom",
            0,
            "Points of Movement per turn, shared by all your pawns (0 = the map's suggestion)",
            min=0,
            max=99,
        ),
        OptionSpec(
            "pawns",
            5,
            "pawns per player, placed in the X formation (the text: 5; 6-9 extend the X)",
            min=1,
            max=MAX_PAWNS,
        ),
        OptionSpec(
            "map",
            "auto",
            "shipped map (auto = the smallest that seats everyone); "
            "a map file given to the game replaces it",
            choices=("auto", *SHIPPED_MAPS),
        ),
        OptionSpec(
            "max_turns",
            DEFAULT_MAX_TURNS,
            "turns per player before the game stops on a tie-break (0 = unlimited, as in the text)",
            min=0,
            max=999,
        ),
    )

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> TagemState:
        cls.check_seats(seats)
        opts = cls.validate_options(options)
        mode, map_name = str(opts["mode"]), str(opts["map"])
        pom, pawn_count, max_turns = int(opts["pom"]), int(opts["pawns"]), int(opts["max_turns"])
        if map_text is not None:
            board = parse_map(map_text)
        elif map_name == "auto":
            try:
                board = auto_map(seats)
            except ValueError as exc:
                raise OptionError(str(exc)) from None
        else:
            board = shipped_map(map_name)
        if not board.min_players <= seats <= board.max_players:
            span = f"{board.min_players}-{board.max_players}"
            raise MapError(
                board.source,
                board.players_line,
                1,
                f"map {board.name!r} is for {span} players, not {seats}",
            )
        if mode == "ctf" and board.flag_spot < 0:
            raise OptionError(f"mode ctf needs a flag spot 'F' and map {board.name!r} has none")
        formations = check_formations(board, range(seats), pawn_count)
        board = canonical_map(board)  # checked with the file's lines; kept without comments
        flags: tuple[Flag, ...] = ()
        if mode == "ctf":
            flags = (Flag(-1, board.flag_spot),)
        elif mode == "ctcf":
            flags = tuple(Flag(seat, board.starts[seat]) for seat in range(seats))
        if len(board.reach[0]) < seats * pawn_count + len(flags):
            raise board.error_at(board.starts[0], "too few open tiles for every pawn and flag")
        return TagemState(
            board=board,
            mode=mode,
            pom=pom or board.pom,
            pawn_count=pawn_count,
            max_turns=max_turns,
            order=(),
            turn=0,
            round=1,
            pom_left=pom or board.pom,
            stopped=(),
            pawns=formations,
            flags=flags,
            out=(),
            tags=(0,) * seats,
            pending=None,
            winner=-1,
            events=(),
        )

    @classmethod
    def reads(cls, action: Action) -> bool:
        """``end``, or ``move``/``attack`` a pawn number and a direction."""
        if action.verb == "end":
            return not action.args
        args = action.args
        return (
            action.verb in ("move", "attack")
            and len(args) == 2
            and isinstance(args[0], int)
            and args[1] in DIRS
        )

    @classmethod
    def state_from_obj(cls, obj: Any) -> TagemState:
        return state_from_obj(obj, TagemState)

    @classmethod
    def position(cls, state: State) -> dict[str, Any]:
        return position_of(state)

    @classmethod
    def from_position(cls, position: Mapping[str, Any]) -> TagemState:
        return state_of(cls, position, TagemState)

    @classmethod
    def playout_step_bound(cls, seats: int) -> int:
        """Each turn: at most pom moves, or pom attacks plus their rolls, then 'end'."""
        pom = auto_map(seats).pom
        return 1 + seats * DEFAULT_MAX_TURNS * (2 * pom + 1)


TagemState.game = Tagem
