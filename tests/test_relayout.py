"""scripts/relayout.py rewrites references by pattern, and applying it twice changes nothing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "relayout.py"


@pytest.fixture(scope="module")
def relayout() -> ModuleType:
    spec = importlib.util.spec_from_file_location("relayout_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


BEFORE = """from lanTag.cli import UserError, color_enabled
from lanTag import cli
from lanTag.ui import commands, model
from lanTag.peer import BotDriver
from tests.session.test_verify_paths import rechain
import lanTag.session.machine as machine
COMMANDS = {"play": "lanTag.commands", "sim": "lanTag.simulate_metrics"}
patch("lanTag.ui.lobby.run_host_screen")
# see lanTag/lobby.py and session/machine.py; python -m lanTag.simulate
lantag = "lanTag.cli:main"
from lanTag.session.versions import why_not_join
from lanTag.rules import tagem_view
from lanTag.rules.stomptag_text import describe_event
"""

AFTER = """from lanTag.cli.entry import UserError, color_enabled
from lanTag.cli import entry as cli
from lanTag.ui import model
from lanTag.ui import game_commands as commands
from lanTag.peer.machine import BotDriver
from tests.log.test_verify_paths import rechain
import lanTag.session.lockstep as machine
COMMANDS = {"play": "lanTag.cli.play_commands", "sim": "lanTag.sim.metrics"}
patch("lanTag.ui.lobby_screens.run_host_screen")
# see lanTag/peer/join_handshake.py and session/lockstep.py; python -m lanTag.sim.simulate
lantag = "lanTag.cli.entry:main"
from lanTag.session.compatibility import why_not_join
from lanTag.views import tagem_view
from lanTag.views.stomptag_view import describe_event
"""


def test_rewrite_renames_every_form_of_reference(relayout: ModuleType) -> None:
    assert relayout.rewrite(BEFORE, True) == AFTER


def test_rewrite_is_idempotent(relayout: ModuleType) -> None:
    assert relayout.rewrite(AFTER, True) == AFTER
    # New packages named by themselves in an import are not taken for the old modules.
    assert relayout.rewrite("from lanTag.peer import machine\n", True) == (
        "from lanTag.peer import machine\n"
    )
    # A module added to a new package after the move is not taken for the old module's
    # attribute (the root module peer.py became peer/machine.py in the move).
    added = "from lanTag.peer import series\nimport lanTag.peer.series\n# lanTag.cli.series_play\n"
    assert relayout.rewrite(added, True) == added


def test_no_old_name_is_a_new_name(relayout: ModuleType) -> None:
    # Otherwise a second run would move or rename again.
    assert not relayout.DOTTED_MOVES.keys() & relayout.NEW_MODULES
    assert len(set(relayout.DOTTED_MOVES.values())) == len(relayout.DOTTED_MOVES)
