"""`lantag play --headless` says each step in the console's words (lanTag.ui.outcomes
.step_words: the feed's and the outcome lines' wording, not the wire's `joint: 0=[rps
rock] 1=[rps scissors]` or `roll: 1 0 2`)."""

from __future__ import annotations

import dataclasses

from lanTag.cli.headless import step_report
from lanTag.games.tagem.engine import TagemState
from lanTag.rules.base import FORFEIT, Action, Joint, input_text
from lanTag.session import events as ev
from lanTag.ui.outcomes import secret_line, step_words, who_namer
from lanTag.views.registry import game_view
from tests.rules.prototag_helpers import moving, step
from tests.ui.fakes import solo_handle

NAMES = ("me", "bot-1", "bot-2")


def test_a_secret_round_reads_as_its_outcome() -> None:
    battle = step(moving([(3, 3), (2, 3), (6, 6)], 5), "n")  # seat 0, tagged, reaches seat 1
    joint = Joint(((0, Action("rps", ("rock",))), (1, Action("rps", ("scissors",)))))
    headline, results = step_words("prototag", battle, joint, NAMES, str)
    assert headline == (
        "rock-paper-scissors: seat 0 me (rock) beats seat 1 bot-1 (scissors): seat 1 bot-1"
        " is tagged"
    )
    assert results == ["seat 0 me is immune for 4 step(s)"]


def test_a_roll_reads_as_its_result_and_a_step_line_starts_each_step() -> None:
    handle = solo_handle("tagem", 2)  # the turn order is rolled at once (only our reveal)
    session = handle.machine.session
    assert session is not None
    first = next(e for e in handle.machine.events if isinstance(e, ev.StepApplied))
    rolled = session.state_at(1)
    assert isinstance(rolled, TagemState)
    letters = " ".join("ABC"[seat] for seat in rolled.order)
    # The console's words for it (the view's), not the drawn seat numbers "roll: 1 0 2".
    assert game_view("tagem").events_texts(rolled) == [f"turn order: {letters}"]
    assert step_report(session, first) == [f"step 0: turn order: {letters}"]


def test_a_round_with_a_convicted_seat_says_it_forfeits() -> None:
    # A convicted seat's share is FORFEIT (no argument): the words used to index its
    # argument, and the real-process cheat table's honest headless peers died of it.
    battle = step(moving([(3, 3), (2, 3), (6, 6)], 5), "n")
    joint = Joint(((0, Action("rps", ("rock",))), (1, FORFEIT)))
    headline, _ = step_words("prototag", battle, joint, NAMES, str)
    tagged = battle.apply(joint).tagged  # type: ignore[attr-defined]
    assert headline == (
        f"rock-paper-scissors: seat 0 me rock; seat 1 bot-1 forfeits (convicted of cheating):"
        f" seat {tagged} {NAMES[tagged]} is tagged"
    )
    bids = Joint(((0, Action("bid", (3,))), (2, FORFEIT)))
    assert secret_line("stomptag", "bid", bids, {}, who_namer(NAMES, None), str) == (
        "bids: seat 0 me 3; seat 2 bot-2 forfeits (convicted of cheating)"
    )


def test_a_step_decided_again_since_is_printed_as_recorded() -> None:
    # After a rollback the session's state at that step is another history's: the words
    # would describe the wrong position, so the input is printed as it was recorded.
    handle = solo_handle("tagem", 2)
    session = handle.machine.session
    assert session is not None
    first = next(e for e in handle.machine.events if isinstance(e, ev.StepApplied))
    other = dataclasses.replace(first, state_hash=bytes(32))
    assert step_report(session, other) == [f"step 0: {input_text(first.input)}"]
    assert step_report(session, first) != step_report(session, other)
