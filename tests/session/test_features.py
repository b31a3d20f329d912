"""One table of protocol facts (lanTag.session.features): each fact is on from exactly its
first protocol, and protocol/SPEC.md names that same protocol for it."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from lanTag.session.features import FACTS, FIRST_PROTOCOL, Features
from lanTag.session.messages import KNOWN_PROTOCOLS, PROTOCOL_VERSION

SPEC = Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md"
# Where SPEC says which protocol brought each fact; ``{n}`` is the table's first protocol.
SPEC_SAYS = {
    "forfeit": "{n}: versions in the record, hello and welcome; draw and commitment purposes "
    "in STEP entries; the conviction of a bad REVEAL and the forfeit of a convicted seat",
    "purposes": "**Purposes** (protocol {n})",
    "series": "**Series** (protocol {n})",
    "seals": "**SEAL** (protocol {n}: the table signs the result)",
    "outsider_acks": "(Protocol {n} counted, from each live seat outside the round only",
    "start_position": "**Start position** (protocol {n})",
    "named_acks": "{n} (this one): a secret round is applied only once every other live "
    "seat's HAVE names the very commitments held",
    "late_proof": "**The late-proof rule** (protocol {n})",
    "handback": "**The hand-back** (protocol {n})",
    "round_acks": "**The round HAVE** (protocol {n})",
    "ordered_proofs": "**Several proofs: the earliest step** (protocol {n})",
    "withheld": "**Absence never pays** (protocol {n})",
    "collusion": "**Many cheaters** (protocol {n})",
    "unpassable_vote": "**A vote that can never be decided binds nobody** (protocol {n})",
    "chatter_cap": "**Chatter bound (protocol {n}).**",
    "unplayed": "**Seats that never played** (protocol {n})",
}


def test_the_table_names_every_fact_once() -> None:
    assert set(FIRST_PROTOCOL) == set(FACTS)
    assert [f.name for f in fields(Features)] == ["protocol", *FACTS]
    assert set(FIRST_PROTOCOL.values()) <= set(KNOWN_PROTOCOLS)


@pytest.mark.parametrize("fact", FACTS)
def test_a_fact_is_on_from_exactly_its_first_protocol(fact: str) -> None:
    first = FIRST_PROTOCOL[fact]
    assert not getattr(Features.of(first - 1), fact)
    assert getattr(Features.of(first), fact)
    for protocol in (0, *KNOWN_PROTOCOLS, PROTOCOL_VERSION + 1):
        assert getattr(Features.of(protocol), fact) is (protocol >= first), protocol


def test_features_are_one_value_per_protocol() -> None:
    assert Features.of(PROTOCOL_VERSION) is Features.of(PROTOCOL_VERSION)
    assert Features.of(4).protocol == 4
    assert Features.of(PROTOCOL_VERSION) == Features(PROTOCOL_VERSION, **dict.fromkeys(FACTS, True))


@pytest.mark.parametrize("fact", FACTS)
def test_spec_names_the_same_first_protocol(fact: str) -> None:
    spec = re.sub(r"\s+", " ", SPEC.read_text(encoding="utf-8"))
    assert SPEC_SAYS[fact].format(n=FIRST_PROTOCOL[fact]) in spec
