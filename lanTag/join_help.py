"""What to tell a player whose join failed: one line, naming the address and likely causes.

Kept in one place so the network side (firewall, address choice) can add causes it
detects without touching the join command.
"""

from __future__ import annotations

from collections.abc import Sequence

from lanTag.session.transport import Addr

DEFAULT_JOIN_TIMEOUT = 10.0  # seconds `lantag join` waits for the host's first answer


def no_answer_line(host: Addr, seconds: float, causes: Sequence[str] = ()) -> str:
    """The host at ``host`` said nothing within ``seconds``: where, and what to check.

    ``causes`` are extra likely causes found on this machine (each a short question),
    said before the generic ones.
    """
    address, port = host
    checks = [
        *causes,
        "is the game still hosted?",
        f"is UDP port {port} allowed by the firewall?",
    ]
    return f"no answer from {address}:{port} within {seconds:g} s — " + " ".join(checks)


def needs_terminal_line() -> str:
    """Joining with the console but stdin is not a terminal (a pipe, a service, a CI job)."""
    return "the console needs a terminal (stdin is not one); add --headless to let a bot play"
