"""The replay viewer (`lantag replay`): step through a verified log with the game screen's
boards, jump to a step or a turn, play it on a timer, and see what every roll and
secret round was made of (the fairness panel).

The model (lanTag.ui.replay_model) is pure; this module is the prompt-toolkit layer:
layout, keys and the play timer.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import ConditionalContainer, HSplit, VSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from lanTag.log.inspect import RollDetail, describe
from lanTag.log.verify import VerifyReport
from lanTag.ui.boards import badge, seat_tag
from lanTag.ui.replay_model import ReplayModel
from lanTag.ui.screens import make_app
from lanTag.ui.style import seat_class
from lanTag.ui.widgets import WrappedText

KEYS_HELP = """\
replay keys
  → l Space / ← h     one step on / back
  PgDn / PgUp         ten steps on / back (or Ctrl-D / Ctrl-U)
  Home g / End G      first / last position
  :N Enter            jump to step N
  :tN Enter           jump to where turn N begins (a turn: one seat's run of moves
                      with the rolls just before it, or one secret round)
  p                   play / pause (one step per tick; stops at the end)
  + - (or =)          play faster / slower (steps per second, in the title)
  ? F1                this help (Esc, q, ? or F1 closes; ? for F1 where F1 is a
                      media key)
  q Esc Ctrl-C        close the viewer (a series: q and Esc open its next game,
                      Ctrl-C stops there)

fairness panel (under the board, at a roll or a secret round)
  roll: each seat's hash-chain link and whether it hashes to that seat's previous
        link (its anchor in the lobby record, or the link it revealed at step K);
        the draw seed over game, step, purpose and links; the values derived from
        the seed, checked against the recorded roll.
  secret round: each seat's commitment, its reveal (action and nonce) and whether
        it opens the commitment, the seat's link; bot seats' choices are drawn
        from those links; the joint choice derived from all that, checked against
        the recorded one.
"""

# Most useful first; it wraps on a narrow terminal (up to three rows).
HINT = (
    " ? help · ←→ step · PgUp/Dn or ^U/^D ±10 · g/G ends"
    " · :N/:tN jump · p play · +/- speed · q quit"
)
HELP_HINT = " Esc, q, ? or F1 closes the help"
JUMP_HINT = "(N: step, tN: turn · Enter go · Esc cancel)"
STOP_SERIES = 1  # run_replay_app's answer when Ctrl-C stops a series' viewers


def _lines(rows: list[StyleAndTextTuples]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for row in rows:
        out += [*row, ("", "\n")]
    return out[:-1]


class _Ui:
    """Screen state that is not the replay's: the jump being typed, the help overlay and
    the play timer's task."""

    def __init__(self) -> None:
        self.typed: str | None = None  # the jump text after ':' while typing one
        self.help = False
        self.player: asyncio.Task[None] | None = None


@dataclass(frozen=True)
class SeriesPlace:
    """A game of a series in the viewer: its number of ``total``, and the series' standings
    (lines of lanTag.log.standings.format_standings), shown at the end of the last game."""

    number: int
    total: int
    standings: tuple[str, ...] = ()

    @property
    def last(self) -> bool:
        return self.number == self.total


def replay_screen(
    data: bytes,
    report: VerifyReport,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    series: SeriesPlace | None = None,
) -> tuple[ReplayModel, Application[Any]]:
    model = ReplayModel(data, report)
    ui = _Ui()
    engine = model.record.engine

    def title() -> StyleAndTextTuples:
        step, _, _ = model.positions[model.index]
        last = model.positions[-1][0]
        status = "verified" if report.valid else "NOT VALID"
        turn = f" │ turn {model.turn()}/{len(model.turn_starts)}" if model.turn_starts else ""
        play = "▶" if model.playing else "⏸"
        game = f" │ game {series.number}/{series.total}" if series is not None else ""
        return [
            (
                "",
                f" lanTag │ replay{game} │ {model.display_name} │ step {step}/{last} │ {status}"
                f"{turn} │ {play} speed {model.steps_per_second:g}/s",
            )
        ]

    def standings() -> StyleAndTextTuples:
        """The series' standings, at the last step of its last game."""
        if series is None or not series.last or not series.standings:
            return []
        if model.index != len(model.positions) - 1:
            return []
        head = f"standings after {series.total} game(s)"
        return [("class:header", head), ("", "\n" + "\n".join(series.standings) + "\n")]

    def side() -> StyleAndTextTuples:
        state = model.positions[model.index][2]
        view = model.game_view.view(state, None)
        out: StyleAndTextTuples = [("class:header", "players"), ("", "\n")]
        for seat, rec in enumerate(model.record.seats):
            kind = "bot" if rec.is_bot else rec.fingerprint[:6]
            out += [
                (seat_class(seat), seat_tag(engine, seat)),
                ("", f" {rec.nickname[:10]:<10} {kind:<6} {badge(engine, view, seat)}\n"),
            ]
        out += [("class:header", "log"), ("", "\n")]
        out.append(
            (
                "",
                f"{report.signatures_verified} signatures, {report.rolls_verified} rolls and "
                f"{report.secrets_verified} secret choices verified\n",
            )
        )
        for seat, step, code, why in report.blames[-4:]:
            out.append(("class:log.blame", f"step {step}: seat {seat} blamed ({code}): {why}\n"))
        if report.failure is not None:
            f = report.failure
            out.append(("class:error", f"fails at entry {f.entry} (step {f.step}): {f.reason}\n"))
        if model.stopped:
            out.append(("class:error", model.stopped + "\n"))
        for step in model.rollbacks:
            out.append(("class:warn", f"step {step} was decided again (a rollback)\n"))
        if report.outcome:
            out.append(("class:warn", f"result: {report.outcome}\n"))
        out += standings()
        out += [("class:header", "moves"), ("", "\n")]
        low = max(0, model.index - 6)
        for i in range(low, min(len(model.positions), low + 14)):
            step, text, _ = model.positions[i]
            style = "class:selected" if i == model.index else ""
            out += [(style, f"{step}: {text}"), ("", "\n")]
        return out

    def fairness() -> StyleAndTextTuples:
        detail = model.detail
        if detail is None:
            return []
        lines = describe(detail)
        style = "class:ok" if detail.ok else "class:error"
        kind = "roll" if isinstance(detail, RollDetail) else "secret round"
        out: StyleAndTextTuples = [
            ("class:header", f"fairness of step {detail.step}'s {kind}"),
            (style, " ✓" if detail.ok else " ✗"),
        ]
        for line in lines[1:]:
            body = line.lstrip(" ")
            # No-break spaces: the word wrapper drops ordinary spaces at the start of a line.
            out += [("", "\n"), ("", "\u00a0" * (len(line) - len(body)) + body)]
        return out

    def hint() -> StyleAndTextTuples:
        if ui.typed is not None:
            return [("", f" jump to: {ui.typed}▏ {JUMP_HINT}")]
        if ui.help:
            return [("", HELP_HINT)]
        if model.message:
            return [("class:error", " " + model.message)]
        return [("", hint_text(model.playing, series))]

    jumping = Condition(lambda: ui.typed is not None)
    helping = Condition(lambda: ui.help)
    normal: Filter = ~jumping & ~helping
    kb = _key_bindings(model, ui, jumping, helping, normal, series)

    board = HSplit(
        [
            Window(
                FormattedTextControl(lambda: _lines(model.painted().rows)),
                height=lambda: Dimension(
                    min=min(3, len(model.painted().rows)),
                    preferred=len(model.painted().rows),
                    max=len(model.painted().rows),
                    weight=20,
                ),
            ),
            Window(
                WrappedText(lambda: _lines(model.painted().info + model.painted().extra)),
                wrap_lines=True,
                dont_extend_height=True,  # the fairness panel goes right under it
            ),
            Window(WrappedText(fairness), wrap_lines=True),
        ],
        width=lambda: Dimension(min=20, preferred=max(model.painted().width + 1, 36), weight=3),
    )
    body = VSplit(
        [
            board,
            Window(width=1, char="│", style="class:dim"),
            HSplit(
                [Window(WrappedText(side), wrap_lines=True)],
                width=Dimension(min=24, preferred=40, max=48, weight=1),
            ),
        ]
    )
    root = HSplit(
        [
            Window(FormattedTextControl(title), height=1, style="class:title"),
            ConditionalContainer(body, filter=~helping),
            ConditionalContainer(
                Window(WrappedText(lambda: [("", KEYS_HELP)]), wrap_lines=True), filter=helping
            ),
            Window(
                WrappedText(hint),
                wrap_lines=True,
                height=Dimension(min=1, max=3),
                dont_extend_height=True,
                style="class:hint",
            ),
        ]
    )
    return model, make_app(root, kb, color, input, output)


def hint_text(playing: bool, series: SeriesPlace | None = None) -> str:
    """The hint row: ``p`` says what it does now; in a series, ``q`` opens the next game."""
    text = HINT.replace("p play", "p pause") if playing else HINT
    if series is not None and not series.last:
        text = text.replace("q quit", "q next game · Ctrl-C stop")
    return text


def _key_bindings(
    model: ReplayModel,
    ui: _Ui,
    jumping: Filter,
    helping: Filter,
    normal: Filter,
    series: SeriesPlace | None,
) -> KeyBindings:
    kb = KeyBindings()

    def forget_message() -> None:
        model.message = ""

    # Every PgUp/PgDn/Home/End/F1 has a twin (Ctrl-D/Ctrl-U, g/G, ?): macOS Terminal.app keeps
    # the first four for its own scrollback and F1 is a media key there.
    moves = {"right": 1, "l": 1, "space": 1, "left": -1, "h": -1}
    moves |= {"pagedown": 10, "c-d": 10, "pageup": -10, "c-u": -10}
    for key, delta in moves.items():

        @kb.add(key, filter=normal)
        def _move(event: KeyPressEvent, delta: int = delta) -> None:
            forget_message()
            model.go(delta)

    @kb.add("home", filter=normal)
    @kb.add("g", filter=normal)
    def _start(event: KeyPressEvent) -> None:
        forget_message()
        model.go_to(0)

    @kb.add("end", filter=normal)
    @kb.add("G", filter=normal)
    def _end(event: KeyPressEvent) -> None:
        forget_message()
        model.go_to(model.last)

    # Jump: ':' opens a one-line prompt in the hint row; it takes the keys until Enter/Esc.
    @kb.add(":", filter=normal)
    def _jump(event: KeyPressEvent) -> None:
        forget_message()
        ui.typed = ""

    @kb.add(Keys.Any, filter=jumping)
    def _typed(event: KeyPressEvent) -> None:
        if event.data.isprintable() and len(ui.typed or "") < 12:
            ui.typed = (ui.typed or "") + event.data

    @kb.add("backspace", filter=jumping)
    def _erase(event: KeyPressEvent) -> None:
        ui.typed = (ui.typed or "")[:-1]

    @kb.add("enter", filter=jumping)
    def _go(event: KeyPressEvent) -> None:
        text, ui.typed = ui.typed or "", None
        if text.strip():
            model.jump(text)

    @kb.add("escape", filter=jumping)
    def _cancel(event: KeyPressEvent) -> None:
        ui.typed = None

    # Play: the model steps on each tick; the timer lives here, with the app.
    async def play(app: Application[Any]) -> None:
        while model.playing:
            await asyncio.sleep(model.interval)
            model.tick()
            app.invalidate()

    def stop_player() -> None:
        if ui.player is not None and not ui.player.done():
            ui.player.cancel()
        ui.player = None

    @kb.add("p", filter=normal)
    def _play(event: KeyPressEvent) -> None:
        forget_message()
        model.toggle_play()
        stop_player()
        if model.playing:
            ui.player = event.app.create_background_task(play(event.app))

    @kb.add("+", filter=normal)
    @kb.add("=", filter=normal)
    def _faster(event: KeyPressEvent) -> None:
        model.faster()

    @kb.add("-", filter=normal)
    def _slower(event: KeyPressEvent) -> None:
        model.slower()

    @kb.add("?", filter=normal | helping)
    @kb.add("f1", filter=normal | helping)
    def _help(event: KeyPressEvent) -> None:
        ui.help = not ui.help

    @kb.add("escape", filter=helping)
    @kb.add("q", filter=helping)
    def _close_help(event: KeyPressEvent) -> None:
        ui.help = False

    @kb.add("q", filter=normal)
    @kb.add("escape", filter=normal)
    def _quit(event: KeyPressEvent) -> None:
        stop_player()
        event.app.exit()

    @kb.add("c-c")
    def _stop(event: KeyPressEvent) -> None:
        stop_player()
        # A series' next game opens on q; Ctrl-C stops at this one.
        if series is not None and not series.last:
            event.app.exit(result=STOP_SERIES)
        else:
            event.app.exit()

    return kb


async def run_replay_app(
    data: bytes,
    report: VerifyReport,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
    series: SeriesPlace | None = None,
) -> int:
    """Step through the verified log ``data``; returns 0 when the viewer is closed.
    ``series``: the game's place in a series (title and, at the end, the standings);
    Ctrl-C there returns STOP_SERIES: the caller opens no further game."""
    _model, app = replay_screen(
        data, report, input=input, output=output, color=color, series=series
    )
    code = await app.run_async()
    return code if isinstance(code, int) else 0


__all__ = [
    "KEYS_HELP",
    "STOP_SERIES",
    "ReplayModel",
    "SeriesPlace",
    "hint_text",
    "replay_screen",
    "run_replay_app",
]
