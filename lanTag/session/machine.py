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

import hashlib
import hmac
from collections import deque
from collections.abc import Mapping
from typing import Any

from lanTag.errors import LocalProtocolError, RemoteProtocolError
from lanTag.fair.chain import HashChain, chain_step_ok
from lanTag.fair.commit import NONCE_SIZE, commitment, opens
from lanTag.identity import Identity, Signer, Verifier
from lanTag.log.chain import MAGIC, EntryKind, LogChain
from lanTag.rules.base import Action, Chance, IllegalAction, Input, Move, Over, State, encode_input
from lanTag.rules.registry import get_game
from lanTag.session import events as ev
from lanTag.session import referee
from lanTag.session.lobby import LobbyRecord
from lanTag.session.messages import (
    MsgType,
    Signed,
    pack_bundle,
    parse_unverified,
    sign_message,
    unpack_bundle,
    verify_signature,
)
from lanTag.session.referee import NeedKind, Needs
from lanTag.session.steps import Snapshot, StepBox
from lanTag.session.transport import Addr, PlainTransport, Transport
from lanTag.wire import DATAGRAM_BUDGET

NONCE_DOMAIN = b"lanTag/v1/nonce\x00"
STEP_WINDOW = 4096  # how far ahead of us a peer's messages are buffered
BUNDLE_BUDGET = 1100  # signed messages packed per link payload
MAX_LINK_PAYLOAD = 64 * 1024
TAKEOVER_BOT = "random"  # who plays a dropped seat (SPEC §5.5)
_CONTRIBUTIONS = (MsgType.MOVE, MsgType.ENTROPY, MsgType.COMMIT, MsgType.REVEAL)


class Session:
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
    ) -> None:
        self.record = record
        self.game_id = record.game_id
        self.game = get_game(record.engine)
        self.seat = seat
        self.replay = replay
        self.peers = dict(peers or {})
        self.watchers = watchers
        self.transport: Transport = transport or PlainTransport()
        self._verifier = Verifier()
        self._signer: Signer | None = None
        self._identity: Identity | None = None
        self._chain_secret: bytes | None = None
        self._chain: HashChain | None = None
        if seat is not None and not replay:
            if identity is None or chain_secret is None:
                raise LocalProtocolError("a playing seat needs its identity and chain secret")
            if identity.public_key != record.seats[seat].public_key:
                raise LocalProtocolError(f"this key does not hold seat {seat}")
            self._signer = identity.signer()
            self._identity = identity
            self._chain_secret = chain_secret
            self._chain = HashChain(chain_secret, record.chain_length)
            if self._chain.anchor != record.seats[seat].anchor:
                raise LocalProtocolError("chain secret does not match the seat's anchor")
        n = len(record.seats)
        state = self.game.new_state(n, record.option_dict, record.map_text)
        live = frozenset(i for i, s in enumerate(record.seats) if not s.is_bot)
        anchors = tuple(s.anchor for s in record.seats)
        self._snapshots = [Snapshot(state, anchors, (0,) * n, live)]
        self._boxes: dict[int, StepBox] = {}
        self._slots: dict[tuple[int, tuple[int, int, int, bytes]], Signed] = {}
        self._banned: dict[int, int] = {}  # seat -> step of its proven equivocation
        self._proven: set[tuple[int, tuple[int, int, int, bytes]]] = set()
        self._needs_cache: tuple[Snapshot, Needs] | None = None
        self._request_steps: set[int] = set()  # steps holding votes or nudges
        self._bound: dict[int, set[int]] = {}  # step -> seats I voted silent (binding)
        self._vote_seq: dict[int, int] = {}
        self._secret: dict[int, tuple[Action, bytes]] = {}  # my sealed choice per step
        self._events: deque[ev.Event] = deque()
        self._outbox: dict[Addr, list[bytes]] = {}
        self.log = LogChain()
        self.log.append(0, EntryKind.HEADER, [MAGIC, record.encode(), seat])
        self.counters: dict[str, int] = {}
        self.proofs: list[tuple[Signed, Signed]] = []
        self.desynced: set[int] = set()
        self._pump(now)

    # ------------------------------------------------------------------ queries

    @property
    def step(self) -> int:
        return len(self._snapshots) - 1

    @property
    def state(self) -> State:
        return self._snapshots[-1].state

    @property
    def live(self) -> frozenset[int]:
        return self._snapshots[-1].live

    def needs(self) -> Needs:
        snap = self._snapshots[-1]
        cached = self._needs_cache
        if cached is not None and cached[0] is snap:
            return cached[1]
        needs = referee.needs_for(snap.state.decision(), snap.live)
        self._needs_cache = (snap, needs)  # decision() is costly with many seats
        return needs

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
        if needs.kind is NeedKind.SECRET and self.step not in self._secret:
            return "secret"
        return None

    def next_event(self) -> ev.Event | None:
        return self._events.popleft() if self._events else None

    def take_log(self) -> bytes:
        return self.log.take()

    # ------------------------------------------------------------------ local commands

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
            nonce = self._derived_nonce(self.step)
        if len(nonce) != NONCE_SIZE:
            raise LocalProtocolError("the nonce must be 32 random bytes")
        self.state.check_action(self.seat, action)
        self._secret[self.step] = (action, nonce)
        value = self._action_bytes(action)
        c = commitment(self.game_id, self.step, self.seat, self.needs().secret_kind, nonce, value)
        self._emit(MsgType.COMMIT, (c,), now)
        self._pump(now)

    def _derived_nonce(self, step: int) -> bytes:
        if self._chain_secret is None:
            raise LocalProtocolError("a spectator has no secret to derive nonces from")
        msg = NONCE_DOMAIN + self.game_id + step.to_bytes(4, "big")
        return hmac.new(self._chain_secret, msg, hashlib.sha256).digest()

    def recover_sealed_choice(self) -> bool:
        """After a restart: find which legal action our logged COMMIT for this step sealed.

        Tries every legal action with the derived nonce.  Returns False when there is no
        commitment of ours to recover or none matches (then we cannot reveal it).
        """
        if self.seat is None or self.step in self._secret:
            return False
        mine = self._box(self.step).of(MsgType.COMMIT).get(self.seat)
        if mine is None:
            return False
        nonce = self._derived_nonce(self.step)
        purpose = self.needs().secret_kind
        for action in self.state.legal_actions(self.seat):
            value = self._action_bytes(action)
            if opens(mine.payload[0], self.game_id, self.step, self.seat, purpose, nonce, value):
                self._secret[self.step] = (action, nonce)
                self._maybe_reveal(self._box(self.step), 0.0)
                return True
        return False

    def discard_output(self) -> None:
        """Forget queued datagrams, events and log bytes (used when rebuilding from a log)."""
        self._outbox.clear()
        self._events.clear()
        self.log.take()

    def rebroadcast_own(self, from_step: int) -> None:
        """After a restart: send again what we said from ``from_step`` on (identical bytes;
        a peer that already has them counts duplicates).  We may have died after logging a
        message and before it left the socket."""
        if self.seat is None:
            return
        mine: list[bytes] = []
        for step in sorted(k for k in self._boxes if k >= from_step):
            box = self._boxes[step]
            mine += [m.raw for m in box.accepted_of(self.seat)]
            mine += [m.raw for m in (box.votes.get(self.seat), box.nudges.get(self.seat)) if m]
            mine += [
                h.raw
                for by_voter in box.haves.values()
                for v, h in by_voter.items()
                if v == self.seat
            ]
        self._broadcast(mine)

    def request_sync(self, now: float) -> None:
        """After a restart: ask every peer for what it holds from our current step on."""
        if self._signer is None or self.seat is None:
            raise LocalProtocolError("only a seat's own peer can ask to catch up")
        msg = sign_message(
            self._signer,
            MsgType.SYNC,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            (self.step,),
        )
        self._broadcast([msg.raw])

    def _answer_sync(self, msg: Signed) -> None:
        """Send a restarted seat every message we hold from the step it asks for on."""
        if self.replay or self.seat is None:
            return
        addr = self.peers.get(msg.seat)
        if addr is None:
            return
        raws: list[bytes] = []
        for step in sorted(k for k in self._boxes if k >= int(msg.payload[0])):
            box = self._boxes[step]
            held = [m for by_seat in box.contrib.values() for m in by_seat.values()]
            held = [*box.drop_proof, *held]  # a drop is decided before the step's inputs
            held += [*box.votes.values(), *box.nudges.values(), *box.pending]
            held += [h for by_voter in box.haves.values() for h in by_voter.values()]
            raws += [m.raw for m in held]
        self._outbox.setdefault(addr, []).extend(dict.fromkeys(raws))  # ordered, no repeats
        self._count("sync-answered")

    def note(self, code: str, text: str) -> None:
        """A local annotation in the log (e.g. the peers' addresses, for a later resume)."""
        self.log.append(self.step, EntryKind.NOTE, [code, [], text])

    def private_aad(self, sender: int, to: int) -> bytes:
        """What a private message's encryption is bound to: this game, its sender, its reader."""
        return self.game_id + sender.to_bytes(2, "big") + to.to_bytes(2, "big")

    def send_private(self, to: int, sealed: tuple[bytes, bytes, bytes], now: float) -> None:
        """Send chat sealed with lanTag.privchat.seal to seat ``to`` only (never logged)."""
        if self._signer is None or self.seat is None:
            raise LocalProtocolError("spectators cannot chat")
        addr = self.peers.get(to)
        if addr is None or to == self.seat:
            raise LocalProtocolError(f"seat {to} is not another person at this table")
        msg = sign_message(
            self._signer,
            MsgType.PRIVATE,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            (to, *sealed),
        )
        self._outbox.setdefault(addr, []).append(msg.raw)

    def _open_private(self, msg: Signed) -> None:
        from lanTag.privchat import PrivateChatError, open_sealed

        to, ephemeral, nonce, ciphertext = msg.payload
        if to != self.seat or self._identity is None:
            self._count("private-not-for-us")
            return
        try:
            text = open_sealed(
                self._identity.seed, ephemeral, nonce, ciphertext, self.private_aad(msg.seat, to)
            )
        except PrivateChatError:
            self._count("private-undecryptable")
            return
        self._events.append(ev.Chat(msg.seat, text, private=True))

    def say(self, text: str, now: float, *, keep_in_log: bool = False) -> None:
        """Public chat: signed and sent to everyone; in our log only if we ask (``/say!``)."""
        if self._signer is None or self.seat is None:
            raise LocalProtocolError("spectators cannot chat")
        if keep_in_log:
            self.note("chat", text[:500])
        msg = sign_message(
            self._signer,
            MsgType.CHAT,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            (text[:500],),
        )
        self._broadcast([msg.raw])

    # ------------------------------------------------------------------ network input

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
        if msg.game_id != self.game_id:
            self._reject("wrong-game", f"message for another game (step {msg.step})")
            return
        if msg.seat >= len(self.record.seats) or self.record.seats[msg.seat].is_bot:
            self._reject("not-in-roster", f"seat {msg.seat} is not a human seat of this game")
            return
        key = self.record.seats[msg.seat].public_key
        if not verify_signature(msg, key, self._verifier):
            self._reject("bad-signature", f"signature of seat {msg.seat} does not verify")
            return
        if msg.type == MsgType.CHAT:
            self._events.append(ev.Chat(msg.seat, str(msg.payload[0])))
            return
        if msg.type == MsgType.SYNC:
            self._answer_sync(msg)
            return
        if msg.type == MsgType.PRIVATE:
            self._open_private(msg)
            return
        slot = (msg.seat, msg.slot)
        first = self._slots.get(slot)
        if first is not None and not _supersedes(first, msg):
            if first.raw != msg.raw and slot not in self._proven:
                self._proven.add(slot)
                self._equivocation(first, msg)
            else:
                self._count("duplicate")
            return
        self._slots[slot] = msg
        if msg.step > self.step + STEP_WINDOW:
            self._reject("too-far", f"seat {msg.seat} sent step {msg.step} at our {self.step}")
            return
        self.log.append(msg.step, EntryKind.MSG, msg.raw)
        box = self._box(msg.step)
        box.heard[msg.seat] = now
        if msg.step < self.step and msg.type in (MsgType.VOTE, MsgType.NUDGE, MsgType.HAVE):
            self._register_late(msg, box)
        else:
            box.pending.append(msg)
        self._pump(now)

    def _register_late(self, msg: Signed, box: StepBox) -> None:
        """A vote, nudge or HAVE about a step we already decided: for relays and rollback."""
        if msg.type in (MsgType.VOTE, MsgType.NUDGE):
            box.register_request(msg)
            self._request_steps.add(msg.step)
        else:
            self._register_have(msg, box)

    def _register_have(self, have: Signed, box: StepBox) -> None:
        subject = int(have.payload[0])
        box.haves.setdefault(subject, {})[have.seat] = have
        mine = box.accepted_of(subject)
        if mine and not self.replay and any(m.digest not in have.payload[1] for m in mine):
            # They took a different message from the same seat: show them ours (the proof).
            self._broadcast([m.raw for m in mine])

    # ------------------------------------------------------------------ timers

    def next_timer(self) -> float | None:
        times = [self.transport.next_timer(), self._deadline(), self._lag_time()]
        real = [t for t in times if t is not None]
        return min(real) if real else None

    def _lag_time(self) -> float | None:
        box = self._boxes.get(self.step)
        if box is None or box.started_at is None or box.lag_reported or self.replay:
            return None
        if self.seat is None or self.seat not in self.live or not self._missing():
            return None
        return box.started_at + self.record.timeouts.lag_ms / 1000

    def handle_timer(self, now: float) -> None:
        self.transport.handle_timer(now)
        if self.replay or self.seat is None or self.seat not in self.live:
            return
        box = self._box(self.step)
        waiting = self._missing()
        if box.started_at is None or not waiting:
            return
        waited = now - box.started_at
        lag_time = self._lag_time()
        if lag_time is not None and now >= lag_time:  # the same float as next_timer's
            box.lag_reported = True
            for seat in sorted(waiting):
                self._events.append(ev.Lagging(seat, self.step, waited))
            # Non-binding: whoever holds what we lack relays it long before anyone votes.
            self._emit(MsgType.NUDGE, (sorted(waiting), 1), now)
        deadline = self._deadline()
        if deadline is not None and now >= deadline:
            recent = now - self.record.timeouts.step_ms / 1000
            silent = frozenset(s for s in waiting if box.heard.get(s, -1.0) < recent)
            if silent:
                self._vote(silent, now)
            else:
                self._vote_seq[self.step] = self._vote_seq.get(self.step, 0) + 1
        self._pump(now)

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        for addr, raws in self._outbox.items():
            for bundle in _bundles(raws):
                self.transport.send(addr, bundle, now)
        self._outbox.clear()
        return self.transport.datagrams_to_send(now)

    # ------------------------------------------------------------------ the engine room

    def _pump(self, now: float) -> None:
        """Accept what can be accepted, then decide steps until one needs more input."""
        while True:
            step = self.step
            box = self._box(step)
            if box.started_at is None:
                box.started_at = now
                self._on_step_start(now)
            progressed = self._accept_pending(box, now)
            self._answer_votes(now)
            if self._apply_drops(now):
                continue
            needs = self.needs()
            if needs.kind is NeedKind.SECRET and self._commits_complete(box, needs):
                self._maybe_reveal(box, now)  # also when a drop, not a COMMIT, completed them
            inp = self._decided_input(box)
            if inp is None:
                if not progressed:
                    return
                continue
            self._apply(inp, now)

    def _on_step_start(self, now: float) -> None:
        needs = self.needs()
        if needs.kind is NeedKind.OVER or self.replay or self.seat not in needs.humans:
            return
        if needs.kind is NeedKind.ENTROPY:
            self._emit(MsgType.ENTROPY, (self._next_reveal(),), now)

    def _accept_pending(self, box: StepBox, now: float) -> bool:
        progressed = False
        still: list[Signed] = []
        for msg in box.pending:
            if self._try_accept(msg, box, now):
                progressed = True
            else:
                still.append(msg)
        box.pending = still
        # Old-step votes and haves concern relays only; future ones wait for their step.
        return progressed

    def _try_accept(self, msg: Signed, box: StepBox, now: float) -> bool:
        """True when ``msg`` was consumed (accepted or refused), False to keep waiting."""
        if msg.step != self.step:
            return False
        snap = self._snapshots[-1]
        if msg.seat not in snap.live:
            self._count("from-dropped-seat")
            return True
        if msg.type in (MsgType.VOTE, MsgType.NUDGE):
            box.register_request(msg)
            self._request_steps.add(msg.step)
            return True
        if msg.type == MsgType.HAVE:
            self._check_hash(msg, snap)
            self._register_have(msg, box)
            return True
        needs = self.needs()
        if msg.seat not in needs.humans or not self._fits(msg.type, needs.kind):
            self._blame(msg.seat, "out-of-turn", f"{msg.type.name} not expected now")
            return True
        if msg.type == MsgType.REVEAL and not self._commits_complete(box, needs):
            return False  # nobody's reveal is taken before every commitment is in
        bound = self._bound.get(self.step, set()) if self.seat in snap.live else set()
        if (
            msg.seat in bound
            and msg.seat != self.seat
            and not box.covered(msg, snap.live, self.seat, bound)
        ):
            return False  # we voted this seat silent: only a HAVE from another peer frees it
        if not self._check_hash(msg, snap) or msg.seat in self.desynced:
            return True
        if msg.type == MsgType.MOVE:
            try:
                snap.state.check_action(msg.seat, msg.action)
            except IllegalAction as exc:
                self._blame(msg.seat, "illegal-action", str(exc))
                return True
        elif msg.type in (MsgType.ENTROPY, MsgType.REVEAL):
            reveal = msg.payload[0] if msg.type == MsgType.ENTROPY else msg.payload[2]
            if not chain_step_ok(snap.chain_last[msg.seat], reveal):
                self._blame(msg.seat, "bad-chain", "reveal does not hash to the previous link")
                if msg.type == MsgType.ENTROPY:
                    return True  # the seat stays silent for this draw; timeouts handle it
                box.bad_reveals.add(msg.seat)
            if msg.type == MsgType.REVEAL:
                self._check_reveal(msg, box, needs, snap)
        box.of(msg.type)[msg.seat] = msg
        if msg.type == MsgType.MOVE and self.seat in snap.live and self.seat != msg.seat:
            self._send_have(msg.seat, now, relay=False)  # the ack: carries our hash
        if msg.type == MsgType.COMMIT and self._commits_complete(box, needs):
            self._maybe_reveal(box, now)
        return True

    def _check_reveal(self, msg: Signed, box: StepBox, needs: Needs, snap: Snapshot) -> None:
        action, nonce = Action.from_msgpack(msg.payload[0]), msg.payload[1]
        sealed = box.of(MsgType.COMMIT)[msg.seat].payload[0]
        value = self._action_bytes(action)
        if not opens(sealed, self.game_id, self.step, msg.seat, needs.secret_kind, nonce, value):
            self._blame(msg.seat, "bad-reveal", "reveal does not open its commitment")
            box.bad_reveals.add(msg.seat)
            return
        try:
            snap.state.check_action(msg.seat, action)
        except IllegalAction as exc:
            self._blame(msg.seat, "illegal-action", str(exc))
            box.bad_reveals.add(msg.seat)

    def _decided_input(self, box: StepBox) -> Input | None:
        snap = self._snapshots[-1]
        needs = referee.needs_for(snap.state.decision(), snap.live)
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
            if not all(s in got for s in needs.humans):
                return None
            links = {s: got[s].payload[0] for s in needs.humans}
            decision = state.decision()
            assert isinstance(decision, Chance)
            roll, _seed = referee.chance_roll(decision, self.game_id, self.step, links)
            return roll
        reveals_in = box.of(MsgType.REVEAL)
        if not all(s in reveals_in for s in needs.humans):
            return None
        actions: dict[int, Action] = {}
        reveals: dict[int, bytes] = {}
        for s in needs.humans:
            if s in box.bad_reveals:
                actions[s] = state.default_action(s)
            else:
                actions[s] = reveals_in[s].action
                reveals[s] = reveals_in[s].payload[2]
        dropped_now = self._dropped_at_this_step(needs)
        for s in dropped_now:
            actions[s] = state.default_action(s)
        bots = {
            s: self.record.seats[s].bot or TAKEOVER_BOT for s in needs.bots if s not in dropped_now
        }
        return referee.joint_choice(state, self.game_id, self.step, actions, reveals, bots)

    def _apply(self, inp: Input, now: float) -> None:
        snap = self._snapshots[-1]
        box = self._box(self.step)
        new_state = snap.state.apply(inp)
        chain_last = list(snap.chain_last)
        chain_used = list(snap.chain_used)
        for kind, index in ((MsgType.ENTROPY, 0), (MsgType.REVEAL, 2)):
            for seat, msg in box.of(kind).items():
                if chain_step_ok(chain_last[seat], msg.payload[index]):
                    chain_last[seat] = msg.payload[index]
                    chain_used[seat] += 1
        decided = self.step
        self._snapshots.append(Snapshot(new_state, tuple(chain_last), tuple(chain_used), snap.live))
        digest = new_state.state_hash()
        self.log.append(decided, EntryKind.STEP, [encode_input(inp), digest])
        self._events.append(ev.StepApplied(decided, inp, digest))
        decision = new_state.decision()
        if isinstance(decision, Over):
            self._events.append(ev.GameOver(decided + 1, decision.outcome))
        self._box(self.step).started_at = None
        _ = now

    # ------------------------------------------------------------------ agreement on silence

    def _missing(self) -> set[int]:
        """Seats whose message the current step waits for (acks of our own move included)."""
        needs = self.needs()
        box = self._box(self.step)
        if needs.kind in (NeedKind.OVER, NeedKind.BOT_TURN):
            return set()
        if needs.kind is NeedKind.TURN:
            move = box.of(MsgType.MOVE).get(needs.humans[0])
            if move is not None and move.seat == self.seat:
                acked = set(box.haves.get(move.seat, {}))
                return {s for s in self.live if s != self.seat and s not in acked}
            return {s for s in needs.humans if move is None and s != self.seat}
        if needs.kind is NeedKind.ENTROPY:
            kind = MsgType.ENTROPY
        else:
            kind = MsgType.REVEAL if self._commits_complete(box, needs) else MsgType.COMMIT
        got = box.of(kind)
        return {s for s in needs.humans if s not in got and s != self.seat}

    def _deadline(self) -> float | None:
        """When to vote.  Reveals wait a step timeout longer than commits: a seat blocked on a
        missing commitment gets one relay round before anyone calls it silent."""
        box = self._boxes.get(self.step)
        if box is None or box.started_at is None or self.replay or not self._missing():
            return None
        if self.seat is None or self.seat not in self.live:
            return None  # a spectator (or a dropped seat) never votes
        needs = self.needs()
        turn, step = self.record.timeouts.turn_ms / 1000, self.record.timeouts.step_ms / 1000
        if needs.kind is NeedKind.TURN:
            first = turn
        elif needs.kind is NeedKind.SECRET:
            first = turn if not self._commits_complete(box, needs) else turn + step
        else:
            first = step
        return box.started_at + first + step * self._vote_seq.get(self.step, 0)

    def _vote(self, silent: frozenset[int], now: float) -> None:
        box = self._box(self.step)
        mine = box.votes.get(self.seat) if self.seat is not None else None
        if mine is not None and frozenset(mine.payload[0]) == silent:
            self._vote_seq[self.step] = self._vote_seq.get(self.step, 0) + 1
            return
        seq = self._vote_seq.get(self.step, 0) + 1
        self._vote_seq[self.step] = seq
        self._bound.setdefault(self.step, set()).update(silent)
        self._emit(MsgType.VOTE, (sorted(silent), seq), now)

    def _answer_votes(self, now: float) -> None:
        """Relay what a voter lacks: HAVE + the subject's messages, once per new vote."""
        if self.replay or self.seat is None or self.seat not in self.live:
            return
        for step in self._recent_request_steps():
            box = self._boxes.get(step)
            if box is None or not (box.votes or box.nudges):
                continue
            requests = sum(m.payload[1] for m in [*box.votes.values(), *box.nudges.values()])
            for subject in box.requested():
                if subject in self._bound.get(step, ()):
                    continue
                if box.haves_sent.get(subject, 0) < requests and box.accepted_of(subject):
                    box.haves_sent[subject] = requests
                    self._send_have(subject, now, step, relay=True)

    def _recent_request_steps(self) -> list[int]:
        """Steps (the current one and up to 64 back) where someone voted or nudged."""
        low = self.step - 64
        return sorted(k for k in self._request_steps if low <= k <= self.step)

    def _send_have(self, subject: int, now: float, step: int | None = None, *, relay: bool) -> None:
        step = self.step if step is None else step
        box = self._box(step)
        held = box.accepted_of(subject)
        if not held or self._signer is None or self.seat is None:
            return
        digests = [m.digest for m in held][:8]
        state = self._snapshots[step].state if step < len(self._snapshots) else self.state
        have = sign_message(
            self._signer,
            MsgType.HAVE,
            self.game_id,
            step,
            self.seat,
            state.state_hash(),
            (subject, digests),
        )
        self._record_own(have)
        box.haves.setdefault(subject, {})[self.seat] = have
        self._broadcast([have.raw, *(m.raw for m in held)] if relay else [have.raw])

    def _apply_drops(self, now: float) -> bool:
        """Apply a unanimous drop for the current step, or roll back to an older one first."""
        banned = frozenset(s for s, k in self._banned.items() if k <= self.step and s in self.live)
        if banned:
            self._drop(banned, self._box(self.step), code="equivocation")
            return True
        for step in self._recent_request_steps():
            box = self._boxes.get(step)
            if box is None or not box.votes:
                continue
            silent = box.unanimous_silent(self._snapshots[step].live)
            if silent is None:
                continue
            if step < self.step:
                # Only a seat that was itself voted silent can be past that step: it must
                # take the drop at the agreed step, so it redecides from there.
                self._rollback(step)  # the requeued votes then decide the drop at `step`
                return True
            self._drop(silent, box)
            return True
        return False

    def _drop(self, silent: frozenset[int], box: StepBox, code: str = "timeout") -> None:
        snap = self._snapshots[-1]
        self._snapshots[-1] = Snapshot(
            snap.state, snap.chain_last, snap.chain_used, snap.live - silent
        )
        box.dropped_now = box.dropped_now | silent
        for s in sorted(silent):
            if code == "timeout":
                self._blame(s, code, f"silent at step {self.step}; a bot takes the seat")
        self._events.append(ev.SeatsDropped(self.step, tuple(sorted(silent))))
        if not self.replay and self.seat in snap.live - silent:
            # The proof goes to everyone, the dropped seats included, so nobody waits forever.
            self._broadcast([v.raw for v in box.votes.values()])
        for kind in _CONTRIBUTIONS:
            for s in silent:
                box.of(kind).pop(s, None)
        box.drop_proof.extend(box.votes.values())  # kept for peers that catch up later
        box.votes.clear()

    def _dropped_at_this_step(self, needs: Needs) -> set[int]:
        return set(self._box(self.step).dropped_now) & set(needs.bots)

    def _rollback(self, step: int) -> None:
        """Forget steps from ``step`` on and decide them again from the messages we hold.

        Happens when the others agreed we were silent at a step we had already decided
        with our own contribution, or when a seat proved to have equivocated there.
        """
        del self._snapshots[step + 1 :]
        requeue: list[Signed] = []
        for k in sorted(s for s in self._boxes if s >= step):
            old = self._boxes.pop(k)
            kept = [m for by_seat in old.contrib.values() for m in by_seat.values()]
            requeue += [*kept, *old.votes.values(), *old.pending]
            requeue += [h for by_voter in old.haves.values() for h in by_voter.values()]
        self.desynced.clear()  # hashes from the abandoned history said nothing about anyone
        for table in (self._secret, self._vote_seq, self._bound):
            for k in [k for k in table if k > step]:
                del table[k]
        box = self._box(step)
        box.started_at = None
        box.pending = requeue
        self.log.append(step, EntryKind.NOTE, ["rollback", [], "redecide from here"])

    # ------------------------------------------------------------------ helpers

    def _own_final(self, move: Signed, box: StepBox) -> bool:
        # Our own move counts once another live peer took it, or when nobody else is live.
        if move.seat != self.seat:
            return True
        others = self.live - {move.seat}
        if not others:
            return True
        return any(v in others for v in box.haves.get(move.seat, {}))

    def _commits_complete(self, box: StepBox, needs: Needs) -> bool:
        got = box.of(MsgType.COMMIT)
        return all(s in got for s in needs.humans)

    def _maybe_reveal(self, box: StepBox, now: float) -> None:
        if self.replay or self.seat is None or box.sent_reveal or self.step not in self._secret:
            return
        action, nonce = self._secret[self.step]
        box.sent_reveal = True
        self._emit(MsgType.REVEAL, (action.to_msgpack(), nonce, self._next_reveal()), now)

    def _next_reveal(self) -> bytes:
        assert self._chain is not None and self.seat is not None
        return self._chain.reveal(self._snapshots[-1].chain_used[self.seat] + 1)

    @staticmethod
    def _fits(msg_type: MsgType, kind: NeedKind) -> bool:
        return {
            MsgType.MOVE: NeedKind.TURN,
            MsgType.ENTROPY: NeedKind.ENTROPY,
            MsgType.COMMIT: NeedKind.SECRET,
            MsgType.REVEAL: NeedKind.SECRET,
        }[msg_type] is kind

    def _action_bytes(self, action: Action) -> bytes:
        from lanTag import wire

        return wire.pack(action.to_msgpack())

    def _check_hash(self, msg: Signed, snap: Snapshot) -> bool:
        if msg.state_hash == snap.state.state_hash():
            return True
        if any(k <= msg.step for k in self._banned.values()):
            self._count("stale-history")  # sent before its author rolled back too
            return False
        if msg.seat not in self.desynced:
            self.desynced.add(msg.seat)
            self._events.append(ev.Desync(msg.step, (msg.seat,)))
            self._blame(msg.seat, "desync", f"state hash differs at step {msg.step}")
        return False

    def _equivocation(self, first: Signed, second: Signed) -> None:
        """Keep the proof, tell everyone, and take the seat out from that step on."""
        self.proofs.append((first, second))
        self.log.append(second.step, EntryKind.MSG, second.raw)
        self._blame(
            second.seat, "equivocation", f"two different {second.type.name} for step {second.step}"
        )
        if not self.replay:
            self._broadcast([first.raw, second.raw])
        if second.type in _CONTRIBUTIONS and second.seat not in self._banned:
            self._banned[second.seat] = second.step
            if second.step < self.step and self._boxes[second.step].accepted_of(second.seat):
                self._rollback(second.step)

    def _emit(self, msg_type: MsgType, payload: tuple[Any, ...], now: float) -> None:
        assert self._signer is not None and self.seat is not None
        msg = sign_message(
            self._signer,
            msg_type,
            self.game_id,
            self.step,
            self.seat,
            self.state.state_hash(),
            payload,
        )
        self._record_own(msg)
        self._box(self.step).pending.append(msg)
        self._broadcast([msg.raw])
        _ = now

    def _record_own(self, msg: Signed) -> None:
        assert self.seat is not None
        self._slots[(self.seat, msg.slot)] = msg
        self.log.append(msg.step, EntryKind.MSG, msg.raw)

    def _broadcast(self, raws: list[bytes]) -> None:
        for seat, addr in self.peers.items():
            if seat != self.seat:
                self._outbox.setdefault(addr, []).extend(raws)
        for addr in self.watchers:
            self._outbox.setdefault(addr, []).extend(raws)

    def _box(self, step: int) -> StepBox:
        box = self._boxes.get(step)
        if box is None:
            box = self._boxes[step] = StepBox()
        return box

    def _blame(self, seat: int, code: str, reason: str) -> None:
        self._events.append(ev.Blame(seat, self.step, code, reason))
        self.log.append(self.step, EntryKind.NOTE, [code, [seat], reason])

    def _reject(self, code: str, reason: str) -> None:
        self._count(code)
        self._events.append(ev.Rejected(code, reason))

    def _count(self, code: str) -> None:
        self.counters[code] = self.counters.get(code, 0) + 1


def _supersedes(first: Signed, msg: Signed) -> bool:
    """A HAVE may grow (commit, then commit and reveal); anything else must repeat exactly."""
    if first.type != MsgType.HAVE or msg.type != MsgType.HAVE:
        return False
    old, new = set(first.payload[1]), set(msg.payload[1])
    return old < new


def _bundles(raws: list[bytes]) -> list[bytes]:
    """Pack signed messages into link payloads of about one datagram each."""
    out: list[bytes] = []
    batch: list[bytes] = []
    size = 0
    for raw in raws:
        if batch and size + len(raw) + 3 > BUNDLE_BUDGET:
            out.append(pack_bundle(batch))
            batch, size = [], 0
        batch.append(raw)
        size += len(raw) + 3
    if batch:
        out.append(pack_bundle(batch))
    return out


assert BUNDLE_BUDGET < DATAGRAM_BUDGET
