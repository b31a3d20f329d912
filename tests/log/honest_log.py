"""The must-fail vectors' honest game as entries to change and re-chain (SPEC §9.1): what the
tests of the verifier's paths forge their logs from."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lanTag.log.entries import EntryKind, LogChain, parse_log
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import Signed, parse_unverified
from tests.support.table import identity_for

ROOT = Path(__file__).resolve().parents[2]
MUST_FAIL = ROOT / "protocol" / "vectors" / "must_fail"
INDEX: dict[str, Any] = json.loads((MUST_FAIL / "must_fail.json").read_text(encoding="utf-8"))
HONEST: bytes = (MUST_FAIL / INDEX["honest"]["file"]).read_bytes()
Item = tuple[int, EntryKind, Any]  # an entry's step, kind and data


def items_of(data: bytes) -> list[Item]:
    return [(e.step, e.kind, e.data) for e in parse_log(data).entries]


def chained(items: list[Item]) -> bytes:
    """The entries as a log, each linked to the one before (as a cheating writer would)."""
    chain = LogChain()
    for step, kind, data in items:
        chain.append(step, kind, data)
    return chain.take()


def first_msg(items: list[Item], pred: Callable[[Signed], bool]) -> int:
    return next(
        k
        for k, (_step, kind, data) in enumerate(items)
        if kind == EntryKind.MSG and pred(parse_unverified(data))
    )


def messages_of(items: list[Item]) -> list[tuple[int, Signed]]:
    return [
        (k, parse_unverified(d)) for k, (_s, kind, d) in enumerate(items) if kind == EntryKind.MSG
    ]


def signer_of(seat: int) -> Any:
    """The signer of a seat of the honest game (its table's identities are derived)."""
    record = LobbyRecord.decode(items_of(HONEST)[0][2][1])
    for peer in range(len(record.seats)):
        identity = identity_for(INDEX["table_seed"], peer)
        if identity.public_key == record.seats[seat].public_key:
            return identity.signer()
    raise LookupError(seat)
