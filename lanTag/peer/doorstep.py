"""What the host owes the strangers at its door: lobby answers kept until delivered.

A joiner that has not joined (it said hello, waits for the host's yes, or was refused) has
a *stranger* link at the host (lanTag.net.link): a crowd of strangers churns those 64
slots, and the least recently heard one is evicted with whatever was queued on it.  Its
answer (welcome, wait, refusal) must neither be lost with it nor open a new link (a link
the host opens itself is not a stranger's: 200 refusals sent that way once filled the
host's 256 links, and the approved friend's start found no room, issue #38 item 3).

So an answer to a stranger is queued only on the link that stranger already has; when that
link is gone the answer waits, and goes again when the stranger is next heard (its next
keepalive proves its address again and makes a new stranger link).  An answer is
forgotten once the stranger's link holds nothing unacknowledged (a refusal for good then
shuts the address out: ``LinkLayer.shut_out``, so a refused crowd that stays cannot keep
churning the slots), once the stranger joins
(the roster it then gets supersedes it), or, past ``MAX_OWED`` strangers, the oldest
first (counted in ``forgotten``).  Once the game starts only the roster may hold links,
except the strangers still owed an answer ("the game started without you", a refusal):
they keep a stranger link until it arrives, and are then shut out.

Refusals are therefore *answered*, not rate-limited: each costs the host one queued
message per stranger, and only a stranger that holds a proven link can cost it anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lanTag.net.link import LinkError, LinkLayer
from lanTag.session.transport import Addr

OPEN_TABLE_NOTE = (
    "open table: anyone on this network can take a seat; squatters silent at the start are "
    "dropped after a few seconds and bots play their seats (nobody can sit down during a "
    "game); on a shared Wi-Fi host with --approve (you let each joiner in) or --password"
)
"""What the host is told, in the lobby, when its table has neither --approve nor a password
(protocol/SPEC.md §6 "Open table": a seat cannot change hands during a game)."""
APPROVE_NOW = "type approve to let in each joiner yourself from now on"
"""The console lobby's offer under OPEN_TABLE_NOTE (its ``approve`` command)."""


def open_table(approve: bool, password: str) -> bool:
    """Whoever asks first sits: no yes from the host, no password."""
    return not approve and not password


MAX_OWED = 4096  # strangers owed an answer at once; past it the oldest is forgotten
MAX_PER_STRANGER = 8  # answers kept per stranger (a hello again, a wait, a refusal...)


@dataclass
class _Owed:
    payloads: list[bytes] = field(default_factory=list)
    on_link: tuple[int, int] | None = None  # the link incarnation they are queued on
    final: bool = False  # a refusal for good: once delivered, the address is shut out


class DoorAnswers:
    """Lobby answers owed to strangers, by address (see the module's docstring)."""

    def __init__(self) -> None:
        self._owed: dict[Addr, _Owed] = {}
        self.delivered = 0  # strangers whose answers all arrived
        self.forgotten = 0  # strangers forgotten with answers outstanding (MAX_OWED, start)
        self.send_errors = 0  # answers the link refused to queue (LinkError)
        self.shut = 0  # strangers shut out once their refusal for good arrived
        self.started = False  # the game started: every stranger is shut out once answered

    def __len__(self) -> int:
        return len(self._owed)

    def __contains__(self, addr: object) -> bool:
        return addr in self._owed

    def owe(
        self, link: LinkLayer, addr: Addr, payload: bytes, now: float, final: bool = False
    ) -> None:
        """Answer ``addr`` with ``payload`` now if it has a link, else when it is next heard.
        ``final``: the host turned it away for good (refused or kicked: its key is banned)."""
        entry = self._owed.pop(addr, None) or _Owed()
        self._owed[addr] = entry  # the most recent last: the oldest is forgotten first
        entry.final |= final
        entry.payloads = [*entry.payloads, payload][-MAX_PER_STRANGER:]
        if len(self._owed) > MAX_OWED:
            del self._owed[next(iter(self._owed))]
            self.forgotten += 1
        current = link.incarnation(addr)
        if current is not None and entry.on_link == current:
            self._send(link, addr, [payload], now)  # the earlier ones are queued there already
        else:
            self.heard(link, addr, now)

    def heard(self, link: LinkLayer, addr: Addr, now: float) -> None:
        """``addr`` was heard (or answered): queue what it is owed on a new link, or forget
        what its link has delivered."""
        entry = self._owed.get(addr)
        if entry is None:
            return
        current = link.incarnation(addr)
        if current is None:
            entry.on_link = None  # evicted or expired with our answers: they wait
        elif entry.on_link != current:  # a new link, or this one reset: queue them again
            entry.on_link = current
            self._send(link, addr, entry.payloads, now)
        elif link.unacked(addr) == 0:
            del self._owed[addr]
            self.delivered += 1
            if entry.final or self.started:  # it knows: what it sends now is dropped unread
                link.shut_out(addr)
                self.shut += 1

    def forget(self, addr: Addr) -> None:
        """``addr`` joined: what the host sends it now goes on a trusted link."""
        self._owed.pop(addr, None)

    def game_started(self, link: LinkLayer) -> None:
        """The game started: the strangers still owed an answer may keep (or make again)
        a stranger link until it is delivered, then they are shut out like any outsider."""
        self.started = True
        link.set_guests(self.__contains__)

    def _send(self, link: LinkLayer, addr: Addr, payloads: list[bytes], now: float) -> None:
        for payload in payloads:
            try:
                link.send(addr, payload, now)
            except LinkError:
                self.send_errors += 1


ROLL_EVERY = 5.0  # seconds between two counting lines of one kind of doorstep event
_VARYING = re.compile(r"[0-9a-f]{16}|\d+(?:\.\d+)*")  # keys, counts, addresses, ports
_WHO = re.compile(r"^(refused|unseated|let in) [^(]*\(")


def door_kind(text: str) -> str:
    """What a doorstep line says, without who or how many: lines of one kind roll up."""
    return _VARYING.sub("#", _WHO.sub(r"\1 # (", text))


class DoorLines:
    """Rolls repeated doorstep events into counting lines (issue #38 item 7): the first of
    a kind is shown as it is; the next ones of that kind are counted, and at most every
    ``every`` seconds one line says how many came and shows the last.  A crowd guessing
    passwords from 20 addresses so fills a few lines, not hundreds.  Pure: ``now`` is
    passed in."""

    def __init__(self, every: float = ROLL_EVERY) -> None:
        self.every = every
        self._shown: dict[str, float] = {}  # kind -> when its last line was shown
        self._held: dict[str, tuple[int, str]] = {}  # kind -> (count, last text) not shown

    def add(self, text: str, now: float) -> list[str]:
        """The lines to show now for one more event ``text``."""
        kind = door_kind(text)
        last = self._shown.get(kind)
        if last is None or (now - last >= self.every and kind not in self._held):
            self._shown[kind] = now
            return [text]
        count, _ = self._held.get(kind, (0, ""))
        self._held[kind] = (count + 1, text)
        return self.due(now)

    def due(self, now: float, everything: bool = False) -> list[str]:
        """The counting lines whose time came (call it now and then, e.g. when idle);
        ``everything``: all of them (the lobby is over)."""
        out = []
        for kind, (count, text) in list(self._held.items()):
            if everything or now - self._shown[kind] >= self.every:
                out.append(f"{text} (and {count - 1} more like it)" if count > 1 else text)
                self._shown[kind] = now
                del self._held[kind]
        return out
