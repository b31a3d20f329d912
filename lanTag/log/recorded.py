"""The rules as a log records them: the engine of the check without the rules (SPEC §9.2).

A verifier that lacks a log's engine (or its rules version) still replays the log through
the same Session, with this engine in the real one's place.  A state is known by its step
and state hash; what the engine would answer there is read from the log's STEP entries:

* the decision: the one the recorded inputs at that state answer (a Move of seat s: a
  Turn of s; a Roll: a Chance with the recorded draw purpose and kinds; a Joint: a
  Simultaneous of its seats with the recorded commitment purpose);
* the state after an input: the state hash the STEP entry that records that input there
  holds;
* legality: a MOVE is legal when its action is one the log records for its seat there, or
  the writer's own (its session checked it when it signed it); a REVEAL is illegal only
  when the forfeit is its seat's every recorded choice there (the rules alone can say why a
  seat forfeited, and that is how the log says it did);
* a bot's or a dropped seat's choice: the one the decision's own record holds (a state the
  log records several decisions of, after a rollback, is decided in their order);
* a state the log records nothing of (past its last STEP entry, or one no STEP entry
  follows): the game may be over there; nothing more is decided.

Step 0's state hash is the hash of the record's start position, when it has one; else a
candidate the verifier passes in (lanTag.log.without_rules).  A STEP entry's state is the
one after the latest STEP entry of the step before it in the log (step 0: the start), so a
state the log records twice is recorded for one decision and one state after each input;
the entry that says otherwise is refuted (``StepBook.conflicts``).  Pure: rows in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from lanTag.log.entries import EntryKind, Row
from lanTag.rules.awaited import Awaited
from lanTag.rules.base import (
    FORFEIT,
    Action,
    Chance,
    Decision,
    Die,
    Draw,
    Game,
    IllegalAction,
    Input,
    Joint,
    Move,
    Outcome,
    Over,
    Pick,
    Roll,
    Shuffle,
    Simultaneous,
    State,
    Turn,
    canonical_pack,
    decode_input,
    encode_input,
)

_NOTHING_KNOWN = Over(Outcome((), ""))  # a state the log records no decision of
_UNRECORDED = b"lanTag/v1/unrecorded\x00"


@dataclass(frozen=True, slots=True)
class Recorded:
    """One STEP entry as the check without the rules reads it."""

    index: int
    inp: Input
    input_bytes: bytes  # canonical bytes of its input as recorded
    hash_after: bytes
    decision: Decision
    withheld: tuple[int, ...] = ()  # a roll's seats dropped at their own roll (protocol 6)


def draw_of(obj: object) -> Draw:
    """The draw kind of SPEC §9's [0, faces, count] / [1, n, count] / [2, n]; ValueError."""
    if type(obj) is list and obj:
        tag = obj[0]
        if tag == 0 and len(obj) == 3 and type(obj[1]) is list and obj[1]:
            faces = tuple(obj[1])
            if all(type(f) is int for f in faces) and _count(obj[2]):
                return Die(faces, obj[2])
        if tag == 1 and len(obj) == 3 and _count(obj[1]) and _count(obj[2]):
            return Pick(obj[1], obj[2])
        if tag == 2 and len(obj) == 2 and _count(obj[1]):
            return Shuffle(obj[1])
    raise ValueError(f"not a draw kind: {obj!r}")


def _count(value: object) -> bool:
    return type(value) is int and 1 <= value <= 2**16


def decision_of(inp: Input, facts: Sequence[Any]) -> Decision:
    """The decision a protocol-2 STEP entry's input and purposes answer (ValueError)."""
    if isinstance(inp, Move):
        if facts:
            raise ValueError("a move's record is [input, state hash]")
        return Turn(inp.seat)
    if isinstance(inp, Roll):
        if not (len(facts) in (2, 3) and type(facts[0]) is str and type(facts[1]) is list):
            raise ValueError("a roll's record is [input, hash, purpose, draws]")
        if len(facts) == 3:
            withheld_of(facts)  # seats, ascending, once each: else malformed
        draws = tuple(draw_of(d) for d in facts[1])
        if len(draws) != len(inp.values):
            raise ValueError("a roll's record is [input, hash, purpose, draws]")
        return Chance(draws, facts[0])
    if not (len(facts) == 1 and type(facts[0]) is str):
        raise ValueError("a secret round's record is [input, hash, purpose]")
    return Simultaneous(tuple(s for s, _a in inp.choices), facts[0])


def withheld_of(facts: Sequence[Any]) -> tuple[int, ...]:
    """The seats a roll's STEP entry records as dropped at their own roll (protocol 6,
    SPEC §5.5, §9): its third purpose, a non-empty ascending list of seats; () when it has
    none.  ValueError when it is no such list."""
    if len(facts) < 3:
        return ()
    seats = facts[2]
    if not (
        type(seats) is list
        and seats
        and all(type(s) is int and 0 <= s < 2**16 for s in seats)
        and seats == sorted(set(seats))
    ):
        raise ValueError("a withheld roll's seats are a list of seats, ascending")
    return tuple(seats)


@dataclass
class StepBook:
    """Every STEP entry of a log (protocol 2 or later) by the state it decides.

    ``conflicts``: entry index -> why that STEP entry contradicts the log's other records
    (another state after an input recorded before at the same state: the rules are
    deterministic) or cannot be read as a decision; the replay fails there."""

    at: dict[tuple[int, bytes | None], list[Recorded]] = field(default_factory=dict)
    conflicts: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of_rows(cls, rows: Sequence[Row]) -> StepBook:
        book = cls()
        after: dict[int, bytes] = {}  # step -> the state hash after its latest record
        for index, step, _prev, kind, data, _raw in rows:
            if kind != EntryKind.STEP:
                continue
            try:
                if type(data) is not list or len(data) < 2:
                    raise ValueError("not [input, state hash, ...]")
                inp = decode_input(data[0])
                digest = data[1]
                if type(digest) is not bytes or len(digest) != 32:
                    raise ValueError("bad state hash")
                decision = decision_of(inp, data[2:])
            except (ValueError, IllegalAction) as exc:
                book.conflicts[index] = f"malformed step record: {exc}"
                continue
            key = (step, None if step == 0 else after.get(step - 1))
            withheld = withheld_of(data[2:]) if isinstance(inp, Roll) else ()
            entry = Recorded(index, inp, canonical_pack(data[0]), digest, decision, withheld)
            book._add(key, entry)
            after[step] = digest
        return book

    def _add(self, key: tuple[int, bytes | None], entry: Recorded) -> None:
        same = self.at.setdefault(key, [])
        step = key[0]
        for earlier in same:
            # (another decision of the same state needs no check of its own: the replay
            # decides it as the first record says, and the comparison refutes the other)
            if earlier.input_bytes == entry.input_bytes and earlier.hash_after != entry.hash_after:
                self.conflicts[entry.index] = (
                    f"one input at step {step} is recorded with two states after it "
                    f"(entries {earlier.index} and {entry.index})"
                )
                return
        same.append(entry)

    def records(self, step: int, digest: bytes) -> list[Recorded]:
        return self.at.get((step, None if step == 0 else digest), [])


class RecordedRules:
    """One replay's view of a StepBook: how many times it decided each recorded state.

    A valid log records the decisions of a state in the order its writer made them (a
    rollback decides a state again, and its STEP entry follows), and the replay makes them
    in that order too: the replay's n-th decision of a state is the state's n-th record,
    whose choices it takes for the seats the rules would choose for (bots, dropped seats)."""

    def __init__(self, book: StepBook, writer: int | None) -> None:
        self.book = book
        self.writer = writer  # the log's writer seat (its own moves were checked when signed)
        self._decided: dict[tuple[int, bytes], int] = {}

    def records(self, step: int, digest: bytes) -> list[Recorded]:
        return self.book.records(step, digest)

    def next_record(self, step: int, digest: bytes) -> Recorded | None:
        """The record of the replay's next decision of this state, if the log has one."""
        records = self.records(step, digest)
        done = self._decided.get((step, digest), 0)
        return records[done] if done < len(records) else None

    def decided(self, step: int, digest: bytes) -> None:
        key = (step, digest)
        self._decided[key] = self._decided.get(key, 0) + 1


class RecordedGame(Game):
    """The engine class of a recorded state (its id names no engine of this lanTag, so a
    replicated heuristic bot takes the recorded choice like the random one)."""

    id = "recorded"
    display_name = "(the rules as the log records them)"
    min_seats = 1
    max_seats = 65535
    rules_version = 0

    @classmethod
    def new_state(
        cls, seats: int, options: Mapping[str, object] | None = None, map_text: str | None = None
    ) -> State:
        raise NotImplementedError("a recorded game starts from the log it is read from")

    @classmethod
    def state_from_obj(cls, obj: Any) -> State:
        raise NotImplementedError("a recorded state has no encoding of its own")


@dataclass(frozen=True, eq=False)
class RecordedState(State):
    """The state at ``step`` whose hash is ``digest``, as the log's STEP entries know it."""

    rules: RecordedRules
    step: int
    digest: bytes

    game: ClassVar[type[Game]] = RecordedGame

    @property
    def known(self) -> bool:
        """The log records a decision of this state."""
        return bool(self.rules.records(self.step, self.digest))

    def decision(self) -> Decision:
        records = self.rules.records(self.step, self.digest)
        return records[0].decision if records else _NOTHING_KNOWN

    def _choices(self, seat: int) -> set[Action]:
        """The actions the log records for ``seat`` at this state."""
        out: set[Action] = set()
        for rec in self.rules.records(self.step, self.digest):
            choice = _choice_of(rec.inp, seat)
            if choice is not None:
                out.add(choice)
        return out

    def awaited(self) -> Awaited:
        """Where a turn begins needs the engine, and no STEP entry records it: every recorded
        state is taken as one, so a hand-back's wait for the end of its drop's turn (protocol
        6, SPEC §5.6) is taken on the carriers' word here (an honest carrier waits for it);
        its limit, a count of admissions, is checked as the full replay checks it."""
        return replace(super().awaited(), turn_starts=True)

    def legal_actions(self, seat: int) -> Sequence[Action]:
        """The recorded choice of ``seat`` in the decision being made (what a bot or a
        dropped seat is given here).  Past the log's records of this state (a decision no
        STEP entry follows) any recorded one: nothing compares it."""
        rec = self.rules.next_record(self.step, self.digest)
        choice = None if rec is None else _choice_of(rec.inp, seat)
        if choice is None:
            choice = min(self._choices(seat), key=str, default=FORFEIT)
        return [choice]

    def default_action(self, seat: int) -> Action:
        return self.legal_actions(seat)[0]

    def roll_owners(self) -> tuple[int, ...]:
        """Whose roll it is needs the rules: the seats the decision's own record says were
        dropped at their own roll (protocol 6, SPEC §9.2), the log's word like a dropped
        seat's choice; the replay still checks they were dropped there."""
        rec = self.rules.next_record(self.step, self.digest)
        return () if rec is None else rec.withheld

    def withheld_roll(self, seats: tuple[int, ...]) -> Roll:
        """The roll the decision's own record holds (the log's word, SPEC §9.2)."""
        rec = self.rules.next_record(self.step, self.digest)
        if rec is not None and isinstance(rec.inp, Roll):
            return rec.inp
        return super().withheld_roll(seats)

    def check_action(self, seat: int, action: Action) -> None:
        choices = self._choices(seat)
        if isinstance(self.decision(), Turn):
            # The writer's own MOVE was checked by its session before it signed it, and may
            # never be decided (the others dropped the seat before acknowledging it).
            if seat != self.rules.writer and choices and action not in choices:
                raise IllegalAction(f"{action} is not a move the log records for seat {seat}")
        elif choices == {FORFEIT}:
            raise IllegalAction(f"the log records seat {seat}'s forfeit here")

    def apply(self, inp: Input, *, actions_checked: bool = False) -> State:
        _ = actions_checked
        return self._apply(inp)

    def _apply(self, inp: Input) -> State:
        rules = self.rules
        expected = rules.next_record(self.step, self.digest)
        rules.decided(self.step, self.digest)
        given = canonical_pack(encode_input(inp))
        if expected is not None and expected.input_bytes == given:
            return RecordedState(rules, self.step + 1, expected.hash_after)
        # Not what the log records for this decision: the replay's STEP comparison says so.
        # A state hash no message carries (nothing is accepted there).
        unrecorded = hashlib.sha256(_UNRECORDED + self.digest + given).digest()
        return RecordedState(rules, self.step + 1, unrecorded)

    def to_obj(self) -> Any:
        return [self.step, self.digest]

    def state_hash(self) -> bytes:
        return self.digest


def _choice_of(inp: Input, seat: int) -> Action | None:
    if isinstance(inp, Move):
        return inp.action if inp.seat == seat else None
    if isinstance(inp, Joint):
        return next((a for s, a in inp.choices if s == seat), None)
    return None
