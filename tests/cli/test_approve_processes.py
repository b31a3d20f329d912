"""Issue #24 "done when", with real processes on loopback: `lantag host --headless
--approve` asks on stdin about each joiner (nickname, key, address); two throwaway
identities that came first are refused (one clear line, exit 1) and the friend who came
last gets the seat and the game starts."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import IO

from tests.cli.helpers import HANG_GUARD, LANTAG, announced_port, lantag_process, make_home


def _read_until(stream: IO[str], end: str) -> str:
    """Characters of ``stream`` up to and including ``end`` (the prompt has no newline)."""
    text = ""
    while not text.endswith(end):
        char = stream.read(1)
        assert char, f"stream closed after {text!r}"
        text += char
    return text


def _join(home_root: Path, nickname: str, port: str) -> subprocess.Popen[str]:
    return lantag_process(
        make_home(home_root),
        *("join", f"127.0.0.1:{port}", "--headless", "--bind", "127.0.0.1"),
        env={"USER": nickname},
    )


def test_approve_keeps_two_squatters_out_and_seats_the_friend(tmp_path: Path) -> None:
    host_home = make_home(tmp_path / "host")
    host = lantag_process(
        host_home, "host", "--headless", "--approve", "--no-advertise", "--bind", "127.0.0.1",
        "--port", "0", "--seats", "2", stdin=subprocess.PIPE,
    )  # fmt: skip
    joiners: list[subprocess.Popen[str]] = []
    try:
        assert host.stderr is not None and host.stdin is not None
        port = announced_port(host)
        squatters = [_join(tmp_path / f"s{i}", f"squat{i}", port) for i in (1, 2)]
        joiners += squatters
        asked = []
        for _ in squatters:
            prompt = _read_until(host.stderr, "let them in? [y/n] ")
            asked.append(prompt)
            assert "squat" in prompt.splitlines()[-1], prompt
            host.stdin.write("n\n")
            host.stdin.flush()
        for squatter in squatters:
            _out, err = squatter.communicate(timeout=HANG_GUARD)
            assert squatter.returncode == 1, err
            assert "refused: the host did not let you in" in err
            assert "Traceback" not in err
        friend = _join(tmp_path / "friend", "friend", port)
        joiners.append(friend)
        prompt = _read_until(host.stderr, "let them in? [y/n] ").splitlines()[-1]
        assert prompt.startswith("friend (key ") and "from 127.0.0.1:" in prompt
        host.stdin.write("y\n")
        host.stdin.flush()
        assert friend.stdout is not None
        # The roster the host sends on seating can come ahead of its start ("lobby: 2/2").
        started = friend.stdout.readline()
        while started.startswith("lobby: "):
            started = friend.stdout.readline()
        assert started.startswith("started: prototag, you are seat 1 (friend)"), started
        for line in asked:
            last = line.splitlines()[-1]
            assert "(key " in last and "from 127.0.0.1:" in last and "asks to sit" in last
    finally:
        for proc in (*joiners, host):
            proc.kill()
            proc.communicate(timeout=HANG_GUARD)


def test_a_wrong_password_is_refused_and_the_headless_host_says_who_guessed(
    tmp_path: Path,
) -> None:
    host_home = make_home(tmp_path / "host")
    host = lantag_process(
        host_home, "host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--port", "0",
        "--seats", "2", "--password", "open sesame",
    )  # fmt: skip
    try:
        port = announced_port(host)
        home = make_home(tmp_path / "guesser")
        guess = subprocess.run(
            [
                *LANTAG,
                "join",
                f"127.0.0.1:{port}",
                "--headless",
                "--bind",
                "127.0.0.1",
                "--password",
                "open sesam",
            ],
            env=home.env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
            cwd=home.root,
            check=False,
        )
        assert guess.returncode == 1, guess.stderr
        assert "refused: wrong password" in guess.stderr and "Traceback" not in guess.stderr
        assert host.stderr.readline().rstrip() == "lobby: 1 wrong password from 127.0.0.1"
    finally:
        host.kill()
        host.communicate(timeout=HANG_GUARD)
