"""`lantag play` sets up its own table on loopback: when its bot peers cannot join, it
says how many did, in one line, and closes every peer it opened."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanTag.cli import play_commands
from lanTag.cli.entry import UserError, build_parser


def closed_port() -> tuple[str, int]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:  # bound, then closed
        s.bind(("127.0.0.1", 0))
        host, port = s.getsockname()
    return (host, port)


async def test_bots_that_cannot_join_are_counted_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    real_join, real_wait = play_commands.open_join, play_commands.wait_until
    bots: list[Any] = []

    async def wait_for_the_first_bot(predicate: Callable[[], bool], timeout: float) -> bool:
        # the setup's wait, ended once the bot that can join has: no race with its join
        first = bots[0].machine.lobby
        assert await real_wait(lambda: first.your_seat is not None, 60.0)
        return predicate()

    async def join_nowhere_but_the_first(address: object, *args: Any, **kwargs: Any) -> Any:
        bots.append(bot := await real_join(address if not bots else closed_port(), *args, **kwargs))
        return bot

    monkeypatch.setattr(play_commands, "open_join", join_nowhere_but_the_first)
    monkeypatch.setattr(play_commands, "wait_until", wait_for_the_first_bot)
    args = build_parser().parse_args(["play", "--headless", "--bots", "2"])
    args.log = str(tmp_path / "p.lantag")
    with pytest.raises(UserError) as raised:
        await play_commands.cmd_play(args)
    assert str(raised.value) == (
        "1 of 2 bot peers joined on loopback in 30 s (is UDP on 127.0.0.1 blocked?)"
    )
    assert len(bots) == 2 and all(bot.pump._closed.is_set() for bot in bots)
