"""Host keys seen before, by host nickname (trust on first use, like SSH's known_hosts).

One line per host nickname: ``FINGERPRINT NICKNAME`` (UTF-8), in the user data folder.
A key is remembered once a game with it started; a later welcome from that nickname
with another key is shown loudly before joining (lanTag.peer.joiner).  A damaged line is
skipped: the file only ever makes a warning, never a refusal on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

from lanTag.files import read_text, write_text_atomic
from lanTag.peer.runtime import data_dir

_LINE = re.compile(r"^([0-9a-f]{16}) (.{1,32})$")


def known_hosts_path() -> Path:
    return data_dir() / "known_hosts"


def load_known_hosts(path: Path | None = None) -> dict[str, str]:
    """host nickname -> fingerprint; empty when the file is missing or unreadable."""
    path = path or known_hosts_path()
    try:
        text = read_text(path)
    except (OSError, UnicodeDecodeError):
        return {}
    known: dict[str, str] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match:
            known[match.group(2)] = match.group(1)
    return known


def remember_host(nickname: str, fingerprint: str, path: Path | None = None) -> bool:
    """Record ``nickname``'s key (replacing an older one); False if it could not be written."""
    path = path or known_hosts_path()
    line = f"{fingerprint} {nickname}"
    if not _LINE.match(line):
        return False
    known = load_known_hosts(path)
    if known.get(nickname) == fingerprint:
        return True
    known[nickname] = fingerprint
    text = "".join(f"{fp} {nick}\n" for nick, fp in sorted(known.items()))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    except OSError:
        return False
    return True
