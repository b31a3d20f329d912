"""Replay a verified log step by step (pure: bytes in, boards out)."""

from __future__ import annotations

from collections.abc import Iterator

from lanTag.log.verify import verify_log
from lanTag.rules.base import State, input_text
from lanTag.rules.registry import get_game
from lanTag.session.lobby import LobbyRecord


def replay_states(data: bytes) -> Iterator[tuple[int, str, str]]:
    """(step, input text, board) for every applied step of the log, the start first."""
    states = list(replay_positions(data))
    for step, text, state in states:
        yield step, text, state.render()


def replay_positions(data: bytes) -> Iterator[tuple[int, str, State]]:
    report = verify_log(data)
    from lanTag.log.chain import parse_log

    header = parse_log(data).entries[0]
    record = LobbyRecord.decode(header.data[1])
    game = get_game(record.engine)
    state = game.new_state(len(record.seats), record.option_dict, record.map_text)
    yield 0, "start", state
    for applied in report.applied:
        state = state.apply(applied.input)
        yield applied.step + 1, input_text(applied.input), state
