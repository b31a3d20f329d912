"""The prompt-toolkit console UI: lobby browser, host and join screens, game, replay."""

from __future__ import annotations

from lanTag.ui.game_screen import GameApp, run_game_app
from lanTag.ui.lobby_screens import run_host_screen, run_join_screen, run_lobby_browser
from lanTag.ui.replay import run_replay_app

__all__ = [
    "GameApp",
    "run_game_app",
    "run_host_screen",
    "run_join_screen",
    "run_lobby_browser",
    "run_replay_app",
]
