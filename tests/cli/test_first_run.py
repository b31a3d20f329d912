"""The first run asks for a nickname (default: the login name), never without a terminal."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lanTag.cli.first_run import ask_nickname, identity_for_play
from lanTag.peer.runtime import identity_path


@pytest.fixture(autouse=True)
def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("USER", "zoe")


def _answers(*lines: str) -> tuple[Callable[[str], str], list[str]]:
    prompts: list[str] = []
    queue = list(lines)

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        if not queue:
            raise EOFError
        return queue.pop(0)

    return ask, prompts


def test_the_first_run_asks_and_keeps_the_answer() -> None:
    ask, prompts = _answers("Max the Great")
    me = identity_for_play(ask, interactive=True)
    assert me.nickname == "Max the Great"
    assert prompts == ["Your nickname at the table [zoe]: "]
    assert identity_path().read_text(encoding="utf-8").split("\n")[1] == "Max the Great"
    # Asked once: the next run finds the identity and asks nothing.
    ask_again, prompts_again = _answers("other")
    assert identity_for_play(ask_again, interactive=True).nickname == "Max the Great"
    assert prompts_again == []


def test_an_empty_answer_is_the_login_name_and_a_bad_one_is_asked_again() -> None:
    said: list[str] = []
    ask, prompts = _answers("\x07bell", "x" * 40, "")
    assert ask_nickname("zoe", ask, said.append) == "zoe"
    assert len(prompts) == 3 and len(said) == 2 and "1-32 printable" in said[0]
    ask_eof, _ = _answers()
    assert ask_nickname("zoe", ask_eof, said.append) == "zoe"


def test_without_a_terminal_nothing_is_asked() -> None:
    def never(prompt: str) -> str:
        raise AssertionError("asked without a terminal")

    me = identity_for_play(never, interactive=False)
    assert me.nickname == "zoe" and identity_path().exists()
