"""The game screen's state: one object the key bindings, commands and layout share.

The model consumes the peer's event deque (``poll``), keeps what the screen
shows (log lines, the last dice and their fairness status, who lags or was
dropped) and derives the rest from the session's public API on demand.  It
never reads the session's private step boxes: the fairness line is rebuilt
from ``needs_for`` (public) and the events, by replaying each StepApplied on
a shadow copy of the state so every roll keeps its purpose ("seat 1's D6").
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.history import InMemoryHistory

from lanTag.peer.doorstep import DoorLines
from lanTag.peer.join_handshake import LobbyEvent
from lanTag.peer.resume import back_line
from lanTag.peer.series_events import NextGame
from lanTag.rules.base import (
    Action,
    Chance,
    IllegalAction,
    Joint,
    Move,
    Outcome,
    Over,
    Roll,
    Simultaneous,
    State,
    Turn,
    input_text,
)
from lanTag.session import events as ev
from lanTag.session.lobby_record import seat_names, start_state
from lanTag.session.lockstep import Session
from lanTag.session.referee import needs_for
from lanTag.ui import turn_clock
from lanTag.ui.completion import ActionCompleter
from lanTag.ui.feed import seat_namer, step_lines
from lanTag.ui.game_handle import GameHandle
from lanTag.ui.game_lines import LogLine, RollInfo, SecretInfo
from lanTag.ui.outcomes import (
    SECRET_NAMES,
    choice_words,
    roll_words,
    secret_line,
    who_namer,
)
from lanTag.ui.prompt_hint import prompt_hint
from lanTag.ui.series_info import SeriesInfo
from lanTag.views.registry import GameView, game_view

OUTCOMES_KEEP = 8  # outcome lines kept on screen until our next decision
MINE_KEEP = 24  # of which about us (kept besides the others: never pushed out by them)
LOG_KEEP = 300  # log lines kept in memory; the signed log file has everything
SCAN_LIMIT = 5000  # legal actions looked at for completion and cycling (lazy spaces are huge)


class GameModel:
    """Everything the game screen shows and every command changes."""

    def __init__(self, handle: GameHandle, clock: Callable[[], float] = time.monotonic) -> None:
        self.handle = handle
        self.clock = clock
        self.mode = "board"  # "board": keys play; "command": typing into the command line
        self.show_help = False
        self.help_scroll = 0
        self.board_scroll = 0  # first board row shown (under the pinned column labels)
        self.board_left = 0  # first board column shown (right of the pinned row labels)
        self.board_follow = True  # scroll to keep our selected piece in view (off after a pan)
        self.board_fit = True  # keep all our pieces in view where they fit ("."; a digit: one)
        self.show_over = True  # the game-over box (hidden with b to look at the final board)
        self.message = ""
        self.message_style = ""
        self.log: deque[LogLine] = deque(maxlen=LOG_KEEP)
        self._rejected = DoorLines()  # bad datagrams: counting lines, not hundreds
        self.cycle_index = -1
        self.selected: int | None = None  # pawn/piece chosen with a digit key (Tag 'em)
        self.pending_arrow: str | None = None  # an arrow several pieces could follow
        self.arrow_offer: tuple[str, str] | None = None  # (arrow, action it put on the line)
        self.committed: tuple[int, str] | None = None  # (step, action text) sealed by us
        self.quit_armed = False
        self.exit_code: int | None = None
        self.last_roll: RollInfo | None = None
        self.last_secret: SecretInfo | None = None
        # Outcome lines (secret rounds, rolls) since our last decision: they stay on screen
        # until we act again, however many steps the others play meanwhile.
        self.outcomes: list[LogLine] = []  # see add_outcome
        self.lagging: dict[int, float] = {}
        self.dropped_at: dict[int, int] = {}
        self.back_at: dict[int, int] = {}  # seat -> step its person plays it again from
        self.blamed: dict[int, str] = {}
        self.desynced: set[int] = set()
        self.left: set[int] = set()  # seats dropped after their own signed LEAVE
        self.warned: set[int] = set()  # WARN_LEFT marks already said at this step
        self.bell = False  # ring the terminal bell at the next redraw (a turn-limit warning)
        self.idle_dropped = False  # our seat was dropped while our decision was awaited
        self._mine_pending = False  # at the last poll, the table waited for our decision
        self.outcome: Outcome | None = None
        self.series: SeriesInfo | None = None  # set for a game of a series (game-over box)
        self.next_game: NextGame | None = None  # the host proposes the next game (joiner)
        self._blames: dict[int, list[ev.Blame]] = {}
        self._step_seen = -1
        self._step_started = clock()
        self._shadow: State | None = None
        self._shadow_step = 0
        self._view_key: tuple[int, int] | None = None
        self._view: dict[str, Any] = {}
        self._fed_state: State | None = None  # the state after the last step put in the feed
        self.view_serial = 0  # bumped whenever view() builds a new dict (drawing caches by it)
        self.line = Buffer(
            multiline=False,
            history=InMemoryHistory(),
            name="command",
            completer=ActionCompleter(self.legal, self.action_text),
            complete_while_typing=Condition(lambda: self.mode == "command"),
        )
        session = self.session
        if session is not None:
            record = session.record
            self._shadow = start_state(record)

    # ------------------------------------------------------------------ queries

    @property
    def session(self) -> Session | None:
        return self.handle.machine.session

    @property
    def engine(self) -> str:
        s = self.session
        return s.record.engine if s is not None else ""

    @property
    def seat(self) -> int | None:
        s = self.session
        return s.seat if s is not None and not s.replay else None

    def names(self) -> list[str]:
        """Each seat's name on screen (two seats of one nickname told apart)."""
        s = self.session
        return list(seat_names(s.record.seats)) if s is not None else []

    def game_view(self) -> GameView:
        """How this game is shown (lanTag/views/): its view dict, text board, purposes."""
        return game_view(self.engine)

    def view(self) -> dict[str, Any]:
        """The engine's view for our seat, cached per step (views list legal actions)."""
        s = self.session
        if s is None:
            return {}
        key = (s.step, id(s.state))
        if key != self._view_key:
            self._view_key, self._view = key, self.game_view().view(s.state, self.seat)
            self.view_serial += 1
        return self._view

    def legal(self) -> Iterator[Action]:
        """Our legal actions now, lazily (Stomptag's order space is a large product)."""
        s, seat = self.session, self.seat
        if s is None or seat is None or s.my_turn() is None:
            return iter(())
        return islice(iter(s.state.legal_actions(seat)), SCAN_LIMIT)

    def action_text(self, action: Action) -> str:
        """``action`` as players read it (the game's ``action_text``: orders in words)."""
        s = self.session
        return s.game.action_text(action) if s is not None else str(action)

    def turn_seconds(self) -> float:
        return max(0.0, self.clock() - self._step_started)

    def turn_limit(self) -> float:
        s = self.session
        return turn_clock.turn_limit(s) if s is not None else 0.0

    def seconds_left(self) -> float | None:
        """Seconds left before the turn limit while the table waits for our decision."""
        s = self.session
        return turn_clock.seconds_left(s, self.turn_seconds()) if s is not None else None

    def clock_text(self) -> str:
        s = self.session
        return turn_clock.clock_text(s, self.turn_seconds()) if s is not None else ""

    def own_status(self) -> str:
        """Our own row's status: ``you``, with the turn clock while we must decide."""
        s, seat = self.session, self.seat
        if s is None or seat is None or seat not in s.live:
            return self.seat_status(seat) if seat is not None else ""
        return "you" if s.my_turn() is None else f"you {self.clock_text()}"

    def waiting_for(self) -> tuple[int, ...]:
        """Other human seats the current step still needs (we cannot see who already sent)."""
        s = self.session
        if s is None:
            return ()
        return tuple(x for x in s.needs().humans if x != self.seat)

    def is_over(self) -> bool:
        s = self.session
        return self.outcome is not None or (s is not None and s.state.is_over)

    def final_outcome(self) -> Outcome | None:
        s = self.session
        if s is not None:
            d = s.state.decision()
            if isinstance(d, Over):
                return d.outcome
        return self.outcome

    def turn_text(self) -> str:
        """Whose move it is, in words."""
        s = self.session
        if s is None:
            return "waiting for the game to start"
        d = s.state.decision()
        names = self.names()
        if isinstance(d, Over):
            return "game over"
        if isinstance(d, Turn):
            who = "you" if d.seat == self.seat else f"seat {d.seat} {names[d.seat]}"
            return f"{who} to move"
        if isinstance(d, Simultaneous):
            kind = SECRET_NAMES.get(d.kind, d.kind)  # "rock-paper-scissors", not "rps"
            return f"secret {kind}: seats " + " ".join(map(str, d.seats))
        assert isinstance(d, Chance)
        return f"dice: {self.game_view().purpose_text(d.purpose)}"

    def seat_status(self, seat: int) -> str:
        s = self.session
        if s is None:
            return ""
        rec = s.record.seats[seat]
        if rec.is_bot:
            return "bot"
        if seat in self.desynced:
            return "DESYNC"
        if seat in self.left:
            return "left"
        if seat not in s.live:
            return "dropped"
        if seat in s.leaving:
            return "leaving"
        if seat in self.lagging:
            return f"lag {self.lagging[seat]:.0f}s"
        d = s.state.decision()
        if (isinstance(d, Turn) and d.seat == seat) or (
            isinstance(d, Simultaneous) and seat in d.seats
        ):
            # Heard from (else the session says it lags): a person choosing, on the clock.
            limit = s.record.timeouts.turn_ms / 1000
            return f"thinking {self.turn_seconds():.0f}/{limit:.0f}s"
        return "live"

    # ------------------------------------------------------------------ feedback

    def say(self, text: str, style: str = "") -> None:
        """The one-line feedback under the board."""
        self.message, self.message_style = text, style

    def add_log(self, text: str, style: str = "class:log.step") -> None:
        self.log.append(LogLine(style, text))

    def add_outcome(self, line: LogLine) -> None:
        """Keep an outcome line until our next decision: the newest OUTCOMES_KEEP of the
        others, and those about us besides (up to MINE_KEEP), so the others never push
        "you were caught" out."""
        self.outcomes.append(line)
        for mine, keep in ((False, OUTCOMES_KEEP), (True, MINE_KEEP)):
            kind = [x for x in self.outcomes if x.mine == mine]
            if len(kind) > keep:
                self.outcomes.remove(kind[0])

    # ------------------------------------------------------------------ events

    def poll(self) -> bool:
        """Consume the peer's events; True when anything on screen may have changed."""
        changed = False
        events = self.handle.machine.events
        while events:
            self._on_event(events.popleft())
            changed = True
        s = self.session
        if s is not None:
            if self._shadow is None or self._shadow_step != s.step:
                # Lost track (rollback, events taken by someone else): restart from the session.
                self._shadow, self._shadow_step = s.state, s.step
            if s.step != self._step_seen:
                self._step_seen = s.step
                self._step_started = self.clock()
                self.lagging.clear()
                self.cycle_index = -1
                if self.warned and self.message_style == "class:error":
                    self.say("")  # the step moved on: its "N s left" is stale
                self.warned.clear()
                if self.committed is not None and self.committed[0] != s.step:
                    self.committed = None
                    if self.message.startswith("committed "):
                        # The round resolved: its "waiting for N other(s)" is stale.
                        self.say("")
                if self.message.startswith("played ") and s.my_turn() == "secret":
                    # Our move led to a secret choice (Prototag's battle): say that instead.
                    self.say("")
                changed = True
            if s.state.is_over and self.outcome is None:
                self.outcome = self.final_outcome()
                changed = True
            warning = turn_clock.idle_warning(s, self.turn_seconds(), self.warned)
            if warning is not None:
                self.say(warning, "class:error")
                self.bell = True
            self._mine_pending = s.my_turn() is not None
        return changed

    def _on_event(self, e: ev.Event | LobbyEvent) -> None:
        names = self.names()

        def who(seat: int) -> str:
            return f"seat {seat} {names[seat]}" if seat < len(names) else f"seat {seat}"

        if isinstance(e, ev.StepApplied):
            self._on_step(e)
        elif isinstance(e, ev.Blame):
            self._blames.setdefault(e.step, []).append(e)
            self.blamed[e.seat] = e.code
            self.add_log(f"! {who(e.seat)} blamed ({e.code}): {e.reason}", "class:log.blame")
        elif isinstance(e, ev.Desync):
            self.desynced.update(e.seats)
            seats = ", ".join(who(x) for x in e.seats)
            self.add_log(f"!! state differs from {seats} at step {e.step}", "class:log.blame")
        elif isinstance(e, ev.SeatsBack):
            for seat in e.seats:
                self.back_at[seat] = e.step
                self.left.discard(seat)
                mine = seat == self.seat
                line = back_line(seat, names[seat] if seat < len(names) else "", e.step, mine)
                self.add_log(line, "class:warn" if mine else "class:log.net")
                if mine:
                    self.idle_dropped = False
                    self.say(line, "class:ok")
        elif isinstance(e, ev.SeatsDropped):
            if self.seat in e.seats and self.seat not in e.left:
                # The table waited for our decision until the limit: idle, not gone.
                self.idle_dropped = self._mine_pending
                if self.idle_dropped:
                    self.bell = True
                    self.say("")
            for seat in e.seats:
                if self.back_at.pop(seat, None) is not None or seat not in self.dropped_at:
                    self.dropped_at[seat] = e.step  # dropped again after it came back
            self.left.update(e.left)
            for seat in e.left:
                name = names[seat] if seat < len(names) else f"seat {seat}"
                self.add_log(f"{name} left; a bot plays seat {seat}", "class:log.net")
            silent = [x for x in e.seats if x not in e.left]
            if silent:
                seats = ", ".join(who(x) for x in silent)
                self.add_log(f"{seats} dropped at step {e.step}; a bot plays", "class:log.net")
            if self.idle_dropped and self.seat in silent:
                self.add_log(turn_clock.idle_drop_line(self.turn_limit()), "class:warn")
        elif isinstance(e, ev.CannotGoOn):
            seats = ", ".join(who(x) for x in e.seats)
            why = turn_clock.cannot_go_on_why("Ctrl-Q", ", ".join(who(x) for x in e.bound))
            self.add_log(f"the table cannot go on without {seats}: {why}", "class:warn")
        elif isinstance(e, ev.Lagging):
            self.lagging[e.seat] = e.seconds
            self.add_log(f"{who(e.seat)} lagging ({e.seconds:.1f}s)", "class:log.net")
        elif isinstance(e, ev.Chat):
            who_said = names[e.seat] if e.seat < len(names) else e.seat
            tag = ", private" if e.private else ""
            self.add_log(f"<{who_said}{tag}> {e.text}", "class:log.chat")
        elif isinstance(e, ev.GameOver):
            self.outcome = e.outcome
            self.add_log(f"game over: {e.outcome.summary}", "class:warn")
        elif isinstance(e, ev.Rejected):  # a flood of them: counting lines (doorstep.py)
            for line in self._rejected.add(f"dropped a bad datagram ({e.code})", self.clock()):
                self.add_log(line, "class:dim")
        elif isinstance(e, NextGame):
            self.next_game = e
            if self.series is not None:
                self.series.proposed = e
            self.add_log(f"the host proposes the next game: {e.engine}", "class:warn")

    def _on_step(self, e: ev.StepApplied) -> None:
        shadow = self._shadow if e.step == self._shadow_step else None
        if shadow is None and self.session is not None:
            # Steps we did not follow one by one (a seat resumed from its log catches up
            # from its last logged step): the session holds the state they started from.
            shadow = self.session.state_at(e.step)
        after: State | None = None
        if shadow is not None:
            try:
                after = shadow.apply(e.input)
            except IllegalAction:
                after = None
        after_view = self.game_view().view(after, self.seat) if after is not None else {}
        who = who_namer(self.names(), self._me_at(e.step))
        problems = self._problems(e.step)
        if isinstance(e.input, Roll):
            # A roll always answers a Chance decision, which every live human seat seeds.
            contributors = tuple(sorted(self._live_at(e.step)))
            purpose, values = roll_words(self.engine, shadow, e.input, after_view, who)
            self.last_roll = RollInfo(
                e.step, purpose, values, contributors, len(self._humans()), problems
            )
            self.add_log(f"{e.step}: {self.last_roll.text()}", "class:log.roll")
            if not self._feed(e.step, after):
                # A roll whose result no fact words (turn order, who starts): the roll itself.
                self.add_outcome(LogLine("class:log.roll", f"{purpose}: {values}"))
        else:
            if isinstance(e.input, Joint) and shadow is not None:
                d = shadow.decision()
                if isinstance(d, Simultaneous):
                    sealed = needs_for(d, self._live_at(e.step)).humans
                    name = seat_namer(self.names(), self._me_at(e.step))
                    choices = ", ".join(
                        f"{name(s)} {choice_words(self.engine, d.kind, a, self.action_text)}"
                        for s, a in e.input.choices
                    )
                    kind = SECRET_NAMES.get(d.kind, d.kind)
                    self.last_secret = SecretInfo(e.step, kind, choices, sealed, problems)
                    line = secret_line(
                        self.engine, d.kind, e.input, after_view, who, self.action_text
                    )
                    # About us when a fact this line tells (not a line of its own) hits us:
                    # Prototag's battle that tags us.
                    me = self._me_at(e.step)
                    told = step_lines(self.engine, after, seat_namer(self.names(), me), None, me)
                    ours = any(x.mine and not x.notable for x in told)
                    self.add_outcome(LogLine("class:warn", line, ours))
                    self.add_log(f"{e.step}: {line}", "class:warn")
                    self._feed(e.step, after)
                    self._advance_shadow(after, e.step)
                    return
            self.add_log(f"{e.step}: {self._input_text(e)}")
            self._feed(e.step, after)
        self._advance_shadow(after, e.step)

    def _feed(self, step: int, after: State | None) -> bool:
        """The step's notable results (rolls, collisions, battles, tags) in words: kept under
        the board until our next decision and logged.  False when there was none."""
        before, self._fed_state = self._fed_state, after
        if after is None:
            return False
        me = self._me_at(step)
        name = seat_namer(self.names(), me)
        lines = [line for line in step_lines(self.engine, after, name, before, me) if line.notable]
        for line in lines:
            self.add_outcome(LogLine("class:warn", line.text, line.mine))
            self.add_log(f"{step}: {line.text}", "class:warn")
        return bool(lines)

    def _advance_shadow(self, after: State | None, step: int) -> None:
        self._shadow, self._shadow_step = after, step + 1

    def _input_text(self, e: ev.StepApplied) -> str:
        if isinstance(e.input, Move) and e.input.seat == self.seat and self.playing_at(e.step):
            return f"you: {self.action_text(e.input.action)}"
        return input_text(e.input, self.action_text)

    def playing_at(self, step: int) -> bool:
        """Our seat was ours (not yet dropped, so not played by a bot) at ``step``."""
        seat = self.seat
        if seat is None:
            return False
        dropped = self.dropped_at.get(seat)
        back = self.back_at.get(seat)
        return dropped is None or step < dropped or (back is not None and step >= back)

    def _me_at(self, step: int) -> int | None:
        """Our seat while we played it; None once a bot plays it (its moves are not "you")."""
        return self.seat if self.playing_at(step) else None

    def can_take_back(self) -> bool:
        """Our seat was dropped (not left: we would have gone) and may be asked back now
        with one key: the hand-back of a resume (protocol 5, SPEC §5.6) without restarting."""
        s, seat = self.session, self.seat
        return s is not None and seat is not None and turn_clock.can_take_back(s, seat, self.left)

    def seat_taken_over(self) -> bool:
        """Our seat is played by the replicated bot now: we left, or the others dropped us
        (after a crash, ``join --resume`` asks for it back: the bot plays it until a live
        seat lets us in, protocol 5)."""
        s, seat = self.session, self.seat
        return s is not None and seat is not None and seat not in s.live

    def _humans(self) -> frozenset[int]:
        s = self.session
        if s is None:
            return frozenset()
        return frozenset(i for i, r in enumerate(s.record.seats) if not r.is_bot)

    def _live_at(self, step: int) -> frozenset[int]:
        gone = {s for s, k in self.dropped_at.items() if k <= step}
        return self._humans() - {s for s in gone if not self.back_at.get(s, step + 1) <= step}

    def _problems(self, step: int) -> tuple[str, ...]:
        out = [f"seat {b.seat} {b.code}" for b in self._blames.pop(step, [])]
        out += [f"seat {s} dropped" for s, k in sorted(self.dropped_at.items()) if k == step]
        for old in [k for k in self._blames if k < step - 64]:
            del self._blames[old]
        return tuple(out)

    # ------------------------------------------------------------------ the prompt

    def prompt_hint(self) -> str:
        """What the player can do now, shown on the message line when nothing else is."""
        return prompt_hint(self)
