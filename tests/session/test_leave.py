"""A player who leaves says so (a signed LEAVE, SPEC §3): the others vote its seat silent
at once, by the same agreement as a drop, with no timeout blame, and the game goes on
with a bot in that seat; every survivor's log verifies (virtual time on the simulated
network, the product's default timeouts)."""

from __future__ import annotations

from lanTag.session import events as ev
from lanTag.session.lobby_record import Timeouts
from tests.support.table import Table, final_history

PEERS = 3


def test_a_seat_that_leaves_is_dropped_as_left_without_blame() -> None:
    from tests.support.table import addr

    table = Table("prototag", PEERS, seed=41, timeouts=Timeouts())
    table.net.run_for(30.0)
    table.start()
    table.net.run_until(lambda: table.sessions()[0].step >= 12, 600)
    leaver = 1
    seat = table.seat_of(leaver)
    machine = table.peers[leaver]
    assert seat is not None and machine.session is not None
    machine.driver = None  # a person, who now leaves
    left_at = table.net.now
    machine.session.leave(left_at)
    machine.poke(left_at)
    table.net.flush()
    table.net.run_for(0.2)  # the LEAVE reaches the others (and is acked)
    # Then the process is gone: nothing more from or to it.
    others = [addr(j) for j in range(PEERS) if j != leaver]
    table.net.cut([addr(leaver)], others)
    del table.net.machines[addr(leaver)]
    survivors = [i for i in range(PEERS) if i != leaver]

    def dropped(i: int) -> list[ev.SeatsDropped]:
        return table.events(i, ev.SeatsDropped)  # type: ignore[return-value]

    table.net.run_until(lambda: all(dropped(i) for i in survivors), left_at + 600)
    # Far sooner than the 120 s turn timeout (and the 4 s of a silent link): no waiting out.
    assert table.net.now - left_at < 4.0, table.net.now - left_at
    table.run_to_end(survivors, max_time=36_000)
    histories = set()
    for i in survivors:
        drops = dropped(i)
        assert [(d.seats, d.left) for d in drops] == [((seat,), (seat,))], i
        assert not [b for b in table.blames(i) if b[0] == seat], table.blames(i)
        report = table.report(i)
        assert report.valid and report.complete, (i, report.failure)
        histories.add(final_history(report))
    assert len(histories) == 1
