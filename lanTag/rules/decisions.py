"""What a state asks for next (a Turn, a Simultaneous secret choice, a Chance of public
randomness, or Over with its Outcome), the draws a Chance names, and the fact codes that
consensus holds instead of words (lanTag.rules.base re-exports every name here)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias

from lanTag.rules.inputs import IllegalAction, is_plain_int

# --------------------------------------------------------------------------- facts

# A fact code: a short ASCII token naming a game fact ("die/3/assassin", "start-roll/0.2",
# "tag").  Consensus state and chance/secret purposes hold codes and numbers only, never
# sentences: people read the words the view modules make of them, and rewording a text
# never changes a state hash (docs/rules/VERSIONS.md).  Used with fullmatch.
FACT_CODE = re.compile(r"[a-z0-9][a-z0-9_./:-]{0,39}")

# Purposes of rules that predate fact codes, kept byte-identical so that engine's older
# logs still replay: stomptag rules 1 (its draws are seeded with these exact strings).
LEGACY_PURPOSES = frozenset({"minimum bids", "starting cells", "teleport landings"})

# What an engine keeps about its last input, for views: a code, then ints or codes.
Fact: TypeAlias = tuple[int | str, ...]


def is_fact_code(text: object) -> bool:
    return isinstance(text, str) and FACT_CODE.fullmatch(text) is not None


def facts_from_obj(obj: object) -> tuple[Fact, ...]:
    """Decode an array of facts (each ``[code, int|code...]``); ValueError otherwise."""
    if not isinstance(obj, list):
        raise ValueError("events must be an array of facts")
    facts = []
    for fact in obj:
        if not isinstance(fact, list) or not fact or not is_fact_code(fact[0]):
            raise ValueError(f"an event is [code, values...], not {fact!r}")
        for value in fact[1:]:
            if not (is_plain_int(value) or is_fact_code(value)):
                raise ValueError(f"an event value is an int or a code, not {value!r}")
        facts.append(tuple(fact))
    return tuple(facts)


def _check_purpose(purpose: str, what: str) -> None:
    if not is_fact_code(purpose) and purpose not in LEGACY_PURPOSES:
        raise ValueError(
            f"{what} {purpose!r} is not a fact code (lower-case ASCII token matching "
            f"{FACT_CODE.pattern}): put the words in the view"
        )


# --------------------------------------------------------------------------- chance specs


@dataclass(frozen=True, slots=True)
class Die:
    """``count`` independent rolls of a die whose faces are ``faces`` (e.g. piecepack: 0..5)."""

    faces: tuple[int, ...]
    count: int = 1


@dataclass(frozen=True, slots=True)
class Pick:
    """``count`` independent uniform integers in ``range(n)`` (e.g. an index into free cells)."""

    n: int
    count: int = 1


@dataclass(frozen=True, slots=True)
class Shuffle:
    """One uniform permutation of ``range(n)``."""

    n: int


Draw: TypeAlias = Die | Pick | Shuffle


def lowest_values(draw: Draw) -> tuple[int, ...]:
    """``draw``'s outcome with every die at its lowest face, every pick at 0, a shuffle
    unchanged: the default withheld roll (State.withheld_roll, SPEC §5.5)."""
    if isinstance(draw, Die):
        return (min(draw.faces),) * draw.count
    if isinstance(draw, Pick):
        return (0,) * draw.count
    return tuple(range(draw.n))


def check_draw(draw: Draw, values: tuple[int, ...]) -> None:
    """Raise IllegalAction unless ``values`` is a possible outcome of ``draw``."""
    if isinstance(draw, Die):
        if len(values) != draw.count or any(v not in draw.faces for v in values):
            raise IllegalAction(f"roll {values} is not {draw.count} face(s) of {draw.faces}")
    elif isinstance(draw, Pick):
        if len(values) != draw.count or any(not 0 <= v < draw.n for v in values):
            raise IllegalAction(f"pick {values} is not {draw.count} value(s) in 0..{draw.n - 1}")
    elif sorted(values) != list(range(draw.n)):
        raise IllegalAction(f"{values} is not a permutation of 0..{draw.n - 1}")


# --------------------------------------------------------------------------- decisions


@dataclass(frozen=True, slots=True)
class Turn:
    """One seat acts (a Move)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Simultaneous:
    """Every seat in ``seats`` makes a secret choice of ``kind`` ("rps", "bid", "orders")."""

    seats: tuple[int, ...]
    kind: str

    def __post_init__(self) -> None:
        _check_purpose(self.kind, "secret kind")  # it is the commitments' purpose


@dataclass(frozen=True, slots=True)
class Chance:
    """Public randomness is needed: one Roll with a value tuple per draw.

    ``purpose`` is a fact code (FACT_CODE): it seeds the draw, so it is consensus.
    """

    draws: tuple[Draw, ...]
    purpose: str

    def __post_init__(self) -> None:
        _check_purpose(self.purpose, "chance purpose")


@dataclass(frozen=True, slots=True)
class Outcome:
    """Final ranking: groups of tied seats, best first; ``summary`` for humans.

    ``scores`` (optional) is indexed by seat: the points each seat takes away.
    """

    ranking: tuple[tuple[int, ...], ...]
    summary: str
    scores: tuple[int, ...] = ()

    @property
    def winners(self) -> tuple[int, ...]:
        return self.ranking[0] if self.ranking else ()


@dataclass(frozen=True, slots=True)
class Over:
    outcome: Outcome


Decision: TypeAlias = Turn | Simultaneous | Chance | Over
