"""The Session is composed, not mixed in (issue #37): a Session is its SessionCore (what it
was made with, the helpers) and owns parts, each with its own state and no lanTag base;
no class overrides another's method."""

from __future__ import annotations

import inspect

from lanTag.session import (
    absence,
    agreement,
    catch_up,
    chatter,
    convictions,
    handback,
    inbox,
    intake,
    journal,
    recovery,
    round_acks,
    sealing,
    state_claims,
    vote_book,
)
from lanTag.session.lockstep import Session

PARTS = (
    agreement.Agreement,
    intake.Intake,
    recovery.Recovery,
    inbox.Inbox,
    state_claims.StateClaims,
    journal.Journal,
    convictions.Convictions,
    convictions.LateProofs,
    handback.Handback,
    absence.Absence,
    chatter.ChatterCap,
    sealing.SealBook,
    catch_up.CatchUp,
    vote_book.VoteBook,
    round_acks.RoundAcks,
)


def _ours(cls: type) -> bool:
    return cls.__module__.startswith("lanTag.")


def lantag_bases_of(cls: type) -> list[type]:
    return [base for base in cls.__bases__ if _ours(base)]


def overridden(cls: type) -> dict[str, list[str]]:
    """Methods (and properties) defined by more than one lanTag class of ``cls``'s MRO
    (``__init__`` aside: the Session's starts step 0 after SessionCore's)."""
    defined: dict[str, list[str]] = {}
    for klass in cls.__mro__:
        if not _ours(klass):
            continue
        for name, value in vars(klass).items():
            if name.startswith("__"):
                continue
            if inspect.isfunction(value) or isinstance(value, property | staticmethod):
                defined.setdefault(name, []).append(klass.__name__)
    return {name: owners for name, owners in defined.items() if len(owners) > 1}


def test_the_session_is_its_core_and_its_parts_have_no_lanTag_base() -> None:
    assert [k.__name__ for k in Session.__mro__ if _ours(k)] == ["Session", "SessionCore"]
    for part in PARTS:
        assert lantag_bases_of(part) == [], part
        assert part.__doc__, part  # each part's docstring says what it holds


def test_no_class_of_the_session_overrides_another_s_method() -> None:
    assert overridden(Session) == {}


def test_the_shape_checks_see_what_they_look_for() -> None:
    class Base:
        def act(self) -> None: ...

    class Part:
        pass

    class Mixed(Base, Part):
        def act(self) -> None: ...

    Base.__module__ = Part.__module__ = Mixed.__module__ = "lanTag.example"
    assert lantag_bases_of(Mixed) == [Base, Part]
    assert overridden(Mixed) == {"act": ["Mixed", "Base"]}
