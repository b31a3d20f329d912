"""The I/O edge of the log: append entry bytes and make them durable step by step."""

from __future__ import annotations

import os
from pathlib import Path


class LogWriter:
    """Appends bytes, flushes and fsyncs each batch: a crash loses at most the entry in flight."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "ab")  # noqa: SIM115 - held open for the game's length
        self._fsync = fsync

    def write(self, data: bytes) -> None:
        if not data:
            return
        self._file.write(data)
        self._file.flush()
        if self._fsync:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def read_log(path: str | os.PathLike[str]) -> bytes:
    return Path(path).read_bytes()
