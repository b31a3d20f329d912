"""The password-try limiter (issue #24 item 3), pure with an injected clock: at most 5
tries a second per source address, a table-wide cap, and a backoff after wrong ones."""

from __future__ import annotations

from lanTag.peer import guess_limit as gl
from lanTag.peer.guess_limit import GuessLimiter


def _allowed(limiter: GuessLimiter, source: str, now: float, tries: int) -> int:
    return sum(limiter.try_once(source, now).allowed for _ in range(tries))


def test_one_source_gets_at_most_five_tries_a_second() -> None:
    limiter = GuessLimiter()
    assert _allowed(limiter, "10.0.0.2", 0.0, 50) == 5
    verdict = limiter.try_once("10.0.0.2", 0.0)
    assert not verdict.allowed and 0.0 < verdict.wait <= 0.2
    # Over ten seconds of asking 100 times a second: 5 (burst) + 5 per second.
    total = sum(_allowed(limiter, "10.0.0.2", t / 100, 1) for t in range(1, 1001))
    assert 49 <= total <= 50  # 50 less float rounding of the refill
    assert limiter.refused("10.0.0.2") == 50 - 5 + 1 + 1000 - total


def test_sources_are_counted_apart_and_ports_do_not_matter() -> None:
    limiter = GuessLimiter()
    assert _allowed(limiter, "10.0.0.2", 0.0, 10) == 5
    assert _allowed(limiter, "10.0.0.3", 0.0, 10) == 5


def test_many_sources_together_hit_the_table_wide_cap() -> None:
    limiter = GuessLimiter()
    sources = [f"10.0.{i // 250}.{i % 250}" for i in range(100)]
    at_once = sum(limiter.try_once(s, 0.0).allowed for s in sources)
    assert at_once == gl.GLOBAL_BURST
    # One second later: the table-wide bucket gave back GLOBAL_RATE tries, no more.
    later = sum(limiter.try_once(s, 1.0).allowed for s in sources)
    assert later == gl.GLOBAL_RATE


def test_wrong_passwords_in_a_row_back_off_and_a_right_one_forgets_them() -> None:
    limiter = GuessLimiter()
    waits = []
    for k in range(gl.FREE_FAILURES + 4):
        now = 1000.0 * k  # long after any lock: only the k-th failure's lock matters
        assert limiter.try_once("10.0.0.2", now).allowed
        limiter.failed("10.0.0.2", now)
        waits.append(limiter.try_once("10.0.0.2", now).wait)
    assert waits[: gl.FREE_FAILURES - 1] == [0.0] * (gl.FREE_FAILURES - 1)  # no lock yet
    locked = waits[gl.FREE_FAILURES - 1 :]
    assert locked == [gl.BACKOFF_BASE * 2.0**i for i in range(len(locked))]  # doubling
    assert limiter.wrong("10.0.0.2") == gl.FREE_FAILURES + 4
    for _ in range(20):  # capped
        limiter.failed("10.0.0.2", 0.0)
    assert limiter.try_once("10.0.0.2", 0.0).wait <= gl.BACKOFF_MAX
    limiter.succeeded("10.0.0.2", 10**6)
    assert limiter.try_once("10.0.0.2", 10**6).allowed


def test_the_source_table_is_bounded() -> None:
    limiter = GuessLimiter()
    for i in range(gl.MAX_SOURCES + 10):
        limiter.try_once(f"s{i}", float(i))
    assert len(limiter._sources) == gl.MAX_SOURCES
    assert "s0" not in limiter._sources and f"s{gl.MAX_SOURCES + 9}" in limiter._sources
