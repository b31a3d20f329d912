"""What the pre-game screens share: a polled model behind a small application."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import Output

from lanTag.ui.style import color_depth, colour_enabled, make_style

POLL_SECONDS = 0.05
M = TypeVar("M")


def make_app(
    root: Any,
    kb: KeyBindings,
    color: bool,
    input: Input | None,
    output: Output | None,
    focus: Any = None,
) -> Application[Any]:
    color = colour_enabled(color)
    return Application(
        layout=Layout(root, focused_element=focus),
        key_bindings=kb,
        style=make_style(color),
        color_depth=color_depth(color),
        full_screen=True,
        input=input,
        output=output,
    )


async def poll_until_done(
    app: Application[Any], poll: Callable[[], bool], done: Callable[[], bool], period: float
) -> None:
    while True:
        if poll():
            app.invalidate()
        future = app.future
        if done() and future is not None and not future.done():
            app.exit()
            return
        await asyncio.sleep(period)


class Screen(Generic[M]):
    """A model, its application and the loop that polls the model while the app runs."""

    def __init__(
        self,
        model: M,
        app: Application[Any],
        poll: Callable[[], bool],
        done: Callable[[], bool],
        period: float = POLL_SECONDS,
    ) -> None:
        self.model, self.app = model, app
        self._poll, self._done, self._period = poll, done, period

    async def run(self) -> None:
        def start() -> None:
            self.app.create_background_task(
                poll_until_done(self.app, self._poll, self._done, self._period)
            )

        await self.app.run_async(pre_run=start)
