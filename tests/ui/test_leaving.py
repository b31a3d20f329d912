"""Leaving is a message: Ctrl-Q twice sends a signed LEAVE; the others read "NAME left; a
bot plays seat N" (no timeout blame) and the seat shows "left", never "live"."""

from __future__ import annotations

import re

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lanTag.session.lobby_record import Timeouts
from lanTag.ui import game_commands as commands
from lanTag.ui.app import GameApp
from lanTag.ui.snapshot import screen_text
from tests.support.table import Table, addr
from tests.ui.fakes import NetHandle


async def test_the_others_read_that_a_player_left() -> None:
    table = Table("prototag", 3, seed=5, timeouts=Timeouts())
    table.peers[0].driver = None  # the host is played through the screen
    table.net.run_for(30.0)
    table.start()
    table.peers[1].driver = None  # a person, at the keyboard of peer 1
    host, leaver = NetHandle(table), NetHandle(table, index=1)  # type: ignore[arg-type]
    seat = table.seat_of(1)
    assert seat is not None
    with create_pipe_input() as a, create_pipe_input() as b:
        mine = GameApp(host, input=a, output=DummyOutput())
        theirs = GameApp(leaver, input=b, output=DummyOutput())
        commands.run(theirs.model, "quit")  # asks first...
        assert theirs.model.exit_code is None and "Ctrl-Q again" in theirs.model.message
        commands.run(theirs.model, "quit")  # ...then leaves, saying so
        assert theirs.model.exit_code == 1
        table.net.run_for(0.2)
        others = [addr(j) for j in (0, 2)]
        table.net.cut([addr(1)], others)  # the process is gone
        del table.net.machines[addr(1)]
        # The host plays on (Tab+Enter when asked) until the seat is dropped as left.
        for _ in range(200):
            if seat in mine.model.left:
                break
            mine.model.poll()
            if mine.model.session is not None and mine.model.session.my_turn() is not None:
                commands.run(mine.model, "cycle-action", "+1")
                commands.run(mine.model, "submit")
            table.net.run_for(0.5)
            mine.model.poll()
        name = table.peers[1].session.record.seats[seat].nickname  # type: ignore[union-attr]
        logged = [line.text for line in mine.model.log]
        assert f"{name} left; a bot plays seat {seat}" in logged, logged[-8:]
        assert not any("blamed" in line for line in logged), logged
        assert mine.model.seat_status(seat) == "left"
        assert "left" in screen_text(mine.app, 80, 24)


async def test_a_dropped_seat_watches_and_its_bot_moves_are_not_labelled_you() -> None:
    # The leaver stays on the network (as a resumed peer whose seat was dropped does):
    # it learns its drop, and then watches the bot play its seat.
    table = Table("prototag", 3, seed=6, timeouts=Timeouts())
    table.peers[1].driver = None
    table.net.run_for(30.0)
    table.start()
    leaver = NetHandle(table, index=1)  # type: ignore[arg-type]
    seat = table.seat_of(1)
    with create_pipe_input() as inp:
        theirs = GameApp(leaver, input=inp, output=DummyOutput())
        commands.run(theirs.model, "quit", "now")

        def dropped() -> bool:
            theirs.model.poll()
            return seat in theirs.model.dropped_at

        table.net.run_until(dropped, table.net.now + 600)
        theirs.model.poll()
        drop_step = theirs.model.dropped_at[seat]  # type: ignore[index]
        model = theirs.model
        session = model.session
        assert session is not None
        # The bot plays our old seat meanwhile (a few of its moves, before the game ends).
        bot_moves = f": seat {seat}: "  # how a move is logged when it is not ours

        def bot_moved() -> bool:
            model.poll()
            return any(bot_moves in line.text for line in model.log) or session.state.is_over

        table.net.run_until(bot_moved, table.net.now + 600)
        assert not session.state.is_over
        assert model.seat_taken_over() and model.seat_status(seat) == "left"  # type: ignore[arg-type]
        assert model.prompt_hint().startswith("watching: a bot plays your seat")
        # Why it only watches, in the same line: the drop's step, and how it could come back
        # (protocol 5, SPEC §5.6: a resume asks for the seat back).
        reason = _watch_reason(session.record.protocol)
        assert f"dropped at step {drop_step} {reason}" in model.prompt_hint()
        assert "watching: bot in your seat" in screen_text(theirs.app, 80, 24)
        labelled = [line.text for line in model.log if ": you: " in line.text]
        assert all(int(text.split(":")[0]) < drop_step for text in labelled), labelled
        # Nor do the feed's words call the bot's seat "you" ("seat 1 (you) rolls 3").
        def worded_since_drop() -> list[str]:
            model.poll()
            numbered = [t.text for t in model.log if re.match(r"\d+: ", t.text)]
            return [t for t in numbered if int(t.split(":")[0]) >= drop_step]

        def our_seat_worded() -> bool:
            words = worded_since_drop()
            return any(f"seat {seat} " in t or "(you)" in t for t in words) or session.state.is_over

        table.net.run_until(our_seat_worded, table.net.now + 600)
        after = worded_since_drop()
        assert any(f"seat {seat} " in t for t in after), after
        assert not any("(you)" in t or "you (" in t for t in after), after
        commands.run(model, "submit", "step n")
        assert model.message.startswith("watching:")


def _watch_reason(protocol: int) -> str:
    """How a dropped seat is told it could come back (protocol 5: a resume asks, §5.6)."""
    if protocol >= 5:
        return "(`lantag join --resume LOG` asks for it back)"
    return f"(a drop is final in a protocol-{protocol} game)"


async def test_headless_says_in_one_line_why_a_dropped_seat_only_watches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lanTag.cli.headless import play_headless
    from lanTag.rules.base import Outcome
    from lanTag.session import events as ev
    from tests.ui.fakes import solo_handle

    handle = solo_handle("prototag")
    handle.machine.events.clear()
    handle.machine.events.extend(
        [
            ev.SeatsDropped(7, (2,), ()),  # someone else's drop: no watch line
            ev.SeatsDropped(9, (0,), ()),  # ours (after a resume, say)
            ev.GameOver(20, Outcome(((1,), (0, 2)), "seat 1 wins")),
        ]
    )
    assert await play_headless(handle) == 0  # type: ignore[arg-type]
    lines = capsys.readouterr().out.splitlines()
    watch = [line for line in lines if line.startswith("watching only:")]
    # Headless, the way back names the restart a resume needs (lanTag.cli.headless_clock).
    assert watch == [
        "watching only: your seat 0 was dropped at step 9; a bot plays it (in headless mode "
        "no key gives it back: stop this peer (Ctrl-C) and run `lantag join --resume LOG "
        "--headless`, which asks the table for it)"
    ]


def test_steps_caught_up_after_a_resume_are_worded_like_any_other() -> None:
    # A seat resumed from its log gets the steps it missed (SYNC) as its first events, at
    # a step past the screen's start: their rolls still say whose roll and what it did.
    import re

    from lanTag.session import events as ev
    from tests.ui.fakes import advance, solo_handle

    handle = solo_handle("prototag")
    advance(handle, 6)
    events = handle.machine.events
    steps = [e for e in events if isinstance(e, ev.StepApplied)]
    resumed_at = steps[2].step  # as if the log ended there: the earlier events are gone
    kept = [e for e in events if not isinstance(e, ev.StepApplied) or e.step >= resumed_at]
    events.clear()
    events.extend(kept)
    with create_pipe_input() as inp:
        model = GameApp(handle, input=inp, output=DummyOutput()).model  # type: ignore[arg-type]
        logged = [line.text for line in model.log]
    rolls = [t for t in logged if re.match(r"\d+: .*roll", t)]
    assert rolls, logged
    assert not [t for t in rolls if re.match(r"\d+: roll: ", t)], rolls  # no bare "roll: 4"
    assert any(re.match(r"\d+: seat \d .*rolls \d", t) for t in rolls), rolls
