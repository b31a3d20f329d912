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
from dataclasses import dataclass

from lanTag import wire
from lanTag.errors import RemoteProtocolError
from lanTag.fair.chain import chain_step_ok
from lanTag.fair.commit import opens
from lanTag.log.chain import Entry, EntryKind
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Input,
    Joint,
    Roll,
    Simultaneous,
    State,
    input_text,
)
from lanTag.session import referee
from lanTag.session.core import TAKEOVER_BOT
from lanTag.session.lobby_record import LobbyRecord
from lanTag.session.messages import MsgType, Signed, parse_unverified

_FAIR_TYPES = (MsgType.ENTROPY, MsgType.COMMIT, MsgType.REVEAL)
_CONTRIBUTIONS = (MsgType.MOVE, *_FAIR_TYPES)  # two of one slot: an equivocation (SPEC §5.7)


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
    derived: Roll  # recomputed from ``seed``
    recorded: Roll  # what the log applied

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
    steps: Sequence[tuple[int, Input, bytes, State]],
    blames: Iterable[tuple[int, int, str, str]] = (),
) -> list[Detail | None]:
    """One detail per applied step (None for moves), in order.

    ``steps`` holds (step, applied input, state hash before the step, state before the
    step); the hash picks the messages of the history that was applied, so messages
    left over from a rolled-back branch are ignored.  ``blames`` (VerifyReport.blames)
    say which seats were dropped for silence at which step; equivocations are found in
    the log itself.
    """
    game_id = record.game_id
    by_slot, dropped = _messages(entries, game_id)
    convicted = dict(dropped)  # an equivocation convicts: the seat forfeits there (§4.4)
    # A timeout blame is raised at the step of the drop; an equivocation's step comes
    # from the two messages themselves (its blame names the step it was noticed at).
    for seat, step, code, _why in blames:
        if code in ("timeout", "withheld"):  # withheld: dropped there too (protocol 6)
            dropped[seat] = min(step, dropped.get(seat, step))
        if code == "withheld":  # at a secret round, after another revealed: its forfeit
            convicted.setdefault(seat, step)
    # Per seat: its latest link and the step that revealed it (None: the lobby anchor).
    last: list[tuple[bytes, int | None]] = [(s.anchor, None) for s in record.seats]
    out: list[Detail | None] = []
    for step, applied, hash_before, state in steps:
        live = {s for s in range(len(record.seats)) if dropped.get(s, step + 1) > step}
        msgs = _first_per_seat(by_slot.get((step, hash_before), []), live)
        links: dict[tuple[MsgType, int], Link] = {
            (kind, seat): _link(seat, msg.payload[0 if kind == MsgType.ENTROPY else 2], last)
            for (kind, seat), msg in msgs.items()
            if kind in (MsgType.ENTROPY, MsgType.REVEAL)
        }
        decision = state.decision()
        detail: Detail | None = None
        if isinstance(applied, Roll) and isinstance(decision, Chance):
            detail = _roll(decision, game_id, step, applied, links)
        elif isinstance(applied, Joint) and isinstance(decision, Simultaneous):
            detail = _secret(
                record, state, decision, step, applied, msgs, links, dropped, convicted
            )
            for seal in detail.seals:  # a seal that fails convicts: dropped from this step
                if not seal.ok:
                    dropped.setdefault(seal.seat, step + 1)
        out.append(detail)
        # As the session does after applying a step: every link that chains moves the seat on.
        for (_kind, seat), link in links.items():
            if link.chains:
                last[seat] = (link.link, step)
    return out


def _messages(
    entries: Iterable[Entry], game_id: bytes
) -> tuple[dict[tuple[int, bytes], list[Signed]], dict[int, int]]:
    """The fairness messages by (step, state hash), and per seat the first step at which
    it sent two different contributions for one slot (it is dropped from there on)."""
    out: dict[tuple[int, bytes], list[Signed]] = {}
    first: dict[tuple[int, tuple[int, int, int, bytes]], bytes] = {}
    equivocated: dict[int, int] = {}
    for entry in entries:
        if entry.kind != EntryKind.MSG or not isinstance(entry.data, bytes):
            continue
        try:
            msg = parse_unverified(entry.data)
        except RemoteProtocolError:
            continue  # unusable bytes: verification reports them, there is nothing to show
        if msg.game_id != game_id or msg.type not in _CONTRIBUTIONS:
            continue
        if first.setdefault((msg.seat, msg.slot), msg.raw) != msg.raw:
            equivocated[msg.seat] = min(msg.step, equivocated.get(msg.seat, msg.step))
        if msg.type in _FAIR_TYPES:
            out.setdefault((msg.step, msg.state_hash), []).append(msg)
    return out, equivocated


def _first_per_seat(msgs: list[Signed], live: set[int]) -> dict[tuple[MsgType, int], Signed]:
    # The session keeps the first message of a slot; a second one is an equivocation.
    out: dict[tuple[MsgType, int], Signed] = {}
    for msg in msgs:
        if msg.seat in live:
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
    step: int,
    recorded: Joint,
    msgs: dict[tuple[MsgType, int], Signed],
    links: dict[tuple[MsgType, int], Link],
    dropped: dict[int, int],
    convicted: dict[int, int],
) -> SecretDetail:
    game_id = record.game_id
    humans = sorted(
        s for s in decision.seats if not record.seats[s].is_bot and dropped.get(s, step + 1) > step
    )
    seals: list[Seal] = []
    actions: dict[int, Action] = {}
    reveals: dict[int, bytes] = {}
    for seat in humans:
        seal = _seal(state, game_id, step, decision.kind, seat, msgs, links)
        seals.append(seal)
        # A seal that fails in any way convicts: the seat forfeits (SPEC §4.4).
        actions[seat] = seal.action if seal.ok and seal.action else state.forfeit_action(seat)
        if seal.ok and seal.link is not None:
            reveals[seat] = seal.link.link
    # A seat dropped at this very step takes its default (silent) or its forfeit
    # (convicted); one dropped earlier is a bot.
    for seat in decision.seats:
        if dropped.get(seat) == step:
            forfeits = convicted.get(seat) == step
            actions[seat] = state.forfeit_action(seat) if forfeits else state.default_action(seat)
    bots = {
        s: record.seats[s].bot or TAKEOVER_BOT
        for s in decision.seats
        if s not in humans and s not in actions
    }
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
