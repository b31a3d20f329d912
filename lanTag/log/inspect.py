"""What each roll and secret round of a log was made of (pure: log entries in, values out).

For the replay viewer's fairness panel: per roll, every contributing seat's hash-chain
link, whether it hashes to that seat's previous link, the draw seed and the values
derived from it; per secret round, every seat's commitment, its opening (action and
nonce) and whether it opens.  Everything is recomputed from the logged messages with
the protocol's own fair/ and referee code (SPEC §4), so a mismatch with the recorded
step is visible.  Signatures are not checked here: that is verify_log's job, and the
viewer only shows logs it verified (or says NOT VALID under --force).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.fair.commit import opens
from lanTag.fair.hash_chain import chain_step_ok
from lanTag.log.entries import Entry, EntryKind
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Joint,
    Roll,
    Simultaneous,
    State,
    input_text,
)
from lanTag.session import events as ev
from lanTag.session import referee
from lanTag.session.core import TAKEOVER_BOT
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, Signed, parse_unverified

_FAIR_TYPES = (MsgType.ENTROPY, MsgType.COMMIT, MsgType.REVEAL)


@dataclass(frozen=True, slots=True)
class Link:
    """One seat's hash-chain contribution: ``H(link)`` must equal its previous link."""

    seat: int
    link: bytes
    previous: bytes
    previous_step: int | None  # the step that revealed ``previous``; None: the lobby anchor
    chains: bool


@dataclass(frozen=True, slots=True)
class RollDetail:
    step: int
    purpose: str
    links: tuple[Link, ...]  # every live seat's ENTROPY, ascending; only chaining ones count
    seed: bytes
    derived: Roll  # recomputed from ``seed`` (or the withheld roll of ``withheld``)
    recorded: Roll  # what the log applied
    withheld: tuple[int, ...] = ()  # seats dropped at their own roll: not drawn (SPEC §5.5)

    @property
    def ok(self) -> bool:
        return self.derived == self.recorded and all(k.chains for k in self.links)


@dataclass(frozen=True, slots=True)
class Seal:
    """One seat's sealed choice and its opening (either may be missing from a log)."""

    seat: int
    commitment: bytes | None
    action: Action | None
    nonce: bytes | None
    link: Link | None
    opens: bool  # the (nonce, action) pair recomputes ``commitment``
    legal: bool

    @property
    def ok(self) -> bool:
        return self.opens and self.legal and self.link is not None and self.link.chains


@dataclass(frozen=True, slots=True)
class SecretDetail:
    step: int
    purpose: str
    seals: tuple[Seal, ...]  # the person seats that took part, ascending
    bots: tuple[int, ...]  # seats whose choice is drawn from the seals' links (SPEC §4.5)
    derived: Joint  # recomputed from the seals
    recorded: Joint

    @property
    def ok(self) -> bool:
        return self.derived == self.recorded and all(s.ok for s in self.seals)


Detail = RollDetail | SecretDetail


def inspect_steps(
    record: LobbyRecord,
    entries: Iterable[Entry],
    steps: Sequence[tuple[ev.StepApplied, bytes, State]],
) -> list[Detail | None]:
    """One detail per applied step (None for moves), in order.

    ``steps`` holds (the verifier's decision of the step, the state hash before it, the
    state before it); the hash picks the messages of the history that was applied, so
    messages left over from a rolled-back branch are ignored.  Whose input counted comes
    from the decision itself (``StepApplied.live``, ``dropped_now``, ``convicted_now``):
    the replay's own record of drops, hand-backs and convictions, so a seat given back
    is live again here exactly where the verifier made it live.
    """
    game_id = record.game_id
    by_slot = _messages(entries, game_id)
    # Per seat: its latest link and the step that revealed it (None: the lobby anchor).
    last: list[tuple[bytes, int | None]] = [(s.anchor, None) for s in record.seats]
    out: list[Detail | None] = []
    for applied, hash_before, state in steps:
        step = applied.step
        shown = set(applied.live | applied.convicted_now)  # a convicted seat's failed opening
        msgs = _first_per_seat(by_slot.get((step, hash_before), []), shown)
        links: dict[tuple[MsgType, int], Link] = {
            (kind, seat): _link(seat, msg.payload[0 if kind == MsgType.ENTROPY else 2], last)
            for (kind, seat), msg in msgs.items()
            if kind in (MsgType.ENTROPY, MsgType.REVEAL)
        }
        decision = state.decision()
        detail: Detail | None = None
        if isinstance(applied.input, Roll) and isinstance(decision, Chance):
            detail = _roll(decision, game_id, step, applied.input, links)
            if applied.withheld_now:  # dropped at its own roll: its withheld roll (§5.5)
                seats = tuple(sorted(applied.withheld_now))
                derived = state.withheld_roll(seats)
                detail = replace(detail, derived=derived, withheld=seats)
        elif isinstance(applied.input, Joint) and isinstance(decision, Simultaneous):
            detail = _secret(record, state, decision, applied, applied.input, msgs, links)
        out.append(detail)
        # As the session does after applying a step: every link of a live seat that chains
        # moves the seat on (a convicted seat's contribution was never taken).
        for (_kind, seat), link in links.items():
            if link.chains and seat in applied.live:
                last[seat] = (link.link, step)
    return out


def _messages(entries: Iterable[Entry], game_id: bytes) -> dict[tuple[int, bytes], list[Signed]]:
    """The fairness messages by (step, state hash), in log order."""
    out: dict[tuple[int, bytes], list[Signed]] = {}
    for entry in entries:
        if entry.kind != EntryKind.MSG or not isinstance(entry.data, bytes):
            continue
        try:
            msg = parse_unverified(entry.data)
        except RemoteProtocolError:
            continue  # unusable bytes: verification reports them, there is nothing to show
        if msg.game_id == game_id and msg.type in _FAIR_TYPES:
            out.setdefault((msg.step, msg.state_hash), []).append(msg)
    return out


def _first_per_seat(msgs: list[Signed], seats: set[int]) -> dict[tuple[MsgType, int], Signed]:
    # The session keeps the first message of a slot; a second one is an equivocation.
    out: dict[tuple[MsgType, int], Signed] = {}
    for msg in msgs:
        if msg.seat in seats:
            out.setdefault((msg.type, msg.seat), msg)
    return out


def _link(seat: int, link: bytes, last: list[tuple[bytes, int | None]]) -> Link:
    previous, at = last[seat]
    return Link(seat, link, previous, at, chain_step_ok(previous, link))


def _roll(
    decision: Chance,
    game_id: bytes,
    step: int,
    recorded: Roll,
    links: dict[tuple[MsgType, int], Link],
) -> RollDetail:
    shown = sorted(
        (k for (kind, _s), k in links.items() if kind == MsgType.ENTROPY), key=lambda k: k.seat
    )
    # The session refuses an ENTROPY that does not chain, so only chaining links count.
    used = {k.seat: k.link for k in shown if k.chains}
    derived, seed = referee.chance_roll(decision, game_id, step, used)
    return RollDetail(step, decision.purpose, tuple(shown), seed, derived, recorded)


def _secret(
    record: LobbyRecord,
    state: State,
    decision: Simultaneous,
    applied: ev.StepApplied,
    recorded: Joint,
    msgs: dict[tuple[MsgType, int], Signed],
    links: dict[tuple[MsgType, int], Link],
) -> SecretDetail:
    game_id, step = record.game_id, applied.step
    # The session's needs: the round's live person seats reveal; one dropped at this very
    # step takes its forfeit (convicted: its failed opening is shown) or its default
    # (silent); any other seat of the round is a bot (a replicated one, or a seat dropped
    # before this step, played by the takeover bot).
    shown = sorted(s for s in decision.seats if s in applied.live or s in applied.convicted_now)
    seals: list[Seal] = []
    actions: dict[int, Action] = {}
    reveals: dict[int, bytes] = {}
    for seat in shown:
        seal = _seal(state, game_id, step, decision.kind, seat, msgs, links)
        seals.append(seal)
        if seat in applied.live and seal.ok and seal.action is not None:
            actions[seat] = seal.action
            if seal.link is not None:
                reveals[seat] = seal.link.link
        else:  # a seal that fails in any way convicts: the seat forfeits (SPEC §4.4)
            actions[seat] = state.forfeit_action(seat)
    for seat in decision.seats:
        if seat in applied.dropped_now and seat not in actions:
            # withheld after another seat revealed (protocol 6, SPEC §5.5): its forfeit
            withheld = seat in applied.withheld_now
            actions[seat] = state.forfeit_action(seat) if withheld else state.default_action(seat)
    bots = {s: record.seats[s].bot or TAKEOVER_BOT for s in decision.seats if s not in actions}
    derived = referee.joint_choice(state, game_id, step, actions, reveals, bots)
    return SecretDetail(step, decision.kind, tuple(seals), tuple(sorted(bots)), derived, recorded)


def _seal(
    state: State,
    game_id: bytes,
    step: int,
    purpose: str,
    seat: int,
    msgs: dict[tuple[MsgType, int], Signed],
    links: dict[tuple[MsgType, int], Link],
) -> Seal:
    commit = msgs.get((MsgType.COMMIT, seat))
    reveal = msgs.get((MsgType.REVEAL, seat))
    sealed = commit.payload[0] if commit is not None else None
    if reveal is None:
        return Seal(seat, sealed, None, None, None, False, False)
    action, nonce = Action.from_msgpack(reveal.payload[0]), reveal.payload[1]
    value = wire.pack(action.to_msgpack())
    opened = sealed is not None and opens(sealed, game_id, step, seat, purpose, nonce, value)
    try:
        state.check_action(seat, action)
        legal = True
    except IllegalAction:
        legal = False
    return Seal(seat, sealed, action, nonce, links.get((MsgType.REVEAL, seat)), opened, legal)


# ------------------------------------------------------------------ text


def short(data: bytes | None) -> str:
    """A hex prefix long enough to find the bytes in a dump of the log."""
    return "—" if data is None else data.hex()[:10]


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def _chain_text(link: Link) -> str:
    source = "its anchor" if link.previous_step is None else f"its step-{link.previous_step} link"
    if link.chains:
        return f"✓ hashes to {source}"
    return f"✗ does not hash to {source} {short(link.previous)}"


def describe(detail: Detail) -> list[str]:
    """The detail as text lines (the headless replay and the viewer's fairness panel)."""
    if isinstance(detail, RollDetail):
        lines = [f"fairness: step {detail.step} roll, {detail.purpose}"]
        lines += [f"  seat {k.seat} link {short(k.link)} {_chain_text(k)}" for k in detail.links]
        lines.append(
            f"  seed {short(detail.seed)} = H(game, step, purpose, "
            f"{sum(k.chains for k in detail.links)} chaining link(s))"
        )
        if detail.withheld:
            seats = ", ".join(str(s) for s in detail.withheld)
            lines.append(f"  seat(s) {seats} withheld their own roll: no draw, their withheld roll")
        same = detail.derived == detail.recorded
        verdict = "= the recorded roll" if same else f"≠ the log's {input_text(detail.recorded)}"
        lines.append(f"  derived {input_text(detail.derived)} {_mark(same)} {verdict}")
        return lines
    lines = [f"fairness: step {detail.step} secret {detail.purpose} choices"]
    for s in detail.seals:
        lines.append(f"  seat {s.seat} commitment {short(s.commitment)}")
        if s.action is None:
            lines.append("    no reveal")
            continue
        lines.append(
            f"    reveal {s.action} nonce {short(s.nonce)} {_mark(s.opens)} "
            + ("opens it" if s.opens else "does NOT open it")
            + ("" if s.legal else " ✗ illegal")
        )
        if s.link is not None:
            lines.append(f"    link {short(s.link.link)} {_chain_text(s.link)}")
    if detail.bots:
        seats = ", ".join(str(b) for b in detail.bots)
        lines.append(f"  bot seat(s) {seats}: drawn from the revealed links")
    same = detail.derived == detail.recorded
    verdict = "= the recorded choices" if same else f"≠ the log's {input_text(detail.recorded)}"
    lines.append(f"  derived {input_text(detail.derived)} {_mark(same)} {verdict}")
    return lines


__all__ = [
    "Detail",
    "Link",
    "RollDetail",
    "Seal",
    "SecretDetail",
    "describe",
    "inspect_steps",
    "short",
]
