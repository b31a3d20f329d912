"""`lantag join` gives up and says why: one line, exit 1, with or without a terminal.

Real subprocesses (stdin is /dev/null: not a terminal) against a closed loopback UDP
port; the timeout is short so the test is quick, but nothing asserts how fast it is.
"""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

import pytest

from lanTag.cli.join_help import needs_terminal_line, no_answer_line
from lanTag.peer.runtime import default_log_dir, default_log_path, table_slug
from tests.cli.helpers import HANG_GUARD, LANTAG, Home, lantag, make_home, stderr_lines

HOST = ("host", "--headless", "--game", "prototag", "--seats", "2", "--bind", "127.0.0.1")


def _closed_udp_port() -> int:
    """A loopback UDP port nothing listens on (bound once by us, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _join(home: Home, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LANTAG, "join", *args],
        env=home.env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        check=False,
    )


@pytest.mark.parametrize("headless", [False, True])
def test_join_to_a_silent_port_gives_up_naming_the_address(home: Home, headless: bool) -> None:
    port = _closed_udp_port()
    flags = ["--headless"] if headless else []
    result = _join(home, *flags, "--timeout", "1", f"127.0.0.1:{port}")
    shown = f"rc={result.returncode} stderr={result.stderr!r}"
    assert result.returncode == 1, shown
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, shown
    failures = [line for line in stderr_lines(result) if line.startswith("lantag:")]
    assert len(failures) == 1, shown
    assert failures[0] == "lantag: " + no_answer_line(("127.0.0.1", port), 1.0)
    assert f"no answer from 127.0.0.1:{port}" in failures[0]
    assert "is the game still hosted, and still in its lobby" in failures[0]
    assert f"UDP port {port}" in failures[0]


def test_join_timeout_help_names_the_default(home: Home) -> None:
    result = _join(home, "--help")
    assert "--timeout" in result.stdout and "default 10" in " ".join(result.stdout.split())


def test_no_answer_line_takes_extra_causes_first() -> None:
    line = no_answer_line(("10.0.0.5", 4000), 10, ["is this laptop on the guest Wi-Fi?"])
    assert line.startswith("no answer from 10.0.0.5:4000 within 10 s — is this laptop")
    assert line.endswith("is UDP port 4000 allowed by the firewall?")


def test_join_without_a_terminal_and_without_headless_says_so(home: Home) -> None:
    """The host answers, but the console cannot run on a closed stdin: one line, exit 1
    (this used to be "internal error: EOFError")."""
    host = subprocess.Popen(
        [*LANTAG, *HOST, "--no-advertise"],
        env=home.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stderr is not None
        first = host.stderr.readline()  # "hosting Prototag on port N; others run: ..."
        port = first.split(" on port ")[1].split(";")[0]
        result = _join(home, "--timeout", "30", f"127.0.0.1:{port}")
    finally:
        host.kill()
        host.wait(HANG_GUARD)
    shown = f"rc={result.returncode} stderr={result.stderr!r}"
    assert result.returncode == 1, shown
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, shown
    failures = [line for line in stderr_lines(result) if line.startswith("lantag:")]
    assert failures == ["lantag: " + needs_terminal_line()], shown


LOG_NAME = re.compile(r"\d{8}-\d{6}-prototag-friday-tag-[0-9a-f]{6}\.lantag")


def test_host_and_joiner_logs_are_named_after_the_game(tmp_path: Path) -> None:
    """Date, game and table name in both logs' names (the joiner's used to be "-game-")."""
    host_home, join_home = make_home(tmp_path / "host"), make_home(tmp_path / "join")
    host = subprocess.Popen(
        [*LANTAG, *HOST, "--no-advertise", "--name", "Friday tag!"],
        env=host_home.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stderr is not None
        port = host.stderr.readline().split(" on port ")[1].split(";")[0]
        joined = _join(join_home, "--headless", f"127.0.0.1:{port}")
        assert joined.returncode == 0, joined.stderr
        assert host.wait(HANG_GUARD) == 0
    finally:
        host.kill()
        host.wait(HANG_GUARD)
    for home in (host_home, join_home):
        logs = [p.name for p in (home.data / "lantag" / "logs").glob("*.lantag")]
        assert len(logs) == 1 and LOG_NAME.fullmatch(logs[0]), logs
        assert (home.data / "lantag" / "logs" / (logs[0] + ".secret")).exists()


def test_log_help_names_the_default_folder(home: Home) -> None:
    for command in ("play", "host", "join"):
        result = lantag(home, command, "--help")
        shown = "".join(result.stdout.split())  # argparse wraps (and may split) the path
        assert "".join(str(home.data / "lantag" / "logs").split()) in shown, command


def test_a_table_name_from_the_network_never_leaves_the_log_folder() -> None:
    path = default_log_path("../../etc", "../x/ y Z")
    assert path.parent == default_log_dir()
    assert re.fullmatch(r"\d{8}-\d{6}-etc-x-y-z-[0-9a-f]{6}\.lantag", path.name), path.name
    assert table_slug("") == "" and default_log_path("boardtag").name.count("--") == 0


@pytest.mark.parametrize("name", ["Friday tag", None])
def test_join_by_name_finding_nothing_says_how_to_join_by_address_and_exits_1(
    home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str | None,
) -> None:
    """mDNS filtered, another subnet, macOS' permission: nothing is seen.  A network
    condition (exit 1), not a usage error (2), and the join that works without mDNS."""
    from lanTag.cli.entry import main
    from lanTag.net import discovery

    async def nothing(wait: float, *args: object) -> list[object]:
        return []

    monkeypatch.setattr(discovery, "browse", nothing)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home.config))
    monkeypatch.setenv("XDG_DATA_HOME", str(home.data))
    target = [name] if name else []
    assert main(["join", *target, "--headless", "--wait", "0.5"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("lantag: no game")  # one line
    if name:
        assert f"no game named {name!r} found on the LAN within 0.5 s" in err
    assert re.search(r"lantag join \d+\.\d+\.\d+\.\d+:\d+", err)  # an address to type
    assert "lantag join HOST:PORT" in err
    for cause in ("filters mDNS", "another subnet", "Local Network"):
        assert cause in err


def test_help_says_what_the_exit_codes_mean(home: Home) -> None:
    top = lantag(home, "--help").stdout
    assert "2 a usage error" in " ".join(top.split())
    assert "1 the command ran but the result is bad, or a network condition" in " ".join(
        top.split()
    )
    join = " ".join(_join(home, "--help").stdout.split())
    assert "1 a network condition (no game of that name seen" in join
