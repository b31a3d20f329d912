"""Squatters holding half an open table or more (issue #38 item 3, SPEC §5.4 "Seats that never
played"): at a roll, seats that never played count for nothing in the half-the-table rule
of a drop that leaves the host and the deciding peer in the game.  What every honest peer
ends with is asserted; each of the rule's conditions has a test that fails without it."""

from __future__ import annotations

from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from lanTag.session.messages import MsgType, sign_message
from lanTag.session.silence import DEAD_AFTER_LAGS
from tests.support.table import Table, addr, identity_for

# A step timeout far above the squat grace: a drop before it is the early vote's.
TIMEOUTS = Timeouts(turn_ms=60_000, step_ms=30_000, lag_ms=2_000)
GRACE = DEAD_AFTER_LAGS * TIMEOUTS.lag_ms / 1000


def _seated(humans: int, seed: int) -> Table:
    table = Table("prototag", humans, seed=seed, timeouts=TIMEOUTS)
    table.net.run_until(table.seated, max_time=60)
    return table


def _seat(table: Table, i: int) -> int:
    seat = table.peers[i].lobby.your_seat if i else 0  # type: ignore[union-attr]
    assert seat is not None
    return seat


def _drops(table: Table, i: int) -> list[tuple[int, tuple[int, ...]]]:
    return [(e.step, e.seats) for e in table.events(i, ev.SeatsDropped)]  # type: ignore[attr-defined]


def test_two_squatters_of_three_seats_are_dropped_by_the_host_within_the_grace() -> None:
    """The issue's squat: two identities take both free seats and say nothing once the game
    starts.  Half the table would not remain, yet the host drops both at the first roll
    after the grace and plays the game out against bots; its log verifies."""
    table = _seated(3, seed=21)
    start = table.net.now
    table.peers[0].start_game(start)
    table.net.cut([addr(1), addr(2)], [addr(0)])
    table.net.run_until(lambda: bool(table.events(0, ev.SeatsDropped)), max_time=start + 60)
    assert table.net.now - start < GRACE + 2.0 < TIMEOUTS.step_ms / 1000
    assert _drops(table, 0) == [(0, (1, 2))]
    table.run_to_end([0], max_time=3600)
    report = table.report(0)
    assert report.valid and report.complete, report.failure
    assert table.blames(0) == [(1, "withheld"), (2, "withheld")]  # silent at a roll (§5.5)
    assert table.sessions([0])[0].live == frozenset({0})


def test_three_squatters_of_five_seats_are_dropped_alike_by_the_host_and_a_joiner() -> None:
    table = _seated(5, seed=22)
    honest = 1
    squatters = [2, 3, 4]
    seats = sorted(_seat(table, i) for i in squatters)
    start = table.net.now
    table.peers[0].start_game(start)
    table.net.cut([addr(i) for i in squatters], [addr(0), addr(honest)])
    table.run_to_end([0, honest], max_time=3600)
    for i in (0, honest):
        assert _drops(table, i) == [(0, tuple(seats))]
        assert table.blames(i) == [(s, "withheld") for s in seats]
        assert table.report(i).valid
    host, joiner = table.sessions([0, honest])
    assert host.live == joiner.live == frozenset({0, _seat(table, honest)})
    assert host.state.state_hash() == joiner.state.state_hash()


def test_seats_that_played_and_then_went_silent_are_not_dropped_without_half_the_table() -> None:
    """Both joiners play the first roll, then go silent: they played, so the half-the-table
    rule holds as before and the host's vote alone drops nobody (it waits, as it always
    did; the console's person can quit).  Only seats that never played are left out."""
    table = _seated(3, seed=23)
    table.peers[0].start_game(table.net.now)
    table.net.run_until(
        lambda: all(p.session is not None and p.session.step >= 1 for p in table.peers),
        max_time=table.net.now + 60,
    )
    host = table.sessions([0])[0]
    assert host.step == 1 and host.needs().kind.name == "ENTROPY"  # another roll of everyone
    table.peers[1].driver = table.peers[2].driver = None
    table.net.cut([addr(1), addr(2)], [addr(0)])
    table.net.run_for(5 * TIMEOUTS.step_ms / 1000)
    assert _drops(table, 0) == []
    assert host.step == 1 and host.live == frozenset({0, 1, 2})


def test_a_joiner_cut_off_at_the_start_drops_nobody_the_host_must_stay() -> None:
    """A joiner alone on its side of a cut votes the host and the other joiner: the host
    would not stay, so it drops nobody (a joiner cannot play on alone against the table's
    host); the host and the other joiner drop it by the ordinary rule and play on."""
    table = _seated(3, seed=24)
    table.peers[0].start_game(table.net.now)
    table.net.run_until(lambda: table.peers[1].session is not None, table.net.now + 60)
    table.net.cut([addr(1)], [addr(0), addr(2)])
    lone = table.sessions([1])[0]
    held = set(lone._box(0).of(MsgType.ENTROPY))
    table.run_to_end([0, 2], max_time=3600)
    for i in (0, 2):
        assert _drops(table, i) == [(0, (lone.seat,))] and table.report(i).valid
    assert held == {lone.seat}  # it lacks both others' links: it voted them both
    assert [v.payload[0] for v in lone._box(0).votes.values()] == [[0, 3 - lone.seat]]
    assert _drops(table, 1) == [] and lone.step == 0 and lone.live == frozenset({0, 1, 2})


def test_a_host_that_votes_out_every_joiner_drops_no_honest_peer() -> None:
    """A cheating host sends both joiners a vote naming them both at the first roll.  A peer
    never takes such a drop of its own seat (it knows it is there): the joiners drop
    nobody, the game goes on with every seat, and every honest log verifies."""
    table = _seated(3, seed=25)
    table.peers[0].start_game(table.net.now)
    table.net.run_until(
        lambda: all(p.session is not None for p in table.peers), max_time=table.net.now + 60
    )
    host = table.sessions([0])[0]
    vote = sign_message(
        identity_for(25, 0).signer(),
        MsgType.VOTE,
        host.game_id,
        0,
        0,
        host.state.state_hash(),
        ([1, 2], 1),
        version=host.record.protocol,
    )
    for i in (1, 2):
        session = table.sessions([i])[0]
        assert session.step == 0
        session.receive_message(vote.raw, table.net.now)
        assert session.live == frozenset({0, 1, 2})
    table.run_to_end(max_time=3600)
    finals = {s.state.state_hash() for s in table.sessions()}
    assert len(finals) == 1
    for i in (1, 2):
        assert _drops(table, i) == [] and table.blames(i) == []
        assert table.report(i).valid


def _secret_round_first() -> tuple[bytes, tuple[tuple[str, int | bool | str], ...]]:
    """A Stomptag position (from a random playout) whose next step is a secret round of all
    three seats, and its options."""
    import random

    from lanTag.rules import awaited
    from lanTag.rules.playout import random_input
    from lanTag.rules.registry import get_game

    state = get_game("stomptag").new_state(3)
    rng = random.Random("a secret round first")
    while not (state.awaited().kind == awaited.SECRET and state.awaited().seats == (0, 1, 2)):
        state = state.apply(random_input(state, rng.randrange))
    return state.encode(), tuple(sorted(state.game.position(state)["options"].items()))


def test_people_thinking_at_a_first_secret_round_are_not_dropped_by_the_host_alone() -> None:
    """Only a roll leaves seats that never played out of the count: a live peer sends its
    link without its person, so a seat silent there is gone.  At a secret round a person
    thinks: two joiners past the turn timeout at the first step of a game set up from a
    position are voted by the host, and not dropped by it alone (half the table would not
    remain); the host waits at that step as it always did."""
    position, options = _secret_round_first()
    table = Table(
        "stomptag", 3, seed=26, timeouts=TIMEOUTS, options=options, start_position=position
    )
    table.net.run_until(table.seated, max_time=60)
    table.peers[1].driver = table.peers[2].driver = None  # two people, thinking
    table.peers[0].start_game(table.net.now)
    table.net.run_for((TIMEOUTS.turn_ms + 3 * TIMEOUTS.step_ms) / 1000)
    host = table.sessions([0])[0]
    assert host.step == 0 and host.needs().kind.name == "SECRET"
    assert any(set(v.payload[0]) == {1, 2} for v in host._box(0).votes.values())  # voted
    for i in range(3):
        assert _drops(table, i) == []
        assert table.sessions([i])[0].live == frozenset({0, 1, 2})


def test_a_host_cut_off_after_its_first_link_went_out_rejoins_the_table_s_history() -> None:
    """The price of the rule, and where it stops: the host's link of the first roll reached
    the joiners, then the host heard nobody.  It cannot tell that from a squat and plays on
    alone (two games while the cut lasts); the joiners took the roll with its link and drop
    it at the next roll.  Once it hears them (their drop proof answers its next move) it
    finds the seats it left out voting it out: it goes back to the first roll and never
    leaves them out there again.  Its vote there (both joiners) could then never be decided
    (one seat of three would remain), so it binds nothing (protocol 6, SPEC §5.4): the host
    takes their links of that roll, learns its drop at the next one, and follows the table's
    game to the same end (before, it waited at that roll for good)."""
    from lanTag.peer.machine import PacedBotDriver

    table = _seated(3, seed=27)
    for i in (1, 2):  # people: their game lasts past the heal
        table.peers[i].driver = PacedBotDriver("random", pace=2.0)
    table.peers[0].driver = None  # its person thinks: its game alone waits at its first turn
    table.peers[0].start_game(table.net.now)
    table.net.run_until(
        lambda: all(p.session is not None for p in table.peers), max_time=table.net.now + 60
    )
    table.net.cut([addr(0)], [addr(1), addr(2)])
    table.net.run_for(25.0)
    host = table.sessions([0])[0]
    assert _drops(table, 0) == [(0, (1, 2))] and host.step > 1  # alone
    assert _drops(table, 1) == _drops(table, 2) == [(1, (0,))]
    table.net.heal()
    table.peers[0].driver = PacedBotDriver("random", pace=2.0)
    table.peers[0].poke(table.net.now)
    table.net.run_until(lambda: host.step == 0, max_time=table.net.now + 120)
    table.net.run_for(120.0)
    assert host.vote_book.rule_off == {0}
    sessions = table.sessions([0, 1, 2])
    assert all(s.state.is_over for s in sessions)
    assert len({s.state.state_hash() for s in sessions}) == 1  # one history
    assert _drops(table, 0)[-1] == (1, (0,))  # it took the table's drop of itself
    assert all(s.live == frozenset({1, 2}) for s in sessions)
    assert all(table.report(i).valid for i in range(3))
