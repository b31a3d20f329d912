"""One peer: reliable links, the lobby handshake, then the lockstep session.

``PeerMachine`` is a sans-IO :class:`~lanTag.net.endpoint.DatagramMachine`: the
UDP pump (or a simulated network) feeds it datagrams and timer ticks.  Edges
are injected: ``random_bytes`` for nonces, ``write_log`` for the log file, and
a ``driver`` (a local bot, or nothing when a person plays through the UI).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from lanTag.bots import choose_action
from lanTag.errors import LanTagError, RemoteProtocolError
from lanTag.fair.draw import DrawStream
from lanTag.identity import Identity, fingerprint
from lanTag.net.link import LinkError, LinkLayer
from lanTag.peer.doorstep import DoorAnswers
from lanTag.peer.join_handshake import (
    HostLobby,
    JoinerRefused,
    JoinLobby,
    LobbyEvent,
    Refused,
    RosterChanged,
    Started,
    is_lobby_message,
)
from lanTag.peer.resume import PEERS_NOTE, peers_note
from lanTag.session import events as ev
from lanTag.session.lockstep import Session
from lanTag.session.transport import Addr

# Game traffic that beat our own START message (a joiner's only: the host starts the
# session itself) is kept, in bytes, up to these budgets; each payload also costs a
# fixed overhead so many tiny ones are bounded too.  More is dropped and counted in
# ``PeerMachine.early_dropped``: the senders' relays and SYNC recover it after the start.
EARLY_BUDGET = 1 << 20
EARLY_PER_SOURCE = 256 << 10
EARLY_OVERHEAD = 64


# A seated joiner not heard from for this long when the host starts (keepalives go
# every second) is unseated before step 0: a silent seat would freeze the game.
SILENT_AT_START = 5.0
UNSEATED = "unseated: you were silent when the game started"


# A SYNC answer waits while the link to its reader holds this many unacked messages
# (about one datagram each): what is still queued there is never queued again.
SYNC_BACKLOG = 128


class LinkSender:
    """The session's transport: sending only; the peer runs the link's input and timers.

    A payload the link refuses (its queue for that address is full: the reader does
    not ack, or asked for too much) is dropped and counted in ``dropped``, never
    raised: the reliable layer above (relays, NUDGE, SYNC) recovers what matters,
    and an exception here would stop the peer (``UdpPump`` gives up on one).
    """

    def __init__(
        self,
        link: LinkLayer,
        dropped: dict[str, int] | None = None,
        heard: dict[Addr, float] | None = None,
        vouched: dict[Addr, float] | None = None,
    ) -> None:
        self.link = link
        self.dropped = {} if dropped is None else dropped  # error class name -> payloads
        self.heard = {} if heard is None else heard  # addr -> last frame, outliving the link
        self.vouched = {} if vouched is None else vouched  # addr -> when the host let it in

    # ``last_heard`` is the links' own: a seat whose address never answered what we sent
    # it (at the latest the NUDGE every peer gets at the lag warning) said nothing since we
    # began; it is silent, not unknown (SilenceClock.wire_dead).
    hears_every_answer = True

    def send(self, addr: Addr, payload: bytes, now: float) -> None:
        send_or_drop(self.link, addr, payload, now, self.dropped)

    def backlog(self, addr: Addr) -> int:
        """Messages queued or in flight to ``addr`` (the session asks before a SYNC answer)."""
        snap = self.link.stats.links.get(addr)
        return 0 if snap is None else snap.queued

    def congested(self, addr: Addr) -> bool:
        return self.backlog(addr) >= SYNC_BACKLOG

    def last_heard(self, addr: Addr) -> float | None:
        """When the last frame from ``addr`` arrived (keepalives and acks count), if ever.

        The link's own clock first; once a silent link expired (``expire_after``) or was
        opened again, the time the peer recorded before (``PeerMachine.heard``).  The
        host's yes counts as hearing it (a crowd may have evicted the waiting friend's
        link for a while: its silence before the yes says nothing about it).
        """
        heard = self.link.last_heard(addr)
        if heard is None:
            heard = self.heard.get(addr)
        vouched = self.vouched.get(addr)
        return vouched if vouched is not None and (heard is None or vouched > heard) else heard

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> list[bytes]:
        return [data]

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        return []

    def next_timer(self) -> float | None:
        return None

    def handle_timer(self, now: float) -> None:
        return None


def send_or_drop(
    link: LinkLayer, addr: Addr, payload: bytes, now: float, dropped: dict[str, int]
) -> None:
    """``link.send``, but a :class:`LinkError` (queue full, too many links) drops and counts."""
    try:
        link.send(addr, payload, now)
    except LinkError as exc:
        name = type(exc).__name__
        dropped[name] = dropped.get(name, 0) + 1


@dataclass(frozen=True, slots=True)
class BotDriver:
    """Plays the local seat with a named bot (its randomness is local: only its choice leaves)."""

    bot: str = "heuristic2"

    def act(self, session: Session, random_bytes: Callable[[int], bytes], now: float) -> None:
        turn = session.my_turn()
        if turn is None or session.seat is None:
            return
        stream = DrawStream(random_bytes(32))
        try:
            action = choose_action(self.bot, session.state, session.seat, stream.below)
            session.state.check_action(session.seat, action)
        except Exception:  # a bot bug must not take the peer down: play a random legal move
            action = choose_action("random", session.state, session.seat, stream.below)
        if turn == "turn":
            session.submit(action, now)
        else:
            session.commit(action, None, now)  # nonce derived: recoverable after a crash

    def next_timer(self) -> float | None:
        """When the driver wants to act though nothing arrived: never (it acts at once)."""
        return None


TAKEN_OVER_PACE = 1.0
"""Seconds `lantag play`'s bots wait between two moves while the person's seat is out."""


@dataclass(slots=True)
class PacedBotDriver:
    """A bot that waits ``pace`` seconds between two of its moves while a person's seat is
    played by the replicated bot (dropped: the person idled past the turn limit).

    `lantag play`'s bots: a table of bots alone would play the game to its end in a blink,
    and the person who comes back (one key: the hand-back, SPEC §5.6) would find it over.
    Paced, they watch the bot play their seat and may take it back."""

    bot: str = "heuristic2"
    pace: float = TAKEN_OVER_PACE
    last_move: float | None = None
    wake_at: float | None = None

    def act(self, session: Session, random_bytes: Callable[[int], bytes], now: float) -> None:
        self.wake_at = None
        if session.my_turn() is None:
            return
        last = self.last_move
        if last is not None and now < last + self.pace and _person_out(session):
            self.wake_at = last + self.pace
            return
        BotDriver(self.bot).act(session, random_bytes, now)
        self.last_move = now

    def next_timer(self) -> float | None:
        return self.wake_at


def _person_out(session: Session) -> bool:
    """A seat with a key (a person's, or a bot peer's) is played by the replicated bot now."""
    return any(not s.is_bot and i not in session.live for i, s in enumerate(session.record.seats))


Driver = BotDriver | PacedBotDriver


class PeerMachine:
    """Lobby first, then the game, over one set of reliable links."""

    def __init__(
        self,
        link: LinkLayer,
        lobby: HostLobby | JoinLobby | None,
        identity: Identity,
        chain_secret: bytes,
        random_bytes: Callable[[int], bytes],
        *,
        driver: Driver | None = None,
        write_log: Callable[[bytes], None] | None = None,
    ) -> None:
        self.link = link
        self.lobby = lobby
        self.identity = identity
        self.chain_secret = chain_secret
        self.random_bytes = random_bytes
        self.driver = driver
        self.write_log = write_log
        self.session: Session | None = None
        self.local_addr: Addr | None = None  # set by the runtime once the socket is bound
        self.events: deque[ev.Event | LobbyEvent] = deque()
        self.rejected = 0
        self.send_dropped: dict[str, int] = {}  # payloads the link refused, by error class
        self.heard: dict[Addr, float] = {}  # addr -> last frame heard (outlives expired links)
        self._early: list[tuple[bytes, float]] = []
        self.early_bytes = 0  # what _early costs (payloads + overhead), <= EARLY_BUDGET
        self._early_from: dict[Addr, int] = {}  # the same, per source address
        self.early_dropped = 0
        self._seen_seated: dict[str, str] = {}  # nickname -> fingerprint, every roster seen
        self.door = DoorAnswers()  # a host's lobby answers to strangers, kept until delivered
        self._host_restarts = 0  # a joiner's: restarts of its link to the host, seen
        self._vouched: dict[Addr, float] = {}  # a host's: when each joiner was let in
        self._vouched_on: dict[Addr, tuple[int, int] | None] = {}  # ...and on which link

    # -------------------------------------------------------------- machine interface

    def receive_datagram(self, data: bytes, addr: Addr, now: float) -> None:
        payloads = self.link.receive_datagram(data, addr, now)
        heard = self.link.last_heard(addr)
        if heard is not None:
            self.heard[addr] = heard
        if addr in self.door:
            self.door.heard(self.link, addr, now)
        if addr in self._vouched and isinstance(self.lobby, HostLobby):
            self._joiner_heard(self.lobby, addr)
        if isinstance(self.lobby, JoinLobby) and self.session is None and addr == self.lobby.host:
            restarts = self.link.restarts(addr)
            if restarts != self._host_restarts:  # what we said in flight is gone: again
                self._host_restarts = restarts
                self.lobby.resend()
        for payload in payloads:
            if is_lobby_message(payload):
                self._lobby_payload(payload, addr, now)
            elif self.session is not None:
                self.session.receive_payload(payload, now)
            else:
                self._keep_early(payload, addr, now)
        self._after(now)

    def _joiner_heard(self, lobby: HostLobby, addr: Addr) -> None:
        """A joined address was heard: if its link is not the one we queued its roster or
        start on (it expired, or the joiner's side restarted it: what was queued is lost),
        the lobby says it again."""
        now_on = self.link.incarnation(addr)
        if now_on is not None and now_on != self._vouched_on.get(addr):
            self._vouched_on[addr] = now_on
            lobby.tell_again(addr)

    def _keep_early(self, payload: bytes, addr: Addr, now: float) -> None:
        cost = len(payload) + EARLY_OVERHEAD
        mine = self._early_from.get(addr, 0)
        if (
            isinstance(self.lobby, HostLobby)  # nobody has a game id before the host starts
            or self.early_bytes + cost > EARLY_BUDGET
            or mine + cost > EARLY_PER_SOURCE
        ):
            self.early_dropped += 1
            return
        self._early.append((payload, now))
        self.early_bytes += cost
        self._early_from[addr] = mine + cost

    def handle_timer(self, now: float) -> None:
        self.link.handle_timer(now)
        if self.session is not None:
            self.session.handle_timer(now)
        self._after(now)

    def next_timer(self) -> float | None:
        times = [self.link.next_timer()]
        if self.session is not None:
            times.append(self.session.next_timer())
            if self.driver is not None:
                times.append(self.driver.next_timer())
        real = [t for t in times if t is not None]
        return min(real) if real else None

    def datagrams_to_send(self, now: float) -> list[tuple[bytes, Addr]]:
        self._flush_lobby(now)  # the joiner's hello waits for the driver's first real `now`
        if self.session is not None:
            self.session.datagrams_to_send(now)  # moves the session's bundles onto the links
        return self.link.datagrams_to_send(now)

    # -------------------------------------------------------------- local commands

    def start_game(self, now: float) -> None:
        """Host only: fix the roster and begin."""
        if not isinstance(self.lobby, HostLobby):
            raise RuntimeError("only the host starts the game")
        self._unseat_silent(self.lobby, now)
        started = self.lobby.start(self.random_bytes(32))
        self._flush_lobby(now)
        self._begin(started, now)
        self._after(now)

    def _unseat_silent(self, lobby: HostLobby, now: float) -> None:
        """Unseat every seated joiner silent for ``SILENT_AT_START``: told so (if it comes
        back while its link lasts), the host and the others get one line each."""
        if lobby.started is not None:
            return
        for joiner in list(lobby.seated):
            heard = self.link.last_heard(joiner.addr) or self.heard.get(joiner.addr)
            # Let in just now counts as heard: under a crowd the friend's stranger link may
            # have been evicted while it waited for the host's yes (it is trusted now).
            vouched = self._vouched.get(joiner.addr)
            if vouched is not None and now - vouched <= SILENT_AT_START:
                continue
            if heard is not None and now - heard <= SILENT_AT_START:
                continue
            lobby.unseat(joiner.addr, UNSEATED)
            silent = "never heard" if heard is None else f"silent for {now - heard:.0f} s"
            who = f"{joiner.nickname} ({fingerprint(joiner.public_key)})"
            self.events.append(JoinerRefused(f"unseated {who}: {silent} at the start"))

    def poke(self, now: float) -> None:
        """After a local command (UI, lobby): send what it queued, let the driver act."""
        self._flush_lobby(now)
        self._after(now)

    # -------------------------------------------------------------- internals

    def resume(self, session: Session, now: float) -> None:
        """Go on with a session rebuilt from our log, and ask the others what we missed."""
        self.session = session
        self.link.set_accept({*session.peers.values(), *session.watchers}.__contains__)
        session.recovery.request_sync(now)
        self._after(now)

    def next_game(
        self,
        lobby: HostLobby | JoinLobby,
        chain_secret: bytes,
        write_log: Callable[[bytes], None] | None,
        now: float,
    ) -> None:
        """The same table plays again (lanTag.peer.series): a fresh lobby, a fresh hash chain
        and log; the links stay.  The old game's late traffic is rejected by the new session
        (another game id).  A host's lobby is open again to anyone, as the first one was (a
        newcomer may take a seat someone left); a joiner still talks to the table only."""
        self.lobby, self.session = lobby, None
        self.chain_secret, self.write_log = chain_secret, write_log
        self._early, self.early_bytes, self._early_from = [], 0, {}
        if isinstance(lobby, HostLobby):
            self.link.set_accept(None)
        self.poke(now)

    def _series_host(self) -> Addr | None:
        """Who may announce our next game: the host of the game we play (for a seat resumed
        from its log, without a lobby: seat 0's peer)."""
        if isinstance(self.lobby, JoinLobby):
            return self.lobby.host
        session = self.session
        if self.lobby is None and session is not None and session.seat not in (None, 0):
            return session.peers.get(0)
        return None

    def _lobby_payload(self, payload: bytes, addr: Addr, now: float) -> None:
        try:
            from lanTag.peer.series import parse_series_message

            series = parse_series_message(payload)
            if series is not None:  # only the host of the game we play announces a next game
                if addr == self._series_host():
                    self.events.append(series)
                return
            if self.lobby is None:
                return
            self.lobby.receive(payload, addr, now)  # (_flush_lobby trusts whom it took)
        except RemoteProtocolError as exc:
            self.rejected += 1
            self.events.append(ev.Rejected(exc.code, f"lobby message from {addr}: {exc.message}"))
        except (ValueError, TypeError, IndexError, KeyError) as exc:  # odd shapes: never crash
            self.rejected += 1
            self.events.append(ev.Rejected("malformed", f"lobby message from {addr}: {exc}"))
        self._flush_lobby(now)
        if self.session is None and isinstance(self.lobby, JoinLobby) and self.lobby.started:
            self._begin(self.lobby.started, now)

    def _flush_lobby(self, now: float) -> None:
        if self.lobby is None:
            return
        joined: set[Addr] | None = None
        if isinstance(self.lobby, HostLobby):
            joined = set(self.lobby.joined_addrs())
            for addr in joined - self._vouched.keys():
                # Seated or let watch, by a message or by the host's yes (approve): no
                # stranger limits, so a crowd of strangers cannot evict a friend's link.
                self.link.trust(addr)
                self.door.forget(addr)
                self._vouched[addr] = now
        for addr, payload in self.lobby.outbox:
            if joined is None or addr in joined:
                send_or_drop(self.link, addr, payload, now, self.send_dropped)
                if joined is not None:
                    self._vouched_on[addr] = self.link.incarnation(addr)
            else:  # a stranger's answer: on its own link, never a new one (doorstep.py)
                final = isinstance(self.lobby, HostLobby) and addr in self.lobby.turned_away
                self.door.owe(self.link, addr, payload, now, final)
        self.lobby.outbox.clear()
        if isinstance(self.lobby, HostLobby):
            self.lobby.turned_away.clear()
        for event in self.lobby.events:
            if isinstance(event, RosterChanged):
                for entry in event.roster:
                    if not entry.bot:
                        self._seen_seated[entry.nickname] = entry.fingerprint
        self.events.extend(self.lobby.events)
        self.lobby.events.clear()

    def _begin(self, started: Started, now: float) -> None:
        self._note_missing(started)
        playing = started.seat is not None
        try:
            self._start_session(started, playing, now)
        except (LanTagError, ValueError) as exc:  # e.g. an engine this peer does not know
            self.events.append(Refused(f"cannot play this game: {exc}"))

    def _note_missing(self, started: Started) -> None:
        """A joiner's line for each person once on the roster but not in the game (left,
        kicked or unseated as silent before the start)."""
        if not isinstance(self.lobby, JoinLobby):
            return
        keys = {fingerprint(s.public_key) for s in started.record.seats if s.public_key}
        for nickname, key in self._seen_seated.items():
            if key not in keys:
                self.events.append(
                    JoinerRefused(f"{nickname} ({key}) is not in the game (left or unseated)")
                )

    def _start_session(self, started: Started, playing: bool, now: float) -> None:
        self.session = Session(
            started.record,
            seat=started.seat,
            identity=self.identity if playing else None,
            chain_secret=self.chain_secret if playing else None,
            peers=started.peers,
            watchers=started.watchers,
            transport=LinkSender(self.link, self.send_dropped, self.heard, self._vouched),
            now=now,
        )
        self.session.note(
            PEERS_NOTE, peers_note(dict(started.peers), started.watchers, self.local_addr)
        )
        # From now on only the roster (and spectators) may open links: others are counted.
        allowed = {*started.peers.values(), *started.watchers}
        self.door.game_started(self.link)  # ...and the strangers still owed an answer
        self.link.set_accept(allowed.__contains__)
        early, self._early = self._early, []
        self.early_bytes, self._early_from = 0, {}
        for payload, _ in early:
            self.session.receive_payload(payload, now)

    def _after(self, now: float) -> None:
        session = self.session
        if session is None:
            return
        if self.driver is not None:
            for _ in range(64):  # a bot may have several moves in a row (its own turns)
                before = session.step
                self.driver.act(session, self.random_bytes, now)
                if session.step == before and session.my_turn() is not None:
                    break
                if session.my_turn() is None:
                    break
        if self.write_log is not None:
            data = session.take_log()
            if data:
                self.write_log(data)
        while (event := session.next_event()) is not None:
            self.events.append(event)
