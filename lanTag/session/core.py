"""The session's shared state, the parts it owns, and the small helpers every rule set of
it uses.

Split out of lanTag.session.lockstep (the engine room), lanTag.session.agreement
(silence, drops, equivocation) and lanTag.session.recovery (resume, sync,
private chat) so that each file says one thing.  Pure like the rest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lanTag.errors import LocalProtocolError
from lanTag.fair.hash_chain import HashChain
from lanTag.identity import Identity, Signer, Verifier
from lanTag.log.entries import EntryKind, LogChain, log_magic
from lanTag.rules.base import Action, Game, State
from lanTag.rules.registry import get_game
from lanTag.session import events as ev
from lanTag.session import referee
from lanTag.session.absence import Absence
from lanTag.session.catch_up import CatchUp
from lanTag.session.chatter import ChatterCap
from lanTag.session.compatibility import require_rules
from lanTag.session.convictions import Convictions, LateProofs
from lanTag.session.features import Features
from lanTag.session.handback import Handback
from lanTag.session.inbox import Inbox
from lanTag.session.journal import Journal
from lanTag.session.late_proof import LateProofJudge
from lanTag.session.lobby_record import LobbyRecord, start_state
from lanTag.session.messages import (
    ADMITTING,
    SPECS,
    MsgType,
    Signed,
    have_within,
    pack_bundle,
    parse_unverified,
    sign_message,
)
from lanTag.session.private_line import PrivateLine
from lanTag.session.referee import NeedKind, Needs
from lanTag.session.rejoin import Rejoin
from lanTag.session.round_acks import RoundAcks
from lanTag.session.sealed_choices import SealedChoices
from lanTag.session.sealing import SealBook
from lanTag.session.state_claims import StateClaims
from lanTag.session.steps import (
    History,
    Snapshot,
    StepBox,
)
from lanTag.session.transport import Addr, PlainTransport, Transport
from lanTag.session.vote_book import VoteBook
from lanTag.wire import DATAGRAM_BUDGET

NONCE_DOMAIN = b"lanTag/v1/nonce\x00"
STEP_WINDOW = 4096  # how far ahead of us a peer's messages are buffered
BUNDLE_BUDGET = 1100  # signed messages packed per link payload
MAX_LINK_PAYLOAD = 64 * 1024
TAKEOVER_BOT = "random"  # who plays a dropped seat (SPEC §5.5)
# The message types a seat contributes to a step (two different ones in one slot: equivocation).
CONTRIBUTIONS = tuple(t for t, s in SPECS.items() if s.answers is not None)
# the step kind each contribution answers
FITS = {t: NeedKind[s.answers] for t, s in SPECS.items() if s.answers is not None}


class SessionCore:
    """What the Session is made with, its parts, and the helpers its rules share.

    Made with: the ``record`` (the LobbyRecord the game was seated with), its ``features``
    (Features.of(record.protocol): the protocol's facts), ``game_id``, the ``game`` (the
    engine class), our ``seat`` (None for a spectator or a verifier), ``replay`` (a log
    being verified: nothing is sent), the ``peers`` (seat -> address; the Journal reads the
    same map at each broadcast), the ``watchers``, the ``transport`` (its caller may wrap
    it, e.g. with faults), and the keys: each seat's public key (``_human_keys``, None for
    a bot), our ``_signer``, ``_identity``, ``_chain_secret`` and ``_chain`` (None unless
    we play a seat) and the ``_verifier`` (with its key cache).

    Every state that changes is a part's, an object with its own API (lanTag.session.*):
    the ``history`` (History: one Snapshot per decided step and our state hash there; the
    other parts read it as a HistoryView), the ``inbox`` (Inbox: the messages taken, by
    step and by slot), the ``claims`` (StateClaims: the peers' state hashes), the
    ``journal`` (log, events, counters, outbox), the ``convictions``, the ``late`` proofs
    and their judge ``late_judge``, the ``vote_book``, the ``round_acks`` (how a secret
    round is acknowledged), the ``handback`` (REJOINs, admissions and LEAVEs), the
    ``absence`` judge, the ``chatter`` cap, the ``seal_book``, the ``sealed`` choices,
    the ``checked`` actions, ``catch_up``, the ``private_line``, the ``rejoin`` and, made
    by the Session, the ``silence`` clock, the ``agreement``, ``recovery`` and ``intake``.
    Besides them only the caches of pure functions change (``_needs_cache``,
    ``_hash_cache``).

    The Session (lanTag.session.lockstep) is a SessionCore (this class: sending, and the
    helpers the rules use) that files messages and decides steps.  Three of its parts are
    rules over this core, handed it when made: the ``intake`` (Intake: which pending message
    a step takes), the ``agreement`` (Agreement: votes, nudges, HAVE relays, drops,
    rollbacks, equivocation proofs) and the ``recovery`` (Recovery: resume, the side
    channels' handlers, our seal of the final state).
    tests/session/test_session_state.py checks the Session and its core keep no state of
    their own; test_session_shape.py that nothing else is mixed in.
    """

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
        replay: bool = False,
        start: State | None = None,
    ) -> None:
        """``start``: the state step 0 is in, for a replay without the engine (the rules as
        the log records them, lanTag.log.recorded); by default the record's own start."""
        self.record = record
        self.features = Features.of(record.protocol)
        self.game_id = record.game_id
        if start is None:
            require_rules(record.engine, record.rules_version)  # never half-play other rules
            self.game: type[Game] = get_game(record.engine)
        else:
            self.game = type(start).game
        self.seat = seat
        self.replay = replay
        self.peers = dict(peers or {})
        self.watchers = watchers
        self.transport: Transport = transport or PlainTransport()
        self._verifier = Verifier()
        # Each seat's public key, None for a bot seat: one lookup per message received.
        self._human_keys = record.human_keys()
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
        state = start_state(record) if start is None else start
        live = frozenset(i for i, s in enumerate(record.seats) if not s.is_bot)
        anchors = tuple(s.anchor for s in record.seats)
        self.history = History(Snapshot(state, anchors, (0,) * n, live), state.state_hash())
        self.inbox = Inbox()
        self.convictions = Convictions(self.features)
        self._needs_cache: tuple[Snapshot, Needs] | None = None
        self._hash_cache: tuple[State, bytes] | None = None  # states are immutable values
        self.vote_book = VoteBook()
        self.sealed = SealedChoices()
        self.checked = referee.CheckedActions()
        self.journal = Journal(seat, self.peers, watchers, lambda: self.step)
        self.log.append(0, EntryKind.HEADER, [log_magic(record.protocol), record.encode(), seat])
        self.claims = StateClaims()
        self.late = LateProofs()
        self.round_acks = RoundAcks(self.features, self.convictions, self.late, self._state_hash)
        self.late_judge = LateProofJudge(
            features=self.features,
            game_id=self.game_id,
            seat=seat,
            replay=replay,
            human_keys=self._human_keys,
            late=self.late,
            convictions=self.convictions,
            journal=self.journal,
            history=self.history,
            boxes=self.inbox.boxes,
            slots=self.inbox.slots,
            needs=self.needs,
            box=self._box,
            state_hash=self._state_hash,
        )
        self.seal_book = SealBook(self.journal, replay)
        self.handback = Handback(self.features)
        self.absence = Absence(
            self.features, self.journal, self.convictions, self.handback.leaves, self.late.commits
        )
        self.chatter = ChatterCap(self.features, self.journal)
        self.rejoin = Rejoin(
            record=record,
            features=self.features,
            seat=seat,
            signer=self._signer,
            replay=replay,
            handback=self.handback,
            chatter=self.chatter,
            convictions=self.convictions,
            journal=self.journal,
            left=self.handback.leaves,
            human_keys=self._human_keys,
            verifier=self._verifier,
            history=self.history,
            needs=self.needs,
            state_hash=self._state_hash,
            admissible=self._admissible,
        )
        self.private_line = PrivateLine(
            game_id=self.game_id,
            protocol=record.protocol,
            seat=seat,
            signer=self._signer,
            identity=self._identity,
            peers=self.peers,
            journal=self.journal,
            chatter=self.chatter,
            where=lambda: (self.step, self.state.state_hash()),
        )
        lag = record.timeouts.lag_ms / 1000
        self.catch_up = CatchUp(
            self.journal, self.peers, lag, self.inbox.boxes, self.history, self.convictions
        )

    @property
    def log(self) -> LogChain:
        """The LogChain of everything we signed or accepted (``journal.log``)."""
        return self.journal.log

    @log.setter
    def log(self, log: LogChain) -> None:
        self.journal.log = log

    @property
    def counters(self) -> dict[str, int]:
        """Reason code -> how many messages were dropped for it (``journal.counters``)."""
        return self.journal.counters

    @property
    def proofs(self) -> list[tuple[Signed, Signed]]:
        """Proofs of a conviction: pairs of conflicting messages (``convictions.proofs``)."""
        return self.convictions.proofs

    @property
    def step(self) -> int:
        return self.history.step

    @property
    def state(self) -> State:
        return self.history.state

    def state_at(self, step: int) -> State | None:
        """The agreed state at ``step`` (before its input), or None past the current step."""
        return self.history[step].state if 0 <= step < len(self.history) else None

    @property
    def live(self) -> frozenset[int]:
        return self.history.live

    @property
    def leaving(self) -> frozenset[int]:
        """Seats that sent a signed LEAVE (still live until the others agree on the drop)."""
        return frozenset(self.handback.leaves)

    def needs(self) -> Needs:
        snap = self.history.current
        cached = self._needs_cache
        if cached is not None and cached[0] is snap:
            return cached[1]
        needs = referee.needs_for(snap.state.decision(), snap.live)
        self._needs_cache = (snap, needs)  # decision() is costly with many seats
        return needs

    def sealed_by(self) -> tuple[int, ...]:
        """The seats whose seal of our final state we hold (ours included), ascending."""
        return self.seal_book.sealed_by()

    @property
    def over_at(self) -> float | None:
        """When the game ended here (the ``now`` of the step that ended it), None before."""
        return self.seal_book.over_at

    def sealing(self, now: float) -> bool:
        """True while it is worth waiting for the seals of the live human seats (SPEC §3)."""
        humans = (s for s in self.live if self._human_keys[s] is not None)
        return self.features.seals and self.seal_book.waiting(now, humans)

    def _state_hash(self, state: State) -> bytes:
        """``state.state_hash()``, computed once per state: every message of a step checks it."""
        cached = self._hash_cache
        if cached is not None and cached[0] is state:
            return cached[1]
        digest = state.state_hash()
        self._hash_cache = (state, digest)
        return digest

    def next_event(self) -> ev.Event | None:
        return self.journal.events.popleft() if self.journal.events else None

    def has_events(self) -> bool:
        return bool(self.journal.events)

    def take_log(self) -> bytes:
        return self.log.take()

    def note(self, code: str, text: str) -> None:
        """A local annotation in the log (e.g. the peers' addresses, for a later resume)."""
        self.log.append(self.step, EntryKind.NOTE, [code, [], text])

    def _box(self, step: int) -> StepBox:
        return self.inbox.box(step)

    def _blame(self, seat: int, code: str, reason: str, at: int | None = None) -> None:
        self.journal.blame(seat, code, reason, at)

    def _reject(self, code: str, reason: str) -> None:
        self.journal.reject(code, reason)

    def _count(self, code: str) -> None:
        self.journal.count(code)

    def _emit(self, msg_type: MsgType, payload: tuple[Any, ...], now: float) -> None:
        assert self._signer is not None and self.seat is not None
        if msg_type in ADMITTING and self.features.handback:
            payload = self._with_admission(msg_type, payload)
        msg = sign_message(
            self._signer,
            msg_type,
            self.game_id,
            self.step,
            self.seat,
            self._state_hash(self.state),
            payload,
            version=self.record.protocol,
        )
        self._record_own(msg)
        self._box(self.step).pending.append(msg)
        self._broadcast([msg.raw])
        _ = now

    def _with_admission(self, msg_type: MsgType, payload: tuple[Any, ...]) -> tuple[Any, ...]:
        """A contribution's payload with the admission it carries (protocol 5, SPEC §5.6).
        The one we already signed for this slot (a rollback re-emits it) keeps its own, so
        we never sign two different messages of one slot."""
        assert self.seat is not None
        slot = (self.step, int(msg_type), 0, self._state_hash(self.state))
        signed = self.inbox.slots.get((self.seat, slot))
        if signed is not None:
            return (*payload, *signed.payload[len(payload) :])
        admission = self._admission_for()
        return payload if admission is None else (*payload, admission)

    def _admission_for(self) -> bytes | None:
        """The REJOIN our contribution at this step carries: the lowest seat we may admit."""
        if not self.features.handback or self.seat is None:
            return None
        rejoins = self.handback.rejoins
        for seat in sorted(rejoins):
            request = rejoins[seat]
            if self._admissible(request, self.step, self.seat):
                return request.raw
        return None

    def _admissible(self, request: Signed, step: int, carrier: int) -> bool:
        """Whether ``carrier``'s contribution at ``step`` admits ``request``'s seat (the
        signature is checked by the caller)."""
        seat = request.seat
        if seat == carrier or seat in self.history[step].live:
            return False
        if self.convictions.since(seat, step):
            return False  # a cheat (equivocation, bad reveal, desync, flood) never comes back
        dropped = self._dropped_at(seat, step)
        if dropped is None or dropped > request.step:
            return False
        # protocol 6: after the turn it was dropped in, and so often (SPEC §5.6)
        return self.handback.may_return(seat, dropped, step, self._turn_starts)

    def _dropped_at(self, seat: int, step: int) -> int | None:
        """The step of ``seat``'s latest drop at or before ``step`` (None: never dropped)."""
        for k in range(step, -1, -1):
            if seat in self.history[k].live:
                return None if k == step else k + 1
        return 0 if seat < len(self._human_keys) and self._human_keys[seat] else None

    def _turn_starts(self, step: int) -> bool:
        """The agreed state at ``step`` starts a turn."""
        return self.history[step].state.awaited().turn_starts

    def _request_room(self, kind: MsgType) -> bool:
        """Our own VOTE or NUDGE for this step stays within the bound the others hold us
        to (one more would convict us of a flood); counted across rollbacks."""
        assert self.seat is not None
        return self.vote_book.count(self.seat, self.step, kind)

    def _send_sync(self) -> None:
        """SYNC(from our step): every peer sends what it holds from there on (SPEC §5.6)."""
        assert self._signer is not None and self.seat is not None
        msg = sign_message(
            self._signer,
            MsgType.SYNC,
            self.game_id,
            self.step,
            self.seat,
            self._state_hash(self.state),
            (self.step,),
            version=self.record.protocol,
        )
        if not self.chatter.room(msg):  # (a 9th rollback of this step): ask as before
            last = self.chatter.last_own(self.seat, self.step, MsgType.SYNC)
            if last is None:
                return
            msg = parse_unverified(last)
        self._broadcast([msg.raw])

    def _record_own(self, msg: Signed) -> None:
        assert self.seat is not None
        self.inbox.slots[(self.seat, msg.slot)] = msg
        self.log.append(msg.step, EntryKind.MSG, msg.raw)

    def _broadcast(self, raws: list[bytes]) -> None:
        self.journal.broadcast(raws)

    def _action_bytes(self, action: Action) -> bytes:
        from lanTag import wire

        return wire.pack(action.to_msgpack())

    @staticmethod
    def _fits(msg_type: MsgType, kind: NeedKind) -> bool:
        return FITS[msg_type] is kind

    def _commits_complete(self, box: StepBox, needs: Needs) -> bool:
        got = box.of(MsgType.COMMIT)
        if len(got) < len(needs.humans):
            return False  # a needed seat is missing, whatever the others are
        done = box.commits_done
        if done is not None and done[0] is needs and done[1] == len(got):
            return True  # commitments are only removed with a new snapshot (drops): new needs
        if all(s in got for s in needs.humans):
            box.commits_done = (needs, len(got))
            return True
        return False

    def _next_reveal(self) -> bytes:
        assert self._chain is not None and self.seat is not None
        return self._chain.reveal(self.history.current.chain_used[self.seat] + 1)

    def _check_hash(self, msg: Signed, snap: Snapshot) -> bool:
        """A message at our step carries our state hash; one that does not is refused and
        kept as evidence (SPEC §5.8), but never makes us ignore its seat for good."""
        if msg.state_hash == self._state_hash(snap.state):
            self.claims.agrees(msg.seat)
            return True
        if msg.seat == self.seat or any(k <= msg.step for k in self.convictions.banned.values()):
            self._count("stale-history")  # sent before its author (or we) rolled back
            return False
        if self.claims.differs(msg.seat):
            self.journal.events.append(ev.Desync(msg.step, (msg.seat,)))
            self._blame(msg.seat, "desync", f"state hash differs at step {msg.step}", msg.step)
            if not self.replay:
                self._broadcast([msg.raw])  # the others check it against their own state
        return False

    def _convict(
        self, seat: int, step: int, code: str, reason: str, proof: tuple[Signed, Signed]
    ) -> None:
        """Signed evidence against ``seat`` (SPEC §4.4, §5.7): blame it, keep and send the
        proof, and drop the seat at ``step`` (the pump applies it before deciding)."""
        self._blame(seat, code, reason, step)
        self.convictions.proofs.append(proof)
        if not self.replay:
            self._broadcast([m.raw for m in proof])
        self.convictions.ban(seat, step)
        self.late_judge.note_cheat(seat, step)

    def _maybe_reveal(self, box: StepBox, now: float) -> None:
        """Reveal our secret choice once every commitment is in; in protocol 6 the REVEAL
        names the vector of commitments we hold (SPEC §4.4).  A REVEAL we already signed on
        this state (before a rollback) is sent again as it is, never a second one."""
        if self.replay or self.seat is None or box.sent_reveal or not self.sealed.holds(self.step):
            return
        needs = self.needs()
        vector = None
        if self.features.round_acks:
            if not self._commits_complete(box, needs):
                return  # (a restart recovering its choice: revealed once they are in)
            vector = self.round_acks.vector(box, needs)
        box.sent_reveal = True
        slot = (self.step, int(MsgType.REVEAL), 0, self._state_hash(self.state))
        signed = self.inbox.slots.get((self.seat, slot))
        if signed is not None:
            self._broadcast([signed.raw])
            return
        action, nonce = self.sealed.at(self.step)
        payload = (action.to_msgpack(), nonce, self._next_reveal())
        self._emit(MsgType.REVEAL, payload if vector is None else (*payload, vector), now)

    def _own_final(self, move: Signed, box: StepBox) -> bool:
        # Our own move counts once another live peer took it, or when nobody else is live.
        if move.seat != self.seat:
            return True
        others = self.live - {move.seat}
        if not others:
            return True
        return any(v in others for v in box.haves.get(move.seat, {}))


def supersedes(first: Signed, msg: Signed) -> bool:
    """Whether ``msg`` may replace ``first`` in the same slot instead of being an equivocation.

    Only a HAVE may grow (commit, then commit and reveal); any other message must repeat
    exactly.  Public because the Session (session/lockstep.py) and the plain replay lane
    (log/plain_replay.py) must answer this question identically.
    """
    return have_within(first, msg) and not have_within(msg, first)


def stale_have(first: Signed, msg: Signed) -> bool:
    """Whether ``msg`` is an older acknowledgement than ``first`` (a HAVE of the same slot
    naming a subset of its digests), not an equivocation.

    An honest peer's HAVEs for one subject grow (its COMMIT, then COMMIT and REVEAL); a
    relay carries them along another path than the seat's own link, so a peer may get the
    larger one first.  Counted as a duplicate, never blamed (protocol 4; a protocol-3 peer
    blamed it `equivocation` without dropping anyone, a HAVE being no contribution).
    """
    return have_within(msg, first)


def bundles(raws: list[bytes]) -> list[bytes]:
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
