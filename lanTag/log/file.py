"""The I/O edge of the log: append entry bytes and make them durable step by step."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


class LogWriter:
    """Appends and flushes every batch; fsyncs at most every ``fsync_interval`` seconds.

    Flushing hands each entry to the OS at once, so a killed process loses at most the
    entry being written.  fsync (against a power cut) cost 76% of a peer's time when done
    per datagram (docs/BENCHMARKS.md), so it is batched: a power cut loses at most the
    last ``fsync_interval`` seconds, and the file still verifies up to its last whole entry.

    The file is made by the first write, not before: a lobby that never starts (a refused
    join, a host who quits) leaves no empty log behind.  ``before_create`` runs once, just
    before that (a seat's chain secret is written beside the log then: lanTag.peer.runtime).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fsync_interval: float | None = 0.5,
        clock: Callable[[], float] = time.monotonic,
        before_create: Callable[[], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self._file: BinaryIO | None = None
        self._before_create = before_create
        self._interval = fsync_interval
        self._clock = clock
        self._synced_at = clock()
        self._dirty = False

    @property
    def created(self) -> bool:
        """Whether anything was written (the file exists because of this writer)."""
        return self._file is not None

    def _open(self) -> BinaryIO:
        if self._file is None:
            if self._before_create is not None:
                self._before_create()
                self._before_create = None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")  # noqa: SIM115 - held open for the game's length
        return self._file

    def write(self, data: bytes) -> None:
        if not data:
            return
        file = self._open()
        file.write(data)
        file.flush()
        self._dirty = True
        if self._interval is not None and self._clock() - self._synced_at >= self._interval:
            self.sync()

    def sync(self) -> None:
        if self._dirty and self._file is not None:
            os.fsync(self._file.fileno())
            self._dirty = False
        self._synced_at = self._clock()

    def move_to(self, path: str | os.PathLike[str]) -> None:
        """Give the file a new name and go on appending there (a joiner learns the game's
        name only after its log was opened).  Closed first, so it works where an open file
        cannot be renamed (Windows).  Nothing written yet: only the name changes."""
        target = Path(path)
        if self._file is None:
            self.path = target
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        self.close()
        os.replace(self.path, target)
        self.path = target
        self._file = open(self.path, "ab")  # noqa: SIM115 - held open for the game's length

    def close(self) -> None:
        if self._file is None:
            return
        if self._interval is not None:
            self.sync()
        self._file.close()


def read_log(path: str | os.PathLike[str]) -> bytes:
    return Path(path).read_bytes()
