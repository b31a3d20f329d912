"""Absence never pays (protocol 6, protocol/SPEC.md §5.5 and §5.6).

A seat that is dropped where it owed a contribution the others had already sent could see
theirs first and decline to send its own: the step then comes out without it.  That option
cannot be taken away (a seat can always stop talking), so it is named and priced:

- **withheld** (a blame): the seat was dropped at a roll (every live seat's link was owed at
  once, and the voters had sent theirs), or at a secret round after some live seat revealed
  (a REVEAL the round uses names a vector of commitments that holds the dropped seat's
  COMMIT: it was signed while the seat was in the round with every commitment in).  Both
  are facts of the agreed messages: the step's decision, and the REVEALs and commitments
  the round is decided with, so every peer and every verifier finds the same.
- a withheld REVEAL is the seat's **forfeit** (an outcome no better than any honest choice),
  not its default: nothing to gain there; likewise a roll whose own seat
  (``State.roll_owners``) is dropped at it is that seat's **withheld roll**
  (``State.withheld_roll``), not a draw: a function of the agreed state and drops alone;
- a dropped seat (whatever the reason) is given back only once the turn it was dropped in
  has ended, and at most ``HANDBACK_LIMIT`` times a game (lanTag.session.handback): a
  withheld roll costs the seat the rest of its turn, and a seat can withhold (and hold the
  table for a vote deadline) at most ``HANDBACK_LIMIT + 1`` times a game.

Pure like the rest of the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations, product

from lanTag.rules.base import State
from lanTag.session.convictions import Convictions
from lanTag.session.features import Features
from lanTag.session.journal import Journal
from lanTag.session.messages import MsgType, Signed, reveal_vector
from lanTag.session.referee import NeedKind, Needs
from lanTag.session.steps import StepBox, round_digest

# Vectors of commitments tried when reading the REVEALs of a secret step with drops (one per
# set of the seats dropped there, and per version for a seat that signed two COMMITs): every
# set of up to 8 dropped seats, a bound on the work a cheat can cause.
MAX_EXPLANATIONS = 256


class Absence:
    """Which dropped seats withheld (a judge, with no state of its own: it reads the
    convictions, the seats' LEAVEs and the late proofs of two COMMITs it is given, and
    blames through the journal)."""

    def __init__(
        self,
        features: Features,
        journal: Journal,
        convictions: Convictions,
        left: Mapping[int, int],
        late_commits: Mapping[tuple[int, int], tuple[bytes, bytes, bytes]],
    ) -> None:
        """``left``: seat -> the step of its LEAVE; ``late_commits``: the late proofs held
        (lanTag.session.late_proof), both the session's own maps."""
        self._on = features.withheld
        self._journal = journal
        self._convictions = convictions
        self._left = left
        self._late_commits = late_commits

    # -- withheld: named at the drop (a roll) or with the round (a secret round) -----------

    def blame_absence(
        self, seat: int, needs: Needs, step: int, state: State, at: int | None = None
    ) -> None:
        """The blame of ``seat``, dropped for silence (or after a LEAVE) by a drop agreed at a
        step that asked ``needs`` of the seats (before the drop), we being at ``step`` in
        ``state``; ``at``: that step (the blame's, SPEC §7), ours by default.  A seat we hold
        a proof against (a liar voted out at once, SPEC §5.2) was dropped for that proof,
        blamed already: the drop itself is a ``timeout``, as in protocol 5."""
        blame = self._journal.blame
        if self._on and seat in needs.humans:
            if needs.kind is NeedKind.SECRET:
                return  # named when the round is decided: it depends on the REVEALs it uses
            if needs.kind is NeedKind.ENTROPY and not self._convictions.since(seat, step):
                if self._left.get(seat, step) >= step:  # not a LEAVE from before
                    why = f"withheld its link of the roll at step {step}"
                    if seat in state.roll_owners():
                        why = f"withheld its own roll at step {step}: its withheld roll"
                    blame(seat, "withheld", why, at)
                return
        if seat not in self._left:  # leaving is no fault: no blame
            blame(seat, "timeout", f"silent at step {step}; a bot takes the seat", at)

    def roll_forfeits(self, box: StepBox, state: State) -> tuple[int, ...]:
        """Protocol 6: the seats whose own roll this step is (``state.roll_owners()``) and
        that were dropped at it, ascending: the roll is their withheld roll, not a draw
        (SPEC §5.5).  Whatever the drop's cause: whether a peer holds a LEAVE from before
        or a proof against the seat is no agreed fact, the drop at the roll is."""
        if not self._on or not box.dropped_now:
            return ()
        owners = state.roll_owners()
        return tuple(s for s in sorted(box.dropped_now) if s in owners)

    def blame_round_absence(
        self, box: StepBox, needs: Needs, dropped: set[int], step: int
    ) -> frozenset[int]:
        """The round at ``step`` is decided: name the dropped seats of the round, withheld
        (their choice was their forfeit: returned) or silent (their default)."""
        if not self._on:
            return frozenset()
        withheld = self.withheld_reveals(box, needs, dropped, step)[0]
        for seat in sorted(dropped):
            if self._convictions.at(seat, step):
                continue  # blamed for the proof already
            if seat in withheld and not self._convictions.since(seat, step):
                why = f"withheld its reveal at step {step}: its choice is its forfeit"
                self._journal.blame(seat, "withheld", why)
            elif seat not in self._left:
                why = f"silent at step {step}; a bot takes the seat"
                self._journal.blame(seat, "timeout", why)
        return withheld

    def withheld_reveals(
        self, box: StepBox, needs: Needs, dropped: set[int], step: int
    ) -> tuple[frozenset[int], frozenset[int]]:
        """(seats of ``dropped``, this secret step's dropped seats, that withheld their
        REVEAL; the live seats whose REVEAL names a vector we cannot explain yet).

        A REVEAL names the vector of the commitments its signer held of the seats then in
        the round (protocol 6, SPEC §4.4).  One naming the vector of the live seats' COMMITs
        we hold was signed after the drops; one naming that vector together with some dropped
        seats' COMMITs was signed while those seats were still in the round, every
        commitment in: they withheld.  A vector we cannot rebuild (we lack a dropped seat's
        COMMIT, or one of its versions) may hold an absent seat: the round waits, and the
        seat that named it is asked (a relay brings the dropped COMMITs, §5.5) like any seat
        whose acknowledgement we lack.  Only the REVEALs the round uses and COMMITs signed by
        the dropped seats count, so a claim alone blames nobody."""
        nothing: frozenset[int] = frozenset()
        absent = {s for s in dropped if not self._convictions.at(s, step)}
        if not self._on or not absent:
            return nothing, nothing
        held = box.of(MsgType.COMMIT)
        live = {s: held[s].digest for s in needs.humans if s in held}
        ours = round_digest(live)
        known = self.explained(box, live, step)
        withheld: set[int] = set()
        unexplained: set[int] = set()
        reveals = box.of(MsgType.REVEAL)
        for seat in needs.humans:
            reveal = reveals.get(seat)
            vector = None if reveal is None else reveal_vector(reveal)
            if vector is None or vector == ours:
                continue
            seats = known.get(vector)
            if seats is None:
                unexplained.add(seat)
            else:
                withheld |= seats & absent
        return frozenset(withheld), frozenset(unexplained)

    def explained(
        self, box: StepBox, live: dict[int, bytes], step: int
    ) -> dict[bytes, frozenset[int]]:
        """Vector -> the dropped seats it holds, for every vector a seat may have named
        before a drop at this step: the live seats' COMMITs with those of some of the seats
        dropped here, each in every version we hold of its COMMIT.  The sets of the last
        drops (the honest cases) first, then the others, at most MAX_EXPLANATIONS vectors;
        computed once per set of COMMITs held."""
        versions: dict[int, list[bytes]] = {}
        for seat, commit in box.dropped_commits.items():
            versions[seat] = [commit.digest]
            late = self._late_commits.get((seat, step))
            if late is not None and late[2] != commit.digest:
                versions[seat].append(late[2])
        held = tuple(sorted((s, tuple(v)) for s, v in versions.items()))
        key = (round_digest(live), held, len(box.drop_batches))
        if box.explained is not None and box.explained[0] == key:
            return box.explained[1]
        batches = box.drop_batches
        dropped = sorted(frozenset().union(*batches) & frozenset(versions))
        sets = [frozenset().union(*batches[i:]) & frozenset(versions) for i in range(len(batches))]
        for size in range(1, len(dropped) + 1):
            sets += [frozenset(c) for c in combinations(dropped, size)]
        out: dict[bytes, frozenset[int]] = {}
        for seats in dict.fromkeys(s for s in sets if s):  # in order, once each
            order = sorted(seats)
            for combo in product(*(versions[s] for s in order)):
                if len(out) >= MAX_EXPLANATIONS:
                    break
                with_them = {**live, **dict(zip(order, combo, strict=True))}
                out.setdefault(round_digest(with_them), seats)
        box.explained = (key, out)
        return out

    @staticmethod
    def take_dropped_commit(msg: Signed, box: StepBox, ours: bytes) -> bool:
        """A COMMIT on our state (of hash ``ours``) of a seat no longer live at this step (one
        dropped here, relayed to us only after its drop): kept with the dropped seats'
        COMMITs, which explain the REVEALs signed before the drop.  The first one counts (a
        second of that slot is an equivocation, found before this).  True when kept."""
        if msg.type is not MsgType.COMMIT or msg.state_hash != ours:
            return False
        box.dropped_commits.setdefault(msg.seat, msg)
        return True
