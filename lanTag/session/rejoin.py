"""The hand-back of a dropped seat (protocol 5, SPEC §5.6): our own seat asking back with
a signed REJOIN, the REJOINs of others kept, and which seats a step's contributions admit.

The seat signs a REJOIN; a live seat carries those very bytes in its next MOVE, ENTROPY or
COMMIT (an *admission*).  Every peer holds that contribution before it decides its step
(spectators and a verifier replaying a log too), so every peer finds the same admission
there and makes the seat live from the next step on: no step is decided with the seat by
some and without it by others.  An admission is void (the contribution still counts)
unless its REJOIN is signed by its seat's key, that seat was dropped at or before the
REJOIN's step and is not live, and it was never convicted of cheating up to the
admission's step.  A conviction learnt later for a step at or before an admission rolls
the admission back (Agreement._void_admissions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lanTag.identity import Signer, Verifier
from lanTag.rules.base import State
from lanTag.session.chatter import ChatterCap
from lanTag.session.convictions import Convictions
from lanTag.session.features import Features
from lanTag.session.handback import Handback
from lanTag.session.journal import Journal
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import (
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
    verify_signature,
)
from lanTag.session.referee import NeedKind, Needs
from lanTag.session.steps import HistoryView, StepBox


class Rejoin:
    """Our seat's asking back and the admissions a step's contributions carry.

    A part the Session owns.  The ``handback`` book holds the state (REJOINs kept, our own
    asking back, admissions applied); this part signs and sends our REJOIN through the
    ``journal`` within the ``chatter`` cap, reads the session's applied history
    (``snapshots``), who signed a LEAVE (``left``, seat -> step) and the ``convictions``.
    ``needs`` is the current step's Needs, ``state_hash`` a state's hash (cached) and
    ``admissible`` whether a carrier's contribution at a step admits a REJOIN
    (SessionCore._admissible)."""

    def __init__(
        self,
        *,
        record: LobbyRecord,
        features: Features,
        seat: int | None,
        signer: Signer | None,
        replay: bool,
        handback: Handback,
        chatter: ChatterCap,
        convictions: Convictions,
        journal: Journal,
        left: Mapping[int, int],
        human_keys: tuple[bytes | None, ...],
        verifier: Verifier,
        history: HistoryView,
        needs: Callable[[], Needs],
        state_hash: Callable[[State], bytes],
        admissible: Callable[[Signed, int, int], bool],
    ) -> None:
        self.record = record
        self.features = features
        self.seat = seat
        self._signer = signer
        self.replay = replay
        self.handback = handback
        self.chatter = chatter
        self.convictions = convictions
        self._journal = journal
        self._left = left
        self._human_keys = human_keys
        self._verifier = verifier
        self._history = history
        self.needs = needs
        self._state_hash = state_hash
        self._admissible = admissible

    def handbacks_left(self, seat: int) -> int | None:
        """How many more times ``seat`` may be given back this game (None: no limit, a game
        older than protocol 6)."""
        return self.handback.left(seat)

    def ask_back(self, now: float, *, once: bool = False) -> None:
        """Our seat wants to play again: while the others hold it dropped we send a signed
        REJOIN, again every step timeout, until a live seat admits us.

        A resumed peer asks whenever its seat is dropped (``once`` False).  A person whose
        seat a bot took while they were away (the console's one key) asks this time only
        (``once``): until the seat is let in, also again if a rollback undoes the admission,
        but once in and dropped again for idleness it stays out until they ask again, so a
        player who walked off does not come back by itself to make the table wait out the
        turn limit each time."""
        if self.replay or self._signer is None or not self.features.handback:
            return
        self.handback.ask(once=once)
        self.send(now)

    @property
    def wants_back(self) -> bool:
        """Our seat asks to be given back whenever it is dropped (a resumed peer)."""
        return self.handback.want_back

    @property
    def asking_back(self) -> bool:
        """Our seat is dropped and asks to be given back (it may still be refused)."""
        seat = self.seat
        return self.handback.want_back and seat is not None and seat not in self._history.live

    def refusal(self) -> str | None:
        """Why our dropped seat cannot be given back, as a fact code, or None (it may be):
        ``protocol`` (a game older than protocol 5), ``convicted`` (we hold a proof that it
        cheated), ``limit`` (protocol 6: it was given back HANDBACK_LIMIT times already),
        ``nobody`` (every other live person has left: nobody will admit it), ``over``."""
        if self.seat is None or self.seat in self._history.live:
            return None
        if not self.features.handback:
            return "protocol"
        if self._history.state.is_over:
            return "over"
        if self.convictions.since(self.seat, self._history.step):
            return "convicted"
        if self.handback.left(self.seat) == 0:
            return "limit"
        if all(s in self._left for s in self._history.live - {self.seat}):
            return "nobody"  # every live person said it leaves: nobody will carry a REJOIN
        return None

    def send(self, now: float) -> None:
        """Sign and send our REJOIN (the last one signed at this step once the cap is full)."""
        if not self.asking_back or self._history.state.is_over or self._signer is None:
            return
        assert self.seat is not None
        msg = sign_message(
            self._signer,
            MsgType.REJOIN,
            self.record.game_id,
            self._history.step,
            self.seat,
            self._state_hash(self._history.state),
            (),
            version=self.record.protocol,
        )
        last = self.chatter.last_own(self.seat, self._history.step, MsgType.REJOIN)
        raw = msg.raw if self.chatter.room(msg) else last
        self.handback.sent_at = now
        if raw is not None:
            self._journal.broadcast([raw])

    def next_time(self) -> float | None:
        """When our dropped seat asks back again (every step timeout: a peer that lost the
        REJOIN, or was not live then, hears it again)."""
        sent_at = self.handback.sent_at
        if sent_at is None or not self.asking_back or self._history.state.is_over:
            return None
        return sent_at + self.record.timeouts.step_ms / 1000

    def take(self, msg: Signed) -> None:
        """A seat asks back (signature checked on receipt): keep its latest request; our next
        contribution may carry it.  Not logged: only a carried REJOIN counts, and it is in
        the contribution's bytes."""
        if not self.features.handback:
            self._journal.reject(
                "unknown-type", f"a REJOIN in a protocol-{self.record.protocol} game"
            )
            return
        self.handback.keep(msg)

    def admissions(self, box: StepBox) -> frozenset[int]:
        """Seats the current step's decisive contributions admit (protocol 5): the mover's
        MOVE, every live seat's ENTROPY, or the round's COMMITs, as every peer holds them."""
        needs = self.needs()
        if needs.kind is NeedKind.TURN:
            carriers = [box.of(MsgType.MOVE)[needs.humans[0]]]
        elif needs.kind is NeedKind.ENTROPY:
            got = box.of(MsgType.ENTROPY)
            carriers = [got[s] for s in needs.humans]
        elif needs.kind is NeedKind.SECRET:
            got = box.of(MsgType.COMMIT)
            carriers = [got[s] for s in needs.humans if s in got]
        else:
            return frozenset()
        admitted: set[int] = set()
        for carrier in carriers:
            blob = carrier.admission
            if blob is None:
                continue
            request = parse_unverified(blob)  # its shape was checked with the carrier's
            key = self._human_keys[request.seat] if request.seat < len(self._human_keys) else None
            if key is None or not verify_signature(request, key, self._verifier):
                self._journal.count("bad-admission")  # void: nobody may pose as the seat
                continue
            if self._admissible(request, self._history.step, carrier.seat):
                admitted.add(request.seat)
        return frozenset(admitted)
