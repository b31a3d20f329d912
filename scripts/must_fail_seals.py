"""Must-fail logs of protocol 3's header writer and seals of the final state (SPEC §9).

Part of scripts/gen_must_fail.py; each function is one
cheat of the cheating writer (must_fail_game.Game) and returns its vector.
"""

from __future__ import annotations

from lanTag.log.entries import EntryKind
from lanTag.rules.base import Move, decode_input
from lanTag.session.messages import MsgType
from scripts.must_fail_game import Expect, Game, Item, Vector, vector, write
from scripts.must_fail_game import h as _h


def _seal_of(game: Game, seat: int) -> int:
    return game.find(lambda m: m.type == MsgType.SEAL and m.seat == seat)


@vector
def header_without_writer(game: Game) -> Vector:
    step, kind, (magic, record, _writer) = game.items[0]
    items: list[Item] = [(step, kind, [magic, record]), *game.items[1:20]]
    return Vector(
        "header_without_writer",
        "§9 header: [magic, lobby record, writer seat]: the writer field is there",
        "the header is [magic, record]: it names no writer",
        write(items),
        Expect(1, "names no writer", 0, 0),
    )


@vector
def seal_of_another_state(game: Game) -> Vector:
    k = _seal_of(game, 1)
    msg = game.msg(k)
    forged = game.sign(msg, state_hash=_h("a state the game did not end in"))
    items = [*game.items[:k], (msg.step, EntryKind.MSG, forged), *game.items[k + 1 :]]
    return Vector(
        "seal_of_another_state",
        "§9 seals: every SEAL seals the final state (step and state hash) the log ends in",
        f"entry {k}: seat 1's SEAL, validly signed, of another state hash than the final one",
        write(items),
        Expect(1, "evidence against seat 1", k, None),
    )


@vector
def seal_at_another_step(game: Game) -> Vector:
    # The true final state hash, signed for the step before the final one: a seal names the
    # final step and state together (issue "[proofs]": the session's step check untested).
    k = _seal_of(game, 1)
    msg = game.msg(k)
    forged = game.sign(msg, step=msg.step - 1)
    items = [*game.items[:k], (msg.step - 1, EntryKind.MSG, forged), *game.items[k + 1 :]]
    return Vector(
        "seal_at_another_step",
        "§9 seals: every SEAL seals the final step and state together",
        f"entry {k}: seat 1's SEAL, validly signed, of the final state hash at step "
        f"{msg.step - 1}, not the final step {msg.step}",
        write(items),
        Expect(1, "evidence against seat 1", k, None),
    )


@vector
def seal_before_the_end(game: Game) -> Vector:
    s = game.step_entry(20)
    honest = game.msg(_seal_of(game, 1))
    state = game.states[21]
    forged = game.sign(honest, step=21, state_hash=state.state_hash())
    items = [*game.items[: s + 1], (21, EntryKind.MSG, forged)]
    return Vector(
        "seal_before_the_end",
        "§9 seals: a SEAL only in a log whose game ends",
        f"the log stops after step 20 (entry {s}) with seat 1's SEAL of the state there",
        write(items),
        Expect(1, "the game does not end in this log", s + 1, None),
    )


@vector
def last_move_resigned(game: Game) -> Vector:
    s = max(k for k, item in enumerate(game.items) if item[1] == EntryKind.STEP)
    step = game.items[s][0]
    inp = decode_input(game.items[s][2][0])
    if type(inp) is not Move or inp.seat != 0:
        raise LookupError("the last step is not a move of the writer's seat")
    k = game.find(lambda m: m.type == MsgType.MOVE and m.seat == 0 and m.step == step)
    msg = game.msg(k)
    state = game.states[step]
    # another action that still ends the game, so the log's only flaw is the re-signed move
    ending = [
        a
        for a in state.legal_actions(0)
        if a != msg.action and state.apply(Move(0, a)).is_over
    ]
    if not ending:
        raise LookupError("no other action of the last move ends the game")
    other = ending[0]
    resigned = game.sign(msg, payload=(other.to_msgpack(),))
    magic, record, _writer = game.items[0][2]
    items: list[Item] = [(0, EntryKind.HEADER, [magic, record, None])]  # "a spectator's"
    for j, item in enumerate(game.items[1:s], start=1):
        items.append((step, EntryKind.MSG, resigned) if j == k else item)
    items.append(game.claimed_step(step, Move(0, other)))  # and no seal: none would fit
    return Vector(
        "last_move_resigned",
        "§9 seals: a finished game's last move is acknowledged (a HAVE) or sealed by another "
        "seat, else the log is not complete",
        f"the writer (header writer nil) re-signs its own last MOVE (entry {k}) with another "
        "action, records the step it decides and drops the seals",
        write(items),
        Expect(0, "acknowledged or sealed by no other seat", complete=False),
    )
