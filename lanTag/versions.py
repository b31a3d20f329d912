"""What this install runs: the lanTag release, the protocol version, each engine's rules.

``lantag --version`` prints these; peers compare the protocol and rules versions (the
lanTag release is shown to people only).
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

# The [project] version line of pyproject.toml (a source tree that was never installed).
_PYPROJECT_VERSION = re.compile(r'^version\s*=\s*"([^"]+)"\s*$', re.MULTILINE)


def lantag_version() -> str:
    """The installed lanTag release; from pyproject.toml in a bare source tree; else "unknown"."""
    try:
        return metadata.version("lanTag")
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        match = _PYPROJECT_VERSION.search(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        match = None
    return match.group(1) if match else "unknown"


def version_lines() -> list[str]:
    """``lanTag X``, ``protocol N`` and one ``<engine> rules N`` line per engine."""
    from lanTag.rules.registry import rules_versions
    from lanTag.session.messages import PROTOCOL_VERSION

    lines = [f"lanTag {lantag_version()}", f"protocol {PROTOCOL_VERSION}"]
    lines += [f"{engine} rules {version}" for engine, version in rules_versions().items()]
    return lines
