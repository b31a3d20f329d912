"""`lantag position`: a game's position as named fields (JSON), from a log or checked.

``lantag position LOG [--step N]`` prints the position after N steps of a verified log
(default: the end); ``lantag position --check FILE`` says whether FILE holds a position of
a game this lanTag plays, naming every problem on one line (exit 2) when it does not.
Each engine's fields are listed in its docs/rules page.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from lanTag.cli.entry import UserError
from lanTag.files import read_text
from lanTag.log.entries import LogFormatError, parse_log
from lanTag.log.verify import verify_log
from lanTag.rules.base import (
    Game,
    IllegalAction,
    OptionError,
    PositionError,
    State,
)
from lanTag.rules.coordinates import FIELD
from lanTag.rules.registry import get_game
from lanTag.session.lobby_record import LobbyRecord, start_state
from lanTag.views.brief import waits_for


def states_of_log(data: bytes, name: str) -> list[State]:
    """The position before each step of a verified log: [start, after step 0, ...]."""
    try:
        report = verify_log(data)
    except LogFormatError as exc:
        raise UserError(f"{name}: {exc}") from None
    if not report.valid:
        failure = report.failure
        assert failure is not None
        raise UserError(f"{name} fails verification at entry {failure.entry}: {failure.reason}")
    if not report.replayed:
        raise UserError(f"{name}: cannot replay it here: {report.needs}")
    record = LobbyRecord.decode(parse_log(data).entries[0].data[1])
    states = [start_state(record)]
    for applied in report.applied:
        # A step decided again after a rollback (SPEC §5.5) replaces the history after it.
        del states[applied.step + 1 :]
        try:
            states.append(states[-1].apply(applied.input))
        except IllegalAction as exc:  # a verified log never gets here
            raise UserError(f"{name}: step {applied.step} does not apply: {exc}") from None
    return states


def position_at(data: bytes, name: str, step: int | None) -> dict[str, Any]:
    states = states_of_log(data, name)
    last = len(states) - 1
    if step is None:
        step = last
    if not 0 <= step <= last:
        raise UserError(f"{name}: --step {step} is not a step of this log (0..{last})")
    state = states[step]
    try:
        return state.game.position(state)
    except PositionError as exc:
        raise UserError(f"{name}: {exc}") from None


def check_position(path: str) -> str:
    """The one line that says what FILE holds; UserError naming every problem otherwise."""
    game, position, state = load_position(path)
    seats = position["seats"]
    line = f"{path}: a valid {game.display_name} position ({seats} seats; {waits_for(state)})"
    if FIELD not in position:  # read as it was written: say so, the spelling is not today's
        line += (
            f'; its places are in the old spelling (no "{FIELD}" field: docs/rules/'
            f"{game.id}.md, Position format)"
        )
    return line


def load_position(path: str) -> tuple[type[Game], dict[str, Any], State]:
    """The game, fields and state of the position in FILE; UserError naming every problem
    (one line) otherwise."""
    try:
        text = read_text(path)
    except OSError as exc:
        raise UserError(f"cannot read position {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a text file (a log? lantag position LOG)") from None
    try:
        position = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(position, dict) or not isinstance(position.get("game"), str):
        raise UserError(f'{path}: a position is a JSON object with a "game" field')
    try:
        game = get_game(position["game"])
        state = game.from_position(position)
    except (OptionError, PositionError) as exc:
        raise UserError(f"{path}: {exc}") from None
    return game, position, state


def position_text(position: dict[str, Any]) -> str:
    """JSON with one field per line and each value on its line: easy to edit by hand."""
    fields = [f"  {json.dumps(name)}: {json.dumps(value)}" for name, value in position.items()]
    return "{\n" + ",\n".join(fields) + "\n}"


async def cmd_position(args: argparse.Namespace) -> int:
    if args.check is not None:
        if args.log is not None or args.step is not None:
            raise UserError("--check FILE takes no log and no --step")
        print(check_position(args.check))
        return 0
    if args.log is None:
        raise UserError("name a log (lantag position LOG [--step N]) or --check FILE")
    try:
        data = Path(args.log).read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read log {args.log}: {exc.strerror}") from None
    print(position_text(position_at(data, args.log, args.step)))
    return 0
