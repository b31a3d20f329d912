"""Property: whatever the seed, faults and peer count, honest peers agree on every step.

Whole peers (reliable links, lobby, session, bots) on the simulated network
with seeded loss, duplication, reordering and jitter; sometimes one peer dies
mid-game.  Every surviving peer must decide the same inputs with the same
state hashes, and every peer's log must verify.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from tests.peer.harness import Table, addr


def _steps(log: bytes) -> list[tuple[int, bytes]]:
    """(step, encoded STEP entry data) in log order, after the last rollback of each step."""
    decided: dict[int, bytes] = {}
    for entry in parse_log(log).entries:
        if entry.kind == EntryKind.STEP:
            decided[entry.step] = repr(entry.data).encode()
    return sorted(decided.items())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    humans=st.integers(2, 4),
    loss=st.sampled_from([0.0, 0.1, 0.25]),
    dup=st.sampled_from([0.0, 0.05]),
    reorder=st.sampled_from([0.0, 0.1]),
    kill_at=st.one_of(st.none(), st.integers(2, 20)),
)
def test_honest_peers_agree_on_every_step(
    seed: int, humans: int, loss: float, dup: float, reorder: float, kill_at: int | None
) -> None:
    faults = f"loss={loss},dup={dup},reorder={reorder},delay=2ms,jitter=3ms"
    table = Table("toy", humans, bots=("random",), faults=faults, seed=seed)
    table.start()
    victim = humans - 1
    if kill_at is not None:
        victim_session = table.peers[victim].session
        assert victim_session is not None
        table.net.run_until(lambda: victim_session.step >= kill_at or table.over(), 3600)
        others = [addr(i) for i in range(humans) if i != victim]
        table.net.cut([addr(victim)], others)
    alive = [i for i in range(humans) if kill_at is None or i != victim]

    def done() -> bool:
        return all(
            table.peers[i].session is not None and table.peers[i].session.state.is_over  # type: ignore[union-attr]
            for i in alive
        )

    table.net.run_until(done, 36_000)
    sessions = [table.peers[i].session for i in alive]
    assert len({s.state.state_hash() for s in sessions if s}) == 1
    decided = {tuple(_steps(bytes(table.logs[i]))) for i in alive}
    assert len(decided) == 1
    for i in range(humans):
        report = verify_log(bytes(table.logs[i]))
        assert report.valid, (i, report.failure)
    if kill_at is None:
        for i in alive:
            assert not any(isinstance(e, ev.SeatsDropped) for e in table.peers[i].events)
