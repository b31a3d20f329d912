"""Which versions a game needs, and the one line that says why two installs differ.

Two numbers decide whether peers can play together (protocol/SPEC.md "Versions and
compatibility"): the protocol version (wire and log format, messages.PROTOCOL_VERSION)
and the rules version of the game's engine (``rules_version`` of its Game class).  The
lanTag release is shown to people but never compared.  Pure: no I/O.
"""

from __future__ import annotations

from lanTag.errors import RulesVersionError
from lanTag.rules.base import OptionError
from lanTag.rules.registry import display_name, get_game
from lanTag.session.messages import PROTOCOL_VERSION


def rules_version_of(engine: str) -> int | None:
    """This lanTag's rules version of ``engine``; None when it does not hold the engine."""
    try:
        game = get_game(engine)
    except OptionError:
        return None
    return game.rules_version


def require_rules(engine: str, wanted: int) -> None:
    """RulesVersionError unless this lanTag plays ``engine`` by rules version ``wanted``."""
    have = rules_version_of(engine)
    if have != wanted:
        raise RulesVersionError(engine, wanted, have)


def _advice(host: int, mine: int | None) -> str:
    if mine is None or mine < host:
        return "upgrade lanTag"
    return "the host should upgrade lanTag (or you install the host's release)"


def why_not_join(engine: str, protocol: int, rules: int) -> str:
    """Why this lanTag cannot join a game advertised with ``protocol``/``rules`` ("" when it
    can): both versions named, as :func:`mismatch` words it."""
    return mismatch(engine, protocol, rules, PROTOCOL_VERSION, rules_version_of(engine))


def mismatch(
    engine: str, host_protocol: int, host_rules: int, protocol: int, rules: int | None
) -> str:
    """What a joiner with ``protocol``/``rules`` (None: it lacks the engine) is told about
    a host's game, "" when they can play together.  Protocol first: it decides everything."""
    if protocol != host_protocol:
        advice = _advice(host_protocol, protocol)
        return f"the host runs lanTag protocol {host_protocol}, you have {protocol}: {advice}"
    if rules != host_rules:
        name = display_name(engine)
        have = f"you have {rules}" if rules is not None else "your lanTag does not have it"
        return f"the host runs {name} rules {host_rules}, {have}: {_advice(host_rules, rules)}"
    return ""


def joiner_mismatch(
    engine: str, host_rules: int, nickname: str, protocol: int, rules: int | None
) -> str:
    """The host's side of ``mismatch``: who was refused and why; "" when compatible."""
    if protocol != PROTOCOL_VERSION:
        return (
            f"refused {nickname}: they run lanTag protocol {protocol}, this game "
            f"protocol {PROTOCOL_VERSION}"
        )
    if rules != host_rules:
        have = f"rules {rules}" if rules is not None else "no such game"
        return (
            f"refused {nickname}: they have {display_name(engine)} {have}, this game "
            f"plays rules {host_rules}"
        )
    return ""
