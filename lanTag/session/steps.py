"""Per-step bookkeeping of the session: what arrived, what was accepted, who voted."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace

from lanTag.fair.commit import opens
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.rules.base import IllegalAction, State
from lanTag.session.features import Features
from lanTag.session.messages import SPECS, MsgType, Signed, reveal_vector
from lanTag.session.referee import Needs

# Flood bounds (SPEC §5.3): VOTEs and NUDGEs kept per seat and step, and how far ahead of
# us they are kept at all.  An honest peer nudges once per step and votes again only when
# the set it lacks changes; what is over the bound is dropped unlogged and counted.
REQUEST_LIMITS = {t: s.request_limit for t, s in SPECS.items() if s.request_limit is not None}
REQUEST_AHEAD = 64
ROUND_SUBJECT = 2**32 - 1  # a HAVE's subject that is no seat: "the secret round of this step"
ROUND_DOMAIN = b"lanTag/v1/round\x00"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything that determines step ``k``'s needs: the state and the seats' chain positions."""

    state: State
    chain_last: tuple[bytes, ...]  # last chain link seen from each seat (anchor at start)
    chain_used: tuple[int, ...]  # reveals each seat has made so far
    live: frozenset[int]  # human seats still playing themselves
    # Human seats that have played before this step: an input of theirs was in a decided
    # step (a move, a link, a reveal; lanTag.session.unplayed)
    played: frozenset[int] = frozenset()


class HistoryView:
    """The agreed history as the session's parts read it: one Snapshot per step decided (the
    current one last) and our state hash at each.  Only the Session's History changes it:
    the Session appends a decided step, its Agreement drops seats and rolls back."""

    __slots__ = ("_hashes", "_snapshots")

    def __init__(self) -> None:
        self._snapshots: list[Snapshot] = []
        self._hashes: list[bytes] = []  # our state hash at each step, in step with _snapshots

    @property
    def step(self) -> int:
        return len(self._snapshots) - 1

    @property
    def current(self) -> Snapshot:
        return self._snapshots[-1]

    @property
    def live(self) -> frozenset[int]:
        return self._snapshots[-1].live

    @property
    def state(self) -> State:
        return self._snapshots[-1].state

    def hash_at(self, step: int) -> bytes:
        """Our state hash at ``step`` (a step of the history)."""
        return self._hashes[step]

    def __getitem__(self, step: int) -> Snapshot:
        return self._snapshots[step]

    def __iter__(self) -> Iterator[Snapshot]:
        return iter(self._snapshots)

    def __len__(self) -> int:
        return len(self._snapshots)


class History(HistoryView):
    """The agreed history, owned by the Session: a step decided is appended, a drop changes
    a step's live seats, a rollback forgets the steps after one."""

    __slots__ = ()

    def __init__(self, first: Snapshot, state_hash: bytes) -> None:
        super().__init__()
        self.append(first, state_hash)

    def append(self, snapshot: Snapshot, state_hash: bytes) -> None:
        self._snapshots.append(snapshot)
        self._hashes.append(state_hash)

    def set_live(self, step: int, live: frozenset[int]) -> None:
        """The seats playing themselves at ``step`` (a drop, or a drop decided again)."""
        self._snapshots[step] = replace(self._snapshots[step], live=live)

    def forget_after(self, step: int) -> None:
        """A rollback: ``step`` is the current step again."""
        del self._snapshots[step + 1 :]
        del self._hashes[step + 1 :]


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
    stuck_reported: bool = False  # ev.CannotGoOn told for this step
    synced_at: float | None = None  # a dropped seat stuck here last asked to catch up then
    commits_done: tuple[Needs, int] | None = None  # (needs, len(COMMITs)) once all are in
    # Protocol 6: (needs, len(COMMITs), digest) of the round vector we hold, computed once,
    # and the (seat, vectors it named) we answered with our commitments.
    round_vector: tuple[Needs, int, bytes] | None = None
    # ((our vector, dropped COMMITs), the vectors an acknowledgement may name), computed once
    round_vectors: tuple[tuple[bytes, int], frozenset[bytes]] | None = None
    round_shown: set[tuple[int, frozenset[bytes]]] = field(default_factory=set)
    # The vectors each seat named at this step (its REVEAL's, its round HAVE's), kept so that
    # a message costs O(1) here, not one look at every seat: ``round_dirty`` are the seats
    # whose messages changed since, ``round_unchecked`` the ones not yet compared with ours,
    # ``round_checked`` the vector we last compared them with.
    round_claims: dict[int, frozenset[bytes]] = field(default_factory=dict)
    round_dirty: set[int] = field(default_factory=set)
    round_unchecked: set[int] = field(default_factory=set)
    round_checked: bytes = b""
    dropped_commits: dict[int, Signed] = field(default_factory=dict)  # of seats dropped here
    drop_batches: list[frozenset[int]] = field(default_factory=list)  # this step's drops, in order
    # (what it was computed from, vector -> the dropped seats it holds): Absence.explained
    explained: tuple[object, dict[bytes, frozenset[int]]] | None = None
    bad_reveals: set[int] = field(default_factory=set)  # protocol 1: their default is taken

    def of(self, kind: MsgType) -> dict[int, Signed]:
        got = self.contrib.get(kind)  # (not setdefault: that builds a dict on every call)
        if got is None:
            got = self.contrib[kind] = {}
        return got

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

    def unanimous_silent(
        self,
        live: frozenset[int],
        unplayed: frozenset[int] = frozenset(),
        stay: frozenset[int] = frozenset(),
    ) -> frozenset[int] | None:
        """X such that every live seat outside X has voted exactly X, if any.

        At least half of the live seats must remain: a lone peer cut off from the rest
        (or a cascade of mutual suspicion) cannot drop everyone else and split the game.
        Seats of X in ``unplayed`` are not counted among the live seats there, when no seat
        of ``stay`` is in X (protocol 6 at a roll: seats that never played, an open table's
        squatters, while the host and we remain; SPEC §5.4).  A drop the ordinary rule
        makes is found first.
        """
        for relaxed in (False, True) if unplayed else (False,):
            for vote in self.votes.values():
                silent = frozenset(vote.payload[0])
                if not leaves_half(silent, live, unplayed if relaxed else _EMPTY, stay):
                    continue
                voters = live - silent
                if voters and all(
                    v in self.votes and frozenset(self.votes[v].payload[0]) == silent
                    for v in voters
                ):
                    return silent
        return None


_EMPTY: frozenset[int] = frozenset()


def leaves_half(
    silent: frozenset[int],
    live: frozenset[int],
    unplayed: frozenset[int] = _EMPTY,
    stay: frozenset[int] = _EMPTY,
) -> bool:
    """A drop of ``silent`` leaves half of ``live``, counting none of ``unplayed`` when no
    seat of ``stay`` is dropped (the two counts of StepBox.unanimous_silent; by default the
    ordinary one: a drop it does not make is taken only by leaving seats that never played
    out of the count, lanTag.session.unplayed)."""
    if not silent or not silent <= live:
        return False
    counted = live - (silent & unplayed) if unplayed and not silent & stay else live
    return 2 * len(live - silent) >= len(counted)


def may_be_decided(
    silent: frozenset[int],
    live: frozenset[int],
    unplayed: frozenset[int] = _EMPTY,
    stay: frozenset[int] = _EMPTY,
) -> bool:
    """Whether a drop of ``silent`` could ever be decided among ``live`` (by either count
    of StepBox.unanimous_silent, whatever the votes): a vote that cannot binds nobody."""
    return leaves_half(silent, live, _EMPTY, stay) or leaves_half(
        silent, live, unplayed, stay
    )


def protocol_1_faults(
    chain_last: bytes, commit: Signed, reveal: Signed, value: bytes, needs: Needs, state: State
) -> list[tuple[str, str]]:
    """(code, reason) of each fault a protocol-1 peer blamed a REVEAL for: its link does not
    chain; it does not open its COMMIT, or else its action is illegal (SPEC §4.4)."""
    faults = []
    if not chain_step_ok(chain_last, reveal.payload[2]):
        faults.append(("bad-chain", "reveal does not hash to the previous link"))
    sealed, nonce = commit.payload[0], reveal.payload[1]
    if not opens(sealed, reveal.game_id, reveal.step, reveal.seat, needs.secret_kind, nonce, value):
        return [*faults, ("bad-reveal", "reveal does not open its commitment")]
    try:
        state.check_action(reveal.seat, reveal.action)
    except IllegalAction as exc:
        faults.append(("illegal-action", str(exc)))
    return faults


def unacknowledged_commits(
    commits: Mapping[int, Signed],
    haves: Mapping[int, Mapping[int, Signed]],
    live: Iterable[int],
    me: int | None,
    state_hash: bytes,
) -> frozenset[int]:
    """Live seats (not ``me``) that have not signed, on ``state_hash``, a HAVE naming the
    COMMIT we hold (``commits``: seat -> COMMIT) of every other seat of the round
    (``haves``: subject -> signer -> its latest HAVE at the step).  Protocol 4, SPEC §4.4;
    the session and the plain replay of a log (lanTag.log.plain_replay) share the rule."""
    subjects = [(seat, commit.digest) for seat, commit in commits.items()]
    out: set[int] = set()
    for voter in live:
        if voter == me:
            continue
        for subject, digest in subjects:
            if subject == voter:
                continue
            have = haves.get(subject, {}).get(voter)
            if have is None or have.state_hash != state_hash or digest not in have.payload[1]:
                out.add(voter)
                break
    return frozenset(out)


def round_digest(digests: Mapping[int, bytes]) -> bytes:
    """The digest a protocol-6 round acknowledgement names (SPEC §4.4): ``digests`` maps each
    live seat of the round to the digest of the COMMIT held of it."""
    h = hashlib.sha256(ROUND_DOMAIN)
    for seat in sorted(digests):
        h.update(seat.to_bytes(2, "big"))
        h.update(digests[seat])
    return h.digest()


def round_named(
    voter: int,
    haves: Mapping[int, Mapping[int, Signed]],
    reveals: Mapping[int, Signed],
    state_hash: bytes,
) -> set[bytes]:
    """The vectors ``voter`` named on ``state_hash`` (protocol 6, SPEC §4.4): its REVEAL's
    (``reveals``: the ones taken at the step, on that state) and its round HAVE's."""
    named: set[bytes] = set()
    have = haves.get(ROUND_SUBJECT, {}).get(voter)
    if have is not None and have.state_hash == state_hash:
        named.update(have.payload[1])
    reveal = reveals.get(voter)
    vector = reveal_vector(reveal) if reveal is not None else None
    if vector is not None:
        named.add(vector)
    return named


def unacknowledged_round(
    vectors: AbstractSet[bytes],
    claims: Mapping[int, AbstractSet[bytes]],
    live: Iterable[int],
    me: int | None,
) -> frozenset[int]:
    """Live seats (not ``me``) that named none of ``vectors`` (the digest of the commitments
    we hold of the round's live seats, or of those and the ones we held of seats dropped at
    the step) in a REVEAL or a round HAVE on our state (protocol 6); ``claims``: seat -> the
    vectors it named (``round_named``).  The session and the plain replay share it."""
    return frozenset(
        voter
        for voter in live
        if voter != me and vectors.isdisjoint(claims.get(voter, frozenset()))
    )


def unacknowledged(
    protocol: int,
    commits: Mapping[int, Signed],
    haves: Mapping[int, Mapping[int, Signed]],
    reveals: Mapping[int, Signed],
    live: Iterable[int],
    me: int | None,
    state_hash: bytes,
) -> frozenset[int]:
    """The acknowledgements a secret round still waits for, by the game's protocol (4 and 5:
    a HAVE per commitment; 6: one REVEAL or round HAVE per seat).  The session and the
    plain replay of a log (lanTag.log.plain_replay) share it."""
    if Features.of(protocol).round_acks:
        vector = round_digest({s: c.digest for s, c in commits.items()})
        voters = list(live)
        claims = {v: round_named(v, haves, reveals, state_hash) for v in voters}
        return unacknowledged_round({vector}, claims, voters, me)
    return unacknowledged_commits(commits, haves, live, me, state_hash)
