"""The replay viewer (`lantag replay`): step through a verified log with the game screen's
boards.

Positions are rebuilt from the verifier's applied inputs (``VerifyReport.applied``),
so the viewer shows exactly what verification accepted and never re-runs it.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, VSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from lanTag.log.chain import parse_log
from lanTag.log.verify import VerifyReport
from lanTag.rules.base import IllegalAction, State, input_text
from lanTag.rules.registry import get_game
from lanTag.session.lobby import LobbyRecord
from lanTag.ui.boards import Painted, badge, paint, seat_tag
from lanTag.ui.screens import make_app
from lanTag.ui.style import seat_class
from lanTag.ui.widgets import WrappedText


class ReplayModel:
    """Every position of the game and the one on screen."""

    def __init__(self, data: bytes, report: VerifyReport) -> None:
        self.report = report
        header = parse_log(data).entries[0]
        self.record = LobbyRecord.decode(header.data[1])
        game = get_game(self.record.engine)
        self.display_name = game.display_name
        state: State = game.new_state(
            len(self.record.seats), self.record.option_dict, self.record.map_text
        )
        self.positions: list[tuple[int, str, State]] = [(0, "start", state)]
        self.stopped = ""
        for applied in report.applied:
            try:
                state = state.apply(applied.input)
            except IllegalAction as exc:  # only reachable for logs viewed with --force
                self.stopped = f"stopped at step {applied.step}: {exc}"
                break
            self.positions.append((applied.step + 1, input_text(applied.input), state))
        self.index = 0
        self._painted: tuple[int, Painted] | None = None

    @property
    def names(self) -> list[str]:
        return [s.nickname for s in self.record.seats]

    def go(self, delta: int) -> None:
        self.index = max(0, min(len(self.positions) - 1, self.index + delta))

    def go_to(self, index: int) -> None:
        self.index = max(0, min(len(self.positions) - 1, index))

    def painted(self) -> Painted:
        if self._painted is None or self._painted[0] != self.index:
            state = self.positions[self.index][2]
            board = paint(self.record.engine, state.view(None), self.names, state.render)
            self._painted = (self.index, board)
        return self._painted[1]


def _lines(rows: list[StyleAndTextTuples]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for row in rows:
        out += [*row, ("", "\n")]
    return out[:-1]


def replay_screen(
    data: bytes,
    report: VerifyReport,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> tuple[ReplayModel, Application[Any]]:
    model = ReplayModel(data, report)
    engine = model.record.engine

    def title() -> StyleAndTextTuples:
        step, _, _ = model.positions[model.index]
        last = model.positions[-1][0]
        status = "verified" if report.valid else "NOT VALID"
        return [("", f" lanTag │ replay │ {model.display_name} │ step {step}/{last} │ {status}")]

    def side() -> StyleAndTextTuples:
        state = model.positions[model.index][2]
        view = state.view(None)
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
        if report.outcome:
            out.append(("class:warn", f"result: {report.outcome}\n"))
        out += [("class:header", "moves"), ("", "\n")]
        low = max(0, model.index - 6)
        for i in range(low, min(len(model.positions), low + 14)):
            step, text, _ = model.positions[i]
            style = "class:selected" if i == model.index else ""
            out += [(style, f"{step}: {text}"), ("", "\n")]
        return out

    kb = KeyBindings()
    moves = {"right": 1, "l": 1, "space": 1, "left": -1, "h": -1, "pagedown": 10, "pageup": -10}
    for key, delta in moves.items():

        @kb.add(key)
        def _move(event: KeyPressEvent, delta: int = delta) -> None:
            model.go(delta)

    @kb.add("home")
    @kb.add("g")
    def _start(event: KeyPressEvent) -> None:
        model.go_to(0)

    @kb.add("end")
    @kb.add("G")
    def _end(event: KeyPressEvent) -> None:
        model.go_to(len(model.positions) - 1)

    @kb.add("q")
    @kb.add("escape")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit()

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
            Window(WrappedText(lambda: _lines(model.painted().info)), wrap_lines=True),
        ],
        width=lambda: Dimension(min=20, preferred=max(model.painted().width + 1, 36), weight=3),
    )
    root = HSplit(
        [
            Window(FormattedTextControl(title), height=1, style="class:title"),
            VSplit(
                [
                    board,
                    Window(width=1, char="│", style="class:dim"),
                    HSplit(
                        [Window(WrappedText(side), wrap_lines=True)],
                        width=Dimension(min=24, preferred=40, max=48, weight=1),
                    ),
                ]
            ),
            Window(
                FormattedTextControl(
                    " ←→/hl step · PgUp/PgDn ten · Home/End (g/G) start/end · q quit"
                ),
                height=1,
                style="class:hint",
            ),
        ]
    )
    return model, make_app(root, kb, color, input, output)


async def run_replay_app(
    data: bytes,
    report: VerifyReport,
    *,
    input: Input | None = None,
    output: Output | None = None,
    color: bool = True,
) -> int:
    """Step through the verified log ``data``; returns 0 when the viewer is closed."""
    _model, app = replay_screen(data, report, input=input, output=output, color=color)
    await app.run_async()
    return 0
