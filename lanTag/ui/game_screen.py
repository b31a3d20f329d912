"""The game screen, for every engine: board, players, dice, log and a command line.

Layout (80x24 and up; every part shrinks, nothing needs a fixed size)::

    title bar
    board + status + legend          | players, turn, dice, event log
    message line (hints, errors)
    command line (completion of the legal actions)

Key bindings only call named commands (lanTag.ui.game_commands) on the
:class:`~lanTag.ui.model.GameModel`; a background task polls the peer's
event deque every 50 ms and redraws when something arrived.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame

from lanTag.log.standings import format_standings
from lanTag.rules.base import Simultaneous, Turn
from lanTag.rules.registry import display_name, find_entry
from lanTag.ui import game_commands as commands
from lanTag.ui.board_pane import BoardPane, FitWindow, WidthBy, side_width
from lanTag.ui.boards import Painted, badge, paint, seat_tag, zooms
from lanTag.ui.choosing import secret_pending, secret_text
from lanTag.ui.feed_panel import FeedControl
from lanTag.ui.game_handle import GameHandle
from lanTag.ui.model import GameModel
from lanTag.ui.series_info import SeriesInfo
from lanTag.ui.style import color_depth, colour_enabled, make_style, seat_class
from lanTag.ui.turn_clock import WARN_LEFT
from lanTag.ui.widgets import WrappedText

POLL_SECONDS = 0.05

KEYS_HELP = """\
One rule: letters and words always go to the command line; only keys that
cannot start a word act on the board.
  type a word        "jump ffl", "end", "bid 3": Enter plays it, Tab completes
  Esc                clear the command line
  arrows             play the legal move that goes n/e/s/w (step, face, move,
                     leave the Safe House); if several pawns could, press the
                     digit of the one to move
  0-9                pick the piece the arrows move (Tag 'em pawns)
  .                  show all your pieces (where they fit) and follow them
  Tab / Shift-Tab    put the next / previous legal action on the command line
  Enter              play the command line (seals it when the choice is secret)
  /                  a slash command: /say text, /end, /help, /quit
  PgUp / PgDn        scroll a board taller than its pane (or Ctrl-U / Ctrl-D)
  Shift+arrows       pan a board bigger than its pane (◀ ▶ ▲ ▼ mark what is
                     cut off); it follows your pieces again after ".", a
                     digit or a move
  ? or F1 or Ctrl-G  this help (Esc, ? or F1 closes; arrows scroll)
  Ctrl-Q twice       leave the game (a bot takes your seat; Ctrl-C too)
  Ctrl-L             redraw the screen
  Enter (watching)   play your seat again after a bot took it (idle too long)
  (game over)        q or Enter leaves, b hides the result box, Esc shows it;
                     in a game night the host's r plays again, s sets up another
                     game, and a joiner's a accepts the game the host proposes

Secret choices (rock-paper-scissors, bids, orders) are sealed with a hash
commitment and revealed only when every seat has sealed: "committed — waiting
for N others" means yours is locked in. Where the options start with different
letters, a letter alone is the option: r, p or s, then Enter, in rock-paper-scissors.
Dice are seeded by every live seat's hash-chain reveal; the side panel says how many
seats seeded the last roll.

"! ..." above the status lines: a rule that makes you lose unless you act now.
"""


def turn_limit_help(limit: float) -> str:
    """The turn limit of this game, and what happens at it, for the help screen."""
    marks = " and ".join(f"{m} s" for m in WARN_LEFT if m < limit)
    warned = (
        f" At {marks} left the message line warns you (and the terminal beeps)." if marks else ""
    )
    return (
        f"\nTurn clock: each move or secret choice has {limit:.0f} s (the host's\n"
        f"--turn-timeout); your row and the turn line count it.{warned}\n"
        "At the limit the other players vote your seat out and a bot plays it: you are\n"
        "not gone, press Enter to play it again (the table lets you back in at its next\n"
        "step, as it does a seat resumed after a crash).\n"
    )


def rules_text(engine: str) -> str:
    """The game's rules text (its package's rules.md; empty if there is none)."""
    entry = find_entry(engine)
    try:
        return entry.read_rules_text() if entry is not None else ""
    except (FileNotFoundError, OSError):
        return ""


class GameApp:
    """One game screen: builds the layout and key bindings around a :class:`GameModel`."""

    def __init__(
        self,
        handle: GameHandle,
        *,
        input: Input | None = None,
        output: Output | None = None,
        color: bool = True,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.model = GameModel(handle, clock) if clock is not None else GameModel(handle)
        self.model.poll()
        # No message yet: the message line then shows prompt_hint(), which follows the game.
        self._painted_key: int | None = None
        self._painted: dict[int, Painted] = {}
        color = colour_enabled(color)
        self.app: Application[int] = Application(
            layout=Layout(self._layout(), focused_element=self._line_window),
            key_bindings=self._bindings(),
            style=make_style(color),
            color_depth=color_depth(color),
            full_screen=True,
            mouse_support=False,
            input=input,
            output=output,
        )
        # Esc clears the line: prompt_toolkit's defaults wait 0.5 s for the rest of an escape
        # sequence and 1 s more for an Alt-key chord, so a lone Esc took 1.5 s to act.  A
        # terminal sends a sequence's bytes together; 0.1 s still covers a slow ssh link.
        self.app.ttimeoutlen = 0.1
        self.app.timeoutlen = 0.2

    async def run(self) -> int:
        code = await self.app.run_async(pre_run=self._start_polling)
        return int(code)

    # ------------------------------------------------------------------ polling

    def _start_polling(self) -> None:
        self.app.create_background_task(self._poll_loop())

    async def _poll_loop(self) -> None:
        shown = -1
        while True:
            changed = self.model.poll()
            seconds = int(self.model.turn_seconds())
            if changed or seconds != shown:
                shown = seconds
                self.app.invalidate()
            if self.model.bell:
                self.model.bell = False
                self.app.output.bell()  # the turn limit nears, or the seat went to a bot
            self._maybe_exit()
            await asyncio.sleep(POLL_SECONDS)

    def _maybe_exit(self) -> None:
        future = self.app.future
        if self.model.exit_code is not None and future is not None and not future.done():
            self.app.exit(result=self.model.exit_code)

    def painted(self) -> Painted:
        """The board at its widest cells (its status lines, legend and side are the same at
        every zoom)."""
        return self.painted_at(0)

    def painted_at(self, zoom: int) -> Painted:
        view = self.model.view()
        if self.model.view_serial != self._painted_key:
            self._painted_key = self.model.view_serial
            self._painted = {}
        if zoom not in self._painted:
            s = self.model.session

            def render() -> str:
                if s is None:
                    return "waiting for the game to start"
                return self.model.game_view().render(s.state)

            self._painted[zoom] = paint(self.model.engine, view, self.model.names(), render, zoom)
        return self._painted[zoom]

    # ------------------------------------------------------------------ layout

    def _layout(self) -> FloatContainer:
        model = self.model
        self._line_window = Window(
            BufferControl(buffer=model.line, focusable=True), height=1, dont_extend_height=True
        )
        self.pane = BoardPane(model, self.painted_at, lambda: zooms(model.engine))
        feed = FeedControl(lambda: model.outcomes)
        side = HSplit(
            [
                Window(
                    FormattedTextControl(self._players_text),
                    height=lambda: Dimension(min=2, preferred=len(model.names()) + 1),
                    dont_extend_height=True,
                ),
                Window(
                    WrappedText(self._turn_text),
                    height=Dimension(min=1, max=8),
                    wrap_lines=True,
                    dont_extend_height=True,
                ),
                # What our decision needs (Tag 'em's attacks and their modifiers): above
                # the legend, which gives up its rows first.
                ConditionalContainer(
                    Window(
                        WrappedText(self._side_text),
                        height=Dimension(min=2, max=9),
                        wrap_lines=True,
                        dont_extend_height=True,
                    ),
                    filter=Condition(lambda: bool(self.painted().side)),
                ),
                Window(
                    WrappedText(self._legend_text),
                    height=Dimension(min=1, max=6),
                    wrap_lines=True,
                    dont_extend_height=True,
                ),
                # In the side panel, not under the board: at 80x24 a big board leaves no
                # row under it, and these lines must be seen until our next decision.
                # The lines about us keep their rows (FitWindow); the others fold away.
                ConditionalContainer(
                    FitWindow(feed, feed.least_rows, spare=8, max_rows=7),
                    filter=Condition(lambda: bool(model.outcomes)),
                ),
                Window(
                    WrappedText(self._log_text, follow=True),
                    wrap_lines=True,
                    height=Dimension(min=1, weight=1),
                ),
            ],
        )
        body = VSplit(
            [
                self.pane.container(),
                Window(width=1, char="│", style="class:dim"),
                WidthBy(side, side_width),
            ]
        )
        help_window = Window(WrappedText(self._help_text), wrap_lines=True)
        over_box = Frame(
            Window(WrappedText(self._over_text), wrap_lines=True),
            title="Game over",
            width=Dimension(min=24, preferred=64, max=72),
        )
        root = HSplit(
            [
                Window(FormattedTextControl(self._title_text), height=1, style="class:title"),
                # The result box floats over the body only: the title bar and the message
                # and command lines stay readable on any terminal size.
                FloatContainer(
                    ConditionalContainer(body, filter=~self._helping()),
                    floats=[
                        Float(content=ConditionalContainer(over_box, filter=self._over_shown()))
                    ],
                ),
                ConditionalContainer(help_window, filter=self._helping()),
                # Hints and errors wrap (up to 3 rows) rather than run off a narrow screen.
                Window(
                    WrappedText(self._message_text),
                    height=Dimension(min=1, max=3),
                    wrap_lines=True,
                    dont_extend_height=True,
                ),
                VSplit(
                    [
                        Window(FormattedTextControl(self._prompt_text), width=7),
                        self._line_window,
                    ],
                    height=1,
                ),
            ]
        )
        return FloatContainer(
            root,
            floats=[
                Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=8)),
            ],
        )

    def _title_text(self) -> StyleAndTextTuples:
        m, s = self.model, self.model.session
        if s is None:
            return [("", " lanTag │ waiting for the game to start")]
        seat = m.seat
        who = f"you: seat {seat} {m.names()[seat]}" if seat is not None else "watching"
        if m.seat_taken_over():
            who = f"watching: bot in your seat {seat}"
        return [("", f" lanTag │ {s.game.display_name} │ step {s.step} │ {who} │ F1/Ctrl-G help")]

    def _side_text(self) -> StyleAndTextTuples:
        painted = self.painted()
        out: StyleAndTextTuples = [("class:header", painted.side_header)]
        for line in painted.side:
            out += [("", "\n"), ("", "» "), *line]
        return out

    def _legend_text(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("class:header", "legend"), ("", " ")]
        # The zoom the board is drawn at (drawn before the side panel): compact cells
        # say what they leave out.
        for line in self.painted_at(self.pane.control.zoom).legend:
            out += [*line, ("", "\n")]
        return out[:-1]

    def _players_text(self) -> StyleAndTextTuples:
        m, s = self.model, self.model.session
        if s is None:
            return []
        view: dict[str, Any] = m.view()
        d = s.state.decision()
        acting = (
            {d.seat}
            if isinstance(d, Turn)
            else set(d.seats)
            if isinstance(d, Simultaneous)
            else set()
        )
        out: StyleAndTextTuples = [("class:header", "players"), ("", "\n")]
        badges = [badge(m.engine, view, seat) for seat in range(len(s.record.seats))]
        wide = max(map(len, badges), default=0)
        for seat, rec in enumerate(s.record.seats):
            status = m.own_status() if seat == m.seat else m.seat_status(seat)
            out += [
                ("class:warn", "▶" if seat in acting else " "),
                (seat_class(seat), seat_tag(m.engine, seat)),
                ("class:you" if seat == m.seat else "", f" {rec.nickname[:10]:<10}"),
                ("class:dim", f" {rec.fingerprint[:6] if not rec.is_bot else '-':<6}"),
                # The badge (score, IT) before the status: a long status ("thinking
                # 12/120s") then runs off the side at 80 columns, not the score.
                ("", f" {badges[seat]:<{wide}}"),
                ("class:error" if status in ("dropped", "DESYNC") else "", f" {status}"),
                ("", "\n"),
            ]
        return out[:-1]

    def _turn_text(self) -> StyleAndTextTuples:
        m = self.model
        out: StyleAndTextTuples = [
            ("class:header", "turn"),
            ("", f" {m.turn_text()} · {m.clock_text()}"),
        ]
        left = m.seconds_left()
        if left is not None and left <= max(WARN_LEFT):
            out.append(("class:error", f" — {max(0.0, left):.0f} s left!"))
        out.append(("", "\n"))
        # The choice being sealed now comes before the dice (what we must answer first);
        # the last one revealed after them.
        secret = secret_text(m)
        now: StyleAndTextTuples = (
            [("class:header", "secret"), ("", " " + secret + "\n")] if secret else []
        )
        if secret_pending(m):
            out, now = out + now, []
        if m.last_roll is not None:
            style = "class:log.roll" if not m.last_roll.problems else "class:error"
            out += [("class:header", "dice"), (style, " " + m.last_roll.text() + "\n")]
        out += now
        out[-1] = (out[-1][0], out[-1][1].rstrip("\n"))
        return out

    def _log_text(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = [("class:header", "log")]
        for line in self.model.log:
            out += [("", "\n"), (line.style, line.text)]
        return out

    def _help_text(self) -> StyleAndTextTuples:
        clock = turn_limit_help(self.model.turn_limit()) if self.model.session else ""
        rules = rules_text(self.model.engine) or "(no rules summary)"
        text = KEYS_HELP + clock + "\n" + rules
        lines = text.splitlines()
        top = min(self.model.help_scroll, max(0, len(lines) - 1))
        return [
            (
                "class:header",
                "help — Esc, q, ? or F1 closes; arrows, PgUp/PgDn, Ctrl-U/Ctrl-D scroll\n",
            ),
            ("", "\n".join(lines[top:])),
        ]

    def _over_text(self) -> StyleAndTextTuples:
        m = self.model
        outcome = m.final_outcome()
        if outcome is None:
            return []
        names = m.names()
        out: StyleAndTextTuples = [("class:warn", outcome.summary + "\n\n")]
        for place, group in enumerate(outcome.ranking, start=1):
            for seat in group:
                score = f"  score {outcome.scores[seat]}" if outcome.scores else ""
                you = "  (you)" if seat == m.seat else ""
                out += [
                    ("", f"{place}. "),
                    (seat_class(seat), seat_tag(m.engine, seat)),
                    ("", f" {names[seat]}{score}{you}\n"),
                ]
        path = m.handle.log_path
        # The path on a line of its own; it is printed again, unwrapped, as the program exits.
        out.append(("", f"\nlog saved to\n{path}\n" if path is not None else "\nno log file\n"))
        out += self._series_text()
        out.append(("class:hint", "q or Enter: leave   b: look at the board   F1/Ctrl-G: help"))
        return out

    def _series_text(self) -> StyleAndTextTuples:
        """The night so far (standings) and what comes next: the host proposes, joiners
        accept or leave."""
        m, s = self.model, self.model.session
        out: StyleAndTextTuples = []
        if m.series is not None and s is not None:
            outcome = m.final_outcome()
            ranking = [list(g) for g in outcome.ranking] if outcome is not None else None
            out.append(("class:header", f"\nstandings after game {m.series.number}\n"))
            out += [("", line + "\n") for line in format_standings(m.series.table(s, ranking))]
            if m.series.can_propose:
                out.append(("class:warn", "r: play again (same game)   s: another game\n"))
        if m.next_game is not None:
            game = display_name(m.next_game.engine)
            out.append(("class:warn", f"\nthe host proposes {game}: a accepts, q leaves\n"))
        return out

    def _message_text(self) -> StyleAndTextTuples:
        m = self.model
        return [(m.message_style or "class:hint", m.message or m.prompt_hint())]

    def _prompt_text(self) -> StyleAndTextTuples:
        if self.model.mode == "command":
            return [("class:prompt", " type› ")]
        return [("class:prompt.board", " keys› ")]

    # ------------------------------------------------------------------ keys

    def _helping(self) -> Filter:
        return Condition(lambda: self.model.show_help)

    def _over_shown(self) -> Filter:
        m = self.model
        return Condition(lambda: m.is_over() and m.show_over and not m.show_help)

    def _bindings(self) -> KeyBindings:
        m = self.model
        kb = KeyBindings()
        helping = self._helping()
        over_box = self._over_shown()
        free = ~helping & ~over_box
        board = free & Condition(lambda: m.mode == "board")
        typing = free & Condition(lambda: m.mode == "command")
        ended = Condition(m.is_over) & ~helping
        ended_hidden = ended & Condition(lambda: not m.show_over and not m.line.text)
        empty_line = Condition(lambda: not m.line.text)

        def bind(*keys: str | Keys, name: str, arg: str = "", filter: Filter) -> None:
            @kb.add(*keys, filter=filter)
            def _(event: KeyPressEvent) -> None:
                commands.run(m, name, arg)
                self._maybe_exit()

        for keys, direction in (
            (("left",), "w"),
            (("right",), "e"),
            (("up",), "n"),
            (("down",), "s"),
        ):
            bind(*keys, name="step-direction", arg=direction, filter=board)
        for digit in "0123456789":
            bind(digit, name="select", arg=digit, filter=board & empty_line)
        bind("tab", name="cycle-action", arg="+1", filter=board)
        bind("s-tab", name="cycle-action", arg="-1", filter=board)
        bind("enter", name="submit", filter=board | typing)
        bind(":", name="command-mode", filter=board & empty_line)
        bind("escape", name="clear-line", filter=(typing | board) & ~ended_hidden)
        bind("escape", name="toggle-result", filter=board & ended_hidden)
        # Every PgUp/PgDn/F1 has a Ctrl twin: macOS Terminal.app keeps PgUp/PgDn for its own
        # scrollback and F1 is a media key there.  Ctrl, not letters: letters are words here.
        # Ctrl-U/Ctrl-D as in less and vi; Ctrl-G is nano's "get help".
        bind("pageup", name="board-scroll", arg="-5", filter=board)
        bind("c-u", name="board-scroll", arg="-5", filter=board)
        bind("pagedown", name="board-scroll", arg="5", filter=board)
        bind("c-d", name="board-scroll", arg="5", filter=board)
        for shifted, step in (
            ("s-left", "-8,0"),
            ("s-right", "8,0"),
            ("s-up", "0,-3"),
            ("s-down", "0,3"),
        ):
            bind(shifted, name="board-pan", arg=step, filter=board)
        # "." and "?" never start a word, so they act on the board when the line is empty.
        bind(".", name="board-follow", filter=board & empty_line)
        bind("?", name="toggle-help", filter=(board & empty_line) | helping)
        bind("f1", name="toggle-help", filter=Condition(lambda: True))
        bind("c-g", name="toggle-help", filter=Condition(lambda: True))
        for key in ("escape", "q"):
            bind(key, name="toggle-help", filter=helping)
        for key, step in (
            ("up", "-1"),
            ("down", "1"),
            ("pageup", "-10"),
            ("c-u", "-10"),
            ("pagedown", "10"),
            ("c-d", "10"),
        ):
            bind(key, name="help-scroll", arg=step, filter=helping)
        for key in ("c-q", "c-c"):
            bind(key, name="quit", filter=Condition(lambda: True))
        # The result box is modal: its letters never reach the command line.
        bind("q", name="leave", filter=over_box)
        bind("enter", name="leave", filter=over_box)
        bind("escape", name="leave", filter=over_box)
        bind("b", name="toggle-result", filter=over_box)
        bind("r", name="rematch", filter=over_box)
        bind("s", name="rematch", arg="setup", filter=over_box)
        bind("a", name="accept-next", filter=over_box)

        @kb.add(Keys.Any, filter=board)
        def _type(event: KeyPressEvent) -> None:
            # The one input rule: every letter (any printable key not bound above) goes to
            # the command line, so a word is never eaten by a board key.
            if event.data.isprintable() and len(event.data) == 1:
                commands.run(m, "type", event.data)

        @kb.add(Keys.Any, filter=helping | over_box)
        def _ignore(event: KeyPressEvent) -> None:
            # Over the help or the result box, stray letters must not land in the command line.
            return

        @kb.add("c-l")
        def _redraw(event: KeyPressEvent) -> None:
            event.app.renderer.clear()

        return kb


async def run_game_app(
    handle: GameHandle,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    series: SeriesInfo | None = None,
) -> int:
    """Play the started game of ``handle`` (a :class:`lanTag.peer.runtime.PeerHandle`).

    Returns 0 when the player leaves after the game is over, 1 when they quit
    during the game; in a series (``series``), the codes of lanTag.ui.series_info
    (REMATCH_SAME, ...) for what was chosen on the game-over box.
    """
    app = GameApp(handle, input=input, output=output, color=color)
    app.model.series = series
    return await app.run()
