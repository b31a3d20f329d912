"""The game screen's lines as values: a log line, the last roll and the last secret round
(the fairness line under the board)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LogLine:
    style: str
    text: str
    mine: bool = False  # about our seat: the feed never folds it away


@dataclass(frozen=True, slots=True)
class RollInfo:
    """The last public dice: what they were for and how they were made."""

    step: int
    purpose: str
    values: str
    contributors: tuple[int, ...]  # seats whose chain reveals seeded the roll
    humans: int  # human seats of the game
    problems: tuple[str, ...]  # blames and drops at that step; empty: verified

    def text(self) -> str:
        status = "verified" if not self.problems else "; ".join(self.problems)
        return (
            f"{self.purpose}: {self.values} — from {len(self.contributors)}/{self.humans} "
            f"seats' reveals, {status}"
        )


@dataclass(frozen=True, slots=True)
class SecretInfo:
    """The last revealed simultaneous choice."""

    step: int
    kind: str
    choices: str
    sealed_by: tuple[int, ...]
    problems: tuple[str, ...]

    def text(self) -> str:
        status = "commitments opened" if not self.problems else "; ".join(self.problems)
        return f"{self.kind}: {self.choices} — sealed by {len(self.sealed_by)} seat(s), {status}"
