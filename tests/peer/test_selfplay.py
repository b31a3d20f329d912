"""`lantag selfplay`: real peer processes on loopback, through the lobby and UDP stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_selfplay_plays_a_short_game_in_three_processes_and_verifies_every_log(
    tmp_path: Path,
) -> None:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_DATA_HOME=str(tmp_path / "d"))
    proc = subprocess.run(
        [sys.executable, "-m", "lanTag", "selfplay", "--game", "prototag", "--peers", "3",
         "--games", "1", "--option", "end_steps=15", "--log-dir", str(tmp_path / "logs"),
         "--stall", "120", "--json"],
        capture_output=True, text=True, env=env, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["ok"] and result["problems"] == []
    assert result["steps"] > 0 and result["peers"] == 3
    logs = sorted((tmp_path / "logs").glob("game0-peer*.lantag"))
    assert len(logs) == 3 and all(p.stat().st_size > 0 for p in logs)
