"""Catching up (protocol/SPEC.md §5.5, §5.6): what we send a restarted seat that asks
(SYNC) and a dropped seat that still talks, each rate limited.  Pure: ``now`` is passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lanTag.session.convictions import Convictions
from lanTag.session.journal import Journal
from lanTag.session.messages import MsgType, Signed
from lanTag.session.steps import HistoryView, StepBox
from lanTag.session.transport import Addr


class CatchUp:
    """seat -> (when, from step) of our last catch-up answer (``sync_answered``), and
    dropped seat -> when we last told it so (``dropped_answered``).  Reads the session's step
    boxes, applied history and proofs; queues its answers in the journal's outbox."""

    def __init__(
        self,
        journal: Journal,
        peers: Mapping[int, Addr],
        lag: float,
        boxes: Mapping[int, StepBox],
        history: HistoryView,
        convictions: Convictions,
    ) -> None:
        """``lag``: the record's ``lag_ms`` in seconds, the rate of answers per seat."""
        self.sync_answered: dict[int, tuple[float, int]] = {}
        self.dropped_answered: dict[int, float] = {}
        self._journal = journal
        self._peers = peers
        self._lag = lag
        self._boxes = boxes
        self._history = history
        self._convictions = convictions

    def answer_sync(
        self, msg: Signed, now: float, congested: Callable[[Addr], bool] | None
    ) -> None:
        """Send a restarted seat every message we hold from the step it asks for on.

        Rate limited per asking seat (SPEC §5.6): within ``lag_ms`` of an answer only
        steps before the ones already sent are answered (``sync-limited`` otherwise),
        and no answer goes out while the link to the seat still holds a backlog
        (``sync-backlog``, what ``congested`` says): an answer still queued there is never
        queued again.
        """
        addr = self._peers.get(msg.seat)
        if addr is None:
            return
        start = int(msg.payload[0])
        last = self.sync_answered.get(msg.seat)
        recent = last is not None and now < last[0] + self._lag
        if last is not None and recent and start >= last[1]:
            self._journal.count("sync-limited")
            return
        if congested is not None and congested(addr):
            self._journal.count("sync-backlog")
            return
        if last is not None and recent:
            held = self.held_from(start, last[1] - 1)  # only what that answer lacked
            self.sync_answered[msg.seat] = (last[0], start)
        else:
            held = self.held_from(start)
            self.sync_answered[msg.seat] = (now, start)
        self._journal.outbox.setdefault(addr, []).extend(held)
        self._journal.count("sync-answered")

    def answer_dropped(self, msg: Signed, now: float, seat: int, live: frozenset[int]) -> None:
        """A seat we dropped still talks: maybe it never learnt its drop (SPEC §5.5); we
        are the peer of live ``seat``, ``live`` the live seats.

        Send it what we hold from its step (if earlier) up to the drop step, the drop
        proof included; once it takes the drop it asks for the rest (SYNC).  At most once
        per ``lag_warning`` per seat: a seat that does not know keeps voting until then.
        """
        dropped = msg.seat
        if dropped == seat or dropped in live or msg.type == MsgType.SYNC:
            return  # a SYNC is answered anyway
        last = self.dropped_answered.get(dropped)
        if last is not None and now < last + self._lag:
            return
        addr = self._peers.get(dropped)
        dropped_at = next(
            (k for k, snap in enumerate(self._history) if dropped not in snap.live), None
        )
        if addr is None or dropped_at is None:
            return
        self.dropped_answered[dropped] = now
        held = self.held_from(min(msg.step, dropped_at), dropped_at)
        held += [a.raw for pair in self._convictions.proofs for a in pair if a.seat == dropped]
        self._journal.outbox.setdefault(addr, []).extend(held)
        self._journal.count("dropped-answered")

    def held_from(self, from_step: int, to_step: int | None = None) -> list[bytes]:
        """Every message we hold for steps ``from_step``..``to_step``, in step order, once."""
        raws: list[bytes] = []
        last = to_step if to_step is not None else max(self._boxes, default=0)
        for step in sorted(k for k in self._boxes if from_step <= k <= last):
            box = self._boxes[step]
            held = [m for by_seat in box.contrib.values() for m in by_seat.values()]
            held = [*box.drop_proof, *held]  # a drop is decided before the step's inputs
            held += [*box.votes.values(), *box.nudges.values(), *box.pending]
            held += [h for by_voter in box.haves.values() for h in by_voter.values()]
            raws += [m.raw for m in held]
        return list(dict.fromkeys(raws))  # ordered, no repeats
