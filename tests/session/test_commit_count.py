"""``_commits_complete``'s length check and cached answer against a plain scan."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest

from lanTag.session.core import SessionCore
from lanTag.session.messages import MsgType, Signed
from lanTag.session.referee import NeedKind, Needs
from lanTag.session.steps import StepBox


def _commit(seat: int) -> Signed:
    return Signed(MsgType.COMMIT, b"g", 0, seat, b"h", (b"sealed",), b"", b"", b"")


@pytest.mark.parametrize("seed", range(20))
def test_commits_complete_matches_a_scan(seed: int) -> None:
    rng = random.Random(seed)
    core = cast(Any, None)  # the method reads only the box and the needs
    box = StepBox()
    live = set(range(rng.randrange(1, 12)))
    needs = Needs(NeedKind.SECRET, tuple(sorted(live)))
    for _ in range(60):
        got = box.of(MsgType.COMMIT)
        if rng.random() < 0.1 and len(live) > 1:  # a drop: a new snapshot, so new needs
            silent = set(rng.sample(sorted(live), rng.randrange(1, len(live))))
            live -= silent
            for s in silent:
                got.pop(s, None)
            needs = Needs(NeedKind.SECRET, tuple(sorted(live)))
        elif live:
            got[rng.choice(sorted(live))] = _commit(0)
        expected = all(s in got for s in needs.humans)
        assert SessionCore._commits_complete(core, box, needs) is expected
        assert SessionCore._commits_complete(core, box, needs) is expected  # cached answer
