"""The withhold-and-rejoin cheat of issue #38, on one seat's Session.

A roll asks every live seat for its next chain link at once (SPEC §4.3).  The cheat holds
its own link back and reads the others' first; when the roll without its link is better for
it, it never sends it: the table votes it out for silence (or, with ``leave``, it sends a
LEAVE), the roll is drawn without its link, and it signs a REJOIN to be given back (what
``lantag join --resume`` does).  Everything else it does is its session's, honestly.

:class:`Withholder` wraps a live Session in place: its transport (our link is held until
the choice; nothing of ours at a withheld step is sent: silent there) and its
``receive_payload`` (the others' links of a roll reach the session only once we chose, so
it never decides the roll with our link and moves on).  It works on the simulated network
(``tests/session``) and, through :class:`tests.support.adversary.Adversary`, in a real
process (``scripts/withhold_runs.py``).  Test code only: nothing in the product imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lanTag.errors import RemoteProtocolError
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.rules.base import Chance, Roll, State
from lanTag.session import referee
from lanTag.session.core import bundles
from lanTag.session.lockstep import MAX_LINK_PAYLOAD, Session
from lanTag.session.messages import (
    MsgType,
    Signed,
    parse_unverified,
    sign_message,
    unpack_bundle,
)
from lanTag.session.referee import NeedKind
from lanTag.session.transport import Addr
from tests.support.rewriting import RewritingWithExtras

# What the cheat never sends at a step it withholds at (its session answers the others'
# nudges with a HAVE of its own link and the link itself).
_QUIET = (MsgType.VOTE, MsgType.NUDGE, MsgType.HAVE)
# How much a roll is worth to ``seat`` (higher is better), or None: it does not care.
Gain = Callable[[State, Roll, int], float | None]


def own_pips(state: State, roll: Roll, seat: int) -> float | None:
    """The issue's attacker: its own rolls (``awaited().seats`` is just it), more pips better."""
    if state.awaited().seats != (seat,):
        return None
    return float(sum(sum(values) for values in roll.values))


def lands_on_me(state: State, roll: Roll, seat: int) -> float | None:
    """The toy engine's bonus roll (tests/session/toygame.py): the bonus point lands on a seat
    by the die; 1 when it is ours."""
    seats = len(state.to_obj()[5])
    return 1.0 if (roll.values[0][0] - 1) % seats == seat else 0.0


@dataclass(frozen=True)
class Choice:
    """One roll the cheat chose at: the roll with its link and without, and what it did."""

    step: int
    seats: tuple[int, ...]  # whose roll (``awaited().seats``; empty: the table's)
    with_link: Roll
    without: Roll
    withheld: bool


@dataclass
class Withholder:
    """Installed on ``session`` (a live seat): withholds where ``gain`` says it pays.

    ``careful``: withhold only while the table may still give the seat back (it never
    gives up its seat for good); otherwise whenever the roll without its link is better
    (the issue's attacker).  ``leave``: withhold with a signed LEAVE instead of silence.
    ``always``: withhold at every roll it may (the stall loop), whatever the rolls.
    ``chatty``: while it withholds, keep talking at that step (a HAVE of a made-up subject
    about every half step timeout), so that the others hear it there.  ``aware``: it knows
    protocol 6's withheld roll (SPEC §5.5): the roll without its link, at its own roll, is
    its forfeit (``State.withheld_roll``), not a draw; otherwise it believes the roll is
    drawn from the others' links (the issue's attacker, and the rule at a roll not its own)."""

    session: Session
    gain: Gain = own_pips
    careful: bool = False
    leave: bool = False
    always: bool = False
    chatty: bool = False
    aware: bool = False
    _chatted: tuple[int, float, int] = (-1, 0.0, 0)  # (step, when, how many) of our chatter
    choices: list[Choice] = field(default_factory=list)
    _released: set[int] = field(default_factory=set)  # steps whose link we sent
    _withheld: set[int] = field(default_factory=set)  # steps whose link we never send
    _held_in: dict[int, list[bytes]] = field(default_factory=dict)  # their links, by step
    _held_out: dict[int, list[tuple[Addr, bytes]]] = field(default_factory=dict)  # ours

    def __post_init__(self) -> None:
        s = self.session
        assert s.seat is not None and not s.replay
        self.seat = s.seat
        self._deliver = s.receive_payload
        self._timer = s.handle_timer
        s.transport = RewritingWithExtras(s.transport, self._outgoing)
        s.receive_payload = self._incoming  # type: ignore[method-assign]
        s.handle_timer = self._on_timer  # type: ignore[method-assign]
        s.rejoin.ask_back(0.0)  # whenever it is dropped, it asks for its seat back

    # -- the wire ------------------------------------------------------------------------

    def _outgoing(self, raw: bytes, addr: Addr) -> list[bytes]:
        msg = parse_unverified(raw)  # our own session's: well formed
        if msg.seat != self.seat:
            return [raw]
        if msg.type is MsgType.ENTROPY and msg.step not in self._released:
            if msg.step not in self._withheld:
                self._held_out.setdefault(msg.step, []).append((addr, raw))
            return []
        if msg.type in _QUIET and msg.step in self._withheld:
            return []  # silent at the step it withholds at
        return [raw]

    def _incoming(self, payload: bytes, now: float) -> None:
        try:
            raws = unpack_bundle(payload, MAX_LINK_PAYLOAD)
        except RemoteProtocolError:
            raws = []
            self._deliver(payload, now)  # the session says what is wrong with it
        for raw in raws:
            try:
                hold = self._hold(parse_unverified(raw))
            except RemoteProtocolError:
                hold = False
            if hold:
                self._held_in.setdefault(parse_unverified(raw).step, []).append(raw)
            else:
                self.session.receive_message(raw, now)
        self.poll(now)

    def _on_timer(self, now: float) -> None:
        self._timer(now)
        self.poll(now)  # a drop decided on a timer may bring us to a roll

    def _hold(self, msg: Signed) -> bool:
        """Another seat's link of a roll we have not chosen at (while we play our seat)."""
        s = self.session
        return (
            msg.type is MsgType.ENTROPY
            and msg.seat != self.seat
            and msg.step >= s.step
            and msg.step not in self._released
            and self.seat in s.live
        )

    # -- the choice ------------------------------------------------------------------------

    def poll(self, now: float) -> None:
        """Choose at the current roll once every other live seat's link is in; hand the
        held links to the session once chosen (or once we are dropped)."""
        s = self.session
        if self.seat not in s.live:
            for step in sorted(self._held_in):
                self._release_in(step, now)
            return
        step, needs = s.step, s.needs()
        if self.chatty and step in self._withheld:
            self._chat(now)
        if needs.kind is not NeedKind.ENTROPY or step in self._released | self._withheld:
            return
        decision = s.state.decision()
        assert isinstance(decision, Chance)
        links = self._their_links(step)
        if not set(needs.humans) - {self.seat} <= set(links):
            return  # not every other link yet
        mine = s._next_reveal()
        with_link = referee.chance_roll(decision, s.game_id, step, {**links, self.seat: mine})[0]
        without = referee.chance_roll(decision, s.game_id, step, links)[0]
        own = s.features.withheld and self.seat in s.state.roll_owners()
        if self.aware and own:
            without = s.state.withheld_roll((self.seat,))  # what the table would apply
        gain_with = self.gain(s.state, with_link, self.seat)
        gain_without = self.gain(s.state, without, self.seat)
        may = not self.careful or bool(s.rejoin.handbacks_left(self.seat))
        better = gain_with is not None and gain_without is not None and gain_without > gain_with
        withhold = may and (better or self.always)
        self.choices.append(Choice(step, s.state.awaited().seats, with_link, without, withhold))
        if withhold:
            self._withheld.add(step)
            self._held_out.pop(step, None)
            if self.leave:
                s.leave(now)
            return
        self._released.add(step)
        for addr, raw in self._held_out.pop(step, []):
            for bundle in bundles([raw]):
                s.transport.send(addr, bundle, now)
        self._release_in(step, now)

    def _chat(self, now: float) -> None:
        s = self.session
        at, last, said = self._chatted
        if at == s.step and now < last + s.record.timeouts.step_ms / 2000:
            return
        said = said + 1 if at == s.step else 1
        self._chatted = (s.step, now, said)
        assert s._signer is not None
        have = sign_message(
            s._signer,
            MsgType.HAVE,
            s.game_id,
            s.step,
            self.seat,
            s.state.state_hash(),
            (10_000 + said, [bytes(32)]),
            version=s.record.protocol,
        )
        inner = s.transport.inner if isinstance(s.transport, RewritingWithExtras) else s.transport
        for seat, addr in s.peers.items():
            if seat == self.seat:
                continue
            for bundle in bundles([have.raw]):
                inner.send(addr, bundle, now)

    def _their_links(self, step: int) -> dict[int, bytes]:
        s = self.session
        ours = s.state.state_hash()
        last = s.history[-1].chain_last
        # Links our session took before we were live again (a hand-back learnt after they
        # came: ``_hold`` passed them on), then the ones we hold.
        got = s._box(step).of(MsgType.ENTROPY)
        links = {seat: m.payload[0] for seat, m in got.items() if seat != self.seat}
        for raw in self._held_in.get(step, []):
            msg = parse_unverified(raw)
            if msg.state_hash == ours and chain_step_ok(last[msg.seat], msg.payload[0]):
                links.setdefault(msg.seat, msg.payload[0])
        return links

    def _release_in(self, step: int, now: float) -> None:
        for raw in self._held_in.pop(step, []):
            self.session.receive_message(raw, now)
