"""Per-step bookkeeping of the session: what arrived, what was accepted, who voted."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from lanTag.rules.base import State
from lanTag.session.messages import MsgType, Signed
from lanTag.session.referee import Needs


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything that determines step ``k``'s needs: the state and the seats' chain positions."""

    state: State
    chain_last: tuple[bytes, ...]  # last chain link seen from each seat (anchor at start)
    chain_used: tuple[int, ...]  # reveals each seat has made so far
    live: frozenset[int]  # human seats still playing themselves


@dataclass(slots=True)
class StepBox:
    """Messages of one step.  ``pending`` keeps arrival order; it is re-run after each change."""

    pending: list[Signed] = field(default_factory=list)
    contrib: dict[MsgType, dict[int, Signed]] = field(default_factory=dict)
    votes: dict[int, Signed] = field(default_factory=dict)  # latest VOTE per voter
    nudges: dict[int, Signed] = field(default_factory=dict)  # latest NUDGE per sender
    haves: dict[int, dict[int, Signed]] = field(default_factory=dict)  # subject -> voter -> HAVE
    dropped_now: frozenset[int] = frozenset()  # dropped during this step: default choice
    drop_proof: list[Signed] = field(default_factory=list)  # the votes that decided it
    # subject -> (requests answered, its messages and acks relayed) by our last relay
    haves_sent: dict[int, tuple[int, int]] = field(default_factory=dict)
    nudged: bool = False
    sent_entropy: bool = False
    sent_reveal: bool = False
    started_at: float | None = None
    own_move_at: float | None = None  # when we played our move (we then wait for acks)
    heard: dict[int, float] = field(default_factory=dict)  # seat -> last message time
    lag_reported: bool = False
    synced_at: float | None = None  # a dropped seat stuck here last asked to catch up then
    commits_done: tuple[Needs, int] | None = None  # (needs, len(COMMITs)) once all are in

    def of(self, kind: MsgType) -> dict[int, Signed]:
        return self.contrib.setdefault(kind, {})

    def register_request(self, msg: Signed) -> None:
        """Keep the latest VOTE / NUDGE of each sender."""
        table = self.votes if msg.type == MsgType.VOTE else self.nudges
        prev = table.get(msg.seat)
        if prev is None or prev.payload[1] < msg.payload[1]:
            table[msg.seat] = msg

    def requested(self) -> set[int]:
        """Seats whose messages some voter or nudger lacks."""
        return {s for m in [*self.votes.values(), *self.nudges.values()] for s in m.payload[0]}

    def accepted_of(self, seat: int) -> list[Signed]:
        return [by_seat[seat] for by_seat in self.contrib.values() if seat in by_seat]

    def covered(
        self, msg: Signed, live: frozenset[int], me: int | None, silent: AbstractSet[int]
    ) -> bool:
        """Some other live seat, not one we voted silent, signed HAVE for exactly this message."""
        for voter, have in self.haves.get(msg.seat, {}).items():
            if (
                voter in live
                and voter not in (msg.seat, me)
                and voter not in silent
                and msg.digest in have.payload[1]
            ):
                return True
        return False

    def unanimous_silent(self, live: frozenset[int]) -> frozenset[int] | None:
        """X such that every live seat outside X has voted exactly X, if any.

        At least half of the live seats must remain: a lone peer cut off from the rest
        (or a cascade of mutual suspicion) cannot drop everyone else and split the game.
        """
        for vote in self.votes.values():
            silent = frozenset(vote.payload[0])
            if not silent or not silent <= live or 2 * len(live - silent) < len(live):
                continue
            voters = live - silent
            if voters and all(
                v in self.votes and frozenset(self.votes[v].payload[0]) == silent for v in voters
            ):
                return silent
        return None
