"""`lantag verify` on real logs: valid, forged, truncated, not a log (docs/verify.md).

Exit codes (SPEC §9): 0 valid (complete or not), 1 invalid, 2 not a lanTag log.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanTag.log.entries import EntryKind, parse_log
from lanTag.wire import PROTOCOL_VERSION
from tests.cli.helpers import (
    Home,
    forge_signature,
    forge_state_hash,
    lantag,
    stderr_lines,
)

Kind = type | tuple[type, ...]
TOP_KEYS: dict[str, Kind] = {
    "valid": bool,
    "complete": bool,
    "engine": str,
    "game_id": str,
    "writer_seat": (int, type(None)),
    "players": list,
    "entries": int,
    "steps": int,
    "rolls_verified": int,
    "secrets_verified": int,
    "signatures_verified": int,
    "blames": list,
    "outcome": str,
    "ranking": list,
    "truncated_bytes": int,
    "failure": (dict, type(None)),
    "protocol": int,
    "rules_version": int,
    "lantag_version": str,
    "replayed": bool,
    "needs": str,
    "unchecked": str,
    "sealed_by": list,
    "unacknowledged": str,
}
PLAYER_KEYS: dict[str, Kind] = {"seat": int, "nickname": str, "fingerprint": str, "bot": str}
FAILURE_KEYS: dict[str, Kind] = {
    "entry": int,
    "step": int,
    "seat": (int, type(None)),
    "reason": str,
}


def verify_json(home: Home, path: Path, expect_rc: int) -> dict[str, Any]:
    result = lantag(home, "verify", "--json", str(path))
    assert result.returncode == expect_rc, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert isinstance(report, dict)
    return report


def check_schema(report: dict[str, Any]) -> None:
    """Exactly the fields of SPEC §9 / docs/verify.md, each of its type."""
    assert set(report) == set(TOP_KEYS)
    for key, kind in TOP_KEYS.items():
        assert isinstance(report[key], kind), (key, report[key])
    assert re.fullmatch(r"[0-9a-f]{64}", report["game_id"])
    for p in report["players"]:
        assert set(p) == set(PLAYER_KEYS)
        for key, kind in PLAYER_KEYS.items():
            assert isinstance(p[key], kind), (key, p)
    assert [p["seat"] for p in report["players"]] == list(range(len(report["players"])))
    for b in report["blames"]:
        assert set(b) == {"seat", "step", "code", "reason"}
    assert all(
        isinstance(g, list) and all(isinstance(s, int) for s in g) for g in report["ranking"]
    )
    if report["failure"] is not None:
        assert set(report["failure"]) == set(FAILURE_KEYS)
        for key, kind in FAILURE_KEYS.items():
            assert isinstance(report["failure"][key], kind), (key, report["failure"])
    assert report["valid"] == (report["failure"] is None)
    if report["complete"]:
        assert report["valid"] and report["outcome"] and report["ranking"]


# ------------------------------------------------------------------ valid


def test_valid_log_summary_on_one_screen(home: Home, tmp_path: Path) -> None:
    log = tmp_path / "g.lantag"
    played = lantag(home, "play", "--headless", "--bots", "2", "--log", str(log))
    assert played.returncode == 0, played.stderr
    game_steps = int(re.search(r"game over after (\d+) steps", played.stdout).group(1))  # type: ignore[union-attr]
    fp = re.search(r"fingerprint:\s+(\w+)", lantag(home, "id").stdout).group(1)  # type: ignore[union-attr]

    result = lantag(home, "verify", str(log))
    assert result.returncode == 0, result.stderr
    assert not stderr_lines(result)
    lines = result.stdout.splitlines()
    assert len(lines) <= 24  # one screen
    assert lines[0].startswith(f"{log}: prototag rules ")
    assert f", protocol {PROTOCOL_VERSION}, game " in lines[0]
    report = verify_json(home, log, 0)
    check_schema(report)
    # players and fingerprints
    for p in report["players"]:
        assert re.search(rf"^  seat {p['seat']}: {re.escape(p['nickname'])}\s+{p['fingerprint']}$",
                         result.stdout, re.MULTILINE), p  # fmt: skip
    assert report["players"][0]["fingerprint"] == fp
    assert [p["nickname"] for p in report["players"]] == ["tester", "bot-1", "bot-2"]
    # steps, dice and secrets re-derived
    assert report["steps"] == game_steps
    assert f"{report['steps']} steps" in result.stdout
    assert f"{report['rolls_verified']} rolls" in result.stdout
    assert f"{report['secrets_verified']} secret rounds" in result.stdout
    assert f"{report['signatures_verified']} signatures" in result.stdout
    assert report["rolls_verified"] > 0
    # result
    assert report["valid"] and report["complete"] and report["failure"] is None
    assert report["writer_seat"] == 0
    assert report["truncated_bytes"] == 0
    assert sorted(s for g in report["ranking"] for s in g) == [0, 1, 2]
    # Protocol 3: the table signed the result (SPEC §3 SEAL): every seat, the bots' peers too.
    assert report["sealed_by"] == [0, 1, 2] and report["unacknowledged"] == ""
    said = " ".join(result.stdout.split())  # the summary wraps at 80 columns
    assert said.endswith(f"VALID, complete, sealed by seats 0 1 2: {report['outcome']}")


@pytest.mark.parametrize("game", ["assassination", "boardtag", "stomptag", "tagem"])
def test_every_game_leaves_a_log_that_verifies(
    home: Home, logs: Callable[[str], Path], game: str
) -> None:
    log = logs(game)
    report = verify_json(home, log, 0)
    check_schema(report)
    assert report["engine"] == game and report["complete"]
    text = lantag(home, "verify", str(log))
    assert text.returncode == 0 and "VALID, complete" in text.stdout


def test_replicated_bot_seats_are_shown_as_bots(home: Home, tmp_path: Path) -> None:
    log = tmp_path / "bots.lantag"
    hosted = lantag(
        home, "host", "--headless", "--seats", "1", "--bots", "2", "--no-advertise",
        "--bind", "127.0.0.1", "--log", str(log),
    )  # fmt: skip
    assert hosted.returncode == 0, hosted.stderr
    report = verify_json(home, log, 0)
    check_schema(report)
    assert [p["bot"] for p in report["players"]] == ["", "heuristic2", "heuristic2"]
    assert [p["fingerprint"] for p in report["players"]][1:] == ["bot", "bot"]
    text = lantag(home, "verify", str(log)).stdout
    assert text.count("bot (heuristic2)") == 2


# ------------------------------------------------------------------ invalid


def test_forged_state_hash_exit_1_names_the_entry(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    forged, entry, step = forge_state_hash(game_log.read_bytes())
    path = tmp_path / "forged.lantag"
    path.write_bytes(forged)
    result = lantag(home, "verify", str(path))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    last = result.stdout.splitlines()[-1]
    assert last == f"INVALID at entry {entry} (step {step}): state hash after step {step} differs"
    report = verify_json(home, path, 1)
    check_schema(report)
    assert report["valid"] is False and report["complete"] is False
    assert report["failure"]["entry"] == entry and report["failure"]["step"] == step
    assert "differs" in report["failure"]["reason"]


def test_forged_signature_exit_1_names_the_entry(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    forged, entry = forge_signature(game_log.read_bytes())
    path = tmp_path / "forged-sig.lantag"
    path.write_bytes(forged)
    result = lantag(home, "verify", str(path))
    assert result.returncode == 1
    assert re.search(rf"^INVALID at entry {entry} \(step \d+\): .*signature", result.stdout, re.M)
    report = verify_json(home, path, 1)
    assert report["failure"]["entry"] == entry and "signature" in report["failure"]["reason"]


def test_a_flipped_byte_is_invalid(home: Home, game_log: Path, tmp_path: Path) -> None:
    data = bytearray(game_log.read_bytes())
    data[len(data) // 2] ^= 0x01
    path = tmp_path / "flipped.lantag"
    path.write_bytes(bytes(data))
    result = lantag(home, "verify", str(path))
    assert result.returncode == 1
    assert re.search(r"^INVALID at entry \d+ \(step \d+\): ", result.stdout, re.M)


def test_an_appended_entry_from_elsewhere_is_invalid(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    """Splicing: the first entries of a log glued after another log break the hash chain."""
    data = game_log.read_bytes()
    entries = parse_log(data).entries
    path = tmp_path / "spliced.lantag"
    path.write_bytes(data + entries[1].raw)
    result = lantag(home, "verify", str(path))
    assert result.returncode == 1
    assert f"INVALID at entry {len(entries)} " in result.stdout
    report = verify_json(home, path, 1)
    assert report["failure"]["entry"] == len(entries)


# ------------------------------------------------------------------ incomplete


@pytest.mark.parametrize("cut", [1000, 3000, 20000])
def test_truncated_log_is_valid_but_incomplete(
    home: Home, game_log: Path, tmp_path: Path, cut: int
) -> None:
    data = game_log.read_bytes()
    ends = [0]  # where each entry ends in the file
    for entry in parse_log(data).entries:
        ends.append(ends[-1] + len(entry.raw))
    # Cut ``cut`` bytes before the end of the last STEP entry (the seals and HAVEs after
    # it would otherwise leave a finished game behind a short cut).
    last_step = max(e.index for e in parse_log(data).entries if e.kind == EntryKind.STEP)
    kept = ends[last_step + 1] - cut
    path = tmp_path / "cut.lantag"
    path.write_bytes(data[:kept])
    whole_end = max(e for e in ends if e <= kept)
    report = verify_json(home, path, 0)
    check_schema(report)
    assert report["valid"] is True and report["complete"] is False
    assert report["failure"] is None and report["outcome"] == "" and report["ranking"] == []
    assert report["entries"] == ends.index(whole_end)
    assert report["truncated_bytes"] == kept - whole_end
    result = lantag(home, "verify", str(path))
    assert result.returncode == 0
    said = " ".join(result.stdout.split()[-60:])  # the summary line wraps at 80 columns
    assert f"VALID but incomplete: valid up to step {report['steps']}" in said
    cut_note = f"; the last {report['truncated_bytes']} bytes are a torn entry, ignored"
    assert said.endswith(cut_note) == (report["truncated_bytes"] > 0), said


def test_header_only_log_is_valid_up_to_step_0(home: Home, game_log: Path, tmp_path: Path) -> None:
    header = parse_log(game_log.read_bytes()).entries[0].raw
    path = tmp_path / "header.lantag"
    path.write_bytes(header)
    report = verify_json(home, path, 0)
    assert report["steps"] == 0 and not report["complete"] and report["valid"]
    assert "valid up to step 0" in lantag(home, "verify", str(path)).stdout


# ------------------------------------------------------------------ not a log


def test_not_a_log_json(home: Home, tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    result = lantag(home, "verify", "--json", str(path))
    assert result.returncode == 2
    report = json.loads(result.stdout)
    assert report["valid"] is False and report["log"] is False
    assert "not a lanTag log" in report["error"]


def test_bug_verify_summary_fits_an_80x24_screen(home: Home, game_log: Path) -> None:
    """Today the verdict line runs past 80 columns, e.g. (99 columns)
    "VALID, complete: seat 0 is tagged when the tagged steps reach 40: seat 0 loses;
    ranking [[1, 2], [0]]" -- the ranking is a Python list repr where `lantag play`
    prints "ranking: bot-1=bot-2 > tester"."""
    result = lantag(home, "verify", str(game_log))
    lines = result.stdout.splitlines()
    assert len(lines) <= 24
    wide = [line for line in lines[1:] if len(line) > 80]  # the first line holds the path
    assert not wide, wide


def test_a_complete_log_ending_in_a_torn_entry_says_so_on_the_summary_line(
    home: Home, game_log: Path, tmp_path: Path
) -> None:
    # Issue #22: a log cut inside its last entry said "VALID, complete" (only --json
    # showed truncated_bytes).  Here a whole copy of the last entry, cut short, trails a
    # finished game: the game is complete, the torn bytes are named.
    data = game_log.read_bytes()
    last = parse_log(data).entries[-1].raw
    path = tmp_path / "torn.lantag"
    path.write_bytes(data + last[: len(last) // 2])
    report = verify_json(home, path, 0)
    assert report["complete"] is True and report["truncated_bytes"] == len(last) // 2
    out = " ".join(lantag(home, "verify", str(path)).stdout.split())  # lines wrap at 79
    line = out[out.index("VALID, complete") :]
    assert f"the last {len(last) // 2} bytes are a torn entry, ignored" in line, line
    whole = lantag(home, "verify", str(game_log)).stdout.splitlines()[-1]
    assert "torn" not in whole


def test_a_forged_state_hash_is_named_on_every_kind_of_step() -> None:
    """On a roll's step too (its record also holds the draw purpose and kinds), a changed
    state hash alone is reported as that, not as a malformed record."""
    from lanTag.log.entries import EntryKind
    from lanTag.log.verify import verify_log
    from tests.cli.helpers import entries_of

    data = (Path(__file__).parent.parent / "corpus" / "protocol2" / "prototag.log").read_bytes()
    entries = entries_of(data)
    steps = [e for e in entries if e[2] == EntryKind.STEP]
    assert any(len(e[3]) > 2 for e in steps) and any(len(e[3]) == 2 for e in steps)
    for nth in range(len(steps)):
        forged, entry, step = forge_state_hash(data, nth)
        failure = verify_log(forged).failure
        assert failure is not None and (failure.entry, failure.step) == (entry, step)
        assert failure.reason == f"state hash after step {step} differs", nth
