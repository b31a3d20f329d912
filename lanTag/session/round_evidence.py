"""What a secret round's acknowledgements prove when a seat signed two COMMITs (protocol 6).

Pure functions over signed messages, shared by the session (lanTag.session.late_proof) and
the evidence vectors (scripts/vectors_messages.py).  A protocol-6 acknowledgement names a
*vector*: the digest of the COMMIT its signer holds of each live seat of the round (SPEC
§4.4).  Whoever holds the COMMITs can recompute the vectors an acknowledgement could name:

- the *family* of a set of COMMITs: the vector over the round's live seats, and over those
  and any of the seats dropped at that step (an acknowledgement signed before a drop names
  the larger vector);
- the *swapped* family of seat ``a``: the same with ``a``'s COMMIT replaced by its other
  version (both are in the proof of two COMMITs, so any holder computes it).

An honest signer takes one COMMIT per seat and names only vectors of the COMMITs it took,
so it never names a vector of both families.  A seat that did (other than ``a`` itself,
whose two versions are one equivocation) signed conflicting acknowledgements: a proof
against it, checkable by anyone holding the messages (SPEC §5.7, "Many cheaters").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from lanTag.session.messages import MsgType, Signed, reveal_vector
from lanTag.session.steps import ROUND_SUBJECT, round_digest

# The dropped seats whose every subset is tried (2**4 vectors per family); past that only the
# vector without them and the one with all of them: a round that lost more than four seats at
# one step names its vectors after at most a few drops at a time.
MAX_OPTIONAL = 4


def vector_family(
    digests: Mapping[int, bytes], live: AbstractSet[int], must: int | None = None
) -> frozenset[bytes]:
    """The vectors an acknowledgement of the COMMITs ``digests`` (seat -> digest) may name:
    over the seats of ``live`` (each must be in ``digests``) and any subset of the others in
    ``digests`` (seats dropped at the step whose COMMIT was held).  ``must``: only the vectors
    whose seats include that one."""
    optional = sorted(set(digests) - set(live))
    if len(optional) <= MAX_OPTIONAL:
        subsets: Iterable[tuple[int, ...]] = (
            combo for n in range(len(optional) + 1) for combo in itertools.combinations(optional, n)
        )
    else:
        subsets = ((), tuple(optional))
    out = set()
    for extra in subsets:
        seats = set(live) | set(extra)
        if must is None or must in seats:
            out.add(round_digest({s: digests[s] for s in seats}))
    return frozenset(out)


def families(
    digests: Mapping[int, bytes], live: AbstractSet[int], seat: int, other: bytes
) -> tuple[frozenset[bytes], frozenset[bytes]]:
    """The vectors holding ``seat``'s COMMIT that an acknowledgement of the COMMITs
    ``digests`` may name, and the same with ``other``, its other version, in its place.
    A vector without ``seat`` says nothing about which version its signer took."""
    ours = vector_family(digests, live, must=seat)
    return ours, vector_family({**digests, seat: other}, live, must=seat)


def acknowledgements(messages: Iterable[Signed]) -> list[tuple[bytes, Signed]]:
    """(vector, message) for each vector ``messages`` name: a protocol-6 REVEAL's, and each
    digest of a round HAVE (subject ROUND_SUBJECT); other messages name none."""
    out: list[tuple[bytes, Signed]] = []
    for msg in messages:
        if msg.type is MsgType.REVEAL:
            vector = reveal_vector(msg)
            if vector is not None:
                out.append((vector, msg))
        elif msg.type is MsgType.HAVE and msg.payload[0] == ROUND_SUBJECT:
            out.extend((vector, msg) for vector in msg.payload[1])
    return out


def naming(acks: Iterable[tuple[bytes, Signed]], vectors: AbstractSet[bytes]) -> list[Signed]:
    """The messages of ``acks`` (from ``acknowledgements``) that name one of ``vectors``."""
    found: dict[bytes, Signed] = {}
    for vector, msg in acks:
        if vector in vectors:
            found.setdefault(msg.raw, msg)
    return list(found.values())


def conflicting_acks(
    acks: Iterable[tuple[bytes, Signed]], ours: AbstractSet[bytes], swapped: AbstractSet[bytes]
) -> tuple[Signed, Signed] | None:
    """Two acknowledgements of one signer (``acks``: its (vector, message) pairs at one step,
    on one state) of which one names a vector of ``ours`` and the other one of ``swapped``
    (the same COMMITs with one seat's other version), or None.  One round HAVE naming both
    is its own proof: it is returned twice."""
    acks = list(acks)
    first = naming(acks, ours)
    second = naming(acks, swapped)
    if not first or not second:
        return None
    return first[0], second[0]
