"""Events a session reports (pulled with ``Session.next_event()``): frozen values."""

from __future__ import annotations

from dataclasses import dataclass

from lanTag.rules.base import Input, Outcome


@dataclass(frozen=True, slots=True)
class StepApplied:
    step: int  # the step that was decided; the state is now at step + 1
    input: Input
    state_hash: bytes  # hash of the state after the step
    # What the STEP entry records after the input and hash (referee.step_facts): a roll's
    # purpose and draw kinds (and the seats of a withheld roll), a secret round's purpose;
    # () for a move and in protocol 1.
    facts: tuple[object, ...] = ()
    # Whose input the decision took (not in any bytes: for lanTag.log.inspect, which shows
    # a roll's links and a secret round's openings as the session counted them): the live
    # person seats, and the seats dropped at this very step, with those convicted there
    # and (protocol 6) those that withheld a REVEAL there (both their forfeit; the others,
    # silent, their default), or, at a roll, the seats dropped at their own roll (the roll
    # is their withheld roll, SPEC §5.5).
    live: frozenset[int] = frozenset()
    dropped_now: frozenset[int] = frozenset()
    convicted_now: frozenset[int] = frozenset()
    withheld_now: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Blame:
    """A seat broke the protocol.  ``code`` is listed in protocol/SPEC.md §7."""

    seat: int
    step: int
    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class Desync:
    """A validly signed message carried a state hash different from ours."""

    step: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatsDropped:
    """The remaining peers agreed these seats were silent at ``step``; a bot now plays them."""

    step: int
    seats: tuple[int, ...]
    left: tuple[int, ...] = ()  # of ``seats``, those that said so (a signed LEAVE)


@dataclass(frozen=True, slots=True)
class SeatsBack:
    """Dropped seats a live seat admitted (protocol 5, SPEC §5.6): their people play them
    again from ``step`` on, instead of the bot."""

    step: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Lagging:
    seat: int
    step: int
    seconds: float


@dataclass(frozen=True, slots=True)
class CannotGoOn:
    """The table waits at ``step`` for ``seats`` to come back (SPEC §5.8).  With ``bound``
    empty: we voted them silent, a drop that could never be decided (it would leave less
    than half of the table, §5.4).  Else: our vote against ``bound`` binds us (§5.4), and
    only the votes or acknowledgements of ``seats``, whose addresses fell silent, can
    settle it."""

    step: int
    seats: tuple[int, ...]
    bound: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Rejected:
    """A datagram or message was dropped before it could be attributed to a seat."""

    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class Chat:
    seat: int
    text: str
    private: bool = False  # sent to us alone, encrypted to our key


@dataclass(frozen=True, slots=True)
class GameOver:
    step: int
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Sealed:
    """``seat`` signed the final state we ended in (protocol 3, SPEC §3 SEAL)."""

    step: int
    seat: int


Event = (
    StepApplied
    | Blame
    | Desync
    | SeatsDropped
    | SeatsBack
    | Lagging
    | CannotGoOn
    | Rejected
    | Chat
    | GameOver
    | Sealed
)
