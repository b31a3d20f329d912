"""Precise exceptions shared by the protocol core (h11 style).

``LocalProtocolError``: this peer asked for something the protocol forbids.
``RemoteProtocolError``: bytes from another peer broke the protocol; ``code``
is one of the blame/error codes listed in protocol/SPEC.md.
"""

from __future__ import annotations


class LanTagError(Exception):
    """Base of every lanTag error (tests/test_errors.py walks the package to keep it so);
    each one also refines the builtin it means, e.g. ``IllegalAction(LanTagError, ValueError)``."""


class LocalProtocolError(LanTagError):
    """We tried to do something the protocol or the current phase does not allow."""


class RemoteProtocolError(LanTagError):
    """A peer sent something malformed, unsigned, out of place or dishonest."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class RulesVersionError(LanTagError):
    """A game (a lobby record, a log) needs rules of an engine this lanTag does not hold:
    another rules version of it (``have``), or the engine not at all (``have`` is None)."""

    def __init__(self, engine: str, wanted: int, have: int | None) -> None:
        held = "does not have that game" if have is None else f"has rules {have}"
        super().__init__(f"{engine} rules {wanted} (this lanTag {held})")
        self.engine = engine
        self.wanted = wanted
        self.have = have
