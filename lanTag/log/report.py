"""What verifying a log found (``VerifyReport``), and the check of one recorded step.

Shared by the two replays of lanTag.log.verify: the full one (the live Session machine,
message by message) and the plain one (lanTag.log.plain_replay), which must agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from lanTag.rules.base import Over, State, canonical_pack, decode_input, encode_input
from lanTag.session import events as ev


def position_digest(start_position: bytes) -> str:
    """SHA-256 (hex) of a start position's canonical bytes: how a game set up from a
    position names it (``lantag verify`` shows its first 16 digits, so does the game)."""
    return hashlib.sha256(start_position).hexdigest()


@dataclass(frozen=True, slots=True)
class Failure:
    entry: int
    step: int
    seat: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    nickname: str
    fingerprint: str
    bot: str


@dataclass
class VerifyReport:
    engine: str = ""
    game_id: str = ""
    writer_seat: int | None = None
    players: list[Player] = field(default_factory=list)
    entries: int = 0
    steps: int = 0
    rolls_verified: int = 0
    secrets_verified: int = 0
    signatures_verified: int = 0
    blames: list[tuple[int, int, str, str]] = field(default_factory=list)  # seat, step, code, why
    complete: bool = False
    outcome: str = ""
    ranking: list[list[int]] = field(default_factory=list)
    truncated_bytes: int = 0
    failure: Failure | None = None
    applied: list[ev.StepApplied] = field(default_factory=list)
    protocol: int = 0  # the log's protocol version (from its header's record)
    rules_version: int = 0  # the rules version of its engine it was played by
    lantag_version: str = ""  # the host's lanTag release, as recorded (display only)
    # False: this lanTag lacks those rules, so the log was replayed with the rules as it
    # records them (lanTag.log.without_rules; exit 3 when valid), and ``needs`` says what a
    # full replay needs.
    replayed: bool = True
    needs: str = ""
    unchecked: str = ""  # what the check without a replay could not look at, if anything
    # Protocol 3 (lanTag.log.seals): the seats whose seal of the final state the log holds,
    # and why a finished game is not complete when its last move is its author's word only.
    sealed_by: list[int] = field(default_factory=list)
    unacknowledged: str = ""
    # Hex id of the game this one follows at its table ("" for a first game); not in
    # to_json (the single-log report keeps its keys), lanTag.log.series reports it.
    previous_game: str = ""
    # SHA-256 (hex) of the start position the game was set up from ("" for the engine's own
    # start); the position itself is in the header's record, so the game id covers it.
    start_position: str = ""

    @property
    def valid(self) -> bool:
        return self.failure is None

    def finish(self, state: State) -> None:
        """``complete``, ``outcome`` and ``ranking`` from the state the replay ended in."""
        decision = state.decision()
        if isinstance(decision, Over):
            self.complete = True
            self.outcome = decision.outcome.summary
            self.ranking = [list(g) for g in decision.outcome.ranking]

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "complete": self.complete,
            "engine": self.engine,
            "game_id": self.game_id,
            "writer_seat": self.writer_seat,
            "players": [_player(p) for p in self.players],
            "entries": self.entries,
            "steps": self.steps,
            "rolls_verified": self.rolls_verified,
            "secrets_verified": self.secrets_verified,
            "signatures_verified": self.signatures_verified,
            "blames": [
                {"seat": s, "step": k, "code": c, "reason": r} for s, k, c, r in self.blames
            ],
            "outcome": self.outcome,
            "ranking": self.ranking,
            "truncated_bytes": self.truncated_bytes,
            "failure": None if self.failure is None else _failure(self.failure),
            "protocol": self.protocol,
            "rules_version": self.rules_version,
            "lantag_version": self.lantag_version,
            "replayed": self.replayed,
            "needs": self.needs,
            "unchecked": self.unchecked,
            "sealed_by": self.sealed_by,
            "unacknowledged": self.unacknowledged,
        }


def _player(p: Player) -> dict[str, Any]:
    return {"seat": p.seat, "nickname": p.nickname, "fingerprint": p.fingerprint, "bot": p.bot}


def _failure(f: Failure) -> dict[str, Any]:
    return {"entry": f.entry, "step": f.step, "seat": f.seat, "reason": f.reason}


def _withheld_differs(data: Any, facts: tuple[object, ...]) -> bool:
    """A roll's STEP entry whose purpose and draws are the decision's but whose seats dropped
    at their own roll (its third purpose, protocol 6, SPEC §5.5, §9) are not the replay's:
    a roll drawn where it was a withheld roll, or the other way round."""
    if type(data) is not list or len(data) not in (4, 5) or len(facts) not in (2, 3):
        return False
    recorded = data[2:]
    same_roll = canonical_pack(recorded[:2]) == canonical_pack(list(facts[:2]))
    return same_roll and canonical_pack(recorded[2:]) != canonical_pack(list(facts[2:]))


def step_row_failure(
    index: int, step: int, data: Any, applied: ev.StepApplied
) -> Failure | None:
    """Why the STEP entry ``index`` (``step``, ``data`` = [input, state hash]) does not
    record ``applied``, the next step its signed messages decided; None when it does."""
    facts = applied.facts
    if _withheld_differs(data, facts):
        return Failure(
            index, step, None, f"recorded seats withholding their own roll at step {step} differ"
        )
    if type(data) is not list or len(data) != 2 + len(facts):
        return Failure(index, step, None, f"malformed step record for step {step}")
    if facts and canonical_pack(data[2:]) != canonical_pack(list(facts)):
        return Failure(
            index, step, None, f"recorded draw or commitment purpose of step {step} differs"
        )
    if (
        applied.step == step
        and type(data[0]) is list
        and canonical_pack(data[0]) == canonical_pack(encode_input(applied.input))
    ):
        if applied.state_hash != data[1]:
            return Failure(index, step, None, f"state hash after step {step} differs")
        return None
    # Bytes are the truth: an input that decodes to the same value but is spelled otherwise
    # (true for 1) is not the decided input.  Decoded only to say why it is malformed.
    try:
        decode_input(data[0])
    except (ValueError, TypeError) as exc:
        return Failure(index, step, None, f"malformed step record: {exc}")
    return Failure(
        index,
        step,
        None,
        f"recorded input for step {step} differs from the one its signed messages decide",
    )
