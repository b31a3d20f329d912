"""The host setup screen: the :class:`~lanTag.ui.host_form.HostForm` on a console form.

:class:`SetupModel` adds what the screen needs to the form (the field being typed,
the message line, the result); named commands in ``SETUP_COMMANDS`` change it, and
key bindings only call them.  Hosting validates with the code `lantag host` uses
for its flags, and an error is one line on the message line, never a traceback.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import TextArea

from lanTag.cli.entry import UserError, parse_option_pairs
from lanTag.peer.join_handshake import HostConfig
from lanTag.rules.base import OptionError
from lanTag.ui.host_form import Field, HostForm
from lanTag.ui.screens import Screen, make_app
from lanTag.ui.widgets import WrappedText

__all__ = [
    "SETUP_COMMANDS",
    "Field",
    "HostForm",
    "SetupModel",
    "host_setup_screen",
    "run_host_setup",
    "run_host_setup_for",
    "run_setup",
]

# The legend names the keys as they act where the focus is (issue #34 item 6): ←→ only on a
# field they change, Enter as what it does there; typing and the help have their own keys.
TYPING_LEGEND = " Enter keeps it · Esc drops it · ←→ move in the text"
HELP_LEGEND = " Esc, q, ? or F1 closes the help"
TEXT_ONLY = ("name", "password", "map")  # ←→ do not change these: Enter types them

HELP = """\
Host a game — keys
  ↑ ↓ / Tab / Shift-Tab   move between the fields
  ← → / - +               change the value (game, choices, numbers, seats, bots)
  Enter                   edit the field as text (Enter keeps it, Esc drops it);
                          on a choice it takes the next value; on [ host ] it hosts
  s                       host the game now: the lobby opens and others can join
  Esc / q                 go back without hosting
  ? / F1                  this help (Esc, q, ? or F1 closes)

Seats are for people, yours included; bots take extra seats and are played by
every peer alike.  An empty name becomes "<you>'s <game>".  A map file replaces
the shipped map (Tag 'em only; see docs/maps.md).  The same checks as
`lantag host --game ...` apply: an error is shown on the message line.
"""


# ====================================================================== screen model


class SetupModel:
    """The form plus the screen around it: the field being typed, messages, the result."""

    def __init__(self, form: HostForm, nickname: str, turn_timeout: float = 120.0) -> None:
        self.form = form
        self.nickname = nickname
        self.turn_timeout = turn_timeout
        self.editing: str | None = None  # key of the field being typed
        self.edit = TextArea(
            multiline=False,
            height=1,
            prompt="edit› ",
            password=Condition(lambda: self.editing == "password"),
        )
        self.show_help = False
        self.message = form.note or "pick the game and its settings, then s (or [ host ]) to host"
        self.message_style = "class:warn" if form.note else "class:hint"
        self.done = False
        self.result: HostConfig | None = None

    def say(self, text: str, style: str = "class:hint") -> None:
        # One line: the message window is one row high and errors must not hide the form.
        self.message, self.message_style = " ".join(text.split()), style

    def field_hint(self) -> str:
        return self.form.focused().hint

    def rows(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for i, f in enumerate(self.form.fields()):
            here = i == self.form.focus
            value = f.value
            if f.key == "name" and not self.form.name:
                value = f"(default: {self.nickname}'s {self.form.game().display_name})"
            style = "class:selected" if here else ""
            out += [
                ("class:warn" if here else "", "▶ " if here else "  "),
                (style, f"{f.label:<16}"),
                ("", " "),
                (style if f.key == "host" else "class:you" if here else "", value[:60]),
                ("", "\n"),
            ]
        return out[:-1]

    def legend(self) -> str:
        """The bottom line: the keys that act now, as they act on the focused field."""
        if self.editing is not None:
            return TYPING_LEGEND
        if self.show_help:
            return HELP_LEGEND
        field = self.form.focused()
        if field.key == "host":
            return " ↑↓ field · Enter or s host · ? help · Esc back"
        if field.key in TEXT_ONLY:
            return " ↑↓ field · Enter type it · s host · ? help · Esc back"
        enter = "Enter edit" if field.typed else "Enter next"
        return f" ↑↓ field · ←→ change · {enter} · s host · ? help · Esc back"

    def cursor(self) -> Point:
        # The window scrolls to keep this row in view on short terminals.
        return Point(0, self.form.focus)


SetupCommand = Callable[[SetupModel, str], None]
SETUP_COMMANDS: dict[str, SetupCommand] = {}


def setup_command(name: str) -> Callable[[SetupCommand], SetupCommand]:
    def register(fn: SetupCommand) -> SetupCommand:
        SETUP_COMMANDS[name] = fn
        return fn

    return register


def run_setup(model: SetupModel, name: str, arg: str = "") -> None:
    """Run the named command (key bindings call this; so can tests)."""
    fn = SETUP_COMMANDS.get(name)
    if fn is None:
        model.say(f"unknown command {name!r}", "class:error")
        return
    fn(model, arg)


@setup_command("field-next")
def field_next(model: SetupModel, arg: str) -> None:
    model.form = model.form.move(int(arg or "1"))


@setup_command("field-prev")
def field_prev(model: SetupModel, arg: str) -> None:
    model.form = model.form.move(-int(arg or "1"))


@setup_command("focus")
def focus(model: SetupModel, arg: str) -> None:
    """Move to the field named ``arg`` ("engine", "opt:mode", "seats", "name"...)."""
    try:
        model.form = model.form.focus_on(arg)
    except ValueError:
        model.say(f"no field {arg!r} here", "class:error")


def _change(model: SetupModel, delta: int) -> None:
    key = model.form.focused().key
    try:
        model.form = model.form.step(key, delta)
    except (OptionError, ValueError) as exc:
        model.say(str(exc), "class:error")
        return
    if key in ("name", "password", "map"):
        model.say("Enter to type it", "class:hint")
    else:
        model.say(model.field_hint())


@setup_command("value-next")
def value_next(model: SetupModel, arg: str) -> None:
    _change(model, 1)


@setup_command("value-prev")
def value_prev(model: SetupModel, arg: str) -> None:
    _change(model, -1)


@setup_command("activate")
def activate(model: SetupModel, arg: str) -> None:
    """Enter: host on [ host ], type a text field, take the next value of a choice."""
    field = model.form.focused()
    if field.key == "host":
        host(model, "")
    elif field.typed:
        edit(model, "")
    else:
        _change(model, 1)


@setup_command("edit")
def edit(model: SetupModel, arg: str) -> None:
    """Start typing the focused field (or the field named ``arg``)."""
    if arg:
        focus(model, arg)
    key = model.form.focused().key
    if key == "host":
        return
    model.editing = key
    model.edit.text = model.form.text_of(key)
    model.edit.buffer.cursor_position = len(model.edit.text)
    model.say(f"type the {model.form.focused().label}; Enter keeps it, Esc drops it")


@setup_command("edit-accept")
def edit_accept(model: SetupModel, arg: str) -> None:
    """Enter while typing: keep the text (``arg`` replaces it when given)."""
    key = model.editing
    if key is None:
        return
    text = arg or model.edit.text
    try:
        model.form = model.form.set_text(key, text)
    except (OptionError, ValueError) as exc:
        model.say(str(exc), "class:error")  # stay in the field so it can be fixed
        return
    model.editing = None
    model.say(model.field_hint())


@setup_command("edit-cancel")
def edit_cancel(model: SetupModel, arg: str) -> None:
    model.editing = None
    model.say("unchanged")


@setup_command("set")
def set_field(model: SetupModel, arg: str) -> None:
    """``key=value``: type a field in one go ("name=Friday tag", "opt:pawns=3", "seats=3")."""
    key, sep, value = arg.partition("=")
    if not sep:
        model.say("set wants key=value", "class:error")
        return
    try:
        model.form = model.form.set_text(key.strip(), value)
    except (OptionError, ValueError) as exc:
        model.say(str(exc), "class:error")
        return
    model.say(f"{key.strip()} set", "class:ok")


@setup_command("host")
def host(model: SetupModel, arg: str) -> None:
    """s: validate as `lantag host` does; on success the screen ends with the HostConfig."""
    try:
        model.result = model.form.to_config(model.nickname, model.turn_timeout)
    except (UserError, OptionError, ValueError) as exc:
        model.say(str(exc), "class:error")
        return
    model.editing = None
    model.done = True


@setup_command("cancel")
def cancel(model: SetupModel, arg: str) -> None:
    model.result, model.done = None, True


@setup_command("toggle-help")
def toggle_help(model: SetupModel, arg: str) -> None:
    model.show_help = not model.show_help


# ====================================================================== application


def host_setup_screen(
    form: HostForm,
    *,
    nickname: str,
    turn_timeout: float = 120.0,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> Screen[SetupModel]:
    model = SetupModel(form, nickname, turn_timeout)
    kb = KeyBindings()
    typing = Condition(lambda: model.editing is not None)
    helping = Condition(lambda: model.show_help)
    browsing = ~typing & ~helping

    def bind(*keys: str, name: str, arg: str = "", filter: Any = browsing) -> None:
        @kb.add(*keys, filter=filter)
        def _(event: KeyPressEvent) -> None:
            run_setup(model, name, arg)
            if model.editing is not None and not app.layout.has_focus(model.edit):
                app.layout.focus(model.edit)
            if model.done:
                event.app.exit()

    for key in ("down", "tab"):
        bind(key, name="field-next")
    for key in ("up", "s-tab"):
        bind(key, name="field-prev")
    for key in ("right", "+"):
        bind(key, name="value-next")
    for key in ("left", "-"):
        bind(key, name="value-prev")
    bind("enter", name="activate")
    bind("s", name="host")
    for key in ("escape", "q"):
        bind(key, name="cancel")
    bind("?", name="toggle-help")
    bind("f1", name="toggle-help", filter=~typing)
    for key in ("escape", "q", "?"):
        bind(key, name="toggle-help", filter=helping)
    bind("escape", name="edit-cancel", filter=typing)

    @kb.add("c-c")
    @kb.add("c-q")
    def _quit(event: KeyPressEvent) -> None:
        run_setup(model, "cancel")
        event.app.exit()

    def accept(_buffer: Any) -> bool:
        run_setup(model, "edit-accept")
        if model.editing is None:
            app.layout.focus(form_window)
        return True  # keep the text: a rejected value stays there to be fixed

    model.edit.accept_handler = accept

    form_window = Window(
        FormattedTextControl(model.rows, get_cursor_position=model.cursor, focusable=True),
        wrap_lines=False,
        always_hide_cursor=True,  # the ▶ marks the field; a cursor there only distracts
        height=lambda: Dimension(min=3, preferred=len(model.form.fields())),
        dont_extend_height=True,
    )
    root = HSplit(
        [
            Window(FormattedTextControl(" lanTag │ host a game"), height=1, style="class:title"),
            ConditionalContainer(
                HSplit(
                    [
                        form_window,
                        Window(height=1, char="─", style="class:dim"),
                        Window(
                            WrappedText(lambda: [("class:dim", model.field_hint())]),
                            wrap_lines=True,
                            height=Dimension(min=1, max=3),
                            dont_extend_height=True,
                        ),
                        Window(),  # the spare rows go below the hint, not between
                    ]
                ),
                filter=~helping,
            ),
            ConditionalContainer(
                Window(FormattedTextControl(HELP), wrap_lines=True), filter=helping
            ),
            Window(FormattedTextControl(lambda: [(model.message_style, model.message)]), height=1),
            ConditionalContainer(model.edit, filter=typing),
            Window(FormattedTextControl(model.legend), height=1, style="class:hint"),
        ]
    )
    app = make_app(root, kb, color, input, output, focus=form_window)

    def poll() -> bool:
        # Focus follows the mode: the edit line while typing, the form otherwise.
        if model.editing is None and app.layout.has_focus(model.edit):
            app.layout.focus(form_window)
            return True
        return False

    return Screen(model, app, poll, lambda: model.done)


async def run_host_setup(
    form: HostForm,
    *,
    nickname: str,
    turn_timeout: float = 120.0,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> HostConfig | None:
    """Show the form; the checked HostConfig once the host presses s, None on Esc."""
    screen = host_setup_screen(
        form,
        nickname=nickname,
        turn_timeout=turn_timeout,
        input=input,
        output=output,
        color=color,
    )
    await screen.run()
    return screen.model.result


async def run_host_setup_for(
    args: argparse.Namespace, nickname: str, *, color: bool = True
) -> HostConfig | None:
    """`lantag host` without --game: the form, pre-filled from the other flags."""
    form = HostForm.prefill(
        parse_option_pairs(args.option),
        map_path=args.map or "",
        seats=args.seats,
        bots=args.bots,
        bot=args.bot,
        name=args.name,
        password=args.password,
    )
    return await run_host_setup(
        form, nickname=nickname, turn_timeout=args.turn_timeout, color=color
    )
