"""When to warn of lag and when to vote a waited-for seat silent (SPEC §5.3-5.4): the step
and turn timeouts, and the early vote against a seat whose address fell silent.

Only the timing is local: the vote is the same VOTE, binding us the same way, and a drop
still needs every other live seat to vote exactly those seats.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.referee import NeedKind, Needs
from lanTag.session.steps import HistoryView, StepBox
from lanTag.session.transport import Addr, Transport
from lanTag.session.vote_book import VoteBook

# A seat whose address sent no frame at all (not even a keepalive or an ack: a live
# peer's links speak every second) for this many lag warnings is presumed dead, and
# we vote at once instead of at the turn or step timeout (SPEC §5.3, "early vote").
DEAD_AFTER_LAGS = 2


class SilenceClock:
    """The session's lag warning and vote deadlines at its current step.

    A part the Session owns.  It holds when this session began (``began_at``: started or
    resumed; a seat never heard counts as heard then) and reads the rest: the record's
    timeouts, the step boxes and applied history (``boxes``, ``snapshots``), the seats
    that signed a LEAVE (``left``), our votes' count per step (``vote_book``), the peers'
    addresses and the session's ``transport`` (which a caller may replace: asked each
    time).  ``missing`` gives the seats we wait for at our step, ``needs`` its Needs and
    ``commits_complete`` whether every commitment of a secret round is in."""

    def __init__(
        self,
        *,
        record: LobbyRecord,
        seat: int | None,
        replay: bool,
        began_at: float,
        peers: Mapping[int, Addr],
        left: Mapping[int, int],
        vote_book: VoteBook,
        boxes: dict[int, StepBox],
        history: HistoryView,
        transport: Callable[[], Transport],
        needs: Callable[[], Needs],
        missing: Callable[[], frozenset[int]],
        commits_complete: Callable[[StepBox, Needs], bool],
    ) -> None:
        self.record = record
        self.seat = seat
        self.replay = replay
        self.began_at = began_at
        self.peers = peers
        self._left = left
        self.vote_book = vote_book
        self._boxes = boxes
        self._history = history
        self._transport = transport
        self.needs = needs
        self._missing = missing
        self._commits_complete = commits_complete

    def deadline(self, bound: float | None = None) -> float | None:
        """When to vote: the timeout below, or earlier when what we wait for is dead.

        ``bound``: a caller that only uses ``min(bound, deadline)`` (``Session.next_timer``,
        with the link and lag timers) may pass it; the result is then only exact below
        ``bound``, any value returned at or above it stands for one at or above it, and
        ``min(bound, result)`` is the same float as without ``bound``.  It saves scanning
        every waiting seat's last frame (a 64-seat step: 63 of them) for every datagram.
        """
        normal = self.timeout_deadline()
        if normal is None:
            return None
        early = self.early_deadline(normal if bound is None else min(normal, bound))
        return normal if early is None else min(normal, early)

    def early_deadline(self, stop: float | None = None) -> float | None:
        """When every seat we wait for has sent nothing at all for ``DEAD_AFTER_LAGS`` lag
        warnings (a killed process, not a thinking player), if every one of them has.

        Only the timing is local: the vote is the same VOTE, binding us the same way, and
        a drop still needs every other live seat to vote exactly those seats (SPEC §5.4).
        If we are wrong (only our link to them is cut), they stay live and the others'
        HAVE relays, which our vote asks for, bring us their messages.

        ``stop``: once the time found reaches it, that time is returned without looking
        at the other seats (the true answer, a later time or None, is at or above ``stop``
        too, and ``deadline`` only needs to know that).
        """
        box = self._boxes.get(self._history.step)
        if box is None or box.started_at is None or self.seat is None:
            return None
        waiting = self._missing()
        mine = box.votes.get(self.seat)
        if not waiting or (mine is not None and waiting <= set(mine.payload[0])):
            return None  # already voted them silent: the timeouts resend it
        last_heard = getattr(self._transport(), "last_heard", None)
        if last_heard is None:
            return None  # cannot tell: the timeouts decide
        peers = self.peers
        dead_after = self.dead_after()
        at = box.started_at
        for seat in waiting:
            if seat in self._left:
                continue  # it said it left: no need to wait for its silence
            addr = peers.get(seat)
            if addr is None:
                return None  # cannot tell: the timeouts decide
            # Never heard at all (our NUDGE at the lag warning went to every peer, so a live
            # one has answered by now): as if heard when we began, so a seat silent from the
            # start (a squat) is voted out after the same grace at every peer, not only at
            # the host that heard it in the lobby (issue #38 item 3).
            heard = last_heard(addr)
            if heard is None and not self.hears_everyone():
                return None  # cannot tell: the timeouts decide
            at = max(at, (self.began_at if heard is None else heard) + dead_after)
            if stop is not None and at >= stop:
                return at  # the rest cannot bring it below ``stop``
        return at

    def dead_after(self) -> float:
        return DEAD_AFTER_LAGS * self.record.timeouts.lag_ms / 1000

    def wire_heard(self, seat: int) -> float | None:
        """When anything at all last came from ``seat``'s address, if the transport can say."""
        last_heard = getattr(self._transport(), "last_heard", None)
        addr = self.peers.get(seat)
        return None if last_heard is None or addr is None else last_heard(addr)

    def wire_dead(self, seat: int, now: float) -> bool:
        """Nothing from ``seat``'s address for ``DEAD_AFTER_LAGS`` lag warnings (never heard:
        since we began), or it sent a LEAVE: a vote may name it even if it sent something for
        this step less than a step timeout ago."""
        if seat in self._left:
            return True
        heard = self.wire_heard(seat)
        if heard is None and not (self.peers.get(seat) and self.hears_everyone()):
            return False  # cannot tell
        return (self.began_at if heard is None else heard) + self.dead_after() <= now

    def hears_everyone(self) -> bool:
        """Whether our transport hears every answer to what we send (PeerMachine's links):
        then a seat it never heard is one that said nothing since we began (a plain
        transport knows nothing of silence)."""
        return bool(getattr(self._transport(), "hears_every_answer", False))

    def timeout_deadline(self) -> float | None:
        """When to vote.  Reveals wait a step timeout longer than commits: a seat blocked on a
        missing commitment gets one relay round before anyone calls it silent."""
        box = self._boxes.get(self._history.step)
        if box is None or box.started_at is None or self.replay or not self._missing():
            return None
        if self.seat is None or self.seat not in self._history.live:
            return None  # a spectator (or a dropped seat) never votes
        needs = self.needs()
        turn, step = self.record.timeouts.turn_ms / 1000, self.record.timeouts.step_ms / 1000
        if box.own_move_at is not None:  # only the acks of our own move are missing
            return box.own_move_at + step * (1 + self.vote_book.seq.get(self._history.step, 0))
        if needs.kind is NeedKind.TURN:
            first = turn
        elif needs.kind is NeedKind.SECRET:
            first = turn if not self._commits_complete(box, needs) else turn + step
        else:
            first = step
        return box.started_at + first + step * self.vote_book.seq.get(self._history.step, 0)

    def lag_time(self) -> float | None:
        box = self._boxes.get(self._history.step)
        if box is None or box.started_at is None or box.lag_reported or self.replay:
            return None
        if self.seat is None or self.seat not in self._history.live or not self._missing():
            return None
        # Waiting for acks of our own move: time it from the move, not from when we began to
        # think (else the others look "lagging" whenever we think longer than the warning).
        base = box.own_move_at if box.own_move_at is not None else box.started_at
        return base + self.record.timeouts.lag_ms / 1000
