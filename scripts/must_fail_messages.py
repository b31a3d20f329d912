"""Must-fail logs that break the rules of the signed messages (SPEC §3-§5) and of fairness
(hash-chain links, commitments: SPEC §4).

Part of scripts/gen_must_fail.py; each function is one
cheat of the cheating writer (must_fail_game.Game) and returns its vector.
"""

from __future__ import annotations

from lanTag.fair.commit import commitment
from lanTag.log.entries import EntryKind
from lanTag.rules.base import (
    FORFEIT,
    Action,
    Chance,
    IllegalAction,
    Input,
    Joint,
    Move,
    decode_input,
)
from lanTag.session import referee
from lanTag.session.core import STEP_WINDOW
from lanTag.session.messages import (
    MsgType,
    Signed,
    parse_unverified,
    reveal_value,
)
from lanTag.session.steps import ROUND_SUBJECT
from scripts.must_fail_game import Expect, Game, Item, Vector, turn_of, vector, write
from scripts.must_fail_game import h as _h

# -- the messages (SPEC §3-§5) --------------------------------------------------------------


@vector
def message_from_another_game(game: Game) -> Vector:
    k, msg = game.first_turn()
    items = game.forged(k, game.resigned(k, game_id=_h("other")))
    return Vector(
        "message_from_another_game",
        "§3 messages: game_id is this game's",
        f"entry {k}: seat {msg.seat}'s MOVE, validly signed by seat {msg.seat}, for another "
        "game id",
        write(items),
        Expect(1, "another game", k, msg.step),
    )


@vector
def message_of_another_protocol(game: Game) -> Vector:
    k, msg = game.first_turn()
    other = 1 if game.record.protocol != 1 else 2
    items = game.forged(k, game.resigned(k, version=other))
    return Vector(
        "message_of_another_protocol",
        "§3 messages: the version is the protocol of the game's record",
        f"entry {k}: seat {msg.seat}'s MOVE, validly signed, in protocol {other} (the game is "
        f"protocol {game.record.protocol})",
        write(items),
        Expect(1, f"protocol {other} message", k, msg.step),
    )


@vector
def message_from_a_bot_seat(game: Game) -> Vector:
    k, msg = game.first_turn()
    bot = next(i for i, s in enumerate(game.record.seats) if s.is_bot)
    items = game.forged(k, game.resigned(k, seat=bot, signer=0))
    return Vector(
        "message_from_a_bot_seat",
        "§3 messages: only a human seat of the record signs messages",
        f"entry {k}: a MOVE naming the replicated bot's seat {bot}, signed by the writer",
        write(items),
        Expect(1, "is not a human seat", k, msg.step),
    )


@vector
def signature_by_another_seat(game: Game) -> Vector:
    k, msg = game.first_turn()
    # the writer signs seat 1's move with its own key
    items = game.forged(k, game.resigned(k, signer=0))
    return Vector(
        "signature_by_another_seat",
        "§3 messages: signed by the key of the seat it names",
        f"entry {k}: seat {msg.seat}'s MOVE signed with the writer's (seat 0's) key",
        write(items),
        Expect(1, "does not verify", k, msg.step),
    )


@vector
def too_far_ahead(game: Game) -> Vector:
    k, msg = game.first_turn()
    far = msg.step + STEP_WINDOW + 1
    items = game.forged(k, game.resigned(k, step=far))
    return Vector(
        "too_far_ahead",
        f"§5 messages: at most {STEP_WINDOW} steps ahead of the replay",
        f"entry {k}: seat {msg.seat}'s MOVE dated step {far}, {STEP_WINDOW + 1} steps ahead",
        write(items),
        Expect(1, "sent step", k, far),
    )


@vector
def message_state_hash(game: Game) -> Vector:
    k, msg = game.first_turn()
    s = game.step_entry(msg.step)
    items = game.forged(k, game.resigned(k, state_hash=_h("another history")), game.items[s])
    return Vector(
        "message_state_hash",
        "§5 messages: a contribution carries the state hash of its step",
        f"entry {k}: seat {msg.seat}'s MOVE carries another state hash; entry {k + 1} records "
        "its step as decided",
        write(items),
        Expect(1, "do not decide", k + 1, msg.step, (msg.seat, "desync")),
    )


@vector
def out_of_turn(game: Game) -> Vector:
    k, msg = game.first_turn()
    # seat 2 plays seat 1's move, on seat 1's turn
    items = game.forged(
        k, game.resigned(k, seat=2), game.claimed_step(msg.step, Move(2, msg.action))
    )
    return Vector(
        "out_of_turn",
        "§5 steps: a MOVE only from the seat whose turn it is",
        f"entry {k}: seat 2 sends the MOVE on seat {msg.seat}'s turn; entry {k + 1} records "
        "it as the step's input",
        write(items),
        Expect(1, "do not decide", k + 1, msg.step, (2, "out-of-turn")),
    )


@vector
def out_of_turn_commit(game: Game) -> Vector:
    # Not an invalid log: the replay refuses the message and blames its seat, and the game
    # goes on (the verdict is the blame).  The plain lane must see it too: it stores a COMMIT
    # that no step reads, so without its out-of-turn rule it would call the log clean.
    k, msg = game.first_turn()
    sealed = _h("a commitment nobody asked for")
    # From the seat whose turn it is: a seat the step waits for, with the wrong kind.
    commit = game.resigned(k, msg_type=MsgType.COMMIT, payload=(sealed,))
    s = game.step_entry(msg.step)
    items = game.forged(k, commit, *game.items[k : s + 1])
    return Vector(
        "out_of_turn_commit",
        "§5 steps: a COMMIT only at a secret step, from a seat it asks",
        f"entry {k}: seat {msg.seat} sends a COMMIT on its own turn (a turn asks for a MOVE); "
        f"the game goes on honestly: the log is VALID (exit 0), the report blames seat {msg.seat}",
        write(items),
        Expect(0, "", None, None, (msg.seat, "out-of-turn"), complete=False),
    )


def _illegal_action(game: Game, step: int, seat: int) -> Action:
    """An action of the game (one some seat played) that is illegal for ``seat`` now."""
    state = game.states[step]
    for k in range(1, len(game.items)):
        if game.items[k][1] == EntryKind.MSG and game.msg(k).type == MsgType.MOVE:
            action = game.msg(k).action
            try:
                state.check_action(seat, action)
            except IllegalAction:
                return action
    raise LookupError("every move of the game is legal here")


@vector
def illegal_move(game: Game) -> Vector:
    k, msg = game.first_turn()
    action = _illegal_action(game, msg.step, msg.seat)
    items = game.forged(
        k,
        game.resigned(k, payload=(action.to_msgpack(),)),
        game.claimed_step(msg.step, Move(msg.seat, action)),
    )
    return Vector(
        "illegal_move",
        "§5 steps: a MOVE is legal for its seat in the step's state (the engine's rules)",
        f"entry {k}: seat {msg.seat} moves {action} on its turn, which the rules forbid; entry "
        f"{k + 1} records it as the step's input",
        write(items),
        Expect(1, "do not decide", k + 1, msg.step, (msg.seat, "illegal-action")),
    )


@vector
def own_move_before_any_ack(game: Game) -> Vector:
    k = turn_of(game, 0)
    msg = game.msg(k)
    s = game.step_entry(msg.step)
    items = game.forged(k + 1, game.items[s])
    return Vector(
        "own_move_before_any_ack",
        "§5.2 acknowledgements: the writer's own MOVE counts once another live peer took it",
        f"entry {k}: the writer's own MOVE; entry {k + 1} records its step at once, with no "
        "HAVE from another peer before it",
        write(items),
        Expect(1, "do not decide", k + 1, msg.step),
    )


@vector
def own_move_acked_only_by_itself(game: Game) -> Vector:
    k = turn_of(game, 0)
    msg = game.msg(k)
    have = game.find(
        lambda m: m.type == MsgType.HAVE and m.step == msg.step and m.payload[0] == msg.seat, k
    )
    s = game.step_entry(msg.step)
    own = game.sign(game.msg(have), seat=msg.seat)  # the writer acknowledges its own MOVE
    items = game.forged(k + 1, (msg.step, EntryKind.MSG, own), game.items[s])
    return Vector(
        "own_move_acked_only_by_itself",
        "§5.2 acknowledgements: the writer's own MOVE counts once ANOTHER live peer took it",
        f"entry {k}: the writer's own MOVE; entry {k + 1}: a HAVE of it signed by the writer "
        f"itself; entry {k + 2} records its step, with no HAVE from another peer",
        write(items),
        Expect(1, "do not decide", k + 2, msg.step),
    )


@vector
def equivocation(game: Game) -> Vector:
    k = turn_of(game, 1)
    msg = game.msg(k)
    s = game.step_entry(msg.step)
    other = next(a for a in game.states[msg.step].legal_actions(msg.seat) if a != msg.action)
    second = game.sign(msg, payload=(other.to_msgpack(),))
    after = game.step_entry(msg.step + 1) if msg.step + 1 < len(game.states) - 1 else s
    items = [
        *game.items[: s + 1],
        (msg.step, EntryKind.MSG, second),
        *game.items[s + 1 : after + 1],
    ]
    return Vector(
        "equivocation",
        "§5.7 equivocation: one message per seat and slot",
        f"entry {s + 1}: a second, different MOVE of seat {msg.seat} for step {msg.step} "
        f"(after the STEP entry {s} of the first); the log goes on as if nothing happened",
        write(items),
        Expect(1, "step", after + 1, None, (msg.seat, "equivocation")),
    )


# -- fairness: hash-chain links and commitments (SPEC §4) ------------------------------------


@vector
def entropy_link_does_not_chain(game: Game) -> Vector:
    k = game.find(lambda m: m.type == MsgType.ENTROPY and m.seat == 1)
    msg = game.msg(k)
    forged = _h("a link off seat 1's chain")
    s = game.step_entry(msg.step)
    links = {
        m.seat: (forged if m.seat == msg.seat else m.payload[0])
        for j in range(1, s)
        if game.items[j][1] == EntryKind.MSG
        and (m := game.msg(j)).type == MsgType.ENTROPY
        and m.step == msg.step
    }
    decision = game.states[msg.step].decision()
    assert isinstance(decision, Chance)
    roll, _seed = referee.chance_roll(decision, game.game_id, msg.step, links)
    between = [it for it in game.items[k + 1 : s] if it[1] != EntryKind.STEP]
    items = [
        *game.items[:k],
        (msg.step, EntryKind.MSG, game.sign(msg, payload=(forged,))),
        *between,
        game.claimed_step(msg.step, roll),
    ]
    return Vector(
        "entropy_link_does_not_chain",
        "§4 hash chains: an ENTROPY link hashes to the seat's previous link",
        f"entry {k}: seat {msg.seat}'s ENTROPY carries a link off its chain; entry "
        f"{k + 1 + len(between)} records the roll that link gives",
        write(items),
        Expect(1, "do not decide", k + 1 + len(between), msg.step, (msg.seat, "bad-chain")),
    )


def _reveal_not_default(game: Game) -> int:
    """A human seat's REVEAL whose action is not its default action."""
    return game.find(
        lambda m: (
            m.type == MsgType.REVEAL and m.action != game.states[m.step].default_action(m.seat)
        )
    )


def _secret_step(game: Game, k: int, reveal: bytes) -> tuple[list[Item], int, Input]:
    """The honest log up to the STEP of REVEAL entry ``k``'s step, with ``reveal`` in its
    place, and the Joint the cheating writer claims from the revealed actions and links."""
    msg = game.msg(k)
    s = game.step_entry(msg.step)
    items = game.forged(k, (msg.step, EntryKind.MSG, reveal), *game.items[k + 1 : s])
    forged = parse_unverified(reveal)
    reveals = {
        m.seat: (forged if m.seat == msg.seat else m)
        for j in range(1, s)
        if game.items[j][1] == EntryKind.MSG
        and (m := game.msg(j)).type == MsgType.REVEAL
        and m.step == msg.step
    }
    needs = game.needs(msg.step)
    bots = {b: game.record.seats[b].bot for b in needs.bots}
    joint = referee.joint_choice(
        game.states[msg.step],
        game.game_id,
        msg.step,
        {seat: m.action for seat, m in reveals.items()},
        {seat: m.payload[2] for seat, m in reveals.items()},
        bots,
    )
    return items, s, joint


@vector
def reveal_link_does_not_chain(game: Game) -> Vector:
    k = _reveal_not_default(game)
    msg = game.msg(k)
    action, nonce, _link, *vector = msg.payload  # (the vector it names: protocol 6)
    raw = game.sign(msg, payload=(action, nonce, _h("a link off the chain"), *vector))
    items, s, joint = _secret_step(game, k, raw)
    return Vector(
        "reveal_link_does_not_chain",
        "§4 hash chains: a REVEAL's link hashes to the seat's previous link",
        f"entry {k}: seat {msg.seat}'s REVEAL opens its commitment but carries a link off its "
        f"chain; entry {s} records the choice it reveals",
        write([*items, game.claimed_step(msg.step, joint)]),
        Expect(1, "recorded input for step", s, msg.step, (msg.seat, "bad-chain")),
    )


@vector
def reveal_does_not_open(game: Game) -> Vector:
    k = _reveal_not_default(game)
    msg = game.msg(k)
    _action, nonce, link, *vector = msg.payload
    state = game.states[msg.step]
    # neither the committed choice nor the default the replay plays for a bad reveal
    other = next(
        a
        for a in state.legal_actions(msg.seat)
        if a not in (msg.action, state.default_action(msg.seat))
    )
    raw = game.sign(msg, payload=(other.to_msgpack(), nonce, link, *vector))
    items, s, joint = _secret_step(game, k, raw)
    return Vector(
        "reveal_does_not_open",
        "§4 commitments: a REVEAL opens its seat's COMMIT",
        f"entry {k}: seat {msg.seat}'s REVEAL shows another legal choice than it committed to "
        f"(same nonce and link); entry {s} records that choice",
        write([*items, game.claimed_step(msg.step, joint)]),
        Expect(1, "recorded input for step", s, msg.step, (msg.seat, "bad-reveal")),
    )


@vector
def illegal_reveal(game: Game) -> Vector:
    # The writer re-commits for the seat to a choice the rules forbid, and reveals it: the
    # commitment opens, the choice is illegal.
    k = _reveal_not_default(game)
    msg = game.msg(k)
    c = game.find(lambda m: m.type == MsgType.COMMIT and m.seat == msg.seat and m.step == msg.step)
    state = game.states[msg.step]
    illegal = Action(msg.action.verb, ("nothing",))
    try:
        state.check_action(msg.seat, illegal)
        raise RuntimeError(f"{illegal} is legal")
    except IllegalAction:
        pass
    _action, nonce, link, *vector = msg.payload
    reveal = game.sign(msg, payload=(illegal.to_msgpack(), nonce, link, *vector))
    sealed = commitment(
        game.game_id,
        msg.step,
        msg.seat,
        game.needs(msg.step).secret_kind,
        nonce,
        reveal_value(parse_unverified(reveal)),
    )
    commit = game.sign(game.msg(c), payload=(sealed,))
    items, s, joint = _secret_step(game, k, reveal)
    items[c] = (msg.step, EntryKind.MSG, commit)
    return Vector(
        "illegal_reveal",
        "§5 steps: a revealed choice is legal for its seat (the engine's rules)",
        f"entries {c} and {k}: seat {msg.seat} commits to and reveals {illegal}, which the "
        f"rules forbid; entry {s} records it (protocol 6: the others' round HAVEs name the "
        "seat's original COMMIT, so the step is not decided at all; the seat is still "
        "convicted)",
        write([*items, game.claimed_step(msg.step, joint)]),
        Expect(
            1,
            "do not decide",
            s,
            msg.step,
            (msg.seat, "illegal-action"),
        ),
    )


@vector
def secret_round_acknowledged_for_another_commitment(game: Game) -> Vector:
    # Protocol 6 (SPEC §4.4): a round is applied only once every other live seat signed a
    # round HAVE naming the vector of the very COMMITs the writer holds.  Here one seat's
    # round HAVE names another vector (a claim of other commitments).
    commit = game.msg(game.find(lambda m: m.type == MsgType.COMMIT))
    step = commit.step
    s = game.step_entry(step)

    def names_it(m: Signed) -> bool:
        return (
            m.type == MsgType.HAVE
            and m.step == step
            and m.payload[0] == ROUND_SUBJECT
            and m.seat != 0
        )

    k = game.find(names_it)
    voter = game.msg(k).seat
    other = [_h("another vector of commitments")]
    items = [
        game.resigned(j, payload=(ROUND_SUBJECT, other))
        if j < s and item[1] == EntryKind.MSG and names_it(m := game.msg(j)) and m.seat == voter
        else item
        for j, item in enumerate(game.items[: s + 1])
    ]
    return Vector(
        "secret_round_acknowledged_for_another_commitment",
        "§4.4 secret rounds (protocol 6): applied once every other live seat's round HAVE "
        "names the vector of COMMITs held",
        f"entry {k}: seat {voter}'s round HAVE for step {step} names another vector of "
        f"commitments than the one the writer holds; entry {s} records the step",
        write(items),
        Expect(1, "do not decide", s, step),
    )


@vector
def secret_round_undone_by_a_late_commit(game: Game) -> Vector:
    # Protocol 5 (SPEC §5.7, the late-proof rule): a secret round the table acknowledged by
    # digest stands; a second COMMIT that turns up after it convicts its seat at a later,
    # agreed step.  Here the writer takes one after recording the round, rolls back and
    # records the round again with the seat's forfeit: protocol 4's answer.
    commit = game.msg(game.find(lambda m: m.type == MsgType.COMMIT and m.seat != 0))
    step = commit.step
    s = game.step_entry(step)
    joint = decode_input(game.items[s][2][0])
    if not isinstance(joint, Joint):
        raise LookupError("the first commitment's step is not a secret round")
    second = game.sign(commit, payload=(_h("a second commitment of that seat"),))
    forfeit = Joint(tuple((c, FORFEIT if c == commit.seat else a) for c, a in joint.choices))
    items = [
        *game.items[: s + 1],
        (step, EntryKind.MSG, second),
        (step, EntryKind.NOTE, ["rollback", [], "redecide from here"]),
        game.claimed_step(step, forfeit),
    ]
    return Vector(
        "secret_round_undone_by_a_late_commit",
        "§5.7 the late-proof rule (protocol 5): a secret round the table acknowledged stands",
        f"entry {s + 1}: a second COMMIT of seat {commit.seat} for step {step}, after the STEP "
        f"entry {s} that recorded the round; the writer rolls back and records step {step} "
        "again with that seat's forfeit (protocol 4's answer)",
        write(items),
        Expect(1, "do not decide", s + 3, step, (commit.seat, "equivocation")),
    )
