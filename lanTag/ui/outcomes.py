"""Outcome lines for the feed: who did what and why, in words, from public facts only.

Built by the screen from a resolved step: the input (a roll, a joint secret choice) and
the engine's view before and after it.  Numbers are shown as the rules state them
(Stomptag's minimum bids are the drawn permutation plus one, read from the view after
the roll), places as the board labels them, never as internal indices.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lanTag.rules.base import (
    FORFEIT,
    Action,
    Chance,
    IllegalAction,
    Input,
    Joint,
    Roll,
    Simultaneous,
    State,
    input_text,
)
from lanTag.ui.feed import seat_namer, step_lines
from lanTag.views.registry import game_view

RPS_BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
SECRET_NAMES = {"rps": "rock-paper-scissors", "bid": "bids", "orders": "orders"}

Who = Callable[[int], str]  # seat -> "you" or "seat 2 NAME"


def who_namer(names: Sequence[str], me: int | None) -> Who:
    def who(seat: int) -> str:
        if seat == me:
            return "you"
        return f"seat {seat} {names[seat]}" if 0 <= seat < len(names) else f"seat {seat}"

    return who


def secret_line(
    engine: str,
    kind: str,
    joint: Joint,
    after: dict[str, Any],
    who: Who,
    shown: Callable[[Action], str],
) -> str:
    """One resolved secret round: every choice, and for rock-paper-scissors who won and why.

    A seat convicted of cheating in the round (its share is ``FORFEIT``, SPEC §4.4)
    "forfeits"; the rest of the round is then said as it came out."""
    title = SECRET_NAMES.get(kind, kind)
    tagged = after.get("tagged")
    tagged_line = ""
    if kind == "rps" and isinstance(tagged, int) and tagged >= 0:
        tagged_line = f": {who(tagged)} {'are' if who(tagged) == 'you' else 'is'} tagged"
    forfeits = any(action == FORFEIT for _, action in joint.choices)
    if kind == "rps" and len(joint.choices) == 2 and not forfeits:
        (a, act_a), (b, act_b) = joint.choices
        pick_a, pick_b = str(act_a.args[0]), str(act_b.args[0])
        if pick_a == pick_b:
            return f"{title}: {who(a)} and {who(b)} both chose {pick_a}: a draw, play again"
        winner, loser = ((a, pick_a), (b, pick_b)) if RPS_BEATS[pick_a] == pick_b else (
            (b, pick_b),
            (a, pick_a),
        )
        beat = "beat" if who(winner[0]) == "you" else "beats"
        line = f"{title}: {who(winner[0])} ({winner[1]}) {beat} {who(loser[0])} ({loser[1]})"
        return line + tagged_line
    parts = [f"{who(s)} {choice_words(engine, kind, a, shown)}" for s, a in joint.choices]
    return f"{title}: " + "; ".join(parts) + tagged_line


def choice_words(engine: str, kind: str, action: Action, shown: Callable[[Action], str]) -> str:
    """One seat's revealed choice without its verb: ``rock``, ``10``, or as the game's view
    words it (Stomptag's orders: ``stomp n ne + upgrade``, the moves as words, the upgrade
    said)."""
    if action == FORFEIT:
        return "forfeits (convicted of cheating)"
    worded = game_view(engine).choice_words(kind, shown(action))
    return worded if worded is not None else " ".join(map(str, action.args))


def roll_words(
    engine: str, before: State | None, roll: Roll, after: dict[str, Any], who: Who
) -> tuple[str, str]:
    """A roll's purpose and values in words ("seat 1's D6 roll", "4"): the purpose from
    the decision it answered (``before``), the values as the rules use them."""
    # Where the draw is an index, the values as the rules use them (the game's view reads
    # them from the view after the roll: Stomptag's minimum bids, its landings).
    purpose, values = "roll", game_view(engine).roll_values(after, who)
    decision = before.decision() if before is not None else None
    if isinstance(decision, Chance):
        shown = game_view(engine)
        purpose = shown.purpose_text(decision.purpose)
        # A seat drawn reads as its name, a turn order by the board's letters (the view's).
        values = values or shown.roll_text(decision.purpose, roll.values, who)
    return purpose, values or " | ".join(" ".join(map(str, v)) for v in roll.values)


def step_words(
    engine: str,
    before: State,
    inp: Input,
    names: Sequence[str],
    shown: Callable[[Action], str],
    me: int | None = None,
    after: State | None = None,
) -> tuple[str, list[str]]:
    """One step in the console's words, for a text stream (``lantag play --headless``):
    a headline and the lines of the results the console keeps in view (rolls' results,
    battles, tags), as the screen's "since your last move" lines say them.

    The headline is what the screen keeps for the input: a roll's first result
    ("seat 1 bot-1 rolls 4"; a roll no fact words: "turn order: 3 1"), a secret round's
    outcome, a move as ``seat 2: step n``.  ``before`` is the state the input was applied
    to, ``after`` the state it led to (worked out when not given).  The feed's and the
    outcome lines' wording, so text and screen never differ."""
    if after is None:
        try:
            after = before.apply(inp)
        except IllegalAction:
            after = None
    after_view = game_view(engine).view(after, me) if after is not None else {}
    who = who_namer(names, me)
    found = step_lines(engine, after, seat_namer(names, me), before) if after is not None else []
    facts = [line.text for line in found if line.notable]
    decision = before.decision()
    if isinstance(inp, Roll):
        if facts:
            return facts[0], facts[1:]
        purpose, values = roll_words(engine, before, inp, after_view, who)
        return f"{purpose}: {values}", facts
    if isinstance(inp, Joint) and isinstance(decision, Simultaneous):
        return secret_line(engine, decision.kind, inp, after_view, who, shown), facts
    return input_text(inp, shown), facts
