"""Files that are never half-written: a temp file in the same directory, flushed and
fsynced, then ``os.replace``-d over the old one.

A crash, a full disk or an encoding error midway leaves the old file as it was (an
identity file truncated by a failed nickname change used to lose the player's key).
Text is always UTF-8, whatever the locale (Windows' cp1252, a C locale).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["write_atomic", "write_text_atomic"]


def write_atomic(
    path: Path, data: bytes, *, private: bool = False, exclusive: bool = False
) -> None:
    """Replace ``path`` by ``data`` all at once (``exclusive``: create it, FileExistsError
    if it exists, so two first runs cannot replace each other's new key).

    ``private`` files (keys, secrets) get mode 0600 on POSIX; elsewhere the mode
    means nothing (Windows keeps per-user profile folders private by ACL) and is
    left as the OS makes it.  Other files get the usual umask-derived mode.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:  # mkstemp makes it 0600 already
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if not private:
            os.chmod(tmp, 0o666 & ~_umask())
        if exclusive:
            _create_from(tmp, path)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(path.parent)


def write_text_atomic(
    path: Path, text: str, *, private: bool = False, exclusive: bool = False
) -> None:
    """``write_atomic`` of ``text`` encoded as UTF-8 (encoded before anything is touched)."""
    write_atomic(path, text.encode("utf-8"), private=private, exclusive=exclusive)


def _create_from(tmp: str, path: Path) -> None:
    """Move ``tmp`` to ``path`` atomically unless ``path`` exists (FileExistsError)."""
    if os.name == "nt":
        os.rename(tmp, path)  # Windows' rename never replaces
        return
    os.link(tmp, path)  # POSIX: a hard link fails on an existing name
    os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0o022)  # reading the umask means setting it; put it straight back
    os.umask(mask)
    return mask


def _sync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX); Windows cannot open a directory."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
