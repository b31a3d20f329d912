"""`lantag position`: a log's position at any step as JSON, and `--check FILE` (#26 item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanTag.cli.entry import main
from lanTag.games.prototag.engine import Prototag
from lanTag.log.entries import parse_log
from lanTag.log.verify import verify_log
from lanTag.session.lobby_record import LobbyRecord

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "protocol2"
LOG = CORPUS / "prototag.log"


def _steps(path: Path) -> int:
    return len(verify_log(path.read_bytes()).applied)


def test_the_position_at_a_step_is_the_replayed_state(capsys: pytest.CaptureFixture[str]) -> None:
    data = LOG.read_bytes()
    record = LobbyRecord.decode(parse_log(data).entries[0].data[1])
    state = Prototag.new_state(len(record.seats), record.option_dict)
    for applied in verify_log(data).applied[:10]:
        state = state.apply(applied.input)
    assert main(["position", str(LOG), "--step", "10"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == Prototag.position(state)
    assert Prototag.from_position(printed).encode() == state.encode()


def test_without_a_step_the_position_is_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", str(LOG)]) == 0
    end = json.loads(capsys.readouterr().out)
    assert end["phase"] == "over"
    assert main(["position", str(LOG), "--step", str(_steps(LOG))]) == 0
    assert json.loads(capsys.readouterr().out) == end


def test_a_step_past_the_log_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    last = _steps(LOG)
    assert main(["position", str(LOG), "--step", str(last + 1)]) == 2
    err = capsys.readouterr().err
    assert err == f"lantag: {LOG}: --step {last + 1} is not a step of this log (0..{last})\n"


def test_check_accepts_a_written_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["position", str(LOG), "--step", "10"]) == 0
    path = tmp_path / "p.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["position", "--check", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: a valid Prototag position (2 seats; ")
    assert "old spelling" not in out


def test_a_position_is_written_in_the_one_convention_and_old_files_say_theirs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Written now: marked, a1 the south-west corner.  The same position as an older lanTag
    # wrote it (tests/rules/old_positions) checks too, and the check says how it reads.
    old = Path(__file__).parents[1] / "rules" / "old_positions" / "prototag.json"
    log = Path(__file__).parents[1] / "corpus" / "protocol6" / "prototag.log"
    assert main(["position", str(log), "--step", "20"]) == 0
    written = json.loads(capsys.readouterr().out)
    assert written["coordinates"] == "algebraic" and list(written)[:3] == [
        "game",
        "rules",
        "coordinates",
    ]
    assert written["pieces"] == ["a4", "a4"]  # the old file's "a2": rank 2 from the north
    assert json.loads(old.read_text(encoding="utf-8"))["pieces"] == ["a2", "a2"]
    assert Prototag.from_position(written) == Prototag.from_position(
        json.loads(old.read_text(encoding="utf-8"))
    )
    assert main(["position", "--check", str(old)]) == 0
    assert capsys.readouterr().out.endswith(
        '; its places are in the old spelling (no "coordinates" field: '
        "docs/rules/prototag.md, Position format)\n"
    )


def test_check_refuses_a_hand_edited_illegal_position_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["position", str(LOG), "--step", "10"]) == 0
    position = json.loads(capsys.readouterr().out)
    position["tagged"], position["pieces"][0] = 5, "c9"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(position), encoding="utf-8")
    assert main(["position", "--check", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"lantag: {path}: pieces: item 0: 'c9' is not a tile of the 5x5 board (a1..e5); "
        "tagged: seat 5 does not exist (seats 0-1)\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON: Expecting property name enclosed in double quotes (line 1)"),
        ('["prototag"]', 'a position is a JSON object with a "game" field'),
        ('{"game": "chess"}', "unknown game 'chess'"),
        ('{"game": "tagem", "seats": 2}', "map: the map's lines are needed"),
    ],
)
def test_check_names_what_is_wrong_with_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "p.json"
    path.write_text(text, encoding="utf-8")
    assert main(["position", "--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_log_is_not_a_position_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", "--check", str(LOG)]) == 2
    assert "not a text file" in capsys.readouterr().err
    assert main(["position"]) == 2
    assert "name a log" in capsys.readouterr().err


def test_check_says_whose_roll_it_is_and_that_a_reroll_is_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The victim (seat 0) threw the null face and throws again: the same turn's roll.
    from lanTag.games.assassination.engine import Assassination
    from lanTag.rules.base import Action, Move, Roll
    from tests.rules.test_positions import _assassination

    first = Assassination.from_position(_assassination(mover=0))
    again = first.apply(Roll(((0,),))).apply(Move(0, Action("reroll")))
    lines = []
    for name, state in (("first", first), ("again", again)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(Assassination.position(state)), encoding="utf-8")
        assert main(["position", "--check", str(path)]) == 0
        lines.append(capsys.readouterr().out)
    assert lines[0].endswith("a roll for seat 0 (die roll for seat 0 (victim)); a new turn)\n")
    assert lines[1].endswith("a roll for seat 0 (die roll for seat 0 (victim), again))\n")


def test_the_help_says_how_places_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["position", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "a file letter from the left" in words and "a rank from the bottom" in words
    assert '"coordinates": "algebraic"' in words and "old spelling" in words
