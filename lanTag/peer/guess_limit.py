"""How often a password game lets anyone try a password: pure, the clock is passed in.

A PAKE (join_handshake.py) leaves an attacker one guess per exchange with the host, so
the host's only defence against a guesser is how many exchanges it grants.  Each try
(a ``welcome`` carrying a fresh PAKE message) costs one token of the source address's
bucket (``PER_SOURCE_RATE`` per second, bursts of ``PER_SOURCE_BURST``) and one of a
table-wide bucket (``GLOBAL_RATE``), so many addresses cannot multiply the rate
without bound.  After ``FREE_FAILURES`` wrong passwords in a row a source also waits
``BACKOFF_BASE · 2^(n - FREE_FAILURES)`` seconds (at most ``BACKOFF_MAX``) after each
further one; a right password forgets its failures.
"""

from __future__ import annotations

from dataclasses import dataclass

PER_SOURCE_RATE = 5.0  # tries per second per source address, sustained (issue #24: <= 5)
PER_SOURCE_BURST = 5.0
GLOBAL_RATE = 10.0  # tries per second for the whole table
GLOBAL_BURST = 20.0
FREE_FAILURES = 5  # a friend who mistypes a few times waits for nothing
BACKOFF_BASE = 1.0
BACKOFF_MAX = 60.0
MAX_SOURCES = 4096  # past this the least recently seen source is forgotten


@dataclass
class _Bucket:
    tokens: float
    at: float

    def refill(self, now: float, rate: float, burst: float) -> None:
        if now > self.at:
            self.tokens = min(burst, self.tokens + (now - self.at) * rate)
            self.at = now


@dataclass
class _Source:
    bucket: _Bucket
    failures: int = 0  # wrong passwords in a row
    wrong: int = 0  # wrong passwords in all (what the host is told)
    refused: int = 0  # tries refused by this limiter
    locked_until: float = 0.0
    seen: float = 0.0


@dataclass(frozen=True, slots=True)
class Verdict:
    """``allowed``, or how many seconds to wait (``wait``) before the next try."""

    allowed: bool
    wait: float = 0.0


class GuessLimiter:
    def __init__(self) -> None:
        self._sources: dict[str, _Source] = {}
        self._global = _Bucket(GLOBAL_BURST, 0.0)

    def _source(self, source: str, now: float) -> _Source:
        entry = self._sources.get(source)
        if entry is None:
            if len(self._sources) >= MAX_SOURCES:
                oldest = min(self._sources, key=lambda s: self._sources[s].seen)
                del self._sources[oldest]
            entry = _Source(_Bucket(PER_SOURCE_BURST, now))
            self._sources[source] = entry
        entry.seen = now
        return entry

    def try_once(self, source: str, now: float) -> Verdict:
        """Take one try for ``source`` at ``now`` if its bucket, its backoff and the
        table's bucket all allow it; else the seconds it should wait."""
        entry = self._source(source, now)
        entry.bucket.refill(now, PER_SOURCE_RATE, PER_SOURCE_BURST)
        self._global.refill(now, GLOBAL_RATE, GLOBAL_BURST)
        wait = 0.0
        if now < entry.locked_until:
            wait = entry.locked_until - now
        elif entry.bucket.tokens < 1.0:
            wait = (1.0 - entry.bucket.tokens) / PER_SOURCE_RATE
        elif self._global.tokens < 1.0:
            wait = (1.0 - self._global.tokens) / GLOBAL_RATE
        if wait > 0.0:
            entry.refused += 1
            return Verdict(False, wait)
        entry.bucket.tokens -= 1.0
        self._global.tokens -= 1.0
        return Verdict(True)

    def failed(self, source: str, now: float) -> int:
        """A wrong password from ``source``: its backoff grows.  Returns its wrong count."""
        entry = self._source(source, now)
        entry.failures += 1
        entry.wrong += 1
        over = entry.failures - FREE_FAILURES
        if over >= 0:
            entry.locked_until = now + min(BACKOFF_MAX, BACKOFF_BASE * 2.0**over)
        return entry.wrong

    def succeeded(self, source: str, now: float) -> None:
        entry = self._source(source, now)
        entry.failures, entry.locked_until = 0, 0.0

    def refused(self, source: str) -> int:
        """Tries from ``source`` this limiter turned away so far."""
        entry = self._sources.get(source)
        return 0 if entry is None else entry.refused

    def wrong(self, source: str) -> int:
        """Wrong passwords from ``source`` so far."""
        entry = self._sources.get(source)
        return 0 if entry is None else entry.wrong
