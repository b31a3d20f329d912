"""The lobby browser: a live list of the games advertised on the LAN.

Its hint names only keys that do what they say: Enter joins the selected game, or says on
the message line why it cannot (another version, already playing, full) and stays; ``h``
is offered only where the caller hosts a game instead (``lantag join`` without a target).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from lanTag.net.lobby_adverts import LobbyInfo, LobbyTable, already_playing_line, same_name_note
from lanTag.rules.registry import display_name
from lanTag.session.compatibility import why_not_join
from lanTag.ui.screens import Screen, make_app
from lanTag.ui.widgets import WrappedText

BROWSE_POLL_SECONDS = 0.2


class _HasTable(Protocol):
    @property
    def table(self) -> LobbyTable: ...


TableSource = Callable[[], LobbyTable] | _HasTable


class BrowserModel:
    """The list of advertised games and the selection."""

    def __init__(self, source: TableSource, *, can_host: bool = False, spectate: bool = False):
        self._source = source
        self.can_host = can_host  # 'h' leaves to host a game of our own
        self.spectate = spectate  # Enter watches (a full game may be watched, not sat in)
        self.lobbies: tuple[LobbyInfo, ...] = ()
        self.selected = 0
        self.done = False
        self.result: LobbyInfo | None = None
        self.host_requested = False
        self.message = ""  # why Enter did not join, until the next key
        self.refresh()

    def table(self) -> LobbyTable:
        source = self._source
        return source() if callable(source) else source.table

    def refresh(self) -> bool:
        lobbies = self.table().lobbies()
        if lobbies == self.lobbies:
            return False
        current = self.lobbies[self.selected].instance if self.lobbies else None
        self.lobbies = lobbies
        keys = [i.instance for i in lobbies]
        self.selected = (
            keys.index(current) if current in keys else min(self.selected, max(0, len(keys) - 1))
        )
        return True

    def move(self, delta: int) -> None:
        self.message = ""
        if self.lobbies:
            self.selected = max(0, min(len(self.lobbies) - 1, self.selected + delta))

    def pick(self) -> None:
        """Enter: join the selected game, or say why it cannot be joined and stay."""
        if not self.lobbies:
            self.message = "no game to join yet: wait for one to appear" + (
                ", or h to host one" if self.can_host else ""
            )
            return
        info = self.lobbies[self.selected]
        why = cannot_join(info, self.spectate)
        if why:
            self.message = why
            return
        self.result, self.done = info, True

    def quit(self) -> None:
        self.result, self.done = None, True

    def host(self) -> None:
        if self.can_host:
            self.result, self.host_requested, self.done = None, True, True

    def hint(self) -> str:
        enter = "Enter watch" if self.spectate else "Enter join"
        host = " · h host a game" if self.can_host else ""
        return f" ↑↓/jk select · {enter}{host} · q quit"

    def text(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [
            (
                "class:header",
                f"  {'NAME':<20} {'GAME':<20} {'SEATS':>5}  {'LOCK':<6} {'STATE':<7} HOST KEY\n",
            ),
        ]
        if not self.lobbies:
            out.append(("class:hint", "  searching the local network for games…"))
            return out
        for i, info in enumerate(self.lobbies):
            style = "class:selected" if i == self.selected else ""
            seats = f"{info.seats_taken}/{info.seats_total}"
            lock = "locked" if info.password else "open"
            row = (
                f"{'▶' if i == self.selected else ' '} {info.name[:20]:<20} "
                f"{display_name(info.engine)[:20]:<20} {seats:>5}  {lock:<6} "
                f"{info.state:<7} {info.fingerprint}"
            )
            out += [(style, row), ("", "\n")]
            # another protocol or rules version: say so, before a join
            why = why_not_join(info.engine, info.version, info.rules)
            if why:
                out += [("class:error", f"    ✗ cannot join: {why}"), ("", "\n")]
            same = same_name_note(info, self.lobbies)  # an impostor copies a name
            if same:
                out += [("class:warn", f"    ⚠ {same}"), ("", "\n")]
        ignored = self.table().ignored
        if ignored:
            out.append(("class:dim", f"  ({ignored} malformed advert(s) ignored)"))
        return out


def cannot_join(info: LobbyInfo, spectate: bool = False) -> str:
    """Why Enter cannot join ``info`` now, in one line ("" when it can)."""
    why = why_not_join(info.engine, info.version, info.rules)
    if why:
        return f"cannot join “{info.name}”: {why}"
    if info.state == "playing":
        return already_playing_line(info.name)
    if info.full and not spectate:
        return (
            f"“{info.name}” is full ({info.seats_taken}/{info.seats_total}): pick another "
            "game, or watch it with `lantag join --spectate`"
        )
    return ""


def browser_screen(
    source: TableSource,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    can_host: bool = False,
    spectate: bool = False,
) -> Screen[BrowserModel]:
    """``can_host``: ``h`` leaves to host a game instead (the caller shows the setup form);
    ``spectate``: Enter watches the selected game."""
    model = BrowserModel(source, can_host=can_host, spectate=spectate)
    kb = KeyBindings()

    @kb.add("up")
    @kb.add("k")
    def _up(event: KeyPressEvent) -> None:
        model.move(-1)

    @kb.add("down")
    @kb.add("j")
    def _down(event: KeyPressEvent) -> None:
        model.move(1)

    @kb.add("enter")
    def _pick(event: KeyPressEvent) -> None:
        model.pick()
        if model.done:
            event.app.exit()

    @kb.add("h", filter=Condition(lambda: model.can_host))
    def _host(event: KeyPressEvent) -> None:
        model.host()
        event.app.exit()

    @kb.add("q")
    @kb.add("escape")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        model.quit()
        event.app.exit()

    root = HSplit(
        [
            Window(
                FormattedTextControl(" lanTag │ games on this network"),
                height=1,
                style="class:title",
            ),
            Window(FormattedTextControl(model.text), wrap_lines=False),
            ConditionalContainer(
                Window(
                    WrappedText(lambda: [("class:error", model.message)]),
                    wrap_lines=True,
                    height=Dimension(max=2),
                    dont_extend_height=True,
                ),
                filter=Condition(lambda: bool(model.message)),
            ),
            Window(
                FormattedTextControl(model.hint),
                height=1,
                style="class:hint",
            ),
        ]
    )
    app = make_app(root, kb, color, input, output)
    return Screen(model, app, model.refresh, lambda: model.done, BROWSE_POLL_SECONDS)
