"""Vectors at the edges SPEC.md decides for an implementer (issue #36): a message dated at
another step, step 0's state hash, a chain link used twice, a link reused after a hand-back
and after a rollback, two CHATs at one step, a REVEAL that opens to an illegal action, a
logged PRIVATE and REJOIN.  Some must fail, some must pass (exit 0): both lanes of a
verifier, with the rules and without them, must answer each as indexed.

Part of scripts/gen_must_fail.py; each function is one
log of the cheating writer (must_fail_game.Game), or of a real game played here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from lanTag.fair.commit import commitment
from lanTag.log.entries import EntryKind, parse_log
from lanTag.peer.machine import PeerMachine
from lanTag.rules.base import FORFEIT, Action, IllegalAction, Joint, canonical_pack, decode_input
from lanTag.session import referee
from lanTag.session.messages import MsgType, Signed, parse_unverified
from lanTag.session.steps import ROUND_SUBJECT, round_digest
from scripts.must_fail_game import ENGINE, Expect, Game, Item, Vector, vector, write
from scripts.must_fail_game import h as _h
from scripts.must_fail_handback import handback_game
from tests.support.adversary import Adversary, Cheat
from tests.support.table import Table

# -- the entries' steps (SPEC §9) ------------------------------------------------------------


@vector
def message_entry_dated_at_another_step(game: Game) -> Vector:
    k, msg = game.first_turn()
    items = game.forged(k, (msg.step + 1, EntryKind.MSG, game.items[k][2]), *game.items[k + 1 :])
    return Vector(
        "message_entry_dated_at_another_step",
        "§9 entries: a MSG entry's step is the step of the message it holds",
        f"entry {k} holds seat {msg.seat}'s MOVE of step {msg.step} (unchanged) but is dated "
        f"step {msg.step + 1}",
        write(items),
        Expect(1, f"holds a message of step {msg.step}", k, msg.step + 1),
    )


# -- step 0's state hash (SPEC §5.1, §9.2) -----------------------------------------------------


def _step_zero_entropy(game: Game, seat: int) -> int:
    return game.find(lambda m: m.type == MsgType.ENTROPY and m.step == 0 and m.seat == seat)


@vector
def step_zero_state_hash_differs(game: Game) -> Vector:
    k = _step_zero_entropy(game, 1)
    msg = game.msg(k)
    s = game.step_entry(0)
    items = [*game.items[:k], game.resigned(k, state_hash=_h("not step 0's state"))]
    items += game.items[k + 1 : s + 1]
    return Vector(
        "step_zero_state_hash_differs",
        "§5.1 states: every contribution of step 0 carries the initial state's hash (without "
        "the engine too: §9.2 takes one hash for step 0)",
        f"entry {k}: seat {msg.seat}'s ENTROPY of step 0 carries another state hash than the "
        f"others' (same link); entry {s} records the roll as if it drew",
        write(items),
        Expect(1, "do not decide", s, 0, (msg.seat, "desync")),
    )


@vector
def step_zero_first_hash_not_the_state(game: Game) -> Vector:
    first = game.find(lambda m: m.step == 0)
    mine = game.msg(_step_zero_entropy(game, 0))
    lie = game.sign(mine, state_hash=_h("a history the writer left"), payload=(_h("off"),))
    items = [*game.items[:first], (0, EntryKind.MSG, lie), *game.items[first:]]
    return Vector(
        "step_zero_first_hash_not_the_state",
        "§9.2 without the rules: step 0's state hash is the one of the step-0 messages that "
        "makes the log valid, tried in the order they first appear (valid)",
        f"entry {first}, the log's first message of step 0: the writer's own ENTROPY of step 0 "
        "with another state hash and a link off its chain (refused, no blame: a writer's "
        "message of another history); the rest is the honest game",
        write(items),
        Expect(0, "", complete=True),
    )


# -- chain links used twice, and reused (SPEC §4.2) -----------------------------------------


@vector
def entropy_link_used_twice(game: Game) -> Vector:
    def roll_link(step_from: int) -> int:
        return game.find(lambda m: m.type == MsgType.ENTROPY and m.seat == 1 and m.step > step_from)

    first = roll_link(-1)
    old = game.msg(first)
    k = roll_link(old.step)
    msg = game.msg(k)
    s = game.step_entry(msg.step)
    links = {
        m.seat: (old.payload[0] if m.seat == msg.seat else m.payload[0])
        for j in range(1, s)
        if game.items[j][1] == EntryKind.MSG
        and (m := game.msg(j)).type == MsgType.ENTROPY
        and m.step == msg.step
    }
    decision = game.states[msg.step].decision()
    roll, _seed = referee.chance_roll(decision, game.game_id, msg.step, links)  # type: ignore[arg-type]
    between = [it for it in game.items[k + 1 : s] if it[1] != EntryKind.STEP]
    items = [
        *game.items[:k],
        (msg.step, EntryKind.MSG, game.sign(msg, payload=(old.payload[0],))),
        *between,
        game.claimed_step(msg.step, roll),
    ]
    return Vector(
        "entropy_link_used_twice",
        "§4.2 hash chains: a link is used once on a history; the next one hashes to it",
        f"entry {k}: seat {msg.seat}'s ENTROPY of step {msg.step} carries the link it gave at "
        f"step {old.step} again; entry {k + 1 + len(between)} records the roll it draws",
        write(items),
        Expect(1, "do not decide", k + 1 + len(between), msg.step, (msg.seat, "bad-chain")),
    )


@vector
def link_reused_after_a_hand_back(_game: object) -> Vector:
    hb = handback_game()
    return Vector(
        "link_reused_after_a_hand_back",
        "§5.8 hand-back: a seat given back goes on from the last link the agreed history used "
        "(valid)",
        f"the writer's log of the hand-back game (table seed {hb.seed}): seat {hb.seat}, "
        "dropped at a roll whose link of it was not used, gives that link again at its first "
        "roll after it was given back",
        write(hb.items),
        # dropped at a roll: it withheld its link there (protocol 6, SPEC §5.5)
        Expect(0, "", blame=(hb.seat, "withheld"), complete=True),
    )


ROLLBACK_FIRST_SEED = 1  # the rollback game: the first seed from here whose writer's log
ROLLBACK_SEEDS_TRIED = 32  # holds a link given on two histories
CHEATER = 1  # the peer (and seat) that sends two MOVEs


@dataclass(frozen=True)
class Rollback:
    seed: int
    items: list[Item]
    seat: int  # the seat whose link is reused
    step: int  # the step it is reused at
    cheater: int  # the equivocating seat


@functools.cache
def rollback_game() -> Rollback:
    """A real game (3 people and a bot) in which seat 1 sends two MOVEs for one turn: the
    writer (seat 0) applies one, decides a roll on it, learns the proof and rolls back, and
    gives its link of that roll again on the agreed history."""
    for seed in range(ROLLBACK_FIRST_SEED, ROLLBACK_FIRST_SEED + ROLLBACK_SEEDS_TRIED):
        found = _rollback_game(seed)
        if found is not None:
            return found
    raise RuntimeError("no rollback game reuses a link")


def _rollback_game(seed: int) -> Rollback | None:
    made: list[Adversary] = []

    def wrap(i: int, peer: PeerMachine) -> PeerMachine | Adversary:
        if i != CHEATER:
            return peer
        made.append(Adversary(peer, Cheat.EQUIVOCATE, at_step=3, seed=seed))
        return made[0]

    faults = "loss=0.1,dup=0.05,reorder=0.1,delay=5ms,jitter=5ms"
    table = Table(ENGINE, 3, bots=("random",), faults=faults, seed=seed, wrap=wrap)
    table.start()
    table.run_to_end([0, 2], max_time=4 * 3600)
    if not made[0].done:
        return None
    data = bytes(table.logs[0])
    seen: dict[tuple[int, bytes], bytes] = {}
    for e in parse_log(data).entries:
        at = {MsgType.ENTROPY: 0, MsgType.REVEAL: 2}.get(
            parse_unverified(e.data).type if e.kind == EntryKind.MSG else MsgType.CHAT
        )
        if at is None:
            continue
        m = parse_unverified(e.data)
        state = seen.setdefault((m.seat, m.payload[at]), m.state_hash)
        if state != m.state_hash:
            cheater = table.seat_of(CHEATER)
            assert cheater is not None
            items: list[Item] = [(x.step, x.kind, x.data) for x in parse_log(data).entries]
            return Rollback(seed, items, m.seat, m.step, cheater)
    return None


@vector
def link_reused_after_a_rollback(_game: object) -> Vector:
    rb = rollback_game()
    return Vector(
        "link_reused_after_a_rollback",
        "§5.7 rollback: a step decided again takes the links of its seats' chains where the "
        "agreed history left them, links given on the abandoned history included (valid)",
        f"the writer's log of a game (table seed {rb.seed}) in which seat {rb.cheater} sends "
        f"two MOVEs for one turn: after the rollback seat {rb.seat} gives at step {rb.step} a "
        "link it gave there on the abandoned history",
        write(rb.items),
        Expect(0, "", blame=(rb.cheater, "equivocation"), complete=True),
    )


# -- messages that are never logged by lanTag, logged (SPEC §3) -----------------------------


@vector
def two_chats_in_one_step(game: Game) -> Vector:
    k, msg = game.first_turn()
    chats = [
        (msg.step, EntryKind.MSG, game.sign(msg, msg_type=MsgType.CHAT, payload=(text,)))
        for text in ("good luck", "have fun")
    ]
    return Vector(
        "two_chats_in_one_step",
        "§3 slots: a CHAT has no slot, two of one seat at one step are no equivocation (valid)",
        f"before entry {k}: two different CHATs of seat {msg.seat} at step {msg.step}",
        write([*game.items[:k], *chats, *game.items[k:]]),
        Expect(0, "", complete=True),
    )


@vector
def private_and_rejoin_logged(game: Game) -> Vector:
    k, msg = game.first_turn()
    private = game.sign(
        msg,
        msg_type=MsgType.PRIVATE,
        payload=(0, _h("ephemeral"), _h("nonce")[:12], _h("ciphertext") * 2),
    )
    rejoin = game.sign(msg, msg_type=MsgType.REJOIN, payload=())
    logged = [(msg.step, EntryKind.MSG, raw) for raw in (private, rejoin)]
    return Vector(
        "private_and_rejoin_logged",
        "§3 messages never logged by lanTag (PRIVATE, REJOIN), logged: checked as messages, "
        "they change nothing (valid)",
        f"before entry {k}: seat {msg.seat}'s PRIVATE to seat 0 and its REJOIN (it is live), "
        "validly signed",
        write([*game.items[:k], *logged, *game.items[k:]]),
        Expect(0, "", complete=True),
    )


# -- a REVEAL that opens to an illegal action (SPEC §4.4) -----------------------------------


@vector
def reveal_opens_to_an_illegal_action(game: Game) -> Vector:
    # The seat commits to a choice the rules forbid and reveals it (the writer re-signs the
    # round's acknowledgements, which name the new commitment): the reveal opens, the
    # choice is illegal, the seat is convicted and its recorded choice is its forfeit.  The
    # log stops at that STEP entry (the honest game went on with the seat).
    k = game.find(lambda m: m.type == MsgType.REVEAL and m.seat != 0)
    msg = game.msg(k)
    step = msg.step
    c = game.find(lambda m: m.type == MsgType.COMMIT and m.seat == msg.seat and m.step == step)
    state = game.states[step]
    illegal = Action(msg.action.verb, ("nothing",))
    try:
        state.check_action(msg.seat, illegal)
        raise RuntimeError(f"{illegal} is legal")
    except IllegalAction:
        pass
    nonce = msg.payload[1]
    value = canonical_pack(illegal.to_msgpack())  # what the REVEAL opens (SPEC §4.1)
    kind = game.needs(step).secret_kind
    sealed = commitment(game.game_id, step, msg.seat, kind, nonce, value)
    commit = game.sign(game.msg(c), payload=(sealed,))
    s = game.step_entry(step)
    commits = {
        m.seat: (parse_unverified(commit) if m.seat == msg.seat else m)
        for j in range(1, s)
        if game.items[j][1] == EntryKind.MSG
        and (m := game.msg(j)).type == MsgType.COMMIT
        and m.step == step
    }
    vector = round_digest({seat: m.digest for seat, m in commits.items()})
    items: list[Item] = []
    for j, item in enumerate(game.items[:s]):
        logged = game.msg(j) if item[1] == EntryKind.MSG else None
        if j == c:
            items.append((step, EntryKind.MSG, commit))
        elif logged is not None and logged.step == step and logged.type == MsgType.REVEAL:
            action = illegal.to_msgpack() if logged.seat == msg.seat else logged.payload[0]
            payload = (action, logged.payload[1], logged.payload[2], vector)
            items.append(game.resigned(j, payload=payload))
        elif logged is not None and logged.step == step and _round_have(logged):
            items.append(game.resigned(j, payload=(ROUND_SUBJECT, [vector])))
        else:
            items.append(item)
    joint = decode_input(game.items[s][2][0])
    assert isinstance(joint, Joint)
    forfeit = Joint(tuple((seat, FORFEIT if seat == msg.seat else a) for seat, a in joint.choices))
    items.append(game.claimed_step(step, forfeit))
    return Vector(
        "reveal_opens_to_an_illegal_action",
        "§4.4 a REVEAL that opens to an action the rules forbid convicts its seat: its choice "
        "is its forfeit (valid; without the rules, a forfeit recorded as the seat's only "
        "choice is taken as its REVEAL's illegality)",
        f"entries {c} and {k}: seat {msg.seat} commits to and reveals {illegal}, which the "
        f"rules forbid (the round's acknowledgements name that commitment); entry "
        f"{len(items) - 1} records step {step} with the seat's forfeit, and the log stops there",
        write(items),
        Expect(0, "", blame=(msg.seat, "illegal-action"), complete=False),
    )


def _round_have(m: Signed) -> bool:
    return m.type == MsgType.HAVE and m.payload[0] == ROUND_SUBJECT
