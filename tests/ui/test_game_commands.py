"""The named commands over the UI model, without a terminal."""

from __future__ import annotations

from lanTag.rules.base import Action, Joint, Simultaneous
from lanTag.session import events as ev
from lanTag.ui import game_commands as commands
from lanTag.ui.model import GameModel
from lanTag.views.registry import game_view
from tests.ui.fakes import NetHandle, advance, solo_handle, ui_table


def _model(engine: str, moves: int = 0, **kwargs: object) -> GameModel:
    handle = solo_handle(engine, **kwargs)  # type: ignore[arg-type]
    advance(handle, moves)
    model = GameModel(handle)
    model.poll()
    return model


def _legal(model: GameModel) -> list[str]:
    s = model.session
    assert s is not None and s.seat is not None
    return [str(a) for a in s.state.legal_actions(s.seat)]


def test_command_line_move_changes_the_session_state() -> None:
    model = _model("prototag")
    s = model.session
    assert s is not None and s.my_turn() == "turn"
    before = s.step
    action = _legal(model)[0]
    model.line.text = action
    commands.run(model, "submit")
    assert s.step > before
    assert model.line.text == ""
    model.poll()
    assert any(line.text.endswith(f"you: {action}") for line in model.log)


def test_illegal_text_keeps_the_state_and_says_why() -> None:
    model = _model("prototag")
    s = model.session
    assert s is not None
    before = s.step
    model.mode = "command"
    model.line.text = "step nowhere"
    commands.run(model, "submit")
    assert s.step == before
    assert model.message_style == "class:error"
    assert model.line.text == "step nowhere"  # kept for fixing
    model.line.text = "???"
    commands.run(model, "submit")
    assert "not an action" in model.message


def test_cycle_action_walks_every_legal_action_in_order() -> None:
    model = _model("boardtag", 3)
    legal = _legal(model)
    seen = []
    for _ in legal:
        commands.run(model, "cycle-action", "+1")
        seen.append(model.line.text)
    assert seen == legal
    commands.run(model, "cycle-action", "+1")
    assert model.line.text == legal[0]
    commands.run(model, "cycle-action", "-1")
    assert model.line.text == legal[-1]


def test_arrow_plays_the_only_matching_step() -> None:
    model = _model("prototag")
    s = model.session
    assert s is not None
    steps = [a for a in _legal(model) if a.startswith("step ")]
    assert steps
    direction = steps[0].split()[1]
    before = s.step
    arrow = {"n": "n", "e": "e", "s": "s", "w": "w"}[direction]
    commands.run(model, "step-direction", arrow)
    assert s.step > before


def test_arrow_with_several_pawns_asks_for_a_pick_then_moves_it() -> None:
    model = _model("tagem", 1)
    s = model.session
    assert s is not None and s.my_turn() == "turn"
    moves = [a for a in _legal(model) if a.startswith("move ")]
    direction = moves[0].split()[2]
    pawns = sorted({int(a.split()[1]) for a in moves if a.split()[2] == direction})
    assert len(pawns) > 1
    before = s.step
    commands.run(model, "step-direction", direction)
    # Nothing played, nothing half typed: the message line asks for the pawn.
    assert s.step == before and model.line.text == ""
    assert f"can move {direction}: press a digit" in model.message
    commands.run(model, "select", str(pawns[-1]))  # the digit moves that pawn that way
    assert s.step == before + 1 and model.selected == pawns[-1]
    last = game_view("tagem").view(s.state, 0)["events"]
    assert any(f"A{pawns[-1]} moves {direction}" in e for e in last), last
    # Now selected: the arrow moves that pawn straight away.
    if s.my_turn() == "turn" and f"move {pawns[-1]} {direction}" in _legal(model):
        commands.run(model, "step-direction", direction)
        assert s.step == before + 2


def test_end_key_plays_end_or_done() -> None:
    model = _model("tagem", 1)
    s = model.session
    assert s is not None
    assert "end" in _legal(model)
    before = s.step
    commands.run(model, "end-turn")
    assert s.step > before


def test_secret_choice_is_committed_then_revealed_alone() -> None:
    model = _model("stomptag")
    s = model.session
    assert s is not None and s.my_turn() == "secret"
    assert isinstance(s.state.decision(), Simultaneous)
    before = s.step
    commands.run(model, "submit", _legal(model)[0])
    assert s.step > before  # one human: the reveal follows at once
    model.poll()
    assert model.last_secret is not None and "sealed by 1 seat(s)" in model.last_secret.text()


def test_stomptag_orders_are_typed_in_words_and_sent_in_letters() -> None:
    model = _model("stomptag", 1)  # our bid; the board is drawn, round 1 asks for orders
    s = model.session
    assert s is not None and s.seat == 0 and s.my_turn() == "secret"
    decision = s.state.decision()  # who else gives orders depends on the game id's draws
    assert isinstance(decision, Simultaneous) and decision.kind == "orders" and 0 in decision.seats
    before = s.step
    model.mode = "command"
    model.line.text = "orders stomp n up"
    commands.run(model, "submit")
    assert s.step == before and model.message_style == "class:error"
    assert "'up' is not a move" in model.message
    model.line.text = "orders stomp nothing nothing"
    commands.run(model, "submit")
    assert "you have 1 move(s) this round" in model.message
    model.line.text = "orders stomp nothing"
    commands.run(model, "submit")
    assert s.step > before
    sent = [
        e.input.of(0)
        for e in model.handle.machine.events
        if isinstance(e, ev.StepApplied) and isinstance(e.input, Joint)
    ]
    assert sent == [Action("orders", ("stomp", "x"))]  # the wire form: a letter per move
    model.poll()
    assert model.last_secret is not None
    assert "orders: seat 0 (you) stomp nothing" in model.last_secret.text()


def test_stomptag_orders_typed_in_letters_are_accepted_too() -> None:
    model = _model("stomptag", 1)
    s = model.session
    assert s is not None and s.my_turn() == "secret"
    before = s.step
    commands.run(model, "submit", "orders stride q")  # nw, in the wire's own letters
    assert s.step > before and model.message_style == "class:ok"
    assert "orders stride nw" in model.message


def test_committed_waits_for_the_others_and_rolls_are_seeded_by_everyone() -> None:
    table = ui_table("stomptag", 3, seed=5)
    table.start()
    handle = NetHandle(table)
    handle.settle()
    model = GameModel(handle)
    model.poll()
    s = model.session
    assert s is not None and s.my_turn() == "secret"
    assert model.last_roll is not None
    assert model.last_roll.text().endswith("from 3/3 seats' reveals, verified")
    commands.run(model, "submit", _legal(model)[0])
    assert model.committed is not None
    assert "waiting for 2 other(s)" in model.message
    assert model.prompt_hint().startswith("committed")
    handle.settle()
    model.poll()
    assert model.committed is None
    assert model.last_secret is not None
    assert "sealed by 3 seat(s), commitments opened" in model.last_secret.text()


def test_chat_is_sent_and_echoed() -> None:
    table = ui_table("prototag", 2, seed=2)
    table.start()
    handle = NetHandle(table)
    model = GameModel(handle)
    model.line.text = "/say hello there"
    commands.run(model, "submit")
    assert model.log[-1].text == "<host> hello there"
    handle.pump(1.0)
    assert any(isinstance(e, ev.Chat) and e.text == "hello there" for e in table.peers[1].events)


def test_network_events_reach_the_log_and_the_players_list() -> None:
    model = _model("prototag")
    events = model.handle.machine.events
    events.append(ev.Lagging(1, 3, 2.5))
    events.append(ev.Blame(2, 3, "bad-chain", "reveal does not hash"))
    events.append(ev.SeatsDropped(3, (2,)))
    events.append(ev.Chat(1, "hi"))
    events.append(ev.Desync(3, (1,)))
    events.append(ev.CannotGoOn(4, (1, 2)))
    events.append(ev.CannotGoOn(5, (2,), bound=(1,)))
    assert model.poll()
    texts = [line.text for line in model.log]
    stuck = [t for t in texts if t.startswith("the table cannot go on without ")]
    assert len(stuck) == 2 and all("Ctrl-Q" in t for t in stuck), texts
    assert "half of the table" in stuck[0]
    assert "only their vote or acknowledgement can settle seat 1 bot-1's move" in stuck[1], stuck
    assert any("lagging (2.5s)" in t for t in texts)
    assert any("blamed (bad-chain)" in t for t in texts)
    assert any("dropped at step 3" in t for t in texts)
    assert "<bot-1> hi" in texts
    assert model.seat_status(1) == "bot"  # bot seats stay bots whatever happens
    assert not events


def test_quit_asks_twice_during_the_game() -> None:
    model = _model("prototag")
    commands.run(model, "quit")
    assert model.exit_code is None and model.quit_armed
    commands.run(model, "cycle-action")  # anything else disarms
    commands.run(model, "quit")
    assert model.exit_code is None
    commands.run(model, "quit")
    assert model.exit_code == 1


def test_game_over_leaves_with_zero() -> None:
    model = _model("stomptag", 50)
    assert model.is_over()
    commands.run(model, "leave")
    assert model.exit_code == 0


def test_help_toggles() -> None:
    model = _model("prototag")
    commands.run(model, "toggle-help")
    assert model.show_help
    commands.run(model, "help-scroll", "5")
    assert model.help_scroll == 5
    commands.run(model, "toggle-help")
    assert not model.show_help and model.help_scroll == 0


async def test_typing_enters_command_mode_and_escape_leaves_it() -> None:
    # Typing starts completion in the background, which needs a running loop (as in the app).

    model = _model("prototag")
    commands.run(model, "type", "r")
    assert model.mode == "command" and model.line.text == "r"
    commands.run(model, "board-mode")
    assert model.mode == "board"


def test_an_arrow_plays_the_action_tab_put_on_the_line() -> None:
    # The arrow's "the same arrow again: the next" is for what an arrow put there; an
    # action Tab put on the line that goes that way is played by the arrow.
    model = _model("tagem", 1)
    s = model.session
    assert s is not None
    legal = _legal(model)
    action = next(a for a in legal if a.startswith("move ") and a.endswith(" e"))
    while model.line.text != action:
        commands.run(model, "cycle-action", "+1")
    before = s.step
    commands.run(model, "step-direction", "e")
    assert s.step == before + 1 and model.line.text == ""
