"""verify_log's fast lane: one pass over a log in which nothing unusual happened.

The full replay (lanTag.log.verify) runs the live Session machine message by message,
with its pending queues, votes, drops, rollbacks and blames.  Most logs never need any
of that: they are *plain*.  In a plain log every message parses, carries a good signature
of a human seat, is for this game, and is either new or an exact repeat; every message
for the current step carries the current state hash and is what the step needs from its
seat (a MOVE on its turn, an ENTROPY for a draw, a COMMIT, a REVEAL that opens it), every
move is legal and every chain link follows; no VOTE, NUDGE, SYNC, CHAT or PRIVATE appears;
and every STEP entry records the step that the messages decided.

``PlainReplay.report`` replays such a log step by step and returns what the full replay would
report for it.  At the first thing that is not plain it returns None, having changed
nothing, and verify_log runs the full replay from the start: the full replay stays the
definition, this module only skips its bookkeeping where the definition cannot branch.
Where a rule below mirrors the Session, the comment names the Session code it mirrors;
tests/log/test_plain_replay.py checks that both replays give the same report, field
by field, on plain logs, on logs with drops and blames, and on tampered logs.
"""

from __future__ import annotations

from collections.abc import Sequence

from lanTag.errors import LanTagError
from lanTag.fair.commit import opens
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.log.entries import EntryKind, Row
from lanTag.log.report import VerifyReport, step_row_failure
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Input,
    Joint,
    Move,
    Roll,
)
from lanTag.session import events as ev
from lanTag.session import referee
from lanTag.session.compatibility import require_rules
from lanTag.session.core import FITS, STEP_WINDOW, TAKEOVER_BOT, stale_have, supersedes
from lanTag.session.features import Features
from lanTag.session.lobby_record import LobbyRecord, start_state
from lanTag.session.messages import SPECS, MsgType, Signed, reveal_value
from lanTag.session.referee import NeedKind, step_facts
from lanTag.session.steps import unacknowledged

_RARE = frozenset(t for t, s in SPECS.items() if not s.plain)


class NotPlain(LanTagError):
    """The log needs the full replay from here (a vote, a blame, a tampered entry...)."""


class PlainReplay:
    """One replay: the current step's state and contributions, and what is buffered ahead.

    Made from the log's header, before anything else is read: it raises what the Session
    made from that header raises (an unknown engine, bad options...)."""

    def __init__(self, record: LobbyRecord, game_id: bytes, writer: int | None) -> None:
        self.record = record
        self.game_id = game_id
        self.writer = writer
        self.protocol = record.protocol
        self.features = Features.of(record.protocol)
        require_rules(record.engine, record.rules_version)
        seats = record.seats
        self.human = tuple(not s.is_bot for s in seats)
        self.live = frozenset(i for i, s in enumerate(seats) if not s.is_bot)
        self.state = start_state(record)
        self.chain_last = [s.anchor for s in seats]
        self.step = 0
        self.slots: dict[tuple[int, tuple[int, int, int, bytes]], Signed] = {}
        self.ahead: dict[int, list[Signed]] = {}  # step -> its messages, in log order
        self.applied: list[ev.StepApplied] = []
        self.recorded = 0  # how many of ``applied`` a STEP entry has recorded
        self.steps_recorded = 0
        self.signatures = 0
        self._begin_step(self.state.state_hash())
        self._decide()  # bot turns before anyone speaks (Session.__init__ pumps once)

    def report(
        self,
        rows: Sequence[Row],
        checked: Sequence[tuple[Signed, bool] | None],
        parse_error: str,
        report: VerifyReport,
    ) -> bool:
        """Fill ``report`` as the full replay would and return True, or return False
        (``report`` untouched) when the log is not plain.  ``checked``: every message row
        parsed, with its signature's verdict (verify.py's ``_check_signatures``)."""
        if parse_error:
            return False  # the full replay reports where the log breaks off
        try:
            self._run(rows, checked)
        except NotPlain:
            return False
        report.steps = self.steps_recorded
        report.signatures_verified = self.signatures
        report.applied = self.applied
        report.rolls_verified = sum(type(a.input) is Roll for a in self.applied)
        report.secrets_verified = sum(type(a.input) is Joint for a in self.applied)
        report.finish(self.state)
        return True

    # -- the log ------------------------------------------------------------

    def _run(self, rows: Sequence[Row], checked: Sequence[tuple[Signed, bool] | None]) -> None:
        for index, step, _prev, kind, data, _raw in rows[1:]:
            if kind == EntryKind.MSG:
                got = checked[index]
                if got is None or not got[1] or got[0].step != step:
                    raise NotPlain  # not bytes, does not parse, a bad signature, misdated
                self._receive(got[0])
            elif kind == EntryKind.STEP:
                if self.recorded == len(self.applied):
                    raise NotPlain  # recorded, not decided
                if step_row_failure(index, step, data, self.applied[self.recorded]):
                    raise NotPlain
                self.recorded += 1
                self.steps_recorded = max(self.steps_recorded, step + 1)
            elif kind != EntryKind.NOTE:
                raise NotPlain  # a second header

    def _receive(self, msg: Signed) -> None:
        """Session.receive_parsed for a message that is plain, else NotPlain."""
        if msg.game_id != self.game_id or msg.type in _RARE or msg.version != self.protocol:
            raise NotPlain
        if not (msg.seat < len(self.human) and self.human[msg.seat]):
            raise NotPlain  # not a human seat of this game
        slot = (msg.seat, msg.slot)
        first = self.slots.get(slot)
        if first is not None and not supersedes(first, msg):
            if first.raw != msg.raw and not stale_have(first, msg):
                raise NotPlain  # equivocation
            return  # a repeat (or an earlier HAVE): counted by nobody, checked by its first
        self.signatures += 1
        if msg.type is MsgType.SEAL:
            # Checked after the replay against the final state (lanTag.log.seals), as the
            # Session in replay mode does; in a game older than seals the full replay says why.
            if not self.features.seals:
                raise NotPlain
            self.slots[slot] = msg
            return
        # A contribution's admission (protocol 5) is never read here: it admits a dropped
        # seat only, and no plain log drops anyone (a drop takes VOTEs or a proof).
        if msg.step > self.step + STEP_WINDOW:
            raise NotPlain  # "too-far"
        self.slots[slot] = msg
        if msg.step < self.step:
            # A HAVE for a decided step changes nothing in a replay; a contribution for one
            # waits in its old box forever (Session.receive_parsed and _pump).
            return
        if msg.step > self.step:
            self.ahead.setdefault(msg.step, []).append(msg)
            return
        self._accept(msg)
        self._decide()

    # -- the current step -----------------------------------------------------

    def _begin_step(self, state_hash: bytes) -> None:
        self.needs = referee.needs_for(self.state.decision(), self.live)
        self.hash = state_hash
        self.moves: dict[int, Signed] = {}
        self.entropy: dict[int, Signed] = {}
        self.commits: dict[int, Signed] = {}
        self.reveals: dict[int, Signed] = {}
        self.waiting: list[Signed] = []  # REVEALs before every COMMIT is in
        self.acked: set[int] = set()  # voters of a HAVE for the writer's move
        self.haves: dict[int, dict[int, Signed]] = {}  # subject -> voter -> its HAVE here
        self.checked: dict[int, Action] = {}  # actions that passed check_action here

    def _accept(self, msg: Signed) -> None:
        """Intake._try_accept (and _check_reveal) for a plain message."""
        if msg.state_hash != self.hash:
            raise NotPlain  # a desync, or a message from another history
        kind = msg.type
        if kind is MsgType.HAVE:
            if msg.payload[0] == self.writer:
                self.acked.add(msg.seat)
            self.haves.setdefault(msg.payload[0], {})[msg.seat] = msg
            return
        needs = self.needs
        if msg.seat not in needs.humans or FITS[kind] is not needs.kind:
            raise NotPlain  # out of turn
        seat = msg.seat
        if kind is MsgType.MOVE:
            self._check_action(seat, msg.action)
            self.moves[seat] = msg
        elif kind is MsgType.ENTROPY:
            if not chain_step_ok(self.chain_last[seat], msg.payload[0]):
                raise NotPlain
            self.entropy[seat] = msg
        elif kind is MsgType.COMMIT:
            self.commits[seat] = msg
            if self.waiting and len(self.commits) == len(needs.humans):
                waiting, self.waiting = self.waiting, []
                for reveal in waiting:
                    self._accept_reveal(reveal)
        elif len(self.commits) < len(needs.humans):
            self.waiting.append(msg)  # "nobody's reveal is taken before every commitment"
        else:
            self._accept_reveal(msg)

    def _accept_reveal(self, msg: Signed) -> None:
        seat = msg.seat
        action, nonce, link = msg.action, msg.payload[1], msg.payload[2]
        if not chain_step_ok(self.chain_last[seat], link):
            raise NotPlain
        sealed = self.commits[seat].payload[0]
        value = reveal_value(msg)
        if not opens(sealed, self.game_id, self.step, seat, self.needs.secret_kind, nonce, value):
            raise NotPlain
        self._check_action(seat, action)
        self.reveals[seat] = msg

    def _unacknowledged(self) -> bool:
        """Session._unacknowledged: protocol 4 and 5, another live seat (not the writer) has
        not signed a HAVE naming the COMMIT held of some other seat of the round (protocol
        6: a REVEAL or round HAVE naming the vector of every COMMIT held); protocol 3, a
        live seat outside the round has not acknowledged some commitment of it (SPEC §4.4)."""
        humans = self.needs.humans
        if self.features.named_acks:
            commits = {s: self.commits[s] for s in humans if s in self.commits}
            return bool(
                unacknowledged(
                    self.protocol,
                    commits,
                    self.haves,
                    self.reveals,
                    self.live,
                    self.writer,
                    self.hash,
                )
            )
        if not self.features.outsider_acks or len(self.live) <= len(humans):
            return False
        return any(
            voter not in self.haves.get(subject, ())
            for voter in self.live
            if voter != self.writer and voter not in humans
            for subject in humans
        )

    def _check_action(self, seat: int, action: Action) -> None:
        try:
            self.state.check_action(seat, action)
        except IllegalAction:
            raise NotPlain from None
        self.checked[seat] = action

    def _decide(self) -> None:
        """Session._decided_input then _apply, until a step waits for messages."""
        while (inp := self._decided_input()) is not None:
            facts = (
                () if type(inp) is Move else step_facts(self.protocol, self.state.decision(), inp)
            )
            state = self.state.apply(inp, actions_checked=referee.all_checked(self.checked, inp))
            for msg in self.entropy.values():
                self.chain_last[msg.seat] = msg.payload[0]
            for msg in self.reveals.values():
                self.chain_last[msg.seat] = msg.payload[2]
            self.state = state
            digest = state.state_hash()
            self.applied.append(ev.StepApplied(self.step, inp, digest, facts, self.live))
            self.step += 1
            self._begin_step(digest)
            for msg in self.ahead.pop(self.step, ()):
                self._accept(msg)

    def _decided_input(self) -> Input | None:
        needs, state = self.needs, self.state
        kind = needs.kind
        if kind is NeedKind.TURN:
            seat = needs.humans[0]
            move = self.moves.get(seat)
            if move is None:
                return None
            if seat == self.writer and (self.live - {seat}) and not self.acked - {seat}:
                return None  # our own move counts once another live peer took it (_own_final)
            return Move(seat, move.action)
        if kind is NeedKind.BOT_TURN:
            seat = needs.bots[0]
            bot = self.record.seats[seat].bot or TAKEOVER_BOT
            return Move(seat, referee.bot_turn_action(state, self.game_id, self.step, seat, bot))
        if kind is NeedKind.ENTROPY:
            got = self.entropy
            if len(got) < len(needs.humans):
                return None
            decision = state.decision()
            assert isinstance(decision, Chance)
            links = {s: got[s].payload[0] for s in needs.humans}
            return referee.chance_roll(decision, self.game_id, self.step, links)[0]
        if kind is NeedKind.SECRET:
            got = self.reveals
            if len(got) < len(needs.humans) or self._unacknowledged():
                return None
            actions = {s: got[s].action for s in needs.humans}
            reveals = {s: got[s].payload[2] for s in needs.humans}
            bots = {s: self.record.seats[s].bot or TAKEOVER_BOT for s in needs.bots}
            return referee.joint_choice(state, self.game_id, self.step, actions, reveals, bots)
        return None  # over: nothing more is decided
