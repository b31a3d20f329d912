"""A blame is dated by its evidence (SPEC §7): its step is the step of the signed message
that proves it (for a drop, of the VOTEs that decided it), not the step its finder had
reached.  The NOTE a peer writes for it keeps the peer's own step (its bytes are what they
were), so the two differ when the proof came late: an equivocation found three steps on,
NUDGEs of a step far ahead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanTag.cli.entry import main as lantag_main
from lanTag.log.entries import EntryKind, parse_log
from lanTag.log.verify import verify_log
from lanTag.session import events as ev
from lanTag.session.messages import MsgType, Signed, parse_unverified
from tests.log.test_without_rules import cheating_game
from tests.support.adversary import Cheat
from tests.support.no_engines import no_engines


def evidence(data: bytes, seat: int, step: int, code: str) -> list[Signed]:
    """The logged messages that prove ``code`` against ``seat`` at ``step``."""
    messages = [
        parse_unverified(e.data) for e in parse_log(data).entries if e.kind == EntryKind.MSG
    ]
    if code == "timeout":  # the VOTEs that dropped it
        votes = [m for m in messages if m.type is MsgType.VOTE and m.step == step]
        return [m for m in votes if seat in m.payload[0]]
    mine = [m for m in messages if m.seat == seat and m.step == step]
    if code == "equivocation":  # two different messages of one slot
        return [m for m in mine if any(o.slot == m.slot and o.raw != m.raw for o in mine)]
    if code == "flood":
        return [m for m in mine if m.type in (MsgType.VOTE, MsgType.NUDGE)]
    return mine


@pytest.mark.parametrize(
    ("cheat", "kw"),
    [(Cheat.EQUIVOCATE, {"at_step": 3, "seed": 10}), (Cheat.REQUEST_FLOOD, {})],
    ids=["equivocation", "flood"],
)
def test_every_blame_is_dated_at_the_step_of_its_evidence(
    cheat: Cheat, kw: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    late = 0
    for data in cheating_game(cheat, **kw):  # type: ignore[arg-type]
        report = verify_log(data)
        assert report.valid and report.blames
        notes = [e for e in parse_log(data).entries if e.kind == EntryKind.NOTE]
        for seat, step, code, reason in report.blames:
            assert evidence(data, seat, step, code), (seat, step, code)
            note = next(n for n in notes if n.data == [code, [seat], reason])
            late += note.step != step  # the peer noted it at its own step
        path = tmp_path / "game.lantag"
        path.write_bytes(data)
        assert lantag_main(["verify", "--json", str(path)]) == 0
        said = json.loads(capsys.readouterr().out)["blames"]
        assert [(b["seat"], b["step"], b["code"]) for b in said] == [
            (seat, step, code) for seat, step, code, _r in report.blames
        ]
    assert late > 0  # the proof came after its step: dated by the evidence, not the finder


@pytest.mark.parametrize("protocol", [5, 6])
def test_a_drop_taken_after_its_step_is_blamed_at_the_step_of_its_votes(protocol: int) -> None:
    # SPEC §5.4: seat 0 applied the guess before the drop of the liar at that step was
    # agreed, and takes the drop at its current step, without a rollback; the timeout is
    # blamed at the step the votes name, in both lanes of the verifier.
    from tests.session.test_late_proof import _liar_acknowledges_after_the_votes

    logs, net = _liar_acknowledges_after_the_votes(protocol)
    late = net.events[0]
    dropped = next(e for e in late if isinstance(e, ev.SeatsDropped))
    blame = next(e for e in late if isinstance(e, ev.Blame) and e.code == "timeout")
    assert dropped.step > blame.step  # taken later than the step it was agreed at
    votes = evidence(logs[0], blame.seat, blame.step, "timeout")
    assert votes and {v.step for v in votes} == {blame.step}
    for log in logs:
        full = verify_log(log)
        with no_engines():
            without = verify_log(log)
        assert full.valid and without.valid, (full.failure, without.failure)
        timeouts = {(s, k) for s, k, code, _r in full.blames if code == "timeout"}
        assert timeouts == {(blame.seat, blame.step)}
        assert sorted(full.blames) == sorted(without.blames)
