"""Named commands of the game screen (pyvim style): key bindings only call these.

Each command is ``fn(model, arg)`` over a :class:`~lanTag.ui.model.GameModel`;
it changes the model and, for anything the network must hear, calls
``model.handle.command(...)`` so the peer flushes its sockets right away.
Tests run them by name without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable

from lanTag.errors import LocalProtocolError
from lanTag.rules.base import Action, IllegalAction, MalformedAction
from lanTag.ui.choosing import letter_choices
from lanTag.ui.model import SCAN_LIMIT, GameModel
from lanTag.ui.series_info import ACCEPT_NEXT, DECLINE_NEXT, REMATCH_SAME, REMATCH_SETUP

Command = Callable[[GameModel, str], None]
COMMANDS: dict[str, Command] = {}
END_VERBS = ("end", "done")
DIRECTIONS = ("n", "e", "s", "w")
# Typed as "/name arg" on the command line.
SLASH = {
    "say": "say",
    "say!": "say-logged",
    "msg": "whisper",
    "help": "toggle-help",
    "quit": "quit",
    "end": "end-turn",
    "commit": "commit",
    "back": "take-back",
}


def command(name: str) -> Callable[[Command], Command]:
    def register(fn: Command) -> Command:
        COMMANDS[name] = fn
        return fn

    return register


def run(model: GameModel, name: str, arg: str = "") -> None:
    """Run the command ``name``; every command but quit disarms a pending quit."""
    fn = COMMANDS.get(name)
    if fn is None:
        model.say(f"unknown command {name!r}", "class:error")
        return
    if name != "quit":
        model.quit_armed = False
    if name != "select":
        model.pending_arrow = None  # "press a digit" holds for the next key only
    if name != "step-direction":
        model.arrow_offer = None  # "the same arrow again" holds for the next key only
    fn(model, arg)


# --------------------------------------------------------------------------- playing


def _play(model: GameModel, text: str, *, secret_only: bool = False) -> bool:
    """Submit (our turn) or seal (a simultaneous choice) the action ``text``."""
    s, seat = model.session, model.seat
    if s is None or seat is None:
        model.say("you are watching: there is nothing to play", "class:error")
        return False
    if len(text) == 1:  # "p" alone during rock-paper-scissors: "rps paper"
        text = letter_choices(model).get(text.lower(), text)
    try:
        action = Action.parse(text)
    except MalformedAction as exc:
        model.say(f"not an action: {exc}", "class:error")
        return False
    if model.seat_taken_over():
        model.say(model.prompt_hint(), "class:error")
        return False
    mine = s.my_turn()
    if mine is None or (secret_only and mine != "secret"):
        if model.committed is not None and model.committed[0] == s.step:
            model.say(f"already sealed '{model.committed[1]}' for this step", "class:error")
        else:
            model.say("not your turn: " + model.turn_text(), "class:error")
        return False
    try:
        # The engine's wire form of what was typed (stomptag orders: words to letters),
        # checked here first so a typo gets the engine's reason, not a protocol error.
        action = s.state.typed_action(seat, action)
        s.state.check_action(seat, action)
        shown = model.action_text(action)
        if mine == "turn":
            model.handle.command(lambda now: s.submit(action, now))
            model.say(f"played {shown}", "class:ok")
        else:
            step = s.step
            model.handle.command(lambda now: s.commit(action, None, now))
            model.committed = (step, shown)
            others = len(model.waiting_for())
            model.say(f"committed '{shown}' — waiting for {others} other(s)", "class:ok")
    except IllegalAction as exc:
        # The game's view may answer a refused action better (Board Tag's "pick" of a die
        # the rules picked already).
        model.say(model.game_view().typed_hint(s.state, seat, action) or str(exc), "class:error")
        return False
    except LocalProtocolError as exc:
        model.say(str(exc), "class:error")
        return False
    model.board_follow = True  # after a move, show where our piece went
    model.outcomes.clear()  # our next decision is made: the outcomes before it were read
    return True


def _finish_line(model: GameModel, text: str) -> None:
    model.line.append_to_history()
    model.line.reset()
    model.mode = "board"
    model.cycle_index = -1
    _ = text


@command("submit")
def submit(model: GameModel, arg: str) -> None:
    """Enter: play the command line (or ``arg``); "/name ..." runs a slash command."""
    text = (arg or model.line.text).strip()
    if not text:
        model.mode = "board"
        if model.can_take_back():  # a bot took our seat while we were away: one key
            take_back(model, "")
            return
        model.say(model.prompt_hint())
        return
    if text.startswith("/"):
        name, _, rest = text[1:].partition(" ")
        target = SLASH.get(name.lower())
        if target is None:
            model.say(
                f"unknown command /{name} (try /say, /msg, /end, /help, /quit)", "class:error"
            )
            return
        _finish_line(model, text)
        run(model, target, rest.strip() or ("now" if target == "quit" else ""))
        return
    if _play(model, text):
        _finish_line(model, text)


@command("take-back")
def take_back(model: GameModel, arg: str) -> None:
    """Enter (or /back) while a bot plays our dropped seat: ask the table for it back, the
    hand-back a resumed seat uses (a signed REJOIN a live seat's next contribution
    carries); the others let us in from their next step."""
    s = model.session
    if s is None or not model.can_take_back():
        model.say(model.prompt_hint(), "class:error")
        return
    model.handle.command(lambda now: s.rejoin.ask_back(now, once=True))
    model.say("asking the table for your seat back…", "class:ok")


@command("commit")
def commit(model: GameModel, arg: str) -> None:
    """Seal a simultaneous choice (Enter does the same when a secret choice is asked)."""
    text = (arg or model.line.text).strip()
    if _play(model, text, secret_only=True):
        _finish_line(model, text)


@command("say-logged")
def say_logged(model: GameModel, arg: str) -> None:
    """Public chat that the author also keeps in their own game log ("/say! text")."""
    _chat(model, arg, keep=True)


@command("say")
def say(model: GameModel, arg: str) -> None:
    """Public chat to every peer (signed, not part of the game log)."""
    _chat(model, arg, keep=False)


def _chat(model: GameModel, arg: str, *, keep: bool) -> None:
    s, text = model.session, arg.strip()
    if s is None or not text:
        model.say("usage: /say text", "class:error")
        return
    try:
        model.handle.command(lambda now: s.say(text, now, keep_in_log=keep))
    except LocalProtocolError as exc:
        model.say(str(exc), "class:error")
        return
    # The session sends chat to the others only, so our own line is echoed here.
    model.add_log(
        f"<{model.names()[s.seat] if s.seat is not None else 'me'}> {text}", "class:log.chat"
    )


@command("whisper")
def whisper(model: GameModel, arg: str) -> None:
    """Private chat to one seat: "/msg SEAT text", encrypted to that player's key."""
    from lanTag.private_chat import seal

    s = model.session
    seat_text, _, text = arg.strip().partition(" ")
    if s is None or s.seat is None or not seat_text.isdigit() or not text.strip():
        model.say("usage: /msg SEAT text", "class:error")
        return
    to = int(seat_text)
    if not 0 <= to < len(s.record.seats) or s.record.seats[to].is_bot or to == s.seat:
        model.say(f"seat {to} is not another person at this table", "class:error")
        return
    me = s.seat
    sealed = seal(s.record.seats[to].public_key, text.strip(), s.private_line.aad(me, to))
    try:
        model.handle.command(lambda now: s.private_line.send(to, sealed))
    except LocalProtocolError as exc:
        model.say(str(exc), "class:error")
        return
    model.add_log(f"<me to {model.names()[to]}, private> {text.strip()}", "class:log.chat")


def arrow_actions(model: GameModel, direction: str) -> list[Action]:
    """Our legal actions that move ``direction`` (n/e/s/w): those whose last word is that
    compass word (``step n``, ``move 2 w``, ``face e``), and those the game's view says go
    that way (Assassination's ``leave c4`` out of the Safe House)."""
    text = model.action_text  # as players read them: stomptag orders end in a move word
    ways: dict[str, str] = model.view().get("arrows") or {}
    return [
        a
        for a in model.legal()
        if ways.get(text(a)) == direction or (a.args and text(a).rsplit(" ", 1)[-1] == direction)
    ]


def _by_piece(actions: list[Action]) -> dict[int, Action]:
    """The actions keyed by the piece they move, when each moves a different numbered
    piece (Tag 'em's pawns); empty otherwise."""
    pieces: dict[int, Action] = {}
    for a in actions:
        if a.args and isinstance(a.args[0], int):
            pieces[a.args[0]] = a
    return pieces if len(pieces) == len(actions) else {}


@command("step-direction")
def step_direction(model: GameModel, arg: str) -> None:
    """An arrow key: play our legal action that moves that way.

    With a piece selected (a digit) the arrow moves that piece.  Otherwise, when several
    pieces could go, the message line asks which and the next digit moves it that way
    (the command line stays empty, so the digit is never typed into a half command).
    Several actions of one piece (Assassination's two squares north of a 2x2 Safe House)
    go on the command line in turn: Enter plays the one shown, the arrow again the next."""
    text = model.action_text
    found = arrow_actions(model, arg)
    prefix = model.line.text.strip()
    if len(found) > 1 and prefix:
        shown = [text(a) for a in found]
        if model.arrow_offer == (arg, prefix) and prefix in shown:  # this arrow's: the next
            _offer(model, arg, found[(shown.index(prefix) + 1) % len(found)], found)
            return
        found = [a for a in found if text(a).startswith(prefix)] or found
    pieces = _by_piece(found)
    if pieces and model.selected is not None:
        if model.selected not in pieces:
            others = ", ".join(map(str, sorted(pieces)))
            model.pending_arrow = arg
            model.say(
                f"pawn {model.selected} cannot move {arg} now; {others} can: "
                "press a digit to move that one",
                "class:warn",
            )
            return
        found = [pieces[model.selected]]
    if not found:
        model.say(f"no move {arg} now", "class:error")
        return
    if len(found) == 1:
        if _play(model, text(found[0])):
            _finish_line(model, text(found[0]))
        return
    if pieces:
        model.pending_arrow = arg
        which = ", ".join(map(str, sorted(pieces)))
        model.say(f"pawns {which} can move {arg}: press a digit to move that one", "class:warn")
        return
    _offer(model, arg, found[0], found)


def _offer(model: GameModel, arrow: str, action: Action, found: list[Action]) -> None:
    """Put one of several actions an arrow allows on the command line (Enter plays it)."""
    shown = model.action_text(action)
    model.arrow_offer = (arrow, shown)
    model.line.text = shown
    model.line.cursor_position = len(shown)
    model.say(
        f"Enter plays '{shown}'; the same arrow again: the next of {len(found)}",
        "class:warn",
    )


@command("select")
def select(model: GameModel, arg: str) -> None:
    """A digit key: pick the piece the arrows move (Tag 'em pawns), else start typing it.
    Right after an arrow several pieces could follow, it moves that piece that way."""
    number = int(arg)
    if model.pending_arrow is not None:
        pending, model.pending_arrow = model.pending_arrow, None
        pieces = _by_piece(arrow_actions(model, pending))
        if number in pieces:
            model.selected = number
            model.board_follow, model.board_fit = True, False
            shown = model.action_text(pieces[number])
            if _play(model, shown):
                _finish_line(model, shown)
            return
    if any(a.args and a.args[0] == number for a in model.legal()):
        model.selected = number
        model.board_follow, model.board_fit = True, False  # show the piece just picked
        model.say(f"pawn {number} selected: the arrows move it", "class:ok")
        return
    type_text(model, arg)


@command("cycle-action")
def cycle_action(model: GameModel, arg: str) -> None:
    """Tab / Shift-Tab: put the next (previous) legal action on the command line."""
    actions = list(model.legal())
    if not actions:
        model.say("nothing to play now: " + model.prompt_hint(), "class:error")
        return
    delta = -1 if arg.strip() == "-1" else 1
    if model.cycle_index < 0 and delta < 0:
        model.cycle_index = 0
    model.cycle_index = (model.cycle_index + delta) % len(actions)
    model.line.text = model.action_text(actions[model.cycle_index])
    model.line.cursor_position = len(model.line.text)
    more = "+" if len(actions) >= SCAN_LIMIT else ""
    model.say(f"{model.cycle_index + 1}/{len(actions)}{more}: Enter plays it, Tab for the next")


@command("end-turn")
def end_turn(model: GameModel, arg: str) -> None:
    """The end key: play "end" or "done" when the rules offer it."""
    for a in model.legal():
        if a.verb in END_VERBS and not a.args:
            if _play(model, str(a)):
                _finish_line(model, str(a))
            return
    model.say("no end/done action now", "class:error")


# --------------------------------------------------------------------------- screen


@command("command-mode")
def command_mode(model: GameModel, arg: str) -> None:
    """ ":" (or any unbound letter): type into the command line, with completion."""
    model.mode = "command"
    if arg:
        model.line.text = arg
        model.line.cursor_position = len(arg)


def type_text(model: GameModel, text: str) -> None:
    model.mode = "command"
    model.line.insert_text(text)


@command("type")
def type_cmd(model: GameModel, arg: str) -> None:
    type_text(model, arg)


@command("board-mode")
def board_mode(model: GameModel, arg: str) -> None:
    """Esc: back to the board keys (the command line keeps its text)."""
    model.mode = "board"
    model.say(model.prompt_hint())


@command("clear-line")
def clear_line(model: GameModel, arg: str) -> None:
    """Esc: empty the command line and go back to the board keys."""
    model.line.reset()
    model.mode = "board"
    model.cycle_index = -1
    model.say(model.prompt_hint())


@command("toggle-help")
def toggle_help(model: GameModel, arg: str) -> None:
    model.show_help = not model.show_help
    model.help_scroll = 0


@command("help-scroll")
def help_scroll(model: GameModel, arg: str) -> None:
    model.help_scroll = max(0, model.help_scroll + int(arg or "1"))


@command("board-scroll")
def board_scroll(model: GameModel, arg: str) -> None:
    """PgUp/PgDn: boards taller than the terminal (big Tag 'em maps) scroll."""
    board_pan(model, f"0,{arg or '1'}")


@command("board-pan")
def board_pan(model: GameModel, arg: str) -> None:
    """Shift+arrows: move the view over a board bigger than its pane ("dx,dy").

    The pane stops following our piece until "." (board-follow), a digit or a move."""
    dx, _, dy = arg.partition(",")
    model.board_follow = False
    model.board_left = max(0, model.board_left + int(dx or "0"))
    model.board_scroll = max(0, model.board_scroll + int(dy or "0"))


@command("board-follow")
def board_follow(model: GameModel, arg: str) -> None:
    """ ".": scroll the board to show all our pieces (where they fit; else the selected one)
    and keep them in view."""
    model.board_follow = model.board_fit = True
    model.say("the board shows all your pieces and follows them", "class:ok")


@command("toggle-result")
def toggle_result(model: GameModel, arg: str) -> None:
    model.show_over = not model.show_over


@command("quit")
def quit_game(model: GameModel, arg: str) -> None:
    """Ctrl-Q: leave.  Mid-game it asks twice, then tells the others (a signed LEAVE):
    they read "NAME left" and a bot plays the seat at once, with no timeout to wait out."""
    if model.is_over():
        model.exit_code = 0
    elif model.quit_armed or arg == "now" or model.seat is None or model.seat_taken_over():
        # Watching (a spectator, or a seat a bot plays) loses nothing: one press leaves, as
        # the watching hint says ("Ctrl-Q leave").
        s = model.session
        if s is not None and model.seat is not None:
            model.handle.command(s.leave)
        model.exit_code = 1
    else:
        model.quit_armed = True
        model.say("press Ctrl-Q again to leave the game (a bot plays your seat)", "class:warn")


@command("leave")
def leave(model: GameModel, arg: str) -> None:
    """q/Enter on the game-over screen (a proposed next game is declined: the host is told)."""
    if model.is_over():
        model.exit_code = DECLINE_NEXT if model.next_game is not None else 0


@command("rematch")
def rematch(model: GameModel, arg: str) -> None:
    """Host, game over: r plays the same game again with the table, s opens the setup form."""
    if model.is_over() and model.series is not None and model.series.can_propose:
        model.exit_code = REMATCH_SETUP if arg == "setup" else REMATCH_SAME


@command("accept-next")
def accept_next(model: GameModel, arg: str) -> None:
    """Joiner, game over: a accepts the next game the host proposes."""
    if model.is_over() and model.next_game is not None:
        model.exit_code = ACCEPT_NEXT
