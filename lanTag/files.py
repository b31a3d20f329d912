"""Files that are never half-written: a temp file in the same directory, flushed and
fsynced, then ``os.replace``-d over the old one; and text read the way other tools
write it.

A crash, a full disk or an encoding error midway leaves the old file as it was (an
identity file truncated by a failed nickname change used to lose the player's key).
Text is always UTF-8, whatever the locale (Windows' cp1252, a C locale).

On Windows a file another process holds open (a second lantag reading it, an
antivirus scan) cannot be replaced for a moment: the replace is tried again
(``REPLACE_TRIES``), then :class:`FileHeldOpen` names the file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lanTag.errors import LanTagError

__all__ = ["REPLACE_TRIES", "FileHeldOpen", "read_text", "write_atomic", "write_text_atomic"]

REPLACE_TRIES = 5
"""Tries of a replace refused with PermissionError, waiting 0.05 s, then twice as long
each time (0.75 s in all): a scan or a reader lets go within that, a program that
keeps the file open does not."""
_FIRST_WAIT = 0.05

Sleep = Callable[[float], None]


class FileHeldOpen(LanTagError, PermissionError):
    """The file could not be replaced: another program holds it open (Windows)."""


def read_text(path: Path | str) -> str:
    """A text file as lanTag reads it: UTF-8, a leading byte-order mark dropped (Notepad,
    PowerShell 5's ``Out-File``), Windows' CRLF (and old Mac CR) line ends read as LF.
    Raises OSError / UnicodeDecodeError as ``Path.read_text`` does."""
    text = Path(path).read_bytes().decode("utf-8-sig")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def write_atomic(
    path: Path,
    data: bytes,
    *,
    private: bool = False,
    exclusive: bool = False,
    sleep: Sleep = time.sleep,
) -> None:
    """Replace ``path`` by ``data`` all at once (``exclusive``: create it, FileExistsError
    if it exists, so two first runs cannot replace each other's new key).

    ``private`` files (keys, secrets) get mode 0600 on POSIX; elsewhere the mode
    means nothing (Windows keeps per-user profile folders private by ACL) and is
    left as the OS makes it.  Other files get the usual umask-derived mode.
    A replace refused with PermissionError is tried again (``sleep`` waits in between),
    then raises :class:`FileHeldOpen`.
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
            _retrying(lambda: _create_from(tmp, path), path, sleep)
        else:
            _retrying(lambda: os.replace(tmp, path), path, sleep)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_dir(path.parent)


def write_text_atomic(
    path: Path,
    text: str,
    *,
    private: bool = False,
    exclusive: bool = False,
    sleep: Sleep = time.sleep,
) -> None:
    """``write_atomic`` of ``text`` encoded as UTF-8 (encoded before anything is touched)."""
    write_atomic(path, text.encode("utf-8"), private=private, exclusive=exclusive, sleep=sleep)


def _retrying(move: Callable[[], None], path: Path, sleep: Sleep) -> None:
    """``move()``, tried again while Windows refuses it (a sharing violation surfaces as
    PermissionError); POSIX never refuses a replace for an open file."""
    wait = _FIRST_WAIT
    for attempt in range(1, REPLACE_TRIES + 1):
        try:
            move()
            return
        except PermissionError as exc:
            if attempt == REPLACE_TRIES:
                raise FileHeldOpen(
                    f"cannot replace {path}: another program holds it open (another "
                    "lantag, an antivirus scan?); close it and try again",
                ) from exc
        sleep(wait)
        wait *= 2


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
