"""A seated joiner that is silent when the host starts is unseated before step 0
(issue #24): the game starts without it instead of freezing at its first turn."""

from __future__ import annotations

from lanTag.peer.join_handshake import JoinerRefused, Refused
from lanTag.peer.machine import SILENT_AT_START, UNSEATED
from tests.support.table import Table, addr


def _lines(table: Table, i: int) -> list[str]:
    return [e.reason for e in table.peers[i].events if isinstance(e, JoinerRefused)]


def test_a_silent_seat_is_unseated_at_the_start_and_told_so_when_it_comes_back() -> None:
    table = Table("tagem", 3, seed=11)
    table.net.run_until(table.seated, max_time=60)
    host, friend, gone = table.peers
    gone_name = gone.lobby.nickname  # type: ignore[union-attr]
    table.net.cut([addr(2)], [addr(0), addr(1)])  # e.g. its laptop went to sleep
    table.net.run_for(SILENT_AT_START + 1)
    host.start_game(table.net.now)
    record = host.session.record  # type: ignore[union-attr]
    assert [s.nickname for s in record.seats if s.public_key] == ["host", "p1"]
    [line] = _lines(table, 0)
    assert line.startswith(f"unseated {gone_name} (") and "silent for" in line
    table.net.run_until(lambda: friend.session is not None, max_time=table.net.now + 30)
    assert [m for m in _lines(table, 1) if gone_name in m] == [
        next(m for m in _lines(table, 1) if "not in the game" in m)
    ]
    table.net.heal()  # it comes back: one clear refusal, no seat, no session
    table.net.run_until(
        lambda: any(isinstance(e, Refused) for e in gone.events), max_time=table.net.now + 30
    )
    assert [e.reason for e in gone.events if isinstance(e, Refused)] == [UNSEATED]
    assert gone.session is None
    table.run_to_end([0, 1], max_time=3600)


def test_a_seat_heard_from_recently_keeps_its_place() -> None:
    table = Table("tagem", 3, seed=12)
    table.net.run_until(table.seated, max_time=60)
    table.net.run_for(SILENT_AT_START + 1)  # keepalives: everyone is heard every second
    table.peers[0].start_game(table.net.now)
    record = table.peers[0].session.record  # type: ignore[union-attr]
    assert len([s for s in record.seats if s.public_key]) == 3
    assert _lines(table, 0) == []


def test_a_seat_silent_from_the_start_is_dropped_by_every_peer_within_the_grace() -> None:
    """An open table's squat (issue #38 item 3): a seated joiner keeps its lobby link alive,
    then says nothing once the game starts.  The other joiner never had a link to it
    before the start; it too counts the squatter as heard at the start, so every honest
    peer votes it out after DEAD_AFTER_LAGS lag warnings (4 s at the default lag_ms), not
    after the step timeout (30 s here), and the game goes on with a bot in its seat."""
    from lanTag.session import events as ev
    from lanTag.session.lobby_record import Timeouts
    from lanTag.session.silence import DEAD_AFTER_LAGS

    timeouts = Timeouts(turn_ms=60_000, step_ms=30_000, lag_ms=2_000)
    table = Table("prototag", 3, seed=13, timeouts=timeouts)
    table.net.run_until(table.seated, max_time=60)
    host = table.peers[0]
    squatter = next(i for i in (1, 2) if table.peers[i].lobby.your_seat == 2)  # type: ignore[union-attr]
    honest = 3 - squatter
    start = table.net.now
    host.start_game(start)
    # Silent from the start (its lobby keepalives were recent): nothing from its address.
    table.net.cut([addr(squatter)], [addr(0), addr(honest)])
    for i in (0, honest):
        table.net.run_until(
            lambda i=i: bool(table.events(i, ev.SeatsDropped)), max_time=start + 30
        )
    grace = DEAD_AFTER_LAGS * timeouts.lag_ms / 1000
    assert table.net.now - start < grace + 2.0 < timeouts.step_ms / 1000
    for i in (0, honest):
        [drop] = table.events(i, ev.SeatsDropped)
        assert (drop.step, drop.seats) == (0, (2,))  # type: ignore[attr-defined]
        # Prototag's step 0 is a roll: protocol 6 names a seat dropped there `withheld`
        # (SPEC §5.5), whatever it meant by its silence.
        assert table.blames(i) == [(2, "withheld")]
    table.run_to_end([0, honest], max_time=3600)
    for i in (0, honest):
        assert table.report(i).valid and table.blames(i) == [(2, "withheld")]


def _seat_2_to_move() -> tuple[bytes, tuple[tuple[str, int | bool | str], ...]]:
    """A Prototag position (from a random playout) where seat 2 moves next, and its
    options."""
    import random

    from lanTag.rules import awaited
    from lanTag.rules.playout import random_input
    from lanTag.rules.registry import get_game

    state = get_game("prototag").new_state(3)
    rng = random.Random("seat 2 moves")
    while not (state.awaited().kind == awaited.MOVE and state.awaited().seats == (2,)):
        state = state.apply(random_input(state, rng.randrange))
    return state.encode(), tuple(sorted(state.game.position(state)["options"].items()))


def test_a_thinking_seat_is_heard_from_the_start_by_every_peer() -> None:
    """A seat never heard counts as silent since the start only because every peer gets
    our NUDGE at the lag warning, before that grace ends: a person who thinks at the first
    step (a game set up from a position where seat 2 moves) answers it, so the other joiner
    (no link to it before) hears it too and nobody votes it silent before the turn timeout."""
    from lanTag.log.entries import EntryKind, parse_log
    from lanTag.session.lobby_record import Timeouts
    from lanTag.session.messages import MsgType, parse_unverified

    timeouts = Timeouts(turn_ms=60_000, step_ms=30_000, lag_ms=2_000)
    position, options = _seat_2_to_move()
    table = Table(
        "prototag", 3, seed=14, timeouts=timeouts, options=options, start_position=position
    )
    table.net.run_until(table.seated, max_time=60)
    thinker = next(i for i in (1, 2) if table.peers[i].lobby.your_seat == 2)  # type: ignore[union-attr]
    table.peers[thinker].driver = None  # a person: says nothing signed for a while
    table.peers[0].start_game(table.net.now)
    table.net.run_for(20.0)
    for i in range(3):
        session = table.peers[i].session
        assert session is not None and session.step == 0
        entries = parse_log(bytes(table.logs[i]) + session.take_log()).entries
        kinds = [parse_unverified(e.data).type for e in entries if e.kind is EntryKind.MSG]
        assert MsgType.VOTE not in kinds, f"peer {i} voted at the first step"
