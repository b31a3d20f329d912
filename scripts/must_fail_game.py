"""The cheating writer of scripts/gen_must_fail.py: the honest game every must-fail log
starts from, every seat's signing key, and the package's own log writer.

Imported by scripts/gen_must_fail.py (``python -m scripts.gen_must_fail``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanTag.identity import Signer
from lanTag.log.entries import EntryKind, LogChain, parse_log
from lanTag.rules.base import (
    IllegalAction,
    Input,
    State,
    decode_input,
    encode_input,
)
from lanTag.rules.registry import get_game
from lanTag.session import referee
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import (
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
)
from tests.support.table import Table, identity_for

FIRST_SEED = 2027  # the game every vector starts from: the first seed from here whose game
SEEDS_TRIED = 64  # has every situation a cheat needs (a rule change may change the game)
ENGINE = "prototag"

Item = tuple[int, EntryKind, Any]  # (step, kind, data) of one log entry


def h(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


@dataclass(frozen=True)
class Expect:
    exit: int  # `lantag verify` exit code: 1 invalid, 2 not a lanTag log, 0 valid
    # contained in failure.reason (exit 1), in the LogFormatError (exit 2), or in the
    # report's ``unacknowledged`` (exit 0, a log valid but not complete for that reason)
    reason: str
    entry: int | None = None  # failure.entry (exit 1)
    step: int | None = None  # failure.step (exit 1)
    blame: tuple[int, str] | None = None  # (seat, code) the replay must blame on the way
    complete: bool | None = None  # exit 0: whether the report calls the game complete


@dataclass(frozen=True)
class Vector:
    name: str
    rule: str  # where the rule is specified
    how: str  # what the cheating writer did
    data: bytes
    expect: Expect


@dataclass
class Game:
    """The honest game: its writer's log, every seat's signer, and the state before each step."""

    items: list[Item]
    record: LobbyRecord
    signers: dict[int, Signer]
    states: list[State] = field(default_factory=list)  # states[s]: the state before step s

    @property
    def game_id(self) -> bytes:
        return self.record.game_id

    # -- finding things in the honest log -------------------------------------------------

    def msg(self, k: int) -> Signed:
        return parse_unverified(self.items[k][2])

    def find(self, pred: Callable[[Signed], bool], start: int = 1) -> int:
        """Index of the first MSG entry from ``start`` whose message satisfies ``pred``."""
        for k in range(start, len(self.items)):
            if self.items[k][1] == EntryKind.MSG and pred(self.msg(k)):
                return k
        raise LookupError("no such message in the game's log")

    def step_entry(self, step: int) -> int:
        return next(
            k for k, (s, kind, _) in enumerate(self.items) if kind == EntryKind.STEP and s == step
        )

    def needs(self, step: int) -> referee.Needs:
        live = frozenset(i for i, s in enumerate(self.record.seats) if not s.is_bot)
        return referee.needs_for(self.states[step].decision(), live)

    # -- what the cheating writer makes ----------------------------------------------------

    def sign(self, msg: Signed, *, signer: int | None = None, **changes: Any) -> bytes:
        """``msg`` with some fields changed, validly signed (by ``signer``'s key, by default
        the key of the seat it names)."""
        fields: dict[str, Any] = {
            "msg_type": msg.type,
            "game_id": msg.game_id,
            "step": msg.step,
            "seat": msg.seat,
            "state_hash": msg.state_hash,
            "payload": msg.payload,
            "version": msg.version,
        }
        fields.update(changes)
        key = self.signers[fields["seat"] if signer is None else signer]
        return sign_message(
            key,
            fields["msg_type"],
            fields["game_id"],
            fields["step"],
            fields["seat"],
            fields["state_hash"],
            tuple(fields["payload"]),
            version=fields["version"],
        ).raw

    # -- the forged entries the cheats share ------------------------------------------------

    def forged(self, k: int, *entries: Item) -> list[Item]:
        """The honest log before entry ``k``, then ``entries``."""
        return [*self.items[:k], *entries]

    def resigned(self, k: int, *, signer: int | None = None, **changes: Any) -> Item:
        """MSG entry ``k`` with its message changed and validly signed (``sign``), dated at
        the step the message then names."""
        raw = self.sign(self.msg(k), signer=signer, **changes)
        return (parse_unverified(raw).step, EntryKind.MSG, raw)

    def first_turn(self) -> tuple[int, Signed]:
        """Seat 1's first MOVE (where most cheats strike): its entry index and message."""
        k = turn_of(self, 1)
        return k, self.msg(k)

    def first_turn_step(self) -> tuple[int, int, list[Any]]:
        """The STEP entry that records seat 1's first MOVE: (entry index, step, data)."""
        k = self.step_entry(self.first_turn()[1].step)
        step, _kind, data = self.items[k]
        return k, step, data

    def head(self, k: int) -> tuple[bytes, LogChain]:
        """The honest log's first ``k`` entries, and the chain that wrote them (to go on
        from its last hash)."""
        chain = LogChain()
        return write(self.items[:k], chain), chain

    def with_header(self, kind: EntryKind, data: Any) -> list[Item]:
        """The first 20 entries of the log with another entry 0."""
        return [(self.items[0][0], kind, data), *self.items[1:20]]

    def claimed_step(self, step: int, inp: Input) -> Item:
        """The STEP entry a writer records when it claims ``inp`` decided ``step``: the honest
        entry's form, with ``inp`` and the state hash applying it gives."""
        honest = self.items[self.step_entry(step)][2]
        try:
            digest = self.states[step].apply(inp).state_hash()
        except IllegalAction:
            digest = honest[1]  # the rules refuse it: the writer keeps the honest hash
        return (step, EntryKind.STEP, [encode_input(inp), digest, *honest[2:]])


def play(seed: int) -> Game:
    """The real game of ``seed`` (deterministic: a function of the seed)."""
    table = Table(ENGINE, 3, bots=("random",), seed=seed)
    table.start()
    table.run_to_end()
    writer = table.peer_of_seat(0)
    entries = parse_log(bytes(table.logs[writer])).entries
    items: list[Item] = [(e.step, e.kind, e.data) for e in entries]
    record = LobbyRecord.decode(entries[0].data[1])
    signers: dict[int, Signer] = {}
    for peer in range(3):
        seat = table.seat_of(peer)
        assert seat is not None
        identity = identity_for(seed, peer)
        if identity.public_key != record.seats[seat].public_key:
            raise RuntimeError(f"peer {peer}'s key does not hold seat {seat}")
        signers[seat] = identity.signer()
    game = Game(items, record, signers)
    state = get_game(record.engine).new_state(
        len(record.seats), record.option_dict, record.map_text
    )
    for _step, kind, data in items:
        if kind == EntryKind.STEP:
            game.states.append(state)
            state = state.apply(decode_input(data[0]))
    game.states.append(state)
    return game


def write(items: list[Item], chain: LogChain | None = None) -> bytes:
    """The log of ``items``, chained by the package's own LogChain."""
    chain = chain or LogChain()
    for step, kind, data in items:
        chain.append(step, kind, data)
    return chain.take()


# --------------------------------------------------------------------------- the registry

# Every cheat, in the order the index lists them (must_fail_entries, then must_fail_messages).
VECTORS: list[Callable[[Game], Vector]] = []


def vector(fn: Callable[[Game], Vector]) -> Callable[[Game], Vector]:
    VECTORS.append(fn)
    return fn


def turn_of(game: Game, seat: int) -> int:
    """The first MOVE entry of ``seat``."""
    return game.find(lambda m: m.type == MsgType.MOVE and m.seat == seat)
