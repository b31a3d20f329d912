"""The lockstep session: a sans-IO state machine (aioquic style).

Inputs: ``receive_datagram(data, addr, now)``, ``handle_timer(now)`` and the
local commands ``submit`` and ``commit``.  Outputs, pulled:
``datagrams_to_send(now)``, ``next_timer()``, ``next_event()`` and
``take_log()`` (bytes for the log file).  No sockets, no clock, no randomness:
nonces and the chain secret are passed in.

Every peer derives the same input for every step from the same accepted
signed messages (lanTag.session.referee); protocol/SPEC.md §5 describes the
step phases, the binding timeout votes and the HAVE acknowledgements that
make a drop an agreement rather than a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from operator import attrgetter

from lanTag.errors import LocalProtocolError, RemoteProtocolError
from lanTag.fair.commit import NONCE_SIZE, commitment
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.identity import Identity
from lanTag.log.entries import EntryKind
from lanTag.rules.base import (
    Action,
    Chance,
    Input,
    Joint,
    Move,
    Over,
    Roll,
    State,
    encode_input,
)
from lanTag.session import events as ev
from lanTag.session import referee
from lanTag.session.agreement import Agreement
from lanTag.session.chatter import TOO_CHATTY, Gate
from lanTag.session.core import (
    MAX_LINK_PAYLOAD,
    STEP_WINDOW,
    TAKEOVER_BOT,
    SessionCore,
    bundles,
    stale_have,
    supersedes,
)
from lanTag.session.intake import Intake
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import (
    SPECS,
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
    unpack_bundle,
    verify_signature,
)
from lanTag.session.recovery import Recovery
from lanTag.session.referee import NeedKind, step_facts
from lanTag.session.silence import SilenceClock
from lanTag.session.steps import (
    REQUEST_AHEAD,
    REQUEST_LIMITS,
    Snapshot,
    StepBox,
    may_be_decided,
)
from lanTag.session.transport import Addr, Transport

# the message table's handler column: a method of the Session or of one of its parts
_HANDLERS = {t: attrgetter(s.handler) for t, s in SPECS.items() if s.handler is not None}
_LATE_TYPES = tuple(t for t, s in SPECS.items() if s.late)
_ACKED = tuple(t for t, s in SPECS.items() if s.acknowledged)  # every other live peer HAVEs
_NO_SEATS: frozenset[int] = frozenset()


class Session(SessionCore):
    """One peer's view of one game.  ``seat=None`` with ``replay=True`` is a spectator/verifier."""

    def __init__(
        self,
        record: LobbyRecord,
        *,
        seat: int | None,
        identity: Identity | None = None,
        chain_secret: bytes | None = None,
        peers: Mapping[int, Addr] | None = None,
        watchers: tuple[Addr, ...] = (),
        transport: Transport | None = None,
        now: float = 0.0,
        replay: bool = False,
        start: State | None = None,
    ) -> None:
        """The session of ``record`` for ``seat`` (lanTag.session.core.SessionCore), its
        step 0 started at ``now``."""
        super().__init__(
            record,
            seat=seat,
            identity=identity,
            chain_secret=chain_secret,
            peers=peers,
            watchers=watchers,
            transport=transport,
            replay=replay,
            start=start,
        )
        self.agreement = Agreement(self)
        self.recovery = Recovery(self)
        self.intake = Intake(self, self.agreement)
        self.silence = SilenceClock(
            record=record,
            seat=seat,
            replay=replay,
            began_at=now,
            peers=self.peers,
            left=self.handback.leaves,
            vote_book=self.vote_book,
            boxes=self.inbox.boxes,
            history=self.history,
            transport=lambda: self.transport,  # (a caller may wrap it after we begin)
            needs=self.needs,
            missing=lambda: self.agreement.missing(),
            commits_complete=self._commits_complete,
        )
        self._pump(now)

    def my_turn(self) -> str | None:
        """ "turn" or "secret" when the local seat must act now, else None."""
        if self.seat is None or self.replay or self.seat not in self.live:
            return None
        needs = self.needs()
        if self.seat not in needs.humans:
            return None
        box = self._box(self.step)
        if needs.kind is NeedKind.TURN and self.seat not in box.of(MsgType.MOVE):
            return "turn"
        if needs.kind is NeedKind.SECRET and not self.sealed.holds(self.step):
            return "secret"
        return None

    def submit(self, action: Action, now: float) -> None:
        """Play ``action`` on the local seat's turn.  IllegalAction / LocalProtocolError."""
        if self.my_turn() != "turn":
            raise LocalProtocolError("it is not this seat's turn")
        assert self.seat is not None
        self.state.check_action(self.seat, action)
        self._emit(MsgType.MOVE, (action.to_msgpack(),), now)
        self._pump(now)

    def commit(self, action: Action, nonce: bytes | None, now: float) -> None:
        """Seal the local seat's secret choice; it is revealed once every commitment is in.

        ``nonce=None`` (what the UI and bots use) derives it from the seat's private chain
        secret, so a peer restarted from its log can recover a choice it sealed before the
        crash (see ``recover_sealed_choice``).
        """
        if self.my_turn() != "secret":
            raise LocalProtocolError("no secret choice is asked of this seat now")
        assert self.seat is not None
        if nonce is None:
            nonce = self.recovery.derived_nonce(self.step)
        if len(nonce) != NONCE_SIZE:
            raise LocalProtocolError("the nonce must be 32 random bytes")
        self.state.check_action(self.seat, action)
        self.sealed.seal(self.step, action, nonce)
        value = self._action_bytes(action)
        c = commitment(self.game_id, self.step, self.seat, self.needs().secret_kind, nonce, value)
        self._emit(MsgType.COMMIT, (c,), now)
        self._pump(now)

    def say(self, text: str, now: float, *, keep_in_log: bool = False) -> None:
        """Public chat: signed and sent to everyone; in our log only if we ask (``/say!``)."""
        if self._signer is None or self.seat is None:
            raise LocalProtocolError("spectators cannot chat")
        msg = sign_message(
            self._signer,
            MsgType.CHAT,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            (text[:500],),
            version=self.record.protocol,
        )
        if not self.chatter.room(msg):
            raise LocalProtocolError(TOO_CHATTY)
        if keep_in_log:
            self.note("chat", text[:500])
        self._broadcast([msg.raw])

    def leave(self, now: float) -> None:
        """Say we leave (a signed LEAVE, SPEC §3): the others vote our seat silent at once
        and a bot plays it; they read it as leaving, not as a timeout."""
        if self._signer is None or self.seat is None or self.seat not in self.live:
            return
        msg = sign_message(
            self._signer,
            MsgType.LEAVE,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            (),
        )
        self.chatter.room(msg)  # counted as the others count it (a LEAVE again is a copy)
        self.handback.say_leave(self.seat, self.step)
        self.log.append(msg.step, EntryKind.MSG, msg.raw)
        self._broadcast([msg.raw])

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        for payload in self.transport.receive_datagram(data, addr, now):
            self.receive_payload(payload, now)

    def receive_payload(self, payload: bytes, now: float) -> None:
        """One link payload: a bundle of signed messages."""
        try:
            raws = unpack_bundle(payload, MAX_LINK_PAYLOAD)
        except RemoteProtocolError as exc:
            self._reject(exc.code, exc.message)
            return
        for raw in raws:
            self.receive_message(raw, now)

    def receive_message(self, raw: bytes, now: float) -> None:
        """One signed message (from a bundle, a relay, or a log being replayed)."""
        try:
            msg = parse_unverified(raw)
        except RemoteProtocolError as exc:
            self._reject(exc.code, exc.message)
            return
        self.receive_parsed(msg, now)

    def receive_parsed(self, msg: Signed, now: float, signature_ok: bool | None = None) -> None:
        """``receive_message`` after the parse.  ``signature_ok``: what ``signed_by_seat``
        (lanTag.session.messages) said of ``msg``, when the caller already asked (verify_log
        checks a whole log's signatures in one loop first, where Ed25519 runs with its
        tables hot in the cache)."""
        if msg.game_id != self.game_id:
            self._reject("wrong-game", f"message for another game (step {msg.step})")
            return
        if msg.version != self.record.protocol:  # the game id fixes the protocol too
            game = self.record.protocol
            self._reject("version", f"protocol {msg.version} message in a protocol {game} game")
            return
        keys = self._human_keys
        key = keys[msg.seat] if msg.seat < len(keys) else None
        if key is None:
            self._reject("not-in-roster", f"seat {msg.seat} is not a human seat of this game")
            return
        # protocol 6: chatter capped per seat and step (SPEC §5.3)
        gate = self.chatter.gate(msg, self.step, self.seat, self.convictions.flooders)
        if gate is Gate.DROP:
            return
        if gate is not Gate.COPY and not (
            verify_signature(msg, key, self._verifier) if signature_ok is None else signature_ok
        ):
            self._reject("bad-signature", f"signature of seat {msg.seat} does not verify")
            return
        if gate is Gate.OVER:
            self._convict_chatter(msg, now)
            return
        if not self.chatter.take(msg, gate, self.step):
            return
        ours = self.seat
        if msg.seat not in self.live and not self.replay and ours is not None and ours in self.live:
            self.catch_up.answer_dropped(msg, now, ours, self.live)  # it may not know (§5.5)
        handler = _HANDLERS.get(msg.type)
        if handler is not None:
            handler(self)(msg, now)
            return
        slot = (msg.seat, msg.slot)
        first = self.inbox.slots.get(slot)
        if first is not None and not supersedes(first, msg):
            if first.raw != msg.raw and self.late_judge.late_reveal(msg):
                # The REVEAL that opens the COMMIT we took of a seat whose round waits on a
                # late proof (protocol 5, SPEC §5.7): taken, the other one was no choice.
                self.log.append(msg.step, EntryKind.MSG, msg.raw)
                self._box(msg.step).pending.append(msg)
                self._pump(now)
                return
            if first.raw != msg.raw and not stale_have(first, msg) and self.inbox.first_proof(slot):
                self.agreement.equivocation(first, msg)
                self._pump(now)  # a ban (and maybe a rollback) to apply now
            else:
                self._count("duplicate")
            return
        step = self.step
        if msg.step > step + STEP_WINDOW:
            self._reject("too-far", f"seat {msg.seat} sent step {msg.step} at our {step}")
            return
        limit = REQUEST_LIMITS.get(msg.type)
        over = None if limit is None or msg.seat == self.seat else self._over_request_bound(msg)
        if over is not None:
            self._count("flood")  # dropped unlogged: a log grows by a bounded factor (§5.3)
            if over == "cap" and msg.seat not in self.convictions.flooders:
                # The first one over the cap is the proof (no honest peer sends it): kept,
                # logged, and the seat convicted (`flood`) and voted out like a liar.
                self.log.append(msg.step, EntryKind.MSG, msg.raw)
                self.agreement.convict_flood(msg)
                self._pump(now)
            return
        self.inbox.slots[slot] = msg  # every logged message: a rollback looks at them again
        self.log.append(msg.step, EntryKind.MSG, msg.raw)
        if msg.seat != self.seat:
            self.agreement.weigh_state_hash(msg, step)
        judge = self.late_judge.note_ack(msg)  # protocol 6: a late proof's round may be split by it
        if msg.step < step and msg.type in _LATE_TYPES:
            if self.replay and msg.type is MsgType.HAVE:
                # An old box's haves are read only to relay (never in a replay), and a
                # rollback refiles the boxes it reopens from the inbox: nothing to keep here.
                if self.handback.admitted or judge:
                    self._pump(now)  # its claim may void an admission (§5.6), as live
                return
            box = self._box(msg.step)
            box.heard[msg.seat] = now
            self.agreement.register_late(msg, box)
        else:
            box = self._box(msg.step)
            box.heard[msg.seat] = now
            box.pending.append(msg)
        self._pump(now)

    def _take_leave(self, msg: Signed, now: float) -> None:
        """A seat leaves (SPEC §5.4): voted silent at once.  The first LEAVE counts; copies
        change nothing, and neither does one from before the seat was given back (SPEC
        §5.6: it plays its seat again)."""
        if self.handback.take_leave(msg.seat, msg.step):
            self.log.append(msg.step, EntryKind.MSG, msg.raw)
            self._pump(now)

    def _over_request_bound(self, msg: Signed) -> str | None:
        """Whether ``msg`` (a VOTE or NUDGE) is over the flood bound (SPEC §5.3): "ahead"
        (more than REQUEST_AHEAD steps ahead of us: an honest peer may be there, so it
        proves nothing), "cap" (past REQUEST_LIMITS of its kind from its seat for its step,
        which no honest peer sends), or None (kept, and counted)."""
        if msg.step > self.step + REQUEST_AHEAD:
            return "ahead"
        return None if self.vote_book.count(msg.seat, msg.step, msg.type) else "cap"

    def next_timer(self) -> float | None:
        link, lag = self.transport.next_timer(), self.silence.lag_time()
        others = [t for t in (link, lag) if t is not None]
        # Only min(deadline, the others) counts: deadline may stop looking above them.
        times = [
            link,
            self.silence.deadline(min(others) if others else None),
            lag,
            self.recovery.follow_time(),
            self.rejoin.next_time(),
        ]
        real = [t for t in times if t is not None]
        return min(real) if real else None

    def handle_timer(self, now: float) -> None:
        self.transport.handle_timer(now)
        if self.replay or self.seat is None or self.seat not in self.live:
            self.recovery.follow(now)  # a dropped seat stuck at a step asks to catch up (§5.5)
            rejoin = self.rejoin.next_time()
            if rejoin is not None and now >= rejoin:
                self.rejoin.send(now)  # ...and, resumed, asks for its seat back (§5.6)
            return
        box = self._box(self.step)
        waiting = self.agreement.missing()
        if box.started_at is None or not waiting:
            return
        waited = now - (box.own_move_at if box.own_move_at is not None else box.started_at)
        lag_time = self.silence.lag_time()
        if lag_time is not None and now >= lag_time:  # the same float as next_timer's
            box.lag_reported = True
            for seat in sorted(waiting):
                # "Lagging" only when its address said nothing for a lag warning: a peer
                # whose player thinks still sends keepalives (the screen shows it thinking).
                heard = self.silence.wire_heard(seat)
                if heard is None or heard + self.record.timeouts.lag_ms / 1000 <= now:
                    self.journal.events.append(ev.Lagging(seat, self.step, waited))
            # Non-binding: whoever holds what we lack relays it long before anyone votes.
            if self._request_room(MsgType.NUDGE):
                self._emit(MsgType.NUDGE, (sorted(waiting), 1), now)
        deadline = self.silence.deadline()
        if deadline is not None and now >= deadline:
            recent = now - self.record.timeouts.step_ms / 1000
            # Protocol 6 (SPEC §5.5): a seat heard at this step is spared the first deadline
            # only; from the next one on, every seat still waited for is voted, whatever else
            # it says here (a seat that talks without contributing holds the table one step
            # timeout more, not without end).
            spare = self.vote_book.seq.get(self.step, 0) == 0 or not self.features.withheld
            silent = frozenset(
                s
                for s in waiting
                if not spare or box.heard.get(s, -1.0) < recent or self.silence.wire_dead(s, now)
            )
            if silent:
                self.agreement.vote(silent, now)
                self._tell_if_stuck(box, silent)
                self._tell_if_bound_to_the_silent(box, silent, now)
            else:
                self.vote_book.seq[self.step] = self.vote_book.seq.get(self.step, 0) + 1
        self._pump(now)

    def _convict_chatter(self, msg: Signed, now: float) -> None:
        """``msg`` is one distinct message more than the cap of its seat, step and type: with
        the ones taken it proves a flood (SPEC §5.3).  Logged, sent to every peer (each
        counts it against the same cap), the seat blamed and voted out at the first step
        that waits for it, as a liar (§5.2)."""
        proof = self.chatter.proof(msg)
        self.convictions.flooded(msg.seat, msg.step, self.live)
        for raw in proof:
            self.log.append(msg.step, EntryKind.MSG, raw)
        self._blame(
            msg.seat, "flood", f"over {len(proof) - 1} {msg.type.name}s for step {msg.step}"
        )
        if not self.replay:
            self._broadcast(proof)
        self._pump(now)

    def _tell_if_stuck(self, box: StepBox, silent: frozenset[int]) -> None:
        """Say once a step when what we wait for can never be dropped: the table cannot go
        on without those seats, whatever anyone votes (§5.8's bound); it waits for them."""
        if box.stuck_reported or may_be_decided(
            silent, self.live, *self.agreement.unplayed_at(self.step)
        ):
            return
        box.stuck_reported = True
        self.journal.events.append(ev.CannotGoOn(self.step, tuple(sorted(silent))))

    def _tell_if_bound_to_the_silent(self, box: StepBox, voted: frozenset[int], now: float) -> None:
        """Say once a step when our vote binds us and only seats whose addresses fell silent
        can settle it: the drop needs their votes, our taking the input their HAVEs (the
        stall of §5.8: a third seat dies while two others cannot hear each other).  After
        ``_tell_if_stuck``, which tells (once a step) of a vote that binds nobody."""
        if box.stuck_reported:
            return
        agree = {s for s, v in box.votes.items() if frozenset(v.payload[0]) == voted}
        waited = self.live - voted - agree - {self.seat}
        if waited and all(self.silence.wire_dead(s, now) for s in waited):
            box.stuck_reported = True
            stuck = ev.CannotGoOn(self.step, tuple(sorted(waited)), tuple(sorted(voted)))
            self.journal.events.append(stuck)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        for addr, raws in self.journal.outbox.items():
            for bundle in bundles(raws):
                self.transport.send(addr, bundle, now)
        self.journal.outbox.clear()
        return self.transport.datagrams_to_send(now)

    def _pump(self, now: float) -> None:
        """Accept what can be accepted, then decide steps until one needs more input."""
        while True:
            step = self.step
            box = self._box(step)
            if box.started_at is None:
                box.started_at = now
                self._on_step_start(now)
            progressed = self.intake.accept_pending(box, now)
            self.agreement.answer_votes(now)
            self.agreement.vote_contradicted(now)
            if self.agreement.apply_drops(now):
                if self.rejoin.asking_back and self.handback.sent_at is None:
                    self.rejoin.send(now)  # we learnt our drop after asking back (§5.6)
                continue
            needs = self.needs()
            if needs.kind is NeedKind.SECRET and self._commits_complete(box, needs):
                self.intake.commits_in(box, needs, now)  # also when a drop, not a COMMIT, did
            inp = self._decided_input(box)
            if inp is None:
                # Another pass only helps a message still pending: with none left it would
                # redo the same checks on the same state (nothing above changed it).
                if not progressed or not box.pending:
                    return
                continue
            self._apply(inp, now)

    def _on_step_start(self, now: float) -> None:
        needs = self.needs()
        if needs.kind is NeedKind.OVER or self.replay or self.seat not in needs.humans:
            return
        if needs.kind is NeedKind.ENTROPY:
            self._emit(MsgType.ENTROPY, (self._next_reveal(),), now)

    def _decided_input(self, box: StepBox) -> Input | None:
        snap = self.history.current
        needs = self.needs()  # the same needs_for(...), cached per snapshot
        state = snap.state
        if needs.kind is NeedKind.OVER:
            return None
        if needs.kind is NeedKind.TURN:
            move = box.of(MsgType.MOVE).get(needs.humans[0])
            if move is None or not self._own_final(move, box):
                return None
            return Move(move.seat, move.action)
        if needs.kind is NeedKind.BOT_TURN:
            seat = needs.bots[0]
            bot = self.record.seats[seat].bot or TAKEOVER_BOT
            return Move(seat, referee.bot_turn_action(state, self.game_id, self.step, seat, bot))
        if needs.kind is NeedKind.ENTROPY:
            got = box.of(MsgType.ENTROPY)
            if len(got) < len(needs.humans) or not all(s in got for s in needs.humans):
                return None
            owners = self.absence.roll_forfeits(box, state)
            if owners:  # dropped at its own roll: its withheld roll (protocol 6, §5.5)
                return state.withheld_roll(owners)
            links = {s: got[s].payload[0] for s in needs.humans}
            decision = state.decision()
            assert isinstance(decision, Chance)
            roll, _seed = referee.chance_roll(decision, self.game_id, self.step, links)
            return roll
        reveals_in = box.of(MsgType.REVEAL)
        if len(reveals_in) < len(needs.humans) or not all(s in reveals_in for s in needs.humans):
            return None
        if self.round_acks.lacking(box, needs, snap, self.step, self.seat):
            return None  # not before the whole table is known to hold our commitments (§4.4)
        actions: dict[int, Action] = {s: reveals_in[s].action for s in needs.humans}
        reveals: dict[int, bytes] = {s: reveals_in[s].payload[2] for s in needs.humans}
        for s in box.bad_reveals.intersection(needs.humans):  # protocol 1 (SPEC §4.4)
            actions[s] = state.default_action(s)
            del reveals[s]
        dropped_now = self.agreement.dropped_at_this_step(needs)
        withheld, unexplained = self.absence.withheld_reveals(box, needs, dropped_now, self.step)
        if unexplained:
            return None  # a REVEAL from before a drop we cannot read yet (protocol 6, §5.5)
        forfeits = self.features.forfeit
        for s in dropped_now:
            # Silent: the default (a time-out).  Convicted here, or (protocol 6) withheld after
            # another seat revealed: the forfeit (SPEC §4.4, §5.5).
            forfeit = (forfeits and self.convictions.at(s, self.step)) or s in withheld
            actions[s] = state.forfeit_action(s) if forfeit else state.default_action(s)
        bots = {
            s: self.record.seats[s].bot or TAKEOVER_BOT for s in needs.bots if s not in dropped_now
        }
        return referee.joint_choice(state, self.game_id, self.step, actions, reveals, bots)

    def _apply(self, inp: Input, now: float) -> None:
        snap = self.history.current
        box = self._box(self.step)
        # (before apply: the recorded rules of §9.2 answer for the decision being made)
        forfeits = self.absence.roll_forfeits(box, snap.state) if type(inp) is Roll else ()
        new_state = snap.state.apply(inp, actions_checked=self.checked.cover(snap.state, inp))
        chain_last = list(snap.chain_last)
        chain_used = list(snap.chain_used)
        for kind, index in ((MsgType.ENTROPY, 0), (MsgType.REVEAL, 2)):
            for seat, msg in box.of(kind).items():
                if chain_step_ok(chain_last[seat], msg.payload[index]):
                    chain_last[seat] = msg.payload[index]
                    chain_used[seat] += 1
        decided = self.step
        withheld: frozenset[int] = frozenset()  # (protocol 6) their forfeit: a REVEAL withheld
        if type(inp) is Joint:
            needs = self.needs()  # the round's dropped seats: withheld or silent
            withheld = self.absence.blame_round_absence(
                box, needs, self.agreement.dropped_at_this_step(needs), self.step
            )
        elif forfeits:  # a roll: the seats dropped at their own roll (protocol 6, §5.5)
            withheld = frozenset(forfeits)
        self.late_judge.round_stood(decided)
        live = snap.live
        if self.features.handback:
            admitted = self.rejoin.admissions(box)  # protocol 5: back from the next step
            if admitted:
                live = live | admitted
                for seat in admitted:
                    # ours: dropped again, we ask back at once (_pump)
                    self.handback.admit(seat, decided, seat == self.seat)
        # Who has played (protocol 6, SPEC §5.4): the seats whose input this step took (needs()
        # is after this step's drops: the contributors only).  A seat given back has not
        # played by that alone: a squatter let back in that goes silent again is left out.
        played = snap.played | frozenset(self.needs().humans)
        digest = self._state_hash(new_state)
        self.history.append(
            Snapshot(new_state, tuple(chain_last), tuple(chain_used), live, played), digest
        )
        protocol = self.record.protocol
        before = snap.state.decision()
        facts = () if type(inp) is Move else step_facts(protocol, before, inp, withheld)
        self.log.append(decided, EntryKind.STEP, [encode_input(inp), digest, *facts])
        dropped = frozenset(box.dropped_now)
        convicted = frozenset(s for s in dropped if self.convictions.at(s, decided))
        self.journal.events.append(
            ev.StepApplied(decided, inp, digest, facts, snap.live, dropped, convicted, withheld)
        )
        if live is not snap.live:
            back = tuple(sorted(live - snap.live))
            self.log.append(decided + 1, EntryKind.NOTE, ["back", list(back), "admitted"])
            self.journal.events.append(ev.SeatsBack(decided + 1, back))
        decision = new_state.decision()
        if isinstance(decision, Over):
            self.journal.events.append(ev.GameOver(decided + 1, decision.outcome))
            self.recovery.seal_final_state(now)
        self._box(self.step).started_at = None


__all__ = ["MAX_LINK_PAYLOAD", "STEP_WINDOW", "TAKEOVER_BOT", "Session"]
