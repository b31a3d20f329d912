"""A roll's STEP entry that records the seats dropped at their own roll (protocol 6,
SPEC §5.5, §9): how the check without the rules reads it, and how a record that is not
the replay's is refused."""

from __future__ import annotations

import pytest

from lanTag.log.recorded import decision_of, withheld_of
from lanTag.log.report import step_row_failure
from lanTag.rules.base import Chance, Die, Roll, encode_input
from lanTag.session import events as ev

ROLL = Roll(((1,),))
DRAWS = [[0, [1, 2, 3, 4], 1]]


def test_the_withheld_seats_are_read_from_the_fifth_element() -> None:
    assert withheld_of(["roll/2/d4", DRAWS]) == ()
    assert withheld_of(["roll/2/d4", DRAWS, [2]]) == (2,)
    assert withheld_of(["x", DRAWS, [0, 3]]) == (0, 3)
    assert decision_of(ROLL, ["roll/2/d4", DRAWS, [2]]) == Chance((Die((1, 2, 3, 4)),), "roll/2/d4")


@pytest.mark.parametrize(
    "seats", [[], [2, 1], [1, 1], [True], ["2"], 2, [-1], [2**16]], ids=repr
)
def test_a_withheld_record_that_is_no_list_of_seats_is_malformed(seats: object) -> None:
    with pytest.raises(ValueError, match="withheld roll's seats"):
        decision_of(ROLL, ["roll/2/d4", DRAWS, seats])


def test_a_move_or_a_round_has_no_withheld_element() -> None:
    with pytest.raises(ValueError, match="roll's record"):
        decision_of(ROLL, ["roll/2/d4", DRAWS, [2], [3]])


def _applied(facts: tuple[object, ...]) -> ev.StepApplied:
    return ev.StepApplied(7, ROLL, b"h" * 32, facts)


@pytest.mark.parametrize(
    ("recorded", "replayed"),
    [((), ([2],)), (([2],), ()), (([1],), ([2],))],
    ids=["drawn-for-a-withheld-roll", "withheld-for-a-drawn-roll", "another-seat"],
)
def test_a_record_of_other_withheld_seats_is_refused(
    recorded: tuple[object, ...], replayed: tuple[object, ...]
) -> None:
    data = [encode_input(ROLL), b"h" * 32, "roll/2/d4", DRAWS, *recorded]
    failure = step_row_failure(12, 7, data, _applied(("roll/2/d4", DRAWS, *replayed)))
    assert failure is not None and failure.entry == 12
    assert failure.reason == "recorded seats withholding their own roll at step 7 differ"
    # The same record is the replay's: it passes.
    assert step_row_failure(12, 7, data, _applied(("roll/2/d4", DRAWS, *recorded))) is None


def test_another_purpose_is_still_a_purpose_failure() -> None:
    data = [encode_input(ROLL), b"h" * 32, "roll/1/d4", DRAWS, [2]]
    failure = step_row_failure(12, 7, data, _applied(("roll/2/d4", DRAWS, [2])))
    assert failure is not None and "purpose" in failure.reason
