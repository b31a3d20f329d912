"""The ``lantag`` command line, run for real (``python -m lanTag`` in a subprocess).

Contract (lanTag/cli/entry.py): a user error is exactly one line on stderr, exit code 2,
no traceback.  Every run uses its own XDG directories (tests/cli/helpers.py).

Tests named ``test_bug_...`` describe product behaviour that is wrong today; they
fail until the product is fixed (see the report that came with them).
"""

from __future__ import annotations

import argparse
import io
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import lanTag
from lanTag.rules.registry import engine_ids, get_game
from tests.cli.helpers import (
    HANG_GUARD,
    LANTAG,
    Home,
    lantag,
    lantag_or_hang,
    make_log,
    stderr_lines,
    user_error,
)

COMMANDS = {
    "play": [
        "--game", "--option", "--map", "--position", "--log", "--headless", "--bot", "--netsim",
        "--turn-timeout", "--bots", "--strength",
    ],
    "host": [
        "--game", "--option", "--map", "--position", "--log", "--headless", "--bot", "--netsim",
        "--turn-timeout", "--name", "--seats", "--bots", "--password", "--bind", "--port",
        "--no-advertise", "--start-when-full", "--games", "--rematch-wait", "--approve",
    ],
    "join": [
        "--password", "--spectate", "--resume", "--resume-wait", "--headless", "--bot", "--log",
        "--games", "--bind", "--wait", "--timeout", "--netsim", "--trust-new-host-key", "target",
    ],
    "list": ["--wait", "--json"],
    "verify": ["--json", "log"],
    "replay": ["--force", "--headless", "log"],
    "position": ["--step", "--check", "log"],
    "rules": ["game"],
    "selfplay": [
        "--game", "--peers", "--games", "--netsim", "--log-dir", "--bot", "--option", "--stall",
        "--json",
    ],
    "simulate": [
        "--game", "--games", "--seed", "--seats", "--bots", "--option", "--workers", "--json",
        "--plot",
    ],
    "id": ["--nickname"],
}  # fmt: skip
GAMES = ["prototag", "assassination", "boardtag", "stomptag", "tagem"]
FINGERPRINT = re.compile(r"^fingerprint:\s+([0-9a-f]{16})$", re.MULTILINE)


# ------------------------------------------------------------------ help


def test_top_level_help_lists_every_command(home: Home) -> None:
    result = lantag(home, "--help")
    assert result.returncode == 0, result.stderr
    for command in COMMANDS:
        assert command in result.stdout
    assert result.stderr == ""


def test_version_prints_release_protocol_and_every_engines_rules(home: Home) -> None:
    from lanTag.rules.registry import rules_versions
    from lanTag.session.messages import PROTOCOL_VERSION
    from lanTag.versions import lantag_version

    result = lantag(home, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    expected = [f"lanTag {lantag_version()}", f"protocol {PROTOCOL_VERSION}"]
    expected += [f"{engine} rules {v}" for engine, v in rules_versions().items()]
    assert result.stdout.splitlines() == expected
    assert set(rules_versions()) == set(GAMES)


def test_no_command_prints_help_and_exits_0(home: Home) -> None:
    result = lantag(home)
    assert result.returncode == 0
    assert "usage: lantag" in result.stdout and "play" in result.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
def test_subcommand_help_mentions_its_options(home: Home, command: str) -> None:
    result = lantag(home, command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: lantag {command}")
    for option in COMMANDS[command]:
        assert option in result.stdout, f"{command} --help does not mention {option}"
    assert result.stderr == ""


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    from lanTag.cli.entry import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_help_lists_the_options_the_parser_really_has() -> None:
    """COMMANDS above (and docs/cli.md) must follow the parser: a new option shows up here."""
    subparsers = _subparsers()
    assert set(subparsers) == set(COMMANDS)
    for name, sp in subparsers.items():
        real = {o for a in sp._actions for o in a.option_strings if o.startswith("--")}
        real |= {a.dest for a in sp._actions if not a.option_strings}
        real.discard("--help")
        assert real == set(COMMANDS[name]), name


def test_every_command_dispatches_to_its_cmd_function() -> None:
    """lanTag.cli.entry.COMMAND_MODULES names, per subcommand, a module with its cmd_<name>."""
    import importlib

    from lanTag.cli.entry import COMMAND_MODULES

    assert set(COMMAND_MODULES) == set(_subparsers())
    for name, module in COMMAND_MODULES.items():
        assert callable(getattr(importlib.import_module(module), f"cmd_{name}", None)), name


def test_docs_cli_md_covers_every_command_and_option() -> None:
    text = (Path(__file__).parents[2] / "docs" / "cli.md").read_text()
    for command, options in COMMANDS.items():
        assert f"lantag {command}" in text, command
        for option in options:
            if option.startswith("--"):
                assert option in text, f"docs/cli.md: {command} {option}"


def test_python_m_lantag_help(home: Home) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "lanTag", "--help"],
        env=home.env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0
    assert result.stdout.startswith("usage: lantag")


def test_console_script_is_installed(home: Home) -> None:
    script = Path(sys.executable).parent / "lantag"
    if not script.exists():
        pytest.skip(f"no lantag script next to {sys.executable} (package not installed)")
    result = subprocess.run(
        [str(script), "rules"], env=home.env(), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert "prototag" in result.stdout


# ------------------------------------------------------------------ user errors


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    good_map = tmp_path / "good.map"
    good_map.write_text("name: T\npom: 10\nplayers: 2\ngrid:\n1...\n...2\n")
    not_a_log = tmp_path / "notes.txt"
    not_a_log.write_text("hello, not a log\n")
    return {
        "MAP": str(good_map),
        "MISSING": str(tmp_path / "missing.map"),
        "DIR": str(tmp_path),
        "NOTALOG": str(not_a_log),
        "NOLOG": str(tmp_path / "nothere.lantag"),
    }


# (arguments with placeholders from `files`, a piece of the expected message)
USER_ERRORS = {
    "unknown-game": (["play", "--game", "nope"], "unknown game 'nope'"),
    "unknown-game-headless": (["play", "--headless", "--game", "nope"], "unknown game"),
    "unknown-game-host": (["host", "--headless", "--no-advertise", "--game", "nope"], "nope"),
    "unknown-game-selfplay": (["selfplay", "--game", "nope"], "nope"),
    "unknown-game-simulate": (["simulate", "--game", "nope", "--games", "1"], "nope"),
    "option-without-equals": (["play", "--headless", "-o", "foo"], "key=value"),
    "option-empty-key": (["play", "--headless", "-o", "=3"], "key=value"),
    "option-unknown-key": (["play", "--headless", "-o", "nokey=1"], "nokey"),
    "option-unknown-key-simulate": (["simulate", "--games", "1", "-o", "nokey=1"], "nokey"),
    "option-not-a-number": (["play", "--headless", "-o", "board_size=abc"], "board_size"),
    "option-empty-value": (["play", "--headless", "-o", "board_size="], "board_size"),
    "option-above-maximum": (["play", "--headless", "-o", "board_size=999"], "board_size"),
    "option-not-a-choice": (["play", "--headless", "-g", "tagem", "-o", "mode=zz"], "mode"),
    "map-for-prototag": (["play", "--headless", "--map", "MAP"], "--map"),
    "map-missing": (["play", "--headless", "-g", "tagem", "--map", "MISSING"], "missing.map"),
    "map-is-a-directory": (["play", "--headless", "-g", "tagem", "--map", "DIR"], "map"),
    "netsim-garbage": (["play", "--headless", "--netsim", "bogus"], "--netsim"),
    "netsim-probability": (["play", "--headless", "--netsim", "loss=2"], "--netsim"),
    "netsim-selfplay": (["selfplay", "--netsim", "bogus"], "--netsim"),
    "host-port-not-a-number": (["join", "--headless", "127.0.0.1:abc"], "HOST:PORT"),
    "host-port-too-big": (["join", "--headless", "127.0.0.1:99999"], "HOST:PORT"),
    "host-port-zero": (["join", "--headless", "127.0.0.1:0"], "HOST:PORT"),
    "host-port-empty": (["join", "--headless", "127.0.0.1:"], "HOST:PORT"),
    "bots-too-many": (["play", "--headless", "--bots", "16"], "--bots"),
    "bots-negative": (["play", "--headless", "--bots", "-1"], "--bots"),
    "bots-too-many-for-the-game": (["play", "--headless", "--bots", "8"], "2-8"),
    "too-few-players": (["play", "--headless", "-g", "assassination", "--bots", "1"], "3-8"),
    "host-bots-too-many": (["host", "--headless", "--no-advertise", "--bots", "65"], "--bots"),
    "host-seats-zero": (["host", "--headless", "--no-advertise", "--seats", "0"], "--seats"),
    "verify-missing-file": (["verify", "NOLOG"], "nothere.lantag"),
    "verify-a-directory": (["verify", "DIR"], "holds no game logs"),
    "verify-no-argument": (["verify"], "required"),
    "replay-missing-file": (["replay", "--headless", "NOLOG"], "nothere.lantag"),
    "replay-not-a-log": (["replay", "--headless", "NOTALOG"], "not a lanTag log"),
    "rules-unknown-game": (["rules", "nope"], "unknown game 'nope'"),
    "unknown-command": (["bogus"], "invalid choice"),
    "turn-timeout-not-a-number": (["play", "--headless", "--turn-timeout", "abc"], "abc"),
    "list-wait-negative": (["list", "--wait", "-1"], "--wait"),
    "simulate-games-zero": (["simulate", "--games", "0"], "--games"),
    "simulate-workers-zero": (["simulate", "--games", "1", "--workers", "0"], "--workers"),
    "simulate-unknown-bot": (["simulate", "--games", "1", "--bots", "bogus"], "bogus"),
    "selfplay-too-few-peers": (["selfplay", "--peers", "1"], "2-8"),
    "join-resume-missing-log": (["join", "--headless", "--resume", "NOLOG"], "nothere.lantag"),
    "join-resume-not-a-log": (["join", "--headless", "--resume", "NOTALOG"], "not a lanTag log"),
    "join-resume-wait-without-resume": (
        ["join", "--headless", "--resume-wait", "5", "127.0.0.1:9"],
        "--resume-wait only goes with --resume",
    ),
}


@pytest.mark.parametrize("case", list(USER_ERRORS))
def test_user_error_is_one_line_and_exit_2(home: Home, files: dict[str, str], case: str) -> None:
    args, expected = USER_ERRORS[case]
    message = user_error(lantag(home, *[files.get(a, a) for a in args]))
    assert expected in message


def test_malformed_map_names_file_line_and_column(home: Home, tmp_path: Path) -> None:
    bad = tmp_path / "bad.map"
    bad.write_text(
        "# a comment\nname: Bad\npom: 10\nplayers: 2\ngrid:\n"
        "1......\n"
        "...Z...\n"  # line 7, column 4: not a tile
        "......2\n"
    )
    message = user_error(lantag(home, "play", "--headless", "-g", "tagem", "--map", str(bad)))
    assert f"{bad}:7:4:" in message
    assert "Z" in message


def test_malformed_map_header_names_the_line(home: Home, tmp_path: Path) -> None:
    bad = tmp_path / "header.map"
    bad.write_text("name: Bad\npom: lots\nplayers: 2\ngrid:\n1.2\n")
    message = user_error(lantag(home, "play", "--headless", "-g", "tagem", "--map", str(bad)))
    assert re.search(rf"{re.escape(str(bad))}:2:\d+:", message), message


def test_a_good_custom_map_is_played(home: Home, tmp_path: Path) -> None:
    good = tmp_path / "tiny.map"
    good.write_text(
        "name: Tiny\npom: 6\nplayers: 2\ngrid:\n"
        ".......\n.1.....\n.......\n...%...\n.......\n.....2.\n.......\n"
    )
    log = tmp_path / "tiny.lantag"
    result = lantag(
        home, "play", "--headless", "-g", "tagem", "--bots", "1", "--map", str(good),
        "--log", str(log),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "game over" in result.stdout
    assert lantag(home, "verify", str(log)).returncode == 0


def test_verify_on_a_non_log_exits_2(home: Home, tmp_path: Path) -> None:
    for name, content in {
        "text": b"hello\n",
        "empty": b"",
        "json": b'{"valid": true}',
        "random": bytes(range(256)) * 8,
    }.items():
        path = tmp_path / name
        path.write_bytes(content)
        message = user_error(lantag(home, "verify", str(path)))
        assert str(path) in message and "not a lanTag log" in message


# ------------------------------------------------------------------ rules


def test_rules_lists_the_five_games(home: Home) -> None:
    result = lantag(home, "rules")
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert listed == list(engine_ids())
    assert sorted(listed) == sorted(GAMES)
    for engine in GAMES:
        game = get_game(engine)
        assert f"{game.display_name} ({game.min_seats}-{game.max_seats} players)" in result.stdout


@pytest.mark.parametrize("engine", GAMES)
def test_rules_of_each_game_prints_rules_and_options(home: Home, engine: str) -> None:
    result = lantag(home, "rules", engine)
    assert result.returncode == 0, result.stderr
    game = get_game(engine)
    text = result.stdout
    assert text.startswith("# ")  # the rule summary's title
    assert len(text.splitlines()) > 10
    options = text.split("Options (--option K=V):", 1)
    assert len(options) == 2, "no options section"
    for spec in game.option_specs:
        assert f"  {spec.name}={spec.default}" in options[1], spec.name


# ------------------------------------------------------------------ id


def test_id_creates_a_private_identity_and_shows_its_fingerprint(home: Home) -> None:
    assert not home.identity.exists()
    first = lantag(home, "id")
    assert first.returncode == 0, first.stderr
    assert home.identity.exists()
    assert stat.S_IMODE(home.identity.stat().st_mode) == 0o600
    fp = FINGERPRINT.search(first.stdout)
    assert fp is not None, first.stdout
    assert "nickname:" in first.stdout and "public key:" in first.stdout
    again = lantag(home, "id")
    assert FINGERPRINT.search(again.stdout).group(1) == fp.group(1)  # type: ignore[union-attr]


def test_id_nickname_changes_the_nickname_not_the_key(home: Home) -> None:
    before = FINGERPRINT.search(lantag(home, "id").stdout).group(1)  # type: ignore[union-attr]
    renamed = lantag(home, "id", "--nickname", "Zed")
    assert renamed.returncode == 0
    assert re.search(r"^nickname:\s+Zed$", renamed.stdout, re.MULTILINE)
    shown = lantag(home, "id").stdout
    assert re.search(r"^nickname:\s+Zed$", shown, re.MULTILINE)
    assert FINGERPRINT.search(shown).group(1) == before  # type: ignore[union-attr]
    assert stat.S_IMODE(home.identity.stat().st_mode) == 0o600


def test_id_nickname_on_first_use(home: Home) -> None:
    result = lantag(home, "id", "--nickname", "Ana")
    assert result.returncode == 0
    assert re.search(r"^nickname:\s+Ana$", result.stdout, re.MULTILINE)
    assert stat.S_IMODE(home.identity.stat().st_mode) == 0o600


def test_the_identity_is_used_by_play(home: Home, tmp_path: Path) -> None:
    lantag(home, "id", "--nickname", "Ana")
    fp = FINGERPRINT.search(lantag(home, "id").stdout).group(1)  # type: ignore[union-attr]
    log = make_log(home, tmp_path / "g.lantag", bots=1)
    report = lantag(home, "verify", str(log)).stdout
    assert re.search(rf"seat 0: Ana\s+{fp}", report), report


# ------------------------------------------------------------------ colour


def test_plain_commands_never_print_escape_codes(home: Home, game_log: Path) -> None:
    for args in (["rules", "prototag"], ["verify", str(game_log)], ["--help"], ["id"]):
        result = lantag(home, *args)
        assert "\x1b" not in result.stdout + result.stderr, args


def test_no_color_switches_the_viewer_to_monochrome(
    game_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console screens are what colours output: NO_COLOR makes them 1-bit."""
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output import ColorDepth
    from prompt_toolkit.output.vt100 import Vt100_Output

    from lanTag.log.verify import verify_log
    from lanTag.ui.replay import replay_screen

    data = game_log.read_bytes()
    report = verify_log(data)

    def output() -> Vt100_Output:
        return Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm-256color")

    monkeypatch.delenv("NO_COLOR", raising=False)
    _, app = replay_screen(data, report, output=output())
    assert app.color_depth != ColorDepth.DEPTH_1_BIT
    monkeypatch.setenv("NO_COLOR", "1")
    _, app = replay_screen(data, report, output=output())
    assert app.color_depth == ColorDepth.DEPTH_1_BIT


def test_one_no_color_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """no-color.org: NO_COLOR disables colour "when present and not an empty string"."""
    from lanTag.ui.style import colour_enabled

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert colour_enabled(True) and not colour_enabled(False)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_enabled(True)
    monkeypatch.setenv("NO_COLOR", "")
    assert colour_enabled(True)  # an empty NO_COLOR is as if unset
    # It is the only place that reads NO_COLOR: no second rule to disagree with it.
    package = Path(lanTag.__file__).parent
    readers = sorted(
        path.relative_to(package.parent).as_posix()
        for path in package.rglob("*.py")
        if "NO_COLOR" in path.read_text(encoding="utf-8")
    )
    assert readers == ["lanTag/ui/style.py"]


def test_empty_no_color_keeps_the_screens_coloured(
    game_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output import ColorDepth
    from prompt_toolkit.output.vt100 import Vt100_Output

    from lanTag.log.verify import verify_log
    from lanTag.ui.replay import replay_screen

    data = game_log.read_bytes()
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm-256color")
    monkeypatch.setenv("NO_COLOR", "")
    _, app = replay_screen(data, verify_log(data), output=output)
    assert app.color_depth != ColorDepth.DEPTH_1_BIT


# ------------------------------------------------------------------ product bugs


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_bug_host_port_out_of_range_is_a_user_error(home: Home, port: str) -> None:
    """Today: `lantag host --port 70000` -> "lantag: internal error: OverflowError: bind():
    port must be 0-65535. (set LANTAG_DEBUG=1 for details)", exit 1."""
    result = lantag(home, "host", "--headless", "--no-advertise", "--port", port, timeout=30)
    assert "--port" in user_error(result)


def test_bug_turn_timeout_must_be_positive(home: Home) -> None:
    """Today: `lantag play --headless --turn-timeout 0` (or -5) prints "note: Lagging(...)"
    and then hangs forever at step 0."""
    for value in ("0", "-5"):
        # The guard tells a hang from a slow start: a loaded 2-core box can take 10 s to
        # import lanTag, and a refusal needs nothing more than that.
        result = lantag_or_hang(
            home, "play", "--headless", "--turn-timeout", value, timeout=HANG_GUARD
        )
        assert result is not None, f"--turn-timeout {value} hangs the game instead of being refused"
        assert "--turn-timeout" in user_error(result)


@pytest.mark.parametrize("flag", ["--bot", "--strength"])
def test_bug_unknown_bot_kind_is_a_user_error(home: Home, flag: str) -> None:
    """Today: `lantag play --headless --bot bogus` (or --strength bogus) plays a whole game
    with exit 0 (BotDriver silently falls back to random moves).  `lantag simulate --bots
    bogus` already says: "lantag: unknown bot 'bogus' (bots: random, heuristic)"."""
    result = lantag(home, "play", "--headless", flag, "bogus", timeout=30)
    assert "bogus" in user_error(result)


def test_bug_binary_map_file_message_names_the_file(home: Home, tmp_path: Path) -> None:
    """Today: "lantag: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
    (exit 2, but the message does not say which file or that it is the map)."""
    binary = tmp_path / "photo.map"
    binary.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)))
    message = user_error(lantag(home, "play", "--headless", "-g", "tagem", "--map", str(binary)))
    assert str(binary) in message


def test_bug_corrupt_identity_message_names_the_file(home: Home) -> None:
    """Today: "lantag: non-hexadecimal number found in fromhex() arg at position 0" (or
    "an Ed25519 seed is 32 bytes"): nothing says the identity file is the problem."""
    home.identity.parent.mkdir(parents=True)
    home.identity.write_text("garbage\n")
    message = user_error(lantag(home, "id"))
    assert str(home.identity) in message


def test_bug_log_path_that_cannot_be_created_names_the_log(home: Home, tmp_path: Path) -> None:
    """Today: `lantag play --headless --log FILE/x.lantag` (FILE a regular file) says
    "lantag: [Errno 17] File exists: 'FILE'"."""
    afile = tmp_path / "afile"
    afile.write_text("")
    target = afile / "x.lantag"
    message = user_error(lantag(home, "play", "--headless", "--log", str(target)))
    assert str(target) in message


def test_bug_bad_bind_address_message_names_the_address(home: Home) -> None:
    """Today: `lantag host --bind 999.1.1.1` says "lantag: [Errno -2] Name or service not
    known": neither --bind nor the address is named."""
    result = lantag(home, "host", "--headless", "--no-advertise", "--bind", "999.1.1.1")
    assert "999.1.1.1" in user_error(result)


def test_bug_resume_from_a_directory_says_cannot_read(home: Home, tmp_path: Path) -> None:
    """Was: `lantag join --resume DIR` said "lantag: [Errno 21] Is a directory: 'DIR'".
    A directory is now a series directory (its last game is resumed): one without logs
    says so in one line."""
    empty = tmp_path / "empty"
    empty.mkdir()
    message = user_error(lantag(home, "join", "--headless", "--resume", str(empty)))
    assert "holds no game logs to resume" in message


def test_bug_verify_non_log_message_has_no_python_internals(home: Home, tmp_path: Path) -> None:
    """Today: `lantag verify notes.txt` says "lantag: notes.txt: not a lanTag log: cannot
    unpack non-iterable int object" (a Python TypeError text)."""
    path = tmp_path / "notes.txt"
    path.write_text("hello, not a log\n")
    message = user_error(lantag(home, "verify", str(path)))
    assert "unpack" not in message and "object" not in message, message


def test_bug_overlong_nickname_is_refused_or_still_plays(home: Home) -> None:
    """Today: `lantag id --nickname <200 chars>` is accepted, and then `lantag play` hangs
    forever ("note: Lagging(seat=1, step=0, ...)"): the bot peers reject the lobby record
    (a seat nickname longer than 64 characters).  Either refuse the nickname in `lantag id`
    (exit 2, one line) or shorten it when the game is made."""
    named = lantag(home, "id", "--nickname", "x" * 200)
    if named.returncode == 2:
        user_error(named)
        return
    assert named.returncode == 0
    # A whole bot game (about a second alone, many times that on a loaded 2-core box).
    result = lantag_or_hang(home, "play", "--headless", "--bots", "2", timeout=HANG_GUARD)
    assert result is not None, "lantag play hangs with a 200-character nickname"
    assert result.returncode == 0, result.stderr


def test_bug_nickname_with_a_newline_is_refused(home: Home) -> None:
    """Today: `lantag id --nickname $'a\\nb'` exits 0, prints the nickname over two lines and
    writes a three-line identity file; the next `lantag id` says the nickname is "a"."""
    named = lantag(home, "id", "--nickname", "a\nb")
    if named.returncode == 2:
        user_error(named)
        return
    shown = lantag(home, "id").stdout
    assert re.search(r"^nickname:\s+a\nb$", shown, re.MULTILINE), shown


@pytest.mark.parametrize("command", ["rules", "verify"])
def test_bug_closed_pipe_is_not_an_error(home: Home, game_log: Path, command: str) -> None:
    """Today: `lantag rules prototag | head -1` (or `lantag verify LOG | head -1`,
    `lantag replay LOG --headless | head`) prints "lantag: [Errno 32] Broken pipe" on
    stderr, exit 2.  A reader that stops early is normal: exit quietly."""
    args = ["rules", "prototag"] if command == "rules" else ["verify", str(game_log)]
    proc = subprocess.Popen(
        [*LANTAG, *args],
        env=home.env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before lantag writes its first line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert err == "", err


def test_join_resume_wait_help_and_bad_value(home: Home) -> None:
    """`lantag join --resume-wait SECONDS`: its help names the default (RESUME_WAIT) and the
    outcome; a value that is not a positive number is one line on stderr, exit 2."""
    from lanTag.peer.resume import RESUME_WAIT

    result = lantag(home, "join", "--help")
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())  # argparse wraps the help text
    assert "--resume-wait SECONDS" in shown
    assert f"no peer of the game answers within SECONDS (default {RESUME_WAIT:g})" in shown
    for bad in ("-3", "0", "nan", "abc"):
        message = user_error(lantag(home, "join", "--resume", "x.lantag", "--resume-wait", bad))
        assert "argument --resume-wait" in message and repr(bad) in message, message


def test_lantag_debug_changes_nothing_for_a_valid_run(home: Home, game_log: Path) -> None:
    """LANTAG_DEBUG only matters for internal errors; a valid log still verifies quietly."""
    result = lantag(home, "verify", str(game_log), env={"LANTAG_DEBUG": "1"})
    assert result.returncode == 0
    assert not stderr_lines(result)


def test_bug_every_option_has_help_text() -> None:
    """Today `lantag selfplay --help` and `lantag simulate --help` list
    "--option K=V, -o K=V" with no description."""
    silent = [
        f"{name} {a.option_strings[0] if a.option_strings else a.dest}"
        for name, sp in _subparsers().items()
        for a in sp._actions
        if not a.help
    ]
    assert not silent, silent


def test_bug_headless_host_announces_the_start_and_names_the_ranking(
    home: Home, tmp_path: Path
) -> None:
    """Today `lantag play --headless` (and `lantag host --headless`) never prints
    "started: prototag, you are seat 0" and ends with "ranking: 1=2 > 0" (seat numbers),
    while `lantag join --headless` prints "started: ..." and "ranking: bot-1=bot-2 > tester":
    the host peer never gets a Started event (PeerMachine.start_game calls _begin directly),
    so headless.play_headless has no names."""
    lantag(home, "id", "--nickname", "tester")
    result = lantag(home, "play", "--headless", "--bots", "2", "--log", str(tmp_path / "g.lantag"))
    assert result.returncode == 0, result.stderr
    assert "started: prototag, you are seat 0" in result.stdout
    ranking = re.search(r"^ranking: (.*)$", result.stdout, re.MULTILINE)
    assert ranking is not None
    assert {"tester", "bot-1", "bot-2"} == set(re.split(r"[=>]", ranking.group(1).replace(" ", "")))
