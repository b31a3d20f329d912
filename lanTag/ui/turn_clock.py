"""The turn limit as a player sees it: idle is not leaving (issue 34 item 1).

A person has ``timeouts.turn_ms`` for a move or a secret choice; at the limit the other
peers vote the seat out and the replicated bot plays it (SPEC §5.4, §5.5).  The screen
counts that clock on the player's own row and on the turn line from the start, warns at
``WARN_LEFT`` seconds before the limit (message line and terminal bell), and gives a
dropped seat back with one key: the hand-back a resumed seat uses (protocol 5, SPEC
§5.6), asked once (``Session.rejoin.ask_back(once=True)``).  Pure: the elapsed time comes in.
"""

from __future__ import annotations

from lanTag.rules.base import Simultaneous, Turn
from lanTag.session.lockstep import Session

WARN_LEFT = (30, 10)  # seconds before the turn limit when the player is warned (and a bell)


def turn_limit(session: Session) -> float:
    """Seconds a person has for a move or a secret choice (the host's ``--turn-timeout``)."""
    return session.record.timeouts.turn_ms / 1000


def seconds_left(session: Session, elapsed: float) -> float | None:
    """Seconds left before the limit while the table waits for our decision, else None."""
    if session.my_turn() is None:
        return None
    return turn_limit(session) - elapsed


def clock_text(session: Session, elapsed: float) -> str:
    """``12/120s`` while a person must decide (the limit applies), else ``12s``."""
    d = session.state.decision()
    seats = (d.seat,) if isinstance(d, Turn) else d.seats if isinstance(d, Simultaneous) else ()
    if any(not session.record.seats[x].is_bot for x in seats):
        return f"{elapsed:.0f}/{turn_limit(session):.0f}s"
    return f"{elapsed:.0f}s"


def idle_warning(session: Session, elapsed: float, warned: set[int]) -> str | None:
    """The warning to say now, once per mark of WARN_LEFT (``warned``: the marks said at
    this step, updated); None when no new mark was crossed."""
    left = seconds_left(session, elapsed)
    if left is None:
        return None
    limit = turn_limit(session)
    crossed = {mark for mark in WARN_LEFT if mark < limit and left <= mark}
    if not crossed - warned:
        return None
    warned.update(crossed)  # a late first look says the nearest mark only
    what = "move" if session.my_turn() == "turn" else "choose"
    return (
        f"{max(0.0, left):.0f} s left to {what}: at {limit:.0f} s the others vote your seat "
        "out and a bot plays it"
    )


def can_take_back(session: Session, seat: int, left: set[int]) -> bool:
    """Our dropped seat (not one we left: we would have gone) may be asked back now."""
    if seat in session.live or seat in left or not session.features.handback:
        return False
    return not session.rejoin.wants_back and session.rejoin.refusal() is None


def idle_drop_line(limit: float) -> str:
    """The feed's line when our seat went to a bot because we did not decide in time."""
    return (
        f"you were idle past the {limit:.0f} s turn limit: a bot plays your seat; press "
        "Enter to play it again"
    )


def take_back_hint(seat: int, dropped_at: int | None, idle: bool, limit: float) -> str:
    """The message line while a bot plays our seat and one key takes it back."""
    since = f" since step {dropped_at}" if dropped_at is not None else ""
    why = f" (idle past the {limit:.0f} s limit)" if idle else ""
    return f"a bot plays your seat {seat}{since}{why}: press Enter to play it again; Ctrl-Q leave"


def cannot_go_on_why(quit_key: str, bound: str = "") -> str:
    """Why a table waits for seats (ev.CannotGoOn), and what players can do: a drop of them
    could never be decided, or (``bound``: who we voted silent) only they can settle our
    vote against ``bound``."""
    if bound:
        why = f"only their vote or acknowledgement can settle {bound}'s move, which we voted"
        why += " silent, so it waits for them to come back"
    else:
        why = "a drop must leave half of the table, so it waits for them to come back"
    return f"{why} (or leave with {quit_key}; the log so far verifies)"
