"""Two colluders with real processes on loopback (issue #33 item 2, SPEC §5.7).

A 4-seat Prototag table: ``lantag host --headless`` (seat 0) and an honest ``lantag join
--headless`` (seat 1), and two modified peers, ``python -m tests.support.adversary``:
A (``--cheat honest --identity-seed``, seat 2) plays honestly and lends its key to B
(``--cheat collude --partner-seed``, seat 3), which at the first battle A fights signs a
second COMMIT for A and sends it, with its own acknowledgement naming it, to the honest
joiner only.  Before protocol 6's rule the host applied the round and the joiner split it;
each then blamed the other ``desync`` and both hung until killed (issue 33, 2 of 2 runs).
Now both honest processes exit 0, their logs verify (``lantag verify`` exit 0), agree on
every decided step, blame and drop only the colluders, and convict A.  No timing is
asserted; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from pathlib import Path

import pytest

from lanTag.identity import Identity
from lanTag.rules.base import FORFEIT, Joint
from tests.chaos.test_cheat_processes import (
    OPTIONS,
    PORT,
    WAIT,
    Run,
    _lines_until,
    _peer_env,
    _spawn,
    _tails,
    _verify_cli,
)
from tests.support.table import final_history

COMMON = ["--headless", "--bot", "random", "--bind", "127.0.0.1"]


def _seated(n: int) -> re.Pattern[str]:
    return re.compile(rf"^lobby: {n}/4 seated")


async def _collusion_table(tmp: Path) -> tuple[Run, str]:
    """One game; returns the run (host, joiner, A, B) and A's key fingerprint."""
    logs = [tmp / f"peer{i}.lantag" for i in range(4)]
    seed = secrets.token_bytes(32)
    host = await _spawn(
        [
            "-m", "lanTag", "host", "--game", "prototag", "--seats", "4", "--no-advertise",
            "--turn-timeout", "6", "--log", str(logs[0]), *OPTIONS, *COMMON,
        ],
        _peer_env(tmp, 0),
    )  # fmt: skip
    procs = [host]
    joiner_out: list[str] = []
    try:
        assert host.stderr is not None and host.stdout is not None
        port = None
        while port is None:
            line = await asyncio.wait_for(host.stderr.readline(), WAIT)
            assert line, "the host ended before announcing its port"
            m = PORT.search(line)
            port = int(m.group(1)) if m else None
        address = f"127.0.0.1:{port}"
        procs.append(
            await _spawn(
                ["-m", "lanTag", "join", address, "--log", str(logs[1]), *COMMON],
                _peer_env(tmp, 1),
            )
        )
        assert procs[1].stdout is not None
        await asyncio.wait_for(_lines_until(procs[1].stdout, _seated(2), joiner_out), WAIT)
        for i, (cheat, key) in enumerate(
            (("honest", "--identity-seed"), ("collude", "--partner-seed")), start=2
        ):
            procs.append(
                await _spawn(
                    [
                        "-m", "tests.support.adversary", "--cheat", cheat, key, seed.hex(),
                        "--join", address, "--log", str(logs[i]), "--max-seconds", str(WAIT),
                    ],
                    _peer_env(tmp, i),
                )
            )  # fmt: skip
            # one at a time, so that seats follow join order: A is seat 2, B seat 3
            await asyncio.wait_for(_lines_until(procs[1].stdout, _seated(i + 1), joiner_out), WAIT)
        try:
            outs = list(
                await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in procs[:2])), WAIT)
            )
        except asyncio.TimeoutError:
            tails = await _tails(procs)
            raise AssertionError(f"collusion: not over within {WAIT} s\n{tails}") from None
        for p in procs[2:]:
            if p.returncode is None:  # a colluder may follow the game longer: not waited
                p.terminate()
            outs.append(await asyncio.wait_for(p.communicate(), WAIT))
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()
    texts = [o.decode(errors="replace") + e.decode(errors="replace") for o, e in outs]
    texts[1] = "\n".join(joiner_out) + "\n" + texts[1]
    seat = re.search(r"^seat (\d+)", texts[3], re.M)
    at = re.search(r"^cheated at step (\d+)", texts[3], re.M)
    run = Run(
        [p.returncode for p in procs],
        texts,
        logs,
        int(seat.group(1)) if seat else None,
        int(at.group(1)) if at else None,
    )
    return run, Identity(seed).fingerprint


@pytest.fixture(scope="module")
def collusion(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, str]:
    async def play() -> tuple[Run, str]:
        run, key = await _collusion_table(tmp_path_factory.mktemp("collusion"))
        run.verified = list(await asyncio.gather(*(_verify_cli(log) for log in run.logs[:2])))
        return run, key

    return asyncio.run(play())


def test_two_colluders_leave_both_honest_processes_one_history(
    collusion: tuple[Run, str],
) -> None:
    run, lent = collusion
    assert run.codes[:2] == [0, 0], (run.codes, run.out[:2])
    assert run.cheater is not None, run.out[3]
    assert run.cheated_at is not None, f"no battle of seat A in this game: {run.out[3]}"
    reports = [run.report(i) for i in (0, 1)]
    a = next(p.seat for p in reports[0].players if p.fingerprint == lent)
    b = run.cheater
    assert {a, b} == {2, 3}, (a, b)  # the honest processes hold seats 0 and 1
    for i, report in enumerate(reports):
        assert report.valid and report.complete, (i, report.failure)
        blamed = {seat for seat, _step, _code, _reason in report.blames}
        assert blamed <= {a, b}, (i, report.blames)  # honest seats: never
        assert (a, "equivocation") in {(s, c) for s, _k, c, _r in report.blames}, (
            i,
            report.blames,
        )
    assert final_history(reports[0]) == final_history(reports[1])
    assert run.verified == [0, 0], run.verified  # `lantag verify` said VALID
    joint = [x.input for x in reports[0].applied if x.step == run.cheated_at][-1]
    assert isinstance(joint, Joint)
    if joint.of(a) != FORFEIT:  # the round stood: B's two acknowledgements met
        for report in reports:
            assert b in {seat for seat, _k, code, _r in report.blames if code == "equivocation"}


pytestmark = pytest.mark.timeout(300)
