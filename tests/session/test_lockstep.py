from __future__ import annotations

from lanTag.log.entries import EntryKind, parse_log
from lanTag.rules.base import Over
from lanTag.session import events as ev
from tests.session.harness import SimNet, make_record, make_sessions


def test_three_peers_finish_with_identical_states_and_logs_of_inputs() -> None:
    record, ids, secrets = make_record("toy", 3)
    sessions = make_sessions(record, ids, secrets)
    net = SimNet(sessions, seed=1, jitter=0.01, dup=0.1)
    net.run()
    assert net.all_over()
    hashes = {s.state.state_hash() for s in sessions}
    assert len(hashes) == 1
    # Each peer's log records the same decided inputs, step by step (its own messages and
    # the order they arrived in differ: the STEP entries must not).
    decided = [
        [(e.step, e.data) for e in parse_log(s.take_log()).entries if e.kind == EntryKind.STEP]
        for s in sessions
    ]
    assert decided[0] == decided[1] == decided[2]
    assert [step for step, _ in decided[0]] == list(range(sessions[0].step))
    for i in range(3):
        kinds = {type(e) for e in net.events[i]}
        assert ev.GameOver in kinds
        assert ev.Blame not in kinds and ev.Desync not in kinds
    assert isinstance(sessions[0].state.decision(), Over)
