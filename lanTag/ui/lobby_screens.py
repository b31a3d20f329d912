"""Screens before a game: the LAN lobby browser, the host's roster and the joiner's wait.

Each screen is a small model (pure, testable without a terminal) plus a
prompt-toolkit application that polls it every 50-200 ms.  The host and join
screens consume only lobby events from the peer's deque and stop at the
start, so the game screen finds every session event still queued.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Literal, Protocol

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, VSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import TextArea

from lanTag.errors import LocalProtocolError
from lanTag.net.lobby_adverts import LobbyInfo
from lanTag.peer.doorstep import APPROVE_NOW, OPEN_TABLE_NOTE, open_table
from lanTag.peer.join_handshake import (
    HostKeyChanged,
    HostLobby,
    JoinerRefused,
    JoinerWaiting,
    JoinLobby,
    LobbyEvent,
    PasswordNeeded,
    Refused,
    RosterChanged,
    RosterEntry,
    Started,
    Waiting,
    Welcomed,
)
from lanTag.rules.base import OptionError
from lanTag.rules.registry import display_name, get_game
from lanTag.session import events as ev
from lanTag.ui.browser import BrowserModel, TableSource, browser_screen
from lanTag.ui.screens import Screen, make_app
from lanTag.ui.widgets import WrappedText

__all__ = [
    "HOST",
    "BrowserModel",
    "HostModel",
    "JoinModel",
    "browse_or_host",
    "browser_screen",
    "host_screen",
    "join_screen",
    "run_host_screen",
    "run_join_screen",
    "run_lobby_browser",
]


async def run_lobby_browser(
    browser_table_source: TableSource,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> LobbyInfo | None:
    """Show the games on the LAN live; Enter picks one, q (or Esc) leaves with None.

    ``browser_table_source`` is a :class:`~lanTag.net.discovery.LobbyBrowser` (its
    ``.table`` is read) or any callable returning a :class:`LobbyTable`.  A game that
    cannot be joined (another version, already playing, full) is not picked: Enter says
    why on the screen.
    """
    screen = browser_screen(browser_table_source, input=input, output=output, color=color)
    await screen.run()
    return screen.model.result


HOST: Literal["host"] = "host"


async def browse_or_host(
    browser_table_source: TableSource,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    spectate: bool = False,
) -> LobbyInfo | Literal["host"] | None:
    """Like :func:`run_lobby_browser`, but ``h`` leaves with :data:`HOST`: the user wants
    to host a game instead (the caller then shows the host setup form).  ``spectate``:
    Enter picks a game to watch (a full one too)."""
    screen = browser_screen(
        browser_table_source,
        input=input,
        output=output,
        color=color,
        can_host=True,
        spectate=spectate,
    )
    await screen.run()
    return HOST if screen.model.host_requested else screen.model.result


class LobbyMachine(Protocol):
    @property
    def lobby(self) -> HostLobby | JoinLobby | None: ...

    @property
    def events(self) -> deque[ev.Event | LobbyEvent]: ...

    def start_game(self, now: float) -> None: ...


class LobbyHandle(Protocol):
    """The parts of :class:`lanTag.peer.runtime.PeerHandle` the lobby screens use."""

    @property
    def machine(self) -> LobbyMachine: ...

    def now(self) -> float: ...

    def command(self, fn: Callable[[float], None]) -> None: ...


def _take_lobby_events(events: deque[ev.Event | LobbyEvent]) -> list[ev.Event | LobbyEvent]:
    """Pop lobby events (and lobby rejections) from the front; stop at the first game event
    and just after Started, leaving the rest for the game screen."""
    taken: list[ev.Event | LobbyEvent] = []
    lobby_kinds = (
        Welcomed,
        RosterChanged,
        PasswordNeeded,
        Refused,
        Started,
        JoinerRefused,
        JoinerWaiting,
        Waiting,
        HostKeyChanged,
        ev.Rejected,
    )
    while events and isinstance(events[0], lobby_kinds):
        event = events.popleft()
        taken.append(event)
        if isinstance(event, Started):
            break
    return taken


# =========================================================================== host


class HostModel:
    """The host's roster, fed by RosterChanged events; kick and start go through the handle."""

    def __init__(self, handle: LobbyHandle, join_line: str = "") -> None:
        self.handle = handle
        self.join_line = join_line  # "lantag join ADDR:PORT": what the others type
        lobby = handle.machine.lobby
        if not isinstance(lobby, HostLobby):
            raise TypeError("the host screen needs a hosting peer")
        self.lobby = lobby
        self.roster: tuple[RosterEntry, ...] = lobby.roster()
        self.seats = lobby.config.humans + len(lobby.config.bots)
        self.message = "waiting for players to join"
        self.message_style = "class:hint"
        self.confirm_short = False
        self.done = False
        self.started = False
        self.line = TextArea(multiline=False, prompt="host› ", height=1)

    def poll(self) -> bool:
        events = _take_lobby_events(self.handle.machine.events)
        for event in events:
            if isinstance(event, RosterChanged):
                self.roster, self.seats = event.roster, event.seats
                self.confirm_short = False
                self.message, self.message_style = "roster changed", "class:ok"
            elif isinstance(event, JoinerRefused):  # versions, wrong passwords: who and why
                self.message, self.message_style = event.reason, "class:error"
            elif isinstance(event, JoinerWaiting):
                n = len(self.lobby.waiting())
                self.message = (
                    f"{event.nickname} (key {event.fingerprint}) asks to join: "
                    f"a{n} lets them in, r{n} refuses"
                )
                self.message_style = "class:warn"
            elif isinstance(event, ev.Rejected):
                self.message, self.message_style = f"ignored: {event.reason}", "class:dim"
        return bool(events)

    def run_line(self, text: str) -> None:
        word = text.strip().lower().replace(" ", "")
        if word in ("s", "start"):
            self.start()
        elif word in ("q", "quit"):
            self.done = True
        elif word == "approve":
            self.approve_from_now()
        elif word.startswith("k") and word[1:].isdigit():
            self.kick(int(word[1:]))
        elif word[:1] in ("a", "r") and word[1:].isdigit():
            self.answer(int(word[1:]), word[0] == "a")
        else:
            self.message, self.message_style = (
                "commands: a<n>/r<n> let in/refuse waiting joiner n, k<n> kick seat n, "
                "approve (each joiner waits for your yes), s start, q quit",
                "class:error",
            )

    def answer(self, number: int, yes: bool) -> None:
        """The host's yes or no for the ``number``-th waiting joiner (1..)."""
        waiting = self.lobby.waiting()
        if not 1 <= number <= len(waiting):
            self.message, self.message_style = f"nobody waits as {number}", "class:error"
            return
        who = waiting[number - 1]
        act = self.lobby.approve_joiner if yes else self.lobby.refuse_joiner
        self.handle.command(lambda now: act(who.addr))
        verb = "let in" if yes else "refused"
        self.message, self.message_style = f"{verb} {who.nickname}", "class:ok"

    def approve_from_now(self) -> None:
        """An open table turned into one where each new joiner waits for the host's yes
        (as with --approve); the joiners already seated stay."""
        config = self.lobby.config

        def approve(now: float) -> None:
            config.approve = True

        self.handle.command(approve)
        self.message = "from now on each joiner waits for your yes (a<n>) or no (r<n>)"
        self.message_style = "class:ok"

    def kick(self, seat: int) -> None:
        try:
            self.handle.command(lambda now: self.lobby.kick(seat))
        except LocalProtocolError as exc:
            self.message, self.message_style = str(exc), "class:error"
            return
        self.message, self.message_style = f"kicked seat {seat}", "class:ok"

    def start(self) -> None:
        config = self.lobby.config
        empty = config.humans - self.lobby.taken
        # A game night's next game (fill_empty): a bot takes each seat still open.
        filled = empty if config.fill_empty else 0
        players = self.lobby.taken + len(config.bots) + filled
        try:
            game = get_game(config.engine)
        except OptionError as exc:
            self.message, self.message_style = str(exc), "class:error"
            return
        if players < game.min_seats:
            self.message = f"{game.display_name} needs at least {game.min_seats} players"
            self.message_style = "class:error"
            return
        if empty > 0 and not self.confirm_short:
            self.confirm_short = True
            if filled:
                self.message = (
                    f"{empty} seat(s) still open: s again starts with a {config.fill_empty} "
                    "bot in each"
                )
            else:  # the record lists only the seats taken: starting now makes a smaller game
                self.message = (
                    f"only {self.lobby.taken} of {config.humans} human seats taken: "
                    "s again starts without the empty seats"
                )
            self.message_style = "class:warn"
            return
        machine = self.handle.machine
        self.handle.command(machine.start_game)
        self.started = self.done = True

    def text(self) -> StyleAndTextTuples:
        config = self.lobby.config
        out: StyleAndTextTuples = [
            (
                "",
                f"hosting “{config.name}” · {display_name(config.engine)} · "
                f"{len(self.roster)}/{self.seats} seats · "
                f"password {'yes' if config.password else 'no'}\n",
            ),
        ]
        address = getattr(self.handle, "address", None)
        if address is not None:
            out.append(("class:dim", f"listening on {address[0]}:{address[1]}\n"))
        if self.join_line:
            out.append(("class:ok", f"others run: {self.join_line}\n"))
        if open_table(config.approve, config.password):
            out.append(("class:warn", f"{OPEN_TABLE_NOTE}\n"))
            out.append(("class:hint", f"{APPROVE_NOW}\n"))
        out.append(("class:header", f"\n{'seat':<5} {'nickname':<24} key\n"))
        for seat in range(self.seats):
            if seat < len(self.roster):
                e = self.roster[seat]
                you = " (you)" if seat == 0 else ""
                out.append(
                    (
                        "",
                        f"{seat:<5} {(e.nickname + you)[:24]:<24} "
                        f"{'bot' if e.bot else e.fingerprint}\n",
                    )
                )
            else:
                out.append(("class:dim", f"{seat:<5} (open)\n"))
        if config.fill_empty and len(self.roster) < self.seats:
            out.append(
                ("class:hint", f"a seat still open at the start: a {config.fill_empty} bot\n")
            )
        waiting = self.lobby.waiting()
        if waiting:
            out.append(("class:header", "\nwaiting for your yes (a<n>) or no (r<n>):\n"))
            for n, w in enumerate(waiting, 1):
                role = " (to watch)" if w.spectator else ""
                line = f"{n:<5} {(w.nickname + role)[:24]:<24} {w.fingerprint}\n"
                out.append(("class:warn", line))
        return out


async def run_host_screen(
    handle: LobbyHandle,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    join_line: str = "",
) -> bool:
    """The host's lobby: the roster as players join; ``k<n>`` kicks seat n, ``s`` starts.
    ``join_line`` (``lantag join ADDR:PORT``) is shown as what the others run.

    Returns True once the game was started (the caller then runs the game screen),
    False when the host quits.
    """
    screen = host_screen(handle, input=input, output=output, color=color, join_line=join_line)
    await screen.run()
    return screen.model.started


def host_screen(
    handle: LobbyHandle,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    join_line: str = "",
) -> Screen[HostModel]:
    model = HostModel(handle, join_line)
    kb = KeyBindings()

    def accept(_buffer: Any) -> bool:
        model.run_line(model.line.text)
        model.line.text = ""
        if model.done:
            app.exit()
        return True

    model.line.accept_handler = accept

    @kb.add("c-c")
    @kb.add("c-q")
    def _quit(event: KeyPressEvent) -> None:
        model.done = True
        event.app.exit()

    # As on the setup form: s and q act at once (on an empty line; the commands that take
    # a number, a<n> r<n> k<n>, are typed and then Enter).
    @kb.add("s", filter=Condition(lambda: not model.line.text))
    @kb.add("q", filter=Condition(lambda: not model.line.text))
    def _key(event: KeyPressEvent) -> None:
        model.run_line(event.data)
        if model.done:
            event.app.exit()

    root = HSplit(
        [
            Window(FormattedTextControl(" lanTag │ your game"), height=1, style="class:title"),
            Window(WrappedText(model.text), wrap_lines=True),
            Window(FormattedTextControl(lambda: [(model.message_style, model.message)]), height=1),
            Window(
                FormattedTextControl(
                    " s start · q quit · a<n>/r<n> let in/refuse, k<n> kick seat n: then Enter"
                ),
                height=1,
                style="class:hint",
            ),
            model.line,
        ]
    )
    app = make_app(root, kb, color, input, output, focus=model.line)
    return Screen(model, app, model.poll, lambda: model.done)


# =========================================================================== join


class JoinModel:
    """A joiner's wait: welcome, password, roster, refusal or start."""

    def __init__(self, handle: LobbyHandle) -> None:
        self.handle = handle
        lobby = handle.machine.lobby
        if not isinstance(lobby, JoinLobby):
            raise TypeError("the join screen needs a joining peer")
        self.lobby = lobby
        self.welcomed: Welcomed | None = None
        self.roster: tuple[RosterEntry, ...] = ()
        self.seats = 0
        self.your_seat: int | None = None
        self.refused: str | None = None
        self.need_password = False
        self.key_changed: HostKeyChanged | None = None  # asks: trust the new host key?
        self.started = False
        self.done = False
        self.message = "contacting the host…"
        self.password = TextArea(
            multiline=False,
            password=Condition(lambda: self.key_changed is None),  # 'yes' shows as typed
            prompt=self._prompt,
            height=1,
        )
        # Holds the focus when no field is open, so typed letters go nowhere.
        self.idle = Window(FormattedTextControl("", focusable=True), height=1)

    def poll(self) -> bool:
        events = _take_lobby_events(self.handle.machine.events)
        for event in events:
            if isinstance(event, Welcomed):
                self.welcomed = event
                self.message = "joining…"
            elif isinstance(event, PasswordNeeded):
                self.need_password = True
                self.message = f"“{event.game_name}” needs a password"
            elif isinstance(event, HostKeyChanged):
                self.key_changed = event
                self.message = "the host's key has changed: type yes to join anyway"
            elif isinstance(event, Waiting):
                self.message = event.reason
            elif isinstance(event, RosterChanged):
                self.roster, self.seats, self.your_seat = event.roster, event.seats, event.your_seat
                self.refused = None
                where = (
                    f"you are seat {event.your_seat}"
                    if event.your_seat is not None
                    else "you are watching"
                )
                self.message = f"{where} — waiting for the host to start"
            elif isinstance(event, Refused):
                self.refused = event.reason
                self.need_password = "password" in event.reason
                self.message = f"refused: {event.reason}"
            elif isinstance(event, Started):
                self.started = self.done = True
        return bool(events)

    def give_password(self, password: str) -> None:
        self.need_password = False
        self.refused = None
        self.message = "checking the password…"
        self.handle.command(lambda now: self.lobby.give_password(password))

    def _prompt(self) -> str:
        return "trust it? (yes/no): " if self.key_changed is not None else "password: "

    def answer_key_change(self, answer: str) -> None:
        """'yes' trusts the changed host key and joins; anything else leaves."""
        self.key_changed = None
        if answer.strip().lower() == "yes":
            self.message = "joining…"
            self.handle.command(lambda now: self.lobby.accept_host_key())
        else:
            self.leave()

    def hint(self) -> str:
        """The keys that act now: while a question is open, letters type the answer."""
        if self.key_changed is not None:
            return " yes then Enter joins · anything else then Enter leaves · Ctrl-C leave"
        if self.need_password:
            return " type the password, then Enter · Ctrl-C leave"
        return " q or Esc leave"

    def leave(self) -> None:
        if not self.started:
            self.handle.command(lambda now: self.lobby.leave())
        self.done = True

    def text(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        w = self.welcomed
        if w is not None:
            # The roster (once we are in) is newer than the count in the welcome.
            taken = len(self.roster) if self.roster else w.taken
            out.append(
                (
                    "",
                    f"“{w.name}” · {display_name(w.engine)} · "
                    f"{taken}/{w.seats} seats taken · "
                    f"password {'yes' if w.password else 'no'}\n",
                )
            )
            out.append(("class:dim", f"host key {w.host_fingerprint}\n"))
        if self.roster:
            out.append(("class:header", f"\n{'seat':<5} {'nickname':<24} key\n"))
            for seat, e in enumerate(self.roster):
                you = " (you)" if seat == self.your_seat else ""
                out.append(
                    (
                        "",
                        f"{seat:<5} {(e.nickname + you)[:24]:<24} "
                        f"{'bot' if e.bot else e.fingerprint}\n",
                    )
                )
            for seat in range(len(self.roster), self.seats):
                out.append(("class:dim", f"{seat:<5} (open)\n"))
        if self.refused is not None:
            out.append(("class:error", f"\nthe host refused: {self.refused}\n"))
        changed = self.key_changed
        if changed is not None:
            out.append(
                (
                    "class:error",
                    f"\nWARNING: THE HOST'S KEY HAS CHANGED\n{changed.nickname!r} had key "
                    f"{changed.known} when you last played with them; this host answers with "
                    f"{changed.now}. Someone may be posing as them: ask them for `lantag id`.\n",
                )
            )
        return out


async def run_join_screen(
    handle: LobbyHandle,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> bool:
    """Wait in a host's lobby; asks for the password when needed.

    Returns True when the game starts, False when the player leaves (q, Ctrl-C).
    """
    screen = join_screen(handle, input=input, output=output, color=color)
    await screen.run()
    return screen.model.started


def join_screen(
    handle: LobbyHandle,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> Screen[JoinModel]:
    model = JoinModel(handle)
    kb = KeyBindings()
    asking = Condition(lambda: model.need_password or model.key_changed is not None)

    def accept(_buffer: Any) -> bool:
        if model.key_changed is not None:
            model.answer_key_change(model.password.text)
        else:
            model.give_password(model.password.text)
        model.password.text = ""
        app.layout.focus(model.idle)
        if model.done:
            app.exit()
        return True

    model.password.accept_handler = accept

    @kb.add("q", filter=~asking)
    @kb.add("escape", filter=~asking)
    @kb.add("c-c")
    @kb.add("c-q")
    def _leave(event: KeyPressEvent) -> None:
        model.leave()
        event.app.exit()

    def poll() -> bool:
        changed = model.poll()
        asked = model.need_password or model.key_changed is not None
        if asked and not app.layout.has_focus(model.password):
            app.layout.focus(model.password)
        return changed

    root = HSplit(
        [
            Window(FormattedTextControl(" lanTag │ joining a game"), height=1, style="class:title"),
            Window(WrappedText(model.text), wrap_lines=True),
            Window(FormattedTextControl(lambda: [("class:warn", model.message)]), height=1),
            ConditionalContainer(model.password, filter=asking),
            VSplit(
                [
                    Window(FormattedTextControl(model.hint), style="class:hint"),
                    model.idle,
                ],
                height=1,
            ),
        ]
    )
    app = make_app(root, kb, color, input, output, focus=model.idle)
    return Screen(model, app, poll, lambda: model.done)
