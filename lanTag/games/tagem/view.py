"""What Tag 'em shows: the plain-text board (render) and the dict for UIs and bots (view)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lanTag.games.tagem.board import GLYPH_OF_TILE, START_GLYPHS, Tile
from lanTag.games.tagem.engine import TagemState
from lanTag.games.tagem.pieces import (
    LETTERS,
    Attack,
    Flag,
    cell_name,
    flag_name,
    pawn_name,
)
from lanTag.rules.base import Action, Chance, Fact, Over, Turn
from lanTag.views.naming import Namer, plain_namer

# The game types as the rules text names them (the option's codes are what is typed).
MODE_NAMES = {"elimination": "elimination", "ctf": "Capture-The-Flag", "ctcf": "Capture-Their-Flag"}

LEGEND = (
    "legend: .path %cover ~wade ^garrison #block .1 starting point 1  * flag (*a: A's)  "
    "A0 pawn 0 of A (a0: carries a flag)"
)


def _cell_texts(state: TagemState) -> list[str]:
    """Two characters per cell: a pawn, a loose flag, a starting point or the terrain."""
    board = state.board
    texts = [GLYPH_OF_TILE[t] + " " if t != Tile.VOID else "  " for t in board.tiles]
    for slot, cell in enumerate(board.starts[: state.seats]):  # unused points are plain path
        texts[cell] = "." + START_GLYPHS[slot]
    for flag in state.flags:
        if flag.cell >= 0:
            texts[flag.cell] = "* " if flag.owner < 0 else "*" + LETTERS[flag.owner].lower()
    carriers = {(f.carrier, f.carrier_pawn) for f in state.flags if f.carrier >= 0}
    for seat, team in enumerate(state.pawns):
        for pawn, cell in enumerate(team):
            if cell >= 0:
                letter = LETTERS[seat].lower() if (seat, pawn) in carriers else LETTERS[seat]
                texts[cell] = f"{letter}{pawn}"
    return texts


def _status(state: TagemState) -> str:
    decision = state.decision()
    if isinstance(decision, Over):
        head = f"over: {decision.outcome.summary}"
    elif isinstance(decision, Chance):
        head = f"roll for {purpose_text(decision.purpose)}"
    else:
        assert isinstance(decision, Turn)
        head = (
            f"{LETTERS[decision.seat]} to act (seat {decision.seat}), "
            f"{state.pom_left} of {state.pom} PoM left"
        )
    pawns = " ".join(
        f"{LETTERS[s]}:{sum(1 for c in team if c >= 0)}" for s, team in enumerate(state.pawns)
    )
    tags = " ".join(f"{LETTERS[s]}:{n}" for s, n in enumerate(state.tags))
    order = " ".join(LETTERS[s] for s in state.order) or "not rolled"
    return f"status: {head} | pawns {pawns} | tags {tags} | order {order}"


def render(state: TagemState) -> str:
    board = state.board
    limit = f" of {state.max_turns}" if state.max_turns else ""
    shown = min(state.round, state.max_turns or state.round)  # the round after the last is no round
    mode = MODE_NAMES.get(state.mode, state.mode)
    lines = [f"Tag 'em: {board.name}, {mode}, round {shown}{limit}"]
    lines.append("    " + " ".join(str(c % 10) for c in range(board.width)))
    texts = _cell_texts(state)
    for row in range(board.height):
        cells = "".join(texts[row * board.width : (row + 1) * board.width])
        lines.append(f"{row:>2}  {cells}".rstrip())
    lines.append(LEGEND)
    lines.append(_status(state))
    if state.events:
        lines.append("last: " + "; ".join(events_texts(state)))
    return "\n".join(lines)


def warnings(state: TagemState, seat: int | None) -> list[str]:
    """Act or lose: a flag on its way to an opponent's start (Capture-The-Flag: the one
    flag, they win; Capture-Their-Flag: your flag, you are out)."""
    if seat is None or state.is_over or state.mode not in ("ctf", "ctcf"):
        return []
    out = []
    for flag in state.flags:
        carrier = flag.carrier
        if carrier < 0 or carrier == seat or (state.mode == "ctcf" and flag.owner != seat):
            continue
        home = place(state.board.width, state.board.starts[carrier])
        which, then = (
            ("the flag", "they win") if state.mode == "ctf" else ("your flag", "you are out")
        )
        who = pawn_name(carrier, flag.carrier_pawn)
        out.append(f"{who} carries {which}: stop it before it reaches {home} or {then}")
    return out


def view(state: TagemState, seat: int | None) -> dict[str, Any]:
    """Everything in Tag 'em is public: every seat sees the same, plus its own legal actions."""
    board = state.board
    decision = state.decision()
    texts = _cell_texts(state)
    carried = {(f.carrier, f.carrier_pawn): f.owner for f in state.flags if f.carrier >= 0}
    acting = _acting(state)
    pawns = [
        {
            "seat": s,
            "pawn": p,
            "name": pawn_name(s, p),
            "row": c // board.width,
            "col": c % board.width,
            "stopped": s == acting and p in state.stopped,
            "carries_flag": (s, p) in carried,
        }
        for s, team in enumerate(state.pawns)
        for p, c in enumerate(team)
        if c >= 0
    ]
    flags = [
        {
            "owner": f.owner,
            "at": cell_name(board, f.cell) if f.cell >= 0 else None,
            "carrier": pawn_name(f.carrier, f.carrier_pawn) if f.carrier >= 0 else None,
        }
        for f in state.flags
    ]
    pending = None
    if state.pending is not None:
        a = state.pending
        pending = {
            "attacker": pawn_name(a.attacker, a.attacker_pawn),
            "defender": pawn_name(a.defender, a.defender_pawn),
            "attacker_bonus": a.attacker_bonus,
            "defender_bonus": a.defender_bonus,
        }
    grid = [
        "".join(
            " " if t == Tile.VOID else GLYPH_OF_TILE[t]
            for t in board.tiles[r * board.width : (r + 1) * board.width]
        )
        for r in range(board.height)
    ]
    result: dict[str, Any] = {
        "game": "tagem",
        "map": board.name,
        "mode": state.mode,
        "mode_name": MODE_NAMES.get(state.mode, state.mode),
        "width": board.width,
        "height": board.height,
        "terrain": grid,
        "starts": [[c // board.width, c % board.width] for c in board.starts[: state.seats]],
        "cells": [texts[r * board.width : (r + 1) * board.width] for r in range(board.height)],
        "pawns": pawns,
        "flags": flags,
        "pending_attack": pending,
        "order": list(state.order),
        "to_act": acting,
        "round": state.round,
        "max_turns": state.max_turns,
        "pom": state.pom,
        "pom_left": state.pom_left,
        "tags": list(state.tags),
        "out": [list(g) for g in state.out],
        "events": events_texts(state),
        "event_facts": [list(fact) for fact in state.events],
        "you": seat,
        "warnings": warnings(state, seat),
        "legal": [],
        "attacks": [],
        "outcome": None,
    }
    if seat is not None:
        legal = state.legal_actions(seat)
        result["legal"] = [str(a) for a in legal]
        result["attacks"] = [attack_view(state, seat, a) for a in legal if a.verb == "attack"]
    if isinstance(decision, Over):
        result["outcome"] = {
            "summary": decision.outcome.summary,
            "ranking": [list(g) for g in decision.outcome.ranking],
            "scores": list(decision.outcome.scores),
        }
    return result


def modifiers_text(modifiers: dict[str, int]) -> str:
    """ "+2 horde, -1 cover": each modifier that counts, signed; "no modifier" if none."""
    return ", ".join(f"{v:+d} {k}" for k, v in modifiers.items() if v) or "no modifier"


def attack_words(a: Attack) -> str:
    """An attack's modifiers, the attacker's against the defender's: "+1 horde, -1 cover
    against no modifier" (the one wording of them: the attack list and the feed)."""
    mine = {
        "horde": a.attacker_horde,
        "garrison": int(a.attacker_garrison),
        "cover": -int(a.defender_cover),
    }
    theirs = {"horde": a.defender_horde, "garrison": int(a.defender_garrison)}
    if not any(mine.values()) and not any(theirs.values()):
        return "no modifier either side"
    return f"{modifiers_text(mine)} against {modifiers_text(theirs)}"


def attack_view(state: TagemState, seat: int, action: Action) -> dict[str, Any]:
    """A legal attack ``seat`` may declare, with the modifiers each side would roll with
    (the engine's ``attack_modifiers``), so a player sees the odds before choosing.

    ``line`` is the whole of it for a screen: "attack 0 e: A0 +0 vs B0 +0 (+1 horde, -1
    cover against no modifier)" (each side's die plus that bonus decides)."""
    a = state.attack_modifiers(seat, action)
    attacker = pawn_name(a.attacker, a.attacker_pawn)
    defender = pawn_name(a.defender, a.defender_pawn)
    text = attack_words(a)
    return {
        "action": str(action),
        "attacker": attacker,
        "defender": defender,
        "attacker_bonus": a.attacker_bonus,
        "defender_bonus": a.defender_bonus,
        "text": text,
        "line": (
            f"{action}: {attacker} {a.attacker_bonus:+d} vs {defender} {a.defender_bonus:+d}"
            f" ({text})"
        ),
    }


def _acting(state: TagemState) -> int | None:
    decision = state.decision()
    return decision.seat if isinstance(decision, Turn) else None


# ---------------------------------------------------------------- words for the facts


def events_texts(state: TagemState, name: Namer = plain_namer) -> list[str]:
    """What the last input did, one phrase per fact (the state keeps facts only).

    Teams and pawns are named by the board's letters (A, A1), not by ``name``: the
    letters are what the board and the commands show."""
    del name
    return [event_text(state, fact) for fact in state.events]


def events_hit(state: TagemState) -> list[tuple[int, ...]]:
    """The seats each fact of ``state.events`` happens to: a pawn attacked (and the roll
    that decides it), defeated or out, a flag captured or picked up (Capture-Their-Flag:
    its owner's).  The screen keeps those lines in view for that seat."""
    out: list[tuple[int, ...]] = []
    for fact in state.events:
        code, a = fact[0], [int(v) for v in fact[1:] if isinstance(v, int)]
        if code == "attacks":
            hit: tuple[int, ...] = (a[2],)
        elif code == "rolls":
            hit = (a[0], a[4])
        elif code in ("eliminated", "out", "respawns"):
            hit = (a[0],)
        elif code == "captures":
            hit = (a[1],)
        elif code == "picks-up" and a[2] >= 0:
            hit = (a[2],)
        else:
            hit = ()
        out.append(hit)
    return out


def place(board_width: int, cell: int) -> str:
    """A cell as the board labels it and commands read it: (column,row), both from 1."""
    return f"({cell % board_width + 1},{cell // board_width + 1})"


def _signed(value: int | str) -> str:
    return f"{int(value):+d}"


def event_text(state: TagemState, fact: Fact) -> str:
    code, a = fact[0], fact[1:]
    board = state.board
    if code == "order":
        return "turn order: " + " ".join(LETTERS[s] for s in state.order)
    if code == "ends":
        return f"{LETTERS[int(a[0])]} ends the turn, {a[1]} PoM unspent"
    if code == "attacks":
        seat, pawn, foe, foe_pawn = (int(v) for v in a)
        text = f"{pawn_name(seat, pawn)} attacks {pawn_name(foe, foe_pawn)}"
        return f"{text} ({attack_words(state.pending)})" if state.pending else text
    if code == "moves":
        mover, mover_pawn, way, target, cost, garrisoned = a
        where = place(board.width, int(target))
        text = f"{pawn_name(int(mover), int(mover_pawn))} moves {way} to {where} ({cost} PoM)"
        return text + (", garrisoned for the rest of the turn" if garrisoned else "")
    if code == "picks-up":
        seat, pawn, owner = (int(v) for v in a)
        return f"{pawn_name(seat, pawn)} picks up {flag_name(Flag(owner))}"
    if code == "home":
        return f"{LETTERS[int(a[0])]} brings the flag home and wins"
    if code == "captures":
        taker, loser = LETTERS[int(a[0])], LETTERS[int(a[1])]
        return f"{taker} captures {loser}'s flag: {loser} is eliminated"
    if code == "drops":
        owner, cell = (int(v) for v in a)
        return f"{flag_name(Flag(owner))} drops at {place(board.width, cell)}"
    if code == "rolls":
        attacker, a_pawn, a_die, a_bonus, defender, d_pawn, d_die, d_bonus = (int(v) for v in a)
        return (
            f"{pawn_name(attacker, a_pawn)} rolls {a_die}{a_bonus:+d}={a_die + a_bonus},"
            f" {pawn_name(defender, d_pawn)} rolls {d_die}{d_bonus:+d}={d_die + d_bonus}"
        )
    if code == "tie":
        return "a tie: nobody is defeated"
    if code == "eliminated":
        return f"{pawn_name(int(a[0]), int(a[1]))} is eliminated"
    if code == "out":
        return f"{LETTERS[int(a[0])]} has no pawns left and is out"
    if code == "respawns":
        seat, pawn, spot = (int(v) for v in a)
        where = place(board.width, spot) if spot >= 0 else "nowhere (no free tile)"
        return f"{pawn_name(seat, pawn)} is defeated and respawns at {where}"
    return " ".join(str(v) for v in fact)


def purpose_text(purpose: str) -> str:
    """A tagem chance purpose (a fact code) in words."""
    if purpose == "turn-order":
        return "turn order"
    kind, _, rest = purpose.partition("/")
    if kind == "attack":
        try:
            sides = [[int(v) for v in side.split(".")] for side in rest.split("/")]
            (seat, pawn, bonus), (foe, foe_pawn, foe_bonus) = sides
        except ValueError:
            return purpose
        return (
            f"attack {pawn_name(seat, pawn)} {_signed(bonus)}"
            f" vs {pawn_name(foe, foe_pawn)} {_signed(foe_bonus)}"
        )
    return purpose


def roll_text(
    purpose: str, values: Sequence[Sequence[int]], name: Namer = plain_namer
) -> str | None:
    """The turn order draws the seats in order: by the board's letters ("C B A")."""
    del name
    if purpose == "turn-order" and len(values) == 1:
        return " ".join(LETTERS[seat] for seat in values[0])
    return None
