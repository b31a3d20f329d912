"""Cheating peers at full stack: links + lobby + session on the simulated network.

One peer of the table is a :class:`tests.support.adversary.Adversary`: a real
peer that plays honestly with a bot except for one cheat.  For every cheat,
every honest peer must reject it (an unattributable datagram or message) or
blame it (naming the culprit's seat: a Blame event, a NOTE entry in its log
and the blame recomputed by verify_log), must not crash (an exception would
leave SimNetwork.run_until), and the honest peers must finish the game under
the documented rule with identical states, verified logs and the same
decided steps.  See docs/SECURITY.md for the rule each cheat meets.  (A SYNC
flood is neither rejected nor blamed, an honest restart asks too: it is rate
limited.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest

from lanTag.log.entries import EntryKind, parse_log
from lanTag.net.endpoint import Addr
from lanTag.peer.machine import PeerMachine
from lanTag.rules.base import FORFEIT, Joint, State
from lanTag.rules.registry import get_game
from lanTag.session import events as ev
from lanTag.session.messages import MsgType, parse_unverified
from lanTag.session.referee import NeedKind
from tests.support.adversary import Adversary, Cheat
from tests.support.table import Table, addr, capture_game, final_history

FAULTS = "loss=0.1,dup=0.05,reorder=0.1,delay=5ms,jitter=5ms"
CHEATER = 1  # peer index of the adversary (peer 0 hosts)


@dataclass
class Game:
    table: Table
    adversary: Adversary
    seat: int  # the adversary's seat
    honest: list[int]  # peer indices

    def blamed(self, i: int) -> list[str]:
        """Codes peer i blamed the adversary's seat for (events)."""
        return [code for seat, code in self.table.blames(i) if seat == self.seat]

    def noted(self, i: int) -> list[str]:
        """Codes of NOTE entries naming the adversary's seat in peer i's log."""
        entries = parse_log(bytes(self.table.logs[i])).entries
        return [e.data[0] for e in entries if e.kind == EntryKind.NOTE and e.data[1] == [self.seat]]

    def drops(self, i: int) -> list[tuple[int, tuple[int, ...]]]:
        return [(e.step, e.seats) for e in self.table.events(i, ev.SeatsDropped)]  # type: ignore[attr-defined]


def play(cheat: Cheat, **kw: object) -> Game:
    game = play_maybe(cheat, **kw)  # type: ignore[arg-type]
    assert game is not None, f"the {cheat.value} cheat never found its moment"
    return game


def play_maybe(
    cheat: Cheat,
    *,
    engine: str = "toy",
    humans: int = 4,
    at_step: int = 2,
    seed: int = 5,
    faults: str = FAULTS,
    id_seed: int | None = None,
    queue_limit: int | None = None,
    require_moment: bool = True,
    net_hook: Callable[[Table], None] | None = None,
    **kw: object,
) -> Game | None:
    holder: dict[str, Table] = {}

    def spoof(data: bytes, src: Addr, dst: Addr) -> None:
        net = holder["t"].net
        net.machines[dst].receive_datagram(data, src, net.now)

    made: list[Adversary] = []

    def wrap(i: int, peer: PeerMachine) -> PeerMachine | Adversary:
        if queue_limit is not None and i != CHEATER:  # LinkLayer.send's SendQueueFull
            peer.link.config = replace(peer.link.config, max_queued_bytes=queue_limit)
        if i != CHEATER:
            return peer
        made.append(Adversary(peer, cheat, at_step=at_step, spoof=spoof, seed=seed, **kw))  # type: ignore[arg-type]
        return made[0]

    table = Table(engine, humans, faults=faults, seed=seed, wrap=wrap, id_seed=id_seed)
    holder["t"] = table
    if net_hook is not None:
        net_hook(table)
    table.start()
    honest = [i for i in range(humans) if i != CHEATER]
    table.run_to_end(honest, max_time=4 * 3600)
    seat = table.seat_of(CHEATER)
    assert seat is not None
    game = Game(table, made[0], seat, honest)
    if not game.adversary.done and not require_moment:
        return None  # e.g. no rock-paper-scissors battle in this seed's game
    assert game.adversary.done, f"the {cheat.value} cheat never found its moment"
    check_honest_agree(game)
    return game


def check_honest_agree(game: Game) -> None:
    table = game.table
    sessions = table.sessions(game.honest)
    assert all(s.state.is_over for s in sessions)
    assert len({s.state.state_hash() for s in sessions}) == 1
    histories = set()
    for i in game.honest:
        report = table.report(i)
        assert report.valid and report.complete, (i, report.failure)
        histories.add(final_history(report))
        # verify_log recomputes every blame from the signed messages alone
        logged = {(seat, code) for seat, _, code, _ in report.blames}
        assert logged == set(table.blames(i)), i
    assert len(histories) == 1


def check_blamed(game: Game, code: str) -> None:
    for i in game.honest:
        assert code in game.blamed(i), (i, game.table.blames(i))
        assert code in game.noted(i), i


def state_before(game: Game, i: int, step: int) -> State:
    """The honest peer's state at ``step`` (replayed from its verified log)."""
    session = game.table.sessions([i])[0]
    record = session.record
    state = get_game(record.engine).new_state(
        len(record.seats), record.option_dict, record.map_text
    )
    for applied in sorted(
        {a.step: a for a in game.table.report(i).applied}.values(), key=lambda a: a.step
    ):
        if applied.step == step:
            return state
        state = state.apply(applied.input)
    raise AssertionError(f"step {step} never decided")


def joint_choice(game: Game, i: int, step: int) -> Joint:
    applied = {a.step: a for a in game.table.report(i).applied}[step]
    assert isinstance(applied.input, Joint)
    return applied.input


# ------------------------------------------------------------------ secrets


@pytest.mark.parametrize("engine", ["toy", "stomptag"])
def test_reveal_that_does_not_open_its_commitment(engine: str) -> None:
    game = play(Cheat.BAD_REVEAL, engine=engine)
    step = game.adversary.did.step
    assert step is not None
    check_blamed(game, "bad-reveal")
    for i in game.honest:
        # SPEC §4.4: convicted at once, dropped at that step, and the round resolves with
        # the seat's forfeit (neither its reveal nor the time-out default)
        forfeit = state_before(game, i, step).forfeit_action(game.seat)
        assert joint_choice(game, i, step).of(game.seat) == forfeit == FORFEIT
        assert game.drops(i) == [(step, (game.seat,))], i
        others = {code for seat, code in game.table.blames(i) if seat != game.seat}
        assert not others, (i, others)


def test_withheld_reveal_is_an_agreed_drop_with_the_forfeit() -> None:
    """The cheater commits, sees the others' REVEALs and never sends its own: protocol 6
    names it (`withheld`, SPEC §5.5) and its choice is its forfeit, not the time-out
    default (a withheld reveal gains nothing)."""
    game = play(Cheat.WITHHOLD_REVEAL)
    step = game.adversary.did.step
    assert step is not None
    check_blamed(game, "withheld")
    for i in game.honest:
        assert game.drops(i) == [(step, (game.seat,))]
        forfeit = state_before(game, i, step).forfeit_action(game.seat)
        assert joint_choice(game, i, step).of(game.seat) == forfeit == FORFEIT
        others = {code for seat, code in game.table.blames(i) if seat != game.seat}
        assert not others, (i, others)


# ------------------------------------------------------------------ turns


@pytest.mark.parametrize(("engine", "seed"), [("prototag", 5), ("toy", 10)])
def test_equivocation_is_proven_and_the_cheater_dropped_at_that_step(
    engine: str, seed: int
) -> None:
    game = play(Cheat.EQUIVOCATE, engine=engine, at_step=3, seed=seed)
    check_equivocation_dropped(game)
    for i in game.honest:
        session = game.table.sessions([i])[0]
        assert session.proofs, i
        first, second = session.proofs[0]
        assert first.seat == second.seat == game.seat and first.raw != second.raw


@pytest.mark.slow
@pytest.mark.parametrize("faults", [FAULTS, ""])
@pytest.mark.parametrize("at_step", [3, 6])
def test_equivocation_rollback_over_many_seeds(faults: str, at_step: int) -> None:
    # The rollback that follows a proven equivocation (issue #12, test_bugs.py): every
    # seed must end with the cheater dropped at that step and nobody else.
    for seed in range(20):
        game = play(Cheat.EQUIVOCATE, engine="toy", at_step=at_step, seed=seed, faults=faults)
        check_equivocation_dropped(game)


def check_equivocation_dropped(game: Game) -> None:
    step = game.adversary.did.step
    check_blamed(game, "equivocation")
    for i in game.honest:
        assert game.drops(i) == [(step, (game.seat,))], i
        # SPEC §5.7: an honest seat may be blamed for a transient desync before the
        # proof arrives; nobody else is blamed for anything else
        others = {code for seat, code in game.table.blames(i) if seat != game.seat}
        assert others <= {"desync"}, (i, others)


@pytest.mark.parametrize("engine", ["toy", "tagem"])
def test_illegal_move_is_blamed_ignored_and_the_turn_times_out(engine: str) -> None:
    game = play(Cheat.ILLEGAL_MOVE, engine=engine, at_step=2)
    step = game.adversary.did.step
    check_blamed(game, "illegal-action")
    check_blamed(game, "timeout")
    for i in game.honest:
        assert game.drops(i) == [(step, (game.seat,))]


def test_move_out_of_turn_is_blamed_and_the_game_goes_on_without_a_drop() -> None:
    game = play(Cheat.OUT_OF_TURN)
    check_blamed(game, "out-of-turn")
    for i in game.honest:
        assert game.drops(i) == []


# ------------------------------------------------------------------ unattributable traffic


def test_forged_signatures_are_rejected_and_blame_nobody() -> None:
    game = play(Cheat.FORGE_SIGNATURE)
    for i in game.honest:
        assert game.table.rejections(i).count("bad-signature") >= 3
        assert game.table.blames(i) == []  # a forgery cannot be pinned on anyone
        assert game.drops(i) == []


def test_replayed_messages_from_another_game_and_old_steps_have_no_effect() -> None:
    # the same identities played another game: its messages carry valid signatures
    other = capture_game("toy", 4, seed=77, id_seed=5)
    game = play(Cheat.REPLAY, replay_pool=other.messages[:300], id_seed=5)
    for i in game.honest:
        assert "wrong-game" in game.table.rejections(i)
        assert game.table.sessions([i])[0].counters.get("duplicate", 0) > 0
        assert game.table.blames(i) == []
        assert game.drops(i) == []


def test_garbage_datagrams_and_payloads_are_counted_and_dropped() -> None:
    game = play(Cheat.GARBAGE)
    assert game.adversary.did.datagrams > 0 and game.adversary.did.payloads > 0
    for i in game.honest:
        codes = set(game.table.rejections(i))
        assert {"malformed", "noncanonical", "oversized"} <= codes, codes
        stats = game.table.peers[i].link.stats
        assert stats.dropped_malformed > 0 and stats.dropped_oversized > 0
        assert game.table.blames(i) == []
        assert game.drops(i) == []


def test_datagrams_from_a_spoofed_outsider_address_open_no_link() -> None:
    # Once the game started only roster and spectator addresses may open links: a
    # signed cheat sent from any other source address is dropped unparsed and counted.
    # (With a *seat's* address it costs no more: the frame claims a new link epoch without
    # naming the receiver's, so the link drops it and challenges; test_bugs.py.)
    game = play(Cheat.SPOOF, spoof_as=("10.7.0.99", 4000))
    assert game.adversary.did.datagrams > 0
    for i in game.honest:
        assert game.table.peers[i].link.stats.dropped_unknown > 0
        assert game.table.blames(i) == []
        assert game.drops(i) == []


# ------------------------------------------------------------------ denial of service


@pytest.mark.parametrize("queue_limit", [None, 16 * 1024])
def test_sync_flood_from_a_seat_is_rate_limited_and_crashes_nobody(
    queue_limit: int | None,
) -> None:
    # Issue #12: an in-roster seat sends SYNC(from step 0) in bursts on every input late
    # in a long game.  Each one was answered with every message held, so the answers
    # passed the link's queue limit and SendQueueFull left the honest peers'
    # datagrams_to_send (SimNetwork.run_until here; on a socket, UdpPump stopped).
    # Expected: one answer per requested range per lag period, nothing re-sent while the
    # link still holds a backlog, and a full queue drops (and counts) instead of raising:
    # with a 16 KiB queue limit even the one answer overflows it.
    game = play(Cheat.SYNC_FLOOD, engine="prototag", humans=3, at_step=60, queue_limit=queue_limit)
    assert len(game.adversary.did.sent) >= 30
    for i in game.honest:
        counters = game.table.sessions([i])[0].counters
        assert counters.get("sync-answered", 0) >= 1, (i, counters)
        assert counters.get("sync-limited", 0) > counters["sync-answered"], (i, counters)
        dropped = game.table.peers[i].send_dropped.get("SendQueueFull", 0)
        assert (dropped > 0) == (queue_limit is not None), (i, dropped)
        assert game.table.blames(i) == []


# ------------------------------------------------------------------ issue #22


@pytest.mark.parametrize("engine", ["toy", "stomptag"])
def test_two_commitments_to_two_peers_convict_the_cheater_who_forfeits(engine: str) -> None:
    # Pair A to some peers, pair B to the others, each opening: the acknowledgements of
    # the commitments make the two meet (an equivocation), every honest peer drops the
    # seat at that step with its forfeit, and no honest peer is blamed.
    game = play(Cheat.TWO_COMMITS, engine=engine)
    step = game.adversary.did.step
    assert step is not None
    check_blamed(game, "equivocation")
    for i in game.honest:
        assert game.drops(i) == [(step, (game.seat,))], i
        assert joint_choice(game, i, step).of(game.seat) == FORFEIT
        others = {code for seat, code in game.table.blames(i) if seat != game.seat}
        assert not others, (i, others)


def test_a_false_state_hash_to_one_peer_convicts_its_signer_and_costs_the_victim_nothing() -> None:
    game = play(Cheat.FALSE_HASH, engine="toy")
    check_blamed(game, "desync")
    for i in game.honest:
        others = {code for seat, code in game.table.blames(i) if seat != game.seat}
        assert not others, (i, others)  # the victim is never blamed, never dropped
        assert [seats for _, seats in game.drops(i)] == [(game.seat,)], i


def test_a_request_flood_is_dropped_unlogged_and_the_logs_stay_bounded() -> None:
    # Past the cap for one step the flood is proven: the seat is blamed `flood` by every
    # honest peer and dropped by agreement; the rest is dropped unlogged and counted.
    from lanTag.session.steps import REQUEST_LIMITS

    game = play(Cheat.REQUEST_FLOOD, engine="toy")
    sent = len(game.adversary.did.sent) * 60  # FLOOD_BURST each
    per_step = REQUEST_LIMITS[MsgType.VOTE] + REQUEST_LIMITS[MsgType.NUDGE]
    for i in game.honest:
        counters = game.table.sessions([i])[0].counters
        assert counters.get("flood", 0) > sent // 2, (i, counters)
        entries = parse_log(bytes(game.table.logs[i])).entries
        steps = max(e.step for e in entries) + 1
        requests = [
            m
            for e in entries
            if e.kind == EntryKind.MSG
            for m in [parse_unverified(e.data)]
            if m.seat == game.seat and m.type in (MsgType.VOTE, MsgType.NUDGE)
        ]
        assert len(requests) <= per_step * steps + 1, (i, len(requests))  # + the proof
        assert {seat for seat, _ in game.table.blames(i)} == {game.seat}, i
        assert [seats for _, seats in game.drops(i)] == [(game.seat,)], i
    check_blamed(game, "flood")


def test_a_non_opening_reveal_in_a_prototag_battle_loses_it_and_costs_the_seat() -> None:
    # Issue #22: in rock-paper-scissors a cheater committed paper and, seeing scissors
    # revealed, sent a reveal that did not open: it got the default (rock) and won.  Now
    # it forfeits: it loses the battle, at most once a game (it is dropped there).
    # a battle happens when the dice bring the tagged player onto another: try seeds
    games = (
        play_maybe(Cheat.BAD_REVEAL, engine="prototag", humans=3, seed=s, require_moment=False)
        for s in range(1, 12)
    )
    game = next((g for g in games if g is not None), None)
    assert game is not None, "no seed gave a battle"
    step = game.adversary.did.step
    assert step is not None
    check_blamed(game, "bad-reveal")
    for i in game.honest:
        before = state_before(game, i, step)
        after = before.apply(joint_choice(game, i, step))
        assert joint_choice(game, i, step).of(game.seat) == FORFEIT
        assert game.drops(i) == [(step, (game.seat,))], i
        # the forfeit lost the battle: the cheater is (or stays) the tagged player
        assert after.tagged == game.seat, i  # type: ignore[attr-defined]


def test_two_commitments_in_a_prototag_battle_never_roll_a_secret_round_back() -> None:
    # Issue #22: a seat outside the battle took the other commitment; the peers in it
    # applied the round and rolled it back when the proof came.  Now a round waits for
    # every live seat's acknowledgement of its commitments, each sent after the COMMIT
    # itself, so the two meet before anyone applies it (SPEC §4.4).

    def slow_bystanders(table: Table) -> None:
        # A peer outside the round reaches one inside it only once that one holds every
        # REVEAL (the link retransmits later): the copy of the other COMMIT comes late.
        def drop(src: Addr, dst: Addr, data: bytes) -> bool:
            peers = {addr(i): i for i in range(3)}
            s, d = peers.get(src), peers.get(dst)
            if s is None or d is None or CHEATER in (s, d):
                return False
            if any(table.blames(i) for i in peers.values() if i != CHEATER):
                # Healed once the cheat is proven: a one-way cut for good (with the cheater
                # still live: protocol 5 votes it out at a later step, SPEC §5.7) would be a
                # partition, which no rule survives with three seats (SPEC §5.8).
                return False
            session = table.peers[d].session
            if session is None:
                return False  # the lobby
            needs = session.needs()
            if needs.kind is not NeedKind.SECRET:
                return False
            seat_of = table.seat_of
            inside = set(needs.humans)
            reveals = session._box(session.step).of(MsgType.REVEAL)
            return seat_of(s) not in inside and seat_of(d) in inside and len(reveals) < len(inside)

        table.net.drop_if = drop

    games = (
        play_maybe(
            Cheat.TWO_COMMITS,
            engine="prototag",
            humans=3,
            seed=s,
            require_moment=False,
            net_hook=slow_bystanders,
        )
        for s in range(1, 12)
    )
    game = next((g for g in games if g is not None), None)
    assert game is not None, "no seed gave a battle"
    step = game.adversary.did.step
    assert step is not None
    check_blamed(game, "equivocation")
    for i in game.honest:
        applied = [e.step for e in game.table.events(i, ev.StepApplied) if e.step == step]  # type: ignore[attr-defined]
        assert applied == [step], (i, applied)  # decided once: never rolled back
        if joint_choice(game, i, step).of(game.seat) != FORFEIT:
            # The round stood (the table acknowledged one version before the other met it,
            # SPEC §5.7): the cheater is voted out at a later step, the same at every peer.
            drops = [(e.step, e.seats) for e in game.table.events(i, ev.SeatsDropped)]  # type: ignore[attr-defined]
            assert drops and drops[0][0] > step and game.seat in drops[0][1], (i, drops)


def test_a_chat_flood_is_proven_and_the_flooder_voted_out_by_every_honest_peer() -> None:
    # Issue #38 item 4: a seated peer sends validly signed CHAT junk (200 distinct lines
    # an input).  The 33rd distinct line at one step proves the flood (protocol 6): every
    # honest peer blames it `flood`, only it, drops it once by agreement, shows at most the
    # cap of its lines per step, and drops what it says from then on unchecked.
    from lanTag.session.chatter import CHATTER_LIMITS

    game = play(Cheat.CHAT_FLOOD, engine="toy")
    cap = CHATTER_LIMITS[MsgType.CHAT]
    for i in game.honest:
        session = game.table.sessions([i])[0]
        assert session.counters.get("from-flooder", 0) > 0, (i, session.counters)
        chats = [e for e in game.table.events(i, ev.Chat) if e.seat == game.seat]
        assert 0 < len(chats) <= cap, (i, len(chats))
        assert {seat for seat, _ in game.table.blames(i)} == {game.seat}, i
        assert [seats for _, seats in game.drops(i)] == [(game.seat,)], i
    check_blamed(game, "flood")
