"""What a protocol version does: one boolean per protocol fact, from one table.

The session, the log checks and the tools ask ``Features.of(record.protocol).handback``
instead of comparing a protocol number with a threshold: the first protocol of each fact is
written once, in ``FIRST_PROTOCOL`` (protocol/SPEC.md §0 "What each protocol brought", and the
section each fact's comment names, mark it with the same number).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class Features:
    """The protocol facts of one protocol version (``Features.of``)."""

    protocol: int
    # A bad REVEAL convicts its seat, and a convicted seat's forfeit is recorded (SPEC §4.4).
    forfeit: bool
    # STEP entries record draw and commitment purposes (SPEC §9 "Purposes").
    purposes: bool
    # The lobby record names the previous game of a series (SPEC §2).
    series: bool
    # The table seals the result: the SEAL message and its log entries (SPEC §3, §9).
    seals: bool
    # A secret round waits for the HAVEs of the live seats outside it (SPEC §4.4).
    outsider_acks: bool
    # The lobby record may hold a start position (SPEC §2).
    start_position: bool
    # A secret round waits for HAVEs naming the very commitments held (SPEC §4.4, §5.8).
    named_acks: bool
    # A round acknowledged by digest stands; a later proof convicts at a later step (SPEC §5.7),
    # and a drop of seats with no part in the steps since is taken at the current step (§5.4).
    late_proof: bool
    # A dropped seat is given back: REJOIN, and the admission a contribution carries (SPEC §5.6).
    handback: bool
    # A secret round is acknowledged once per seat, by the digest of its vector (SPEC §4.4).
    round_acks: bool
    # Several proofs of one seat convict it at the earliest step, in any order (SPEC §5.7).
    ordered_proofs: bool
    # Absence never pays: a seat dropped where it owed a secret is blamed withheld (SPEC §5.5).
    withheld: bool
    # A round where two seats are proven to have cheated does not stand (SPEC §5.7).
    collusion: bool
    # A vote that can never be decided binds nobody (SPEC §5.4).
    unpassable_vote: bool
    # CHAT, PRIVATE, SYNC, REJOIN, SEAL and LEAVE are capped per seat and step (SPEC §5.3).
    chatter_cap: bool
    # At a roll, a drop may leave seats that never played out of the count (SPEC §5.4).
    unplayed: bool

    @staticmethod
    @functools.cache
    def of(protocol: int) -> Features:
        """The facts of ``protocol`` (any int: a fact is on from its first protocol)."""
        return Features(protocol, **{f: protocol >= n for f, n in FIRST_PROTOCOL.items()})


# The first protocol of each fact: the one table of protocol thresholds.
FIRST_PROTOCOL: dict[str, int] = {
    "forfeit": 2,
    "purposes": 2,
    "series": 3,
    "seals": 3,
    "outsider_acks": 3,
    "start_position": 4,
    "named_acks": 4,
    "late_proof": 5,
    "handback": 5,
    "round_acks": 6,
    "ordered_proofs": 6,
    "withheld": 6,
    "collusion": 6,
    "unpassable_vote": 6,
    "chatter_cap": 6,
    "unplayed": 6,
}
FACTS = tuple(f.name for f in fields(Features) if f.name != "protocol")
