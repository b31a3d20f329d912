"""Draw an application's layout into plain text (tests, docs and bug reports)."""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition


def screen_text(app: Application[Any], width: int = 80, height: int = 24) -> str:
    """The characters ``app`` would show on a ``width`` x ``height`` terminal, one line per row.

    Colours and attributes are dropped; trailing blanks are trimmed.
    """
    screen = Screen(initial_width=width, initial_height=height)
    # Controls cache their text per render; a new count makes them read the model afresh.
    app.render_counter += 1
    with set_app(app):
        app.layout.container.write_to_screen(
            screen,
            MouseHandlers(),
            WritePosition(xpos=0, ypos=0, width=width, height=height),
            parent_style="",
            erase_bg=False,
            z_index=None,
        )
        screen.draw_all_floats()
    rows = []
    for y in range(height):
        line = screen.data_buffer[y]
        rows.append("".join(line[x].char for x in range(width)).rstrip())
    return "\n".join(rows)
